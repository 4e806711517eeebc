#!/usr/bin/env bash
# The test suite from a fresh clone: installs what is missing, configures, builds, runs ctest.
# Works with or without the CUDA toolkit and a GPU (GPU tests skip, saying why).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
cmake --workflow --preset default
