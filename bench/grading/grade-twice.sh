#!/usr/bin/env bash
# Grades one generated class twice with the same seed and compares: the largest difference of any
# student's total (the same submission must get the same grade) and the wall times (two GPUs
# against one).
#
#   bench/grading/grade-twice.sh N GPUS_A GPUS_B [OUT]     e.g. 100 0 0,1
#
# N students × 5 exercises (scripts/make_demo_class.py). Each grading starts from its own empty
# module cache, as an instructor's first run does, unless WARM=1: then the class is compiled once
# beforehand into a cache both gradings copy, so the comparison is of checking and timing alone.
# OUT (default /tmp/cudalab-twice-N) keeps both gradings' folders, logs and grades.csv.
# docs/performance.md has the measured tables.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:?usage: grade-twice.sh N GPUS_A GPUS_B [OUT]}
gpus_a=${2:?usage: grade-twice.sh N GPUS_A GPUS_B [OUT]}
gpus_b=${3:?usage: grade-twice.sh N GPUS_A GPUS_B [OUT]}
out=${4:-/tmp/cudalab-twice-$n}
cli=${CUDALAB:-$here/build/default/bin/cudalab}

rm -rf "$out"
mkdir -p "$out"
python3 "$here/scripts/make_demo_class.py" "$out/class" "$n" >/dev/null
if [ "${WARM:-0}" = 1 ]; then
  echo "compiling the class once (WARM=1)"
  CUDALAB_CACHE_DIR="$out/warm-cache" "$cli" grade "$out/class" --out "$out/warm" --seed 1 --gpus "$gpus_a" \
    --color never >/dev/null 2>&1 || true
fi

grade() {  # NAME GPUS
  local name=$1 gpus=$2 start end status
  rm -rf "$out/$name-cache"
  if [ -d "$out/warm-cache" ]; then cp -a "$out/warm-cache" "$out/$name-cache"; fi
  start=$(date +%s.%N)
  set +e
  CUDALAB_CACHE_DIR="$out/$name-cache" "$cli" grade "$out/class" --out "$out/$name" --seed 1 --gpus "$gpus" \
    --color never >"$out/$name.txt" 2>"$out/$name-progress.txt"
  status=$?
  set -e
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.1f}')" >"$out/$name.seconds"
  echo "$name: --gpus $gpus, exit $status, $(cat "$out/$name.seconds") s end to end"
  grep -A3 '^graded in' "$out/$name.txt" | sed 's/^/  /' || true
}
grade a "$gpus_a"
grade b "$gpus_b"

python3 - "$out/a/grades.csv" "$out/b/grades.csv" "$out/a.seconds" "$out/b.seconds" <<'EOF'
import csv, sys
def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    return head, {r[0]: r[1:] for r in rows[1:]}
head, a = read(sys.argv[1])
_, b = read(sys.argv[2])
exercises = head[1:-2]
worst = (0.0, None)
cells = []
for student in sorted(a):
    ta, tb, top = float(a[student][-2]), float(b[student][-2]), float(a[student][-1])
    if abs(ta - tb) > worst[0]:
        worst = (abs(ta - tb), student, ta, tb, top)
    for i, e in enumerate(exercises):
        x, y = a[student][i], b[student][i]
        if x != y and x and y and abs(float(x) - float(y)) > 1e-9:
            cells.append((abs(float(x) - float(y)), student, e, x, y))
print(f"{len(a)} students: {sum(1 for s in a if abs(float(a[s][-2]) - float(b[s][-2])) > 1e-9)} totals differ")
if worst[1]:
    d, s, ta, tb, top = worst
    print(f"largest difference: {s} {ta:g} against {tb:g} of {top:g} ({100 * d / top:.2f} % of the points)")
for d, s, e, x, y in sorted(cells, reverse=True)[:15]:
    print(f"  {s} {e}: {x} against {y}")
wa, wb = (float(open(p).read()) for p in sys.argv[3:5])
print(f"end to end: {wa:.1f} s against {wb:.1f} s: {wa / wb:.2f}×")
EOF

# How well each paired ratio was known: its 95 % interval's half-width and the rounds it took.
python3 - "$out/a/gradebook.sqlite" "$out/b/gradebook.sqlite" <<'EOF'
import sqlite3, statistics, sys
for path in sys.argv[1:]:
    rows = sqlite3.connect(path).execute(
        "SELECT exercise, ratio, ratio_low, ratio_high, ratio_rounds FROM attempts WHERE ratio_rounds > 0").fetchall()
    if not rows:
        print(f"{path}: no paired timing")
        continue
    widths = sorted(100 * (hi - lo) / 2 / r for _, r, lo, hi, _ in rows)
    rounds = [k for *_, k in rows]
    within = sum(1 for w in widths if w <= 1.0 + 1e-9)
    print(f"{path.split('/')[-2]}: {len(rows)} timed attempts, interval ±{statistics.median(widths):.2f} % (median), "
          f"±{widths[-1]:.2f} % (widest), {within} within ±1 %; rounds {min(rounds)}–{max(rounds)}, "
          f"median {statistics.median(rounds):g}")
EOF

# Per exercise, where each grading's checking and timing went (the progress lines, summed up).
python3 "$here/bench/grading/time-split.py" "$out/a-progress.txt" "$out/b-progress.txt" >"$out/split.txt" &&
  echo "per exercise, where the time went: $out/split.txt"
