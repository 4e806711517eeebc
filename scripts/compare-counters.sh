#!/usr/bin/env bash
# The simulator's counts checked against the GPU's hardware counters: every reference solution,
# every speed-ladder step and the known-slow kernels of tests/explain/, each run once under Nsight
# Compute by `cudalab bench --profile`, beside what `cudalab explain` counts on the simulator for
# the same call. Prints one Markdown table (docs/performance.md keeps the H100's).
#
#   scripts/compare-counters.sh [CUDALAB]     CUDALAB: the cudalab to run (default: ./cudalab)
#
# Needs a GPU and ncu (the CUDA toolkit's Nsight Compute) with its counters open to this user.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cudalab=${1:-$root/cudalab}
cd "$root"

ladders=(3 5)  # exercises with a speed ladder: their reference comes with the ladder
status=0
rows() { tail -n +3; }  # a table without its header
{
  # The header once, with the first reference.
  "$cudalab" bench 1 --solution --profile --markdown || status=1
  for dir in solutions/*/; do
    number=$(basename "$dir" | cut -d_ -f1)
    number=$((10#$number))
    [ "$number" = 1 ] && continue
    if [[ " ${ladders[*]} " == *" $number "* ]]; then
      "$cudalab" bench "$number" --ladder --profile --markdown | rows || status=1
    else
      "$cudalab" bench "$number" --solution --profile --markdown | rows || status=1
    fi
  done
  for file in tests/explain/*/*.cu; do
    number=$(basename "$(dirname "$file")" | cut -d_ -f1)
    "$cudalab" bench "$((10#$number))" --file "$file" --profile --markdown | rows || status=1
  done
}
exit $status
