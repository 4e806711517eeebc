#!/usr/bin/env bash
# The naming check must fail on a constexpr variable that is not kCamelCase, and pass once it is,
# and fail on a file that does not parse (clang-query itself exits 0 there): a scratch project of
# one file, with its own compile commands, through scripts/check-naming.py.
set -euo pipefail
script=$1
source_dir=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/project/harness" "$scratch/build"
cp "$source_dir/.clang-tidy" "$scratch/project/"
file=$scratch/project/harness/limits.cpp
printf 'constexpr int max_threads = 1024;\nint threads() { constexpr int kOne = 1; return max_threads * kOne; }\n' >"$file"
cat >"$scratch/build/compile_commands.json" <<JSON
[{"directory": "$scratch/build", "file": "$file", "command": "c++ -std=c++20 -O0 -o limits.o -c $file"}]
JSON
if out=$(python3 "$script" "$scratch/build" "$scratch/project" 1 2>&1); then
  echo "FAIL: the naming check passed a constexpr variable named max_threads:"
  echo "$out"
  exit 1
fi
grep -q "limits.cpp:1:1: constexpr variable 'max_threads' is not kCamelCase" <<<"$out" || {
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
# A NOLINT for this check silences it (CUDA's own names, as clang-tidy honours it); one for another does not.
printf 'constexpr int warpSize = 32;  // NOLINT(readability-identifier-naming): CUDA name\n' >"$file"
out=$(python3 "$script" "$scratch/build" "$scratch/project" 1 2>&1) || {
  echo "FAIL: the naming check failed on a name its NOLINT comment silences:"
  echo "$out"
  exit 1
}
printf '// NOLINTNEXTLINE(bugprone-*)\nconstexpr int warpSize = 32;\n' >"$file"
if out=$(python3 "$script" "$scratch/build" "$scratch/project" 1 2>&1); then
  echo "FAIL: a NOLINT for another check silenced the naming check:"
  echo "$out"
  exit 1
fi
printf 'constexpr int kMaxThreads = ;\n' >"$file"
if out=$(python3 "$script" "$scratch/build" "$scratch/project" 1 2>&1); then
  echo "FAIL: the naming check passed a file that does not parse:"
  echo "$out"
  exit 1
fi
grep -q "does not parse" <<<"$out" || {
  echo "FAIL: the naming check failed on a file that does not parse without saying so:"
  echo "$out"
  exit 1
}
echo "the naming check fails on max_threads, passes kMaxThreads, honours NOLINT and fails on a file that does not parse"
