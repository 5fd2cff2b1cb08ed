#!/usr/bin/env bash
# README command 1: install what is missing, build, then run every chapter in article order,
# each under a heading, printing its arithmetic and writing its plots into plots/.
# Extra arguments are passed to every chapter (e.g. --no-plots).
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."  # the repository, also when run through a link
scripts/install-deps.sh
echo "Building (minutes the first time on 2 cores, seconds after; log in build/tour-build.log) ..."
mkdir -p build
log=build/tour-build.log
# The whole build log goes to the file; the screen shows each chapter program as it is built, and
# the end of the log if the build fails.
set +e
{ cmake --preset release && cmake --build --preset release; } 2>&1 | tee "$log" | while IFS= read -r line; do
  [[ $line =~ ^\[\ *[0-9]+%\]\ Built\ target\ (ch0[1-9]_[a-z_]+)$ ]] || continue
  target=${BASH_REMATCH[1]}
  [[ $target =~ _(lesson|presentation|live_export)$ ]] || echo "  built $target"
done
built=${PIPESTATUS[0]}
set -e
if [[ $built -ne 0 ]]; then
  tail -n 40 "$log"
  echo "tour: the build failed; the whole log is in $log" >&2
  exit 1
fi

# Each line: the program, then the flags the tour runs it with (tab-separated).
mapfile -t chapters < build/release/chapters.txt
summary=()
status=0
for line in "${chapters[@]}"; do
  IFS=$'\t' read -r -a words <<< "$line"
  exe=${words[0]}
  name=$(basename "$exe")
  # Chapter 09 shows the full model: the first tour trains it into build/release/ch09_model (a
  # progress line on the terminal, 1 to 3 minutes); later tours, the book and the test suite read it
  # back while it was trained by the same program with the same settings, and train again when not.
  if [[ $name == ch09_real_heads ]]; then
    words=("$exe" --cached build/release/ch09_model)
  fi
  heading=$name
  ((${#words[@]} > 1)) && heading+=" ${words[*]:1}"  # the program, then its flags if any
  printf '\n######## %s ########\n' "$heading"
  start=$(date +%s%N)
  set +e
  "$exe" "${words[@]:1}" "$@" | tee "build/release/$name.tour.txt"
  code=${PIPESTATUS[0]}
  set -e
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  plots=$(sed -n 's/^plots: \([0-9]*\) written.*/\1/p' "build/release/$name.tour.txt")
  summary+=("$(printf '%-22s %6d.%03d s   %3s plots   exit %d' "$name" $((ms / 1000)) $((ms % 1000)) "${plots:-0}" "$code")")
  [[ $code -eq 0 ]] || status=1
done

printf '\n######## Summary ########\n%-22s %10s   %9s\n' chapter "wall time" plots
printf '%s\n' "${summary[@]}"
exit $status
