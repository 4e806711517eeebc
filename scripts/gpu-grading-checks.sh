#!/usr/bin/env bash
# The grading's trust checks on a GPU (issue: grades an instructor can stand behind), one call:
#   scripts/device.sh run bash scripts/gpu-grading-checks.sh
# 1. a class graded on the GPU with a secret seed file: a submission hunting for the seed
#    (tests/grading/hunts_seed.cu), an honest tiled matmul, a CPU product behind a dummy kernel
#    and one laundered through mapped memory; then every written file except the gradebook is
#    searched for the seed;
# 2. the reference solutions with the default check (no requirement or finding may fire);
# 3. the known-wrong corpus's host-work kernels and the timing fakes, GPU cases.
# Logs go to $OUT (or /tmp/gpu-grading-checks).
set -uo pipefail
out=${OUT:-/tmp/gpu-grading-checks}
mkdir -p "$out"
bin=build/device/bin
seed=9876543210123456789
class=$(mktemp -d) grades=$(mktemp -d)/grades
mkdir -p "$class"/{mallory/01_increment,ada/03_matmul,cpu/03_matmul,mapped/03_matmul}
cp tests/grading/hunts_seed.cu "$class/mallory/01_increment/kernel.cu"
cp solutions/03_matmul/step2_shared_tiles.cu "$class/ada/03_matmul/kernel.cu"
cp tests/wrong/03_matmul/host_product_dummy_kernel.cu "$class/cpu/03_matmul/kernel.cu"
cp tests/wrong/03_matmul/host_product_through_mapped_memory.cu "$class/mapped/03_matmul/kernel.cu"
echo "$seed" > "$class.seed" && chmod 600 "$class.seed"
"$bin/cudalab-grading" grade "$class" --out "$grades" --backend gpu --seed-file "$class.seed" --color never \
  > "$out/grade.txt" 2>&1
echo "grade exit $?" >> "$out/grade.txt"
cp "$grades/summary.txt" "$grades/grades.csv" "$out/" 2>/dev/null
cat "$grades"/feedback/*.md > "$out/feedback.md" 2>/dev/null
if grep -rl --exclude='gradebook.sqlite*' "$seed" "$grades" > "$out/seed-found.txt"; then
  echo "THE SEED IS IN THE FILES ABOVE" >> "$out/seed-found.txt"
else
  echo "the seed is in no file written for the class ($(find "$grades" -type f | wc -l) files)" >> "$out/seed-found.txt"
fi
"$bin/cudalab" check --all --solution --seed 1 --color never > "$out/check-all.txt" 2>&1
echo "check exit $?" >> "$out/check-all.txt"
"$bin/cudalab-test-exercises" --gtest_filter='Corpus/KnownWrong.*gpu_03_matmul_host_product*:All/Exercise.*' \
  > "$out/known-wrong.txt" 2>&1
"$bin/cudalab-test-harness" --gtest_filter='Fakes.*:SandboxedSolutions.*' > "$out/fakes.txt" 2>&1
tail -n 3 "$out"/*.txt
