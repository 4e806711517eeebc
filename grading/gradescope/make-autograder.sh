#!/usr/bin/env bash
# Builds the zip to upload as a Gradescope autograder: setup.sh and run_autograder at its root,
# the project in cudalab/. Student code runs on the same machine with the autograder's rights and
# its output reaches the student, so the zip holds nothing that must stay secret: no solutions/,
# no tests/wrong/ (near-solutions), no bench/ (a complete tiled matmul), no build trees or .git.
#
#   grading/gradescope/make-autograder.sh [OUT.zip]     (default: build/gradescope-autograder.zip)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(realpath -m "${1:-$root/build/gradescope-autograder.zip}")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage/cudalab" "$(dirname "$out")"
cp "$root/grading/gradescope/setup.sh" "$root/grading/gradescope/run_autograder" "$stage/"
chmod +x "$stage/setup.sh" "$stage/run_autograder"
tar -C "$root" --exclude=./build --exclude=./.git --exclude=./.cache --exclude=./.device --exclude=./solutions \
  --exclude=./tests/wrong --exclude=./bench -cf - . | tar -C "$stage/cudalab" -xf -
rm -f "$out"
(cd "$stage" && cmake -E tar cf "$out" --format=zip setup.sh run_autograder cudalab)
echo "$out"
