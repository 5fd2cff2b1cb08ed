#!/usr/bin/env bash
# Install, only when missing, every Debian 12 package this project needs to build, test,
# plot and document, and to check the book in a browser. Idempotent: with everything present it only asks dpkg and returns.
# Runs as root directly, otherwise through sudo.
set -euo pipefail

packages=(
  build-essential cmake pkg-config python3
  libarmadillo-dev libopenblas-dev liblapack-dev
  libboost-test-dev libboost-program-options-dev libboost-iostreams-dev
  libboost-filesystem-dev libboost-system-dev
  libfmt-dev   # printing: fmt::format and fmt/ranges.h
  gnuplot-nox libgnuplot-iostream-dev fonts-dejavu-core
  doxygen libjs-mathjax
  libbenchmark-dev
  nlohmann-json3-dev   # chapter 09's GPT-2 files: the safetensors header, vocab.json, config.json
  libpcre2-dev         # chapter 09's GPT-2 tokenizer: the pre-tokenizer's regular expression, Unicode classes
  python3-numpy        # tests/gpt2_reference.py: the independent GPT-2 the C++ one is checked against
  chromium
  clang-format clang-tidy   # scripts/check-format.sh, scripts/run-clang-tidy.sh
  fortunes
  graphviz   # dot: the schematic diagrams of chapters 02 and 03
  # The book's live widgets (docs/live): the lesson code compiled to WebAssembly by em++. Debian's
  # emscripten runs its JavaScript tools on Node with Debian's acorn (found through
  # NODE_PATH=/usr/share/nodejs, which the docs build sets), and brings binaryen and clang.
  emscripten node-acorn
)
# The browser test drives Chromium with playwright-core (npm ci, tests/browser/package-lock.json).
# Node.js and npm come from Debian only when the machine has none (a NodeSource node ships its own npm).
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install-deps: missing packages (${missing[*]}) and not root, and sudo is not available" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
