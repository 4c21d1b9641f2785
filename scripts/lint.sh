#!/usr/bin/env bash
# npm run lint: ESLint (style, and the dependency direction between src/ folders from dependency-rules.json) and
# dependency-cruiser (no import cycle, type-only imports included) over src, bin, test and bench. Both always run,
# so one failure does not hide the other; the exit status is non-zero if either fails.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
npx eslint src bin test bench || status=1
npx depcruise --config .dependency-cruiser.cjs --output-type err src bin test bench || status=1
exit $status
