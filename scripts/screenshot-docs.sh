#!/usr/bin/env bash
# Opens the book's main page and one chapter page in headless Chromium and saves screenshots,
# so a person can look at what a reader sees. Builds the docs first; installs Debian's chromium
# if it is missing. Usage: scripts/screenshot-docs.sh [CHAPTER_PAGE] (default ch01_mixing).
set -euo pipefail
cd "$(dirname "$0")/.."
page=${1:-ch01_mixing}
scripts/install-deps.sh
if ! command -v chromium >/dev/null 2>&1; then
  as_root=(); [[ $(id -u) -eq 0 ]] || as_root=(sudo)
  "${as_root[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
cmake --preset release >/dev/null
cmake --build --preset docs >/dev/null
html="$PWD/build/release/docs/html"
out="$PWD/build/release/docs/screenshots"
mkdir -p "$out"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
for name in index "$page"; do
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --hide-scrollbars --window-size=1280,2400 \
    --virtual-time-budget=4000 --screenshot="$out/$name.png" "file://$html/$name.html" 2>/dev/null
  echo "screenshot: $out/$name.png"
done
