#!/usr/bin/env bash
# Screenshots of the book for people to look at: builds the docs, then runs the browser test
# (tests/browser/check_pages.mjs, Debian's Chromium through playwright-core) with --screenshots, so
# every book page is saved whole at 1280 px and at 400 px while it is checked. Installs what is
# missing first. Usage: scripts/screenshot-docs.sh [OUTPUT_DIR] (default build/release/docs/screenshots).
# Prints the browser test's findings; exits 1 if any check failed (the screenshots are saved anyway).
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."  # the repository, also when run through a link
out=${1:-$PWD/build/release/docs/screenshots}
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target browser_test_deps >/dev/null
cmake --build --preset docs >/dev/null
mkdir -p "$out"
status=0
node build/release/browser/check_pages.mjs --html build/release/docs/html --chromium "$(command -v chromium)" \
  --screenshots "$out" || status=$?
echo "screenshots: $out/<page>-1280.png and $out/<page>-400.png"
exit "$status"
