#!/usr/bin/env bash
# README command 2: install what is missing, build, and run every test through ctest.
# In CI (CI=true), or with SANITIZE=1, it then builds the ASan + UBSan preset and runs the whole
# suite again under it; the suite runs every chapter program (docs_build, test_bad_input and the
# chapter tests), so any sanitizer finding fails a test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --workflow --preset check
if [[ "${CI:-}" == "true" || "${SANITIZE:-0}" == "1" ]]; then
  echo "== sanitizers: ASan + UBSan build and the whole suite under it"
  cmake --workflow --preset sanitize
fi
