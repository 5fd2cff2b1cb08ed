#!/usr/bin/env bash
# clang-tidy over the project's sources with the checks in .clang-tidy (every finding an error).
# Usage: scripts/run-clang-tidy.sh [FILE...]   (default: every .cpp under common/, chapters/, tests/)
# Configures build/tidy (compile commands, no precompiled header: clang cannot read GCC's) without
# building it, then runs the checks on two cores. Exit 0: clean; 1: findings (printed).
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."  # the repository, also when run through a link
command -v clang-tidy >/dev/null || { echo "run-clang-tidy: clang-tidy is not installed (apt-get install clang-tidy)" >&2; exit 1; }
cmake -S . -B build/tidy -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON \
      -DCMAKE_BUILD_TYPE=Release >/dev/null
if (($# > 0)); then files=("$@"); else mapfile -t files < <(git ls-files 'common/*.cpp' 'chapters/*.cpp' 'tests/*.cpp'); fi
# GCC-only warning flags in the compile commands are not clang's business.
printf '%s\n' "${files[@]}" | xargs -P 2 -n 4 clang-tidy -p build/tidy --quiet \
  --extra-arg=-Wno-unknown-warning-option --extra-arg=-Wno-unused-command-line-argument 2>&1 \
  | grep -v '^[0-9]* warnings\? generated\.$' | tee build/tidy/findings.txt || true
if grep -q 'error:' build/tidy/findings.txt; then
  echo "run-clang-tidy: findings above (also in build/tidy/findings.txt)" >&2
  exit 1
fi
echo "run-clang-tidy: clean (${#files[@]} files)"
