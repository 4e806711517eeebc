#!/usr/bin/env bash
# A student repository's CI, the one script both CI templates run (`cudalab export` writes it as
# .ci/student-check.sh; GitHub: .github/workflows/cudalab.yml, GitLab: .gitlab-ci.yml): installs
# the missing Debian packages, builds cudalab without the GPU backend (CI runners have no GPU),
# checks every exercise on the CPU simulator and writes report.xml (JUnit) and check.txt (the
# table) in the repository root. In CI, `check` follows its report with one GCC-form line per
# finding; on GitHub, .github/cudalab-problem-matcher.json turns those into annotations. The exit code is the check's: 0 all passed, 1 something failed
# (a skeleton is "not implemented"), 2 set-up or build error.
#
#   CUDALAB_BUILD_DIR   build folder, relative to the repository (default: build/ci)
#   GITHUB_STEP_SUMMARY when set (GitHub Actions), the table is added to the job's summary
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
build=${CUDALAB_BUILD_DIR:-build/ci}

bash scripts/setup.sh || exit 2
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDALAB_ENABLE_CUDA=OFF \
  -DCUDALAB_BUILD_BENCH=OFF -DBUILD_TESTING=OFF || exit 2
cmake --build "$build" --target cudalab || exit 2

# GitHub: the problem matcher turns the `file:line:col: error: …` lines that `check` adds in CI into
# annotations on the student's lines.
if [ -n "${GITHUB_ACTIONS:-}" ] && [ -f .github/cudalab-problem-matcher.json ]; then
  echo "::add-matcher::.github/cudalab-problem-matcher.json"
fi
"$build/bin/cudalab" check --all --backend sim --junit report.xml --color never 2>&1 | tee check.txt
status=${PIPESTATUS[0]}

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  {
    echo "### cudalab check --all --backend sim: exit $status"
    echo '```'
    cat check.txt
    echo '```'
  } >>"$GITHUB_STEP_SUMMARY"
fi
exit "$status"
