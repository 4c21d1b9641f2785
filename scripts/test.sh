#!/usr/bin/env bash
# The README's test command: installs what is missing, type-checks, runs the unit and integration suites,
# and ends with one line `N passed, N failed`. Exit status is non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh zookeeper kcat python3-kafka python3-confluent-kafka chromium libssl-dev || exit 1

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0

if ! npx tsc --noEmit -p tsconfig.json; then
  echo "type check failed" >&2
  status=1
fi
if ! bash scripts/lint.sh; then
  echo "lint failed (style, dependency direction or an import cycle)" >&2
  status=1
fi

npx jest -c test/jest.unit.config.js --json --outputFile="$out/unit.json" --passWithNoTests "$@" || status=1
npx jest -c test/jest.integration.config.js --json --outputFile="$out/integration.json" --passWithNoTests "$@" || status=1

node -e '
  const fs = require("fs");
  let passed = 0, failed = 0;
  for (const f of process.argv.slice(1)) {
    if (!fs.existsSync(f)) { failed++; continue; }
    const r = JSON.parse(fs.readFileSync(f, "utf8"));
    passed += r.numPassedTests;
    failed += r.numFailedTests + (r.numRuntimeErrorTestSuites || 0);
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed > 0 ? 1 : 0);
' "$out/unit.json" "$out/integration.json" || status=1
exit $status
