#!/usr/bin/env bash
# Draws each exercise's picture for its README, exercises/NN_name/NN_name-threads.svg: `cudalab show` of the
# reference solution (solutions/NN_name/kernel.cu) on the simulator. Run it after changing a reference
# solution or what `show` draws; the suite's ShowFigures test fails while a picture is stale.
#   scripts/make-show-figures.sh [CUDALAB]     CUDALAB: the cudalab binary (default: build/default/bin/cudalab)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cudalab=${1:-$root/build/default/bin/cudalab}
for dir in "$root"/exercises/[0-9][0-9]_*/; do
  id=$(basename "$dir")
  [ -f "$root/solutions/$id/kernel.cu" ] || continue
  "$cudalab" show "$id" --solution --svg "${dir%/}/$id-threads.svg" || { echo "make-show-figures: $id failed" >&2; exit 1; }
done
