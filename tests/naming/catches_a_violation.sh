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

naming_check() { python3 "$script" "$scratch/build" "$scratch/project" 1 2>&1; }
# must_fail WHAT TEXT: the check fails on WHAT and its output says TEXT.
must_fail() {
  local out
  if out=$(naming_check); then
    printf 'FAIL: the naming check passed %s:\n%s\n' "$1" "$out"
    exit 1
  fi
  grep -q "$2" <<<"$out" || {
    printf 'FAIL: the naming check failed on %s without saying "%s":\n%s\n' "$1" "$2" "$out"
    exit 1
  }
}
must_pass() {
  local out
  out=$(naming_check) || {
    printf 'FAIL: the naming check failed on %s:\n%s\n' "$1" "$out"
    exit 1
  }
}
compile_commands() {  # the one compile command: of FILE, compiled as OBJECT
  cat >"$scratch/build/compile_commands.json" <<JSON
[{"directory": "$scratch/build", "file": "$1", "command": "c++ -std=c++20 -O0 -o $2 -c $1"}]
JSON
}

compile_commands "$file" limits.o
printf 'constexpr int max_threads = 1024;\nint threads() { constexpr int kOne = 1; return max_threads * kOne; }\n' >"$file"
must_fail "a constexpr variable named max_threads" "limits.cpp:1:1: constexpr variable 'max_threads' is not kCamelCase"
sed -i 's/max_threads/kMaxThreads/g' "$file"
must_pass kMaxThreads

# A NOLINT for this check silences it (CUDA's own names, as clang-tidy honours it); one for another does not.
printf 'constexpr int warpSize = 32;  // NOLINT(readability-identifier-naming): CUDA name\n' >"$file"
must_pass "a name its NOLINT comment silences"
printf '// NOLINTNEXTLINE(bugprone-*)\nconstexpr int warpSize = 32;\n' >"$file"
must_fail "a name silenced for another check only" "constexpr variable 'warpSize'"

# A unity build's compile command names a generated file that includes the sources: the check
# parses that file and still names the source and its line.
unity=$scratch/build/CMakeFiles/limits.dir/Unity/unity_0_cxx.cxx
mkdir -p "$(dirname "$unity")"
printf '#include "%s"\n' "$file" >"$unity"
printf 'int before();\nconstexpr int max_threads = 1024;\n' >"$file"
compile_commands "$unity" unity_0_cxx.cxx.o
must_fail "max_threads in a unity build" "limits.cpp:2:1: constexpr variable 'max_threads' is not kCamelCase"

compile_commands "$file" limits.o
printf 'constexpr int kMaxThreads = ;\n' >"$file"
must_fail "a file that does not parse" "does not parse"
echo "the naming check fails on max_threads, passes kMaxThreads, honours NOLINT, reads unity builds and fails on a file that does not parse"
