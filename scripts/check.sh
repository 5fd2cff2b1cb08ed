#!/usr/bin/env bash
# README command 2 (and CI, through .ci/run): install what is missing, then build and run every test
# twice: a release build, then an ASan + UBSan build. The suite runs every chapter program (the
# chapter tests, docs_build and test_bad_input), so any sanitizer finding fails a test.
# Prints each pass's wall time at the end.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."  # the repository, also when run through a link
scripts/install-deps.sh
start=$SECONDS
cmake --workflow --preset check
release=$((SECONDS - start))
echo "== sanitizers: the same suite, every chapter program included, under ASan + UBSan"
cmake --workflow --preset sanitize
sanitize=$((SECONDS - start - release))
echo "== check passed: release build + tests ${release} s, ASan + UBSan build + tests ${sanitize} s"
