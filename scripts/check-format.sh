#!/usr/bin/env bash
# Checks that every C++ source follows .clang-format (clang-format, no changes written).
# Usage: scripts/check-format.sh [--fix] [FILE...]   (default: every tracked .cpp/.hpp/.hpp.in)
# Exit 0: every file formatted; 1: the files that are not (run with --fix to format them).
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."  # the repository, also when run through a link
command -v clang-format >/dev/null || { echo "check-format: clang-format is not installed (apt-get install clang-format)" >&2; exit 1; }
fix=0
if [[ ${1:-} == --fix ]]; then fix=1; shift; fi
if (($# > 0)); then
  files=()
  for f in "$@"; do
    case $f in *.cpp | *.hpp | *.hpp.in) files+=("$f") ;; *) echo "check-format: skipping $f (not a C++ source)" >&2 ;; esac
  done
elif git rev-parse --is-inside-work-tree >/dev/null 2>&1; then mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.hpp.in')
else mapfile -t files < <(find common chapters tests benchmarks -name '*.cpp' -o -name '*.hpp' -o -name '*.hpp.in' 2>/dev/null | sort); fi
if ((fix)); then clang-format -i "${files[@]}"; echo "check-format: formatted ${#files[@]} files"; exit 0; fi
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  printf 'check-format: not formatted (scripts/check-format.sh --fix):\n'; printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
