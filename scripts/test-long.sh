#!/usr/bin/env bash
# npm run test:long: the full-length versions of the scenarios CI runs a short slice of (CI keeps the suite under
# 30 minutes): 60 s of consumer churn, 100,000 protocol fuzz frames, 200,000 structure-aware fuzz frames on a live
# cluster. `npm run fuzz`, `npm run bench:scale` and `npm run bench` are the longer runs beyond these.
set -uo pipefail
cd "$(dirname "$0")/.."
CHURN_MS=60000 PROTOCOL_FUZZ_FRAMES=100000 FUZZ_CI_FRAMES=200000 INTEGRATION_WORKERS=1 \
  npx jest -c test/jest.integration.config.js --testTimeout=900000 \
  test/integration/groups/churn.test.ts test/integration/protocol/fuzz.test.ts test/integration/abuse/fuzz.test.ts "$@"
