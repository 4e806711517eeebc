#!/usr/bin/env bash
# scripts/check-layers.py fails on a backward arrow: a scratch tree whose wire header includes the
# timing stage, whose runner includes a checking header, whose simulator includes the runner's header,
# whose test includes a detail/ header, and whose checking library links the timing stage and leaves
# out one of its own files.
set -euo pipefail
check=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/harness/include/cudalab" "$scratch/harness/runner"
printf '#include "cudalab/timing.hpp"\n' > "$scratch/harness/include/cudalab/protocol.hpp"
printf '#pragma once\n' > "$scratch/harness/include/cudalab/timing.hpp"
printf '#include "cudalab/judge.hpp"\n' > "$scratch/harness/runner/runner_main.cpp"
mkdir -p "$scratch/harness/sim/src" "$scratch/harness/src/checking"
printf '#include "runner/device_checks.hpp"\n' > "$scratch/harness/sim/src/exec.cpp"
: > "$scratch/harness/src/checking/judge.cpp"
: > "$scratch/harness/src/checking/forgotten.cpp"
printf 'cudalab_stage(cudalab_checking\n  SOURCES src/checking/judge.cpp\n  PUBLIC cudalab_timing)\n' \
  > "$scratch/harness/CMakeLists.txt"
mkdir -p "$scratch/tests/harness"
printf '#include "cudalab/detail/runner_session.hpp"\n' > "$scratch/tests/harness/test_check.cpp"
if out=$(python3 "$check" "$scratch"); then
  echo "check-layers.py passed a tree with backward includes:"; echo "$out"; exit 1
fi
grep -qF 'harness/include/cudalab/protocol.hpp: #include "cudalab/timing.hpp": wire may not include the timing stage' <<<"$out" \
  || { echo "the wire's include of timing was not named:"; echo "$out"; exit 1; }
grep -qF 'harness/runner/runner_main.cpp: #include "cudalab/judge.hpp": runner may not include the checking stage' <<<"$out" \
  || { echo "the runner's include of judge.hpp was not named:"; echo "$out"; exit 1; }
grep -qF 'tests/harness/test_check.cpp: #include "cudalab/detail/runner_session.hpp": tests use the public headers' <<<"$out" \
  || { echo "the test's include of a detail/ header was not named:"; echo "$out"; exit 1; }
grep -qF 'harness/sim/src/exec.cpp: #include "runner/device_checks.hpp": the simulator may not include the runner' <<<"$out" \
  || { echo "the simulator's include of the runner was not named:"; echo "$out"; exit 1; }
grep -qF 'harness/CMakeLists.txt: cudalab_checking links cudalab_timing: checking may not use that stage' <<<"$out" \
  || { echo "the checking library's link to timing was not named:"; echo "$out"; exit 1; }
grep -qF 'harness/CMakeLists.txt: cudalab_checking does not build src/checking/forgotten.cpp' <<<"$out" \
  || { echo "the checking file left out of its library was not named:"; echo "$out"; exit 1; }
grep -qF 'harness/CMakeLists.txt: the contract stage has no cudalab_stage(cudalab_contract ...)' <<<"$out" \
  || { echo "the stage without a library was not named:"; echo "$out"; exit 1; }
echo "every backward include and link named"
