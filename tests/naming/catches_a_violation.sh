#!/usr/bin/env bash
# The naming check must fail on a constexpr variable that is not kCamelCase, and pass once it is:
# a scratch project of one file, with its own compile commands, through scripts/check-naming.py.
set -euo pipefail
script=$1
source_dir=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/project/harness" "$scratch/build"
cp "$source_dir/.clang-tidy" "$scratch/project/"
file=$scratch/project/harness/limits.cpp
printf 'constexpr int max_threads = 1024;\nint threads() { return max_threads; }\n' >"$file"
cat >"$scratch/build/compile_commands.json" <<JSON
[{"directory": "$scratch/build", "file": "$file", "command": "c++ -std=c++20 -O0 -o limits.o -c $file"}]
JSON
if out=$(python3 "$script" "$scratch/build" "$scratch/project" 1 2>&1); then
  echo "FAIL: the naming check passed a constexpr variable named max_threads:"
  echo "$out"
  exit 1
fi
grep -q "invalid case style for constexpr variable 'max_threads'" <<<"$out" || {
  echo "FAIL: the naming check failed without naming the variable:"
  echo "$out"
  exit 1
}
sed -i 's/max_threads/kMaxThreads/g' "$file"
out=$(python3 "$script" "$scratch/build" "$scratch/project" 1 2>&1) || {
  echo "FAIL: the naming check failed on kMaxThreads:"
  echo "$out"
  exit 1
}
echo "the naming check fails on max_threads and passes kMaxThreads"
