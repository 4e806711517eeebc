#!/usr/bin/env bash
# The class-scale grading benchmark: grade N generated students × 5 exercises (right and fast,
# right and slow, wrong, compile errors, crashes, hangs; scripts/make_demo_class.py) with speed
# points, and print where the wall time went (compiling and checking, then timing).
#
#   bench/grading/time-class.sh N [GPUS] [OUT]     e.g. 100 0    or    100 0,1
#
# GPUS is `cudalab grade --gpus` (default: the first GPU); OUT (default /tmp/cudalab-class-N) gets
# the class, the gradebook and grade.txt. The seed is fixed, so runs on one or two GPUs grade the
# same class with the same inputs. docs/performance.md has the measured tables.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:?usage: time-class.sh N [GPUS] [OUT]}
gpus=${2:-0}
out=${3:-/tmp/cudalab-class-$n}
cli=${CUDALAB:-$here/build/default/bin/cudalab}

rm -rf "$out"
mkdir -p "$out"
python3 "$here/scripts/make_demo_class.py" "$out/class" "$n" >/dev/null
start=$(date +%s.%N)
set +e
"$cli" grade "$out/class" --out "$out/results" --seed 1 --gpus "$gpus" --color never >"$out/grade.txt" 2>"$out/progress.txt"
status=$?
set -e
end=$(date +%s.%N)
python3 - "$start" "$end" "$status" "$n" "$gpus" <<'EOF'
import sys
start, end, status, n, gpus = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
print(f"{n} students, --gpus {gpus}: exit {status}, {end - start:.0f} s end to end")
EOF
grep -A3 '^graded in' "$out/grade.txt" || tail -5 "$out/grade.txt"
# Per exercise, where the checking and the timing went (the progress lines, summed up).
python3 "$here/bench/grading/time-split.py" "$out/progress.txt" >"$out/split.txt" &&
  echo "per exercise, where the time went: $out/split.txt"
