#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image. The autograder zip
# (grading/gradescope/make-autograder.sh) unpacks to /autograder/source: this script, run_autograder
# and the project in cudalab/. Installs the packages the build needs and builds cudalab (CPU
# simulator only: Gradescope's machines have no GPU, so speed is not graded there).
#
# Needs CMake >= 3.25 and packages that Ubuntu 22.04 lacks (libtomlplusplus-dev): choose the
# Ubuntu 24.04 base image in the autograder settings (or a Debian 12 image). An older base stops
# here with the missing piece named.
set -euo pipefail
autograder=${AUTOGRADER_DIR:-/autograder}
project=$autograder/source/cudalab
build=$project/build/gradescope
export DEBIAN_FRONTEND=noninteractive

# The build's packages (the project's list, less the documentation and lint tools and the browser
# of the HTML report's test: Ubuntu's chromium is a snap, which a container cannot install) and
# grading's.
mapfile -t packages < <(grep -v '^\s*#' "$project/scripts/debian-packages.txt" | grep -v '^\s*$' |
  grep -vxE 'doxygen|clang-format|clang-tidy|chromium')
packages+=(libarchive-dev libsqlite3-dev libsqlitecpp-dev libtomlplusplus-dev)

apt-get update
missing=()
for p in "${packages[@]}"; do
  apt-cache show "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "cudalab setup: this image has no package ${missing[*]}: choose the Ubuntu 24.04 base image" >&2
  exit 1
fi
apt-get install -y --no-install-recommends "${packages[@]}"

have=$(cmake --version | awk 'NR == 1 { print $3 }')
if [ "$(printf '%s\n' 3.25 "$have" | sort -V | head -1)" != 3.25 ]; then
  echo "cudalab setup: CMake $have is older than 3.25: choose the Ubuntu 24.04 base image" >&2
  exit 1
fi

cmake -S "$project" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDALAB_ENABLE_CUDA=OFF \
  -DCUDALAB_BUILD_BENCH=OFF -DBUILD_TESTING=OFF
cmake --build "$build" --target cudalab cudalab-grading
# The image is usable only if the tool runs: fail here, not on the first submission.
CUDALAB_ROOT=$project "$build/bin/cudalab" list >/dev/null
