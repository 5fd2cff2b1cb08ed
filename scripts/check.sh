#!/usr/bin/env bash
# README command 2: install what is missing, build, and run every test through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --workflow --preset check
