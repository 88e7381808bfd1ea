#!/usr/bin/env bash
# The slow lane, for releases (README: Development): the whole suite and the smoke suite on the
# machine's Node and on Node 22, 24 and 26 (installed from the npm registry by .ci/node-line),
# then the fuzz suite at its full count. Start the S3 server and set DBTATTIC_REQUIRE_S3=1 and
# DBTATTIC_REQUIRE_BROWSER=1 first, as .ci/run does, to make their tests required.
set -euo pipefail
cd "$(dirname "$0")/.."
# Tests that run a second, slower variant only here read it (test/e2e/store-corpus.test.ts).
export DBTATTIC_TEST_FULL=1
lines=("$(dirname "$(command -v node)")")
for major in 22 24 26; do lines+=("$(.ci/node-line "$major")"); done
for bin in "${lines[@]}"; do
  echo "== Node $("$bin/node" --version): the whole suite, the real-dbt lane, then the smoke suite"
  PATH="$bin:$PATH" npm test
  PATH="$bin:$PATH" npm run test:dbt
  PATH="$bin:$PATH" npm run test:smoke
done
echo "== the fuzz suite at full count"
npm run fuzz
