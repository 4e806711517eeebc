#!/usr/bin/env bash
# install.deb_in_scratch_prefix: cudalab installed as a lab machine would, then used from there.
#   1. Package: cpack builds the .deb packages (cmake/Packaging.cmake) into a scratch folder. Each
#      Depends is a Debian package name known to dpkg, every library the installed programs link is
#      owned by a package they depend on (the CUDA toolkit's excepted: a Suggests), and dpkg-deb -x
#      unpacks them into <scratch>/root (no root needed). Without dpkg-deb (or with
#      CUDALAB_INSTALL_TEST_METHOD=cmake): `cmake --install` per component into <scratch>/root/usr.
#   2. The installed tree has its parts where cmake/Install.cmake says, and no trusted task.cpp.
#   3. From there, with CUDALAB_ROOT unset, a fresh module cache, the working folder outside any
#      project and, where the kernel grants a user and mount namespace, the source and build trees
#      hidden under an empty tmpfs: `check --all --solution` passes every exercise from the installed
#      solutions; `init` copies the exercises into a student's folder, where a solved exercise passes
#      and an untouched skeleton does not; a submission that hunts for the installed solutions is
#      stopped by the sandbox; `cudalab grade` finds cudalab-grading; no output names the source tree.
# The module cache starts empty on purpose: a cached module would hide a broken compile step (the
# installed simulator headers, libcudalab_sim.so); the build tree's cache cannot serve anyway (its
# keys hold the runner folder and the simulator headers' folder).
# Usage: install_test.sh BUILD_DIR SOURCE_DIR CPACK CMAKE
set -euo pipefail

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Runs a command with its output in $logs/NAME; its exit status in $rc.
run() {
  local name=$1
  shift
  echo "+ $*" >"$logs/$name"
  "$@" >>"$logs/$name" 2>&1 && rc=0 || rc=$?
}

# Shows a log and fails.
fail_with_log() {
  local name=$1
  shift
  cat "$logs/$name" >&2
  fail "$* (output above)"
}

# Step 3, run in the namespace where there is one: uses the installed cudalab only.
installed_phase() {
  local prefix=$1 scratch=$2 source=$3 build=$4 hide=$5
  logs=$scratch/logs/installed  # apart from cpack's, which names the build tree
  mkdir -p "$logs"
  if [ "$hide" = hide ]; then
    mount -t tmpfs -o size=1m,mode=0755 cudalab-source-hidden "$source"
    case "$build/" in "$source"/*) ;; *) mount -t tmpfs -o size=1m,mode=0755 cudalab-build-hidden "$build" ;; esac
    [ ! -e "$source/CMakeLists.txt" ] || fail "the source tree is still visible"
    echo "source tree hidden: $source"
  fi
  unset CUDALAB_ROOT
  export CUDALAB_CACHE_DIR=$scratch/cache HOME=$scratch/home NO_COLOR=1
  mkdir -p "$HOME" "$scratch/work"
  local cudalab=$prefix/bin/cudalab data
  data=$(realpath "$prefix")/share/cudalab
  local exercises
  exercises=$(find "$data/exercises" -mindepth 1 -maxdepth 1 -type d | wc -l)
  [ "$exercises" -gt 0 ] || fail "no exercises in $data/exercises"

  # A student's own copy: what init copies is exactly the installed exercise folder's README and skeleton.
  run init "$cudalab" init "$scratch/student"
  [ "$rc" = 0 ] || fail_with_log init "init exited $rc"
  local dir id
  for dir in "$data"/exercises/*/; do
    id=$(basename "$dir")
    cmp -s "$dir/kernel.cu" "$scratch/student/exercises/$id/kernel.cu" || fail_with_log init "init: $id/kernel.cu differs"
    cmp -s "$dir/README.md" "$scratch/student/exercises/$id/README.md" || fail_with_log init "init: $id/README.md differs"
  done

  cd "$scratch/student"
  # In the student's folder (which holds no solutions), --solution takes the installed ones: every
  # reference solution passes.
  local t0=$SECONDS
  run all_solutions "$cudalab" check --all --solution --backend sim
  [ "$rc" = 0 ] || fail_with_log all_solutions "check --all --solution exited $rc"
  # The results table's rows: "03_matmul         passed                   16/16     92.6ms".
  local rows passed failed
  rows=$(grep -E '^[0-9]{2}_[a-z0-9_]+ +[a-z][a-z ]* +[0-9]+/[0-9]+ ' "$logs/all_solutions" || true)
  passed=$(grep -cE '^[0-9]{2}_[a-z0-9_]+ +passed ' <<<"$rows" || true)
  failed=$(grep -vE '^[0-9]{2}_[a-z0-9_]+ +passed ' <<<"$rows" || true)
  if [ "$passed" != "$exercises" ] || [ -n "$failed" ]; then
    fail_with_log all_solutions "$passed of $exercises exercises passed"
  fi
  echo "check --all --solution: $passed of $exercises exercises passed ($((SECONDS - t0)) s, cold module cache)"

  run solution_path "$cudalab" check 1 --solution --backend sim --verbose
  [ "$rc" = 0 ] || fail_with_log solution_path "check 1 --solution --verbose exited $rc"
  grep -q "usr/share/cudalab/solutions/01_increment/kernel.cu)" "$logs/solution_path" ||
    fail_with_log solution_path "the report does not name the installed solution"

  # Inside it, cudalab works on the student's files: a solved exercise passes, a skeleton does not.
  cp "$data/solutions/01_increment/kernel.cu" exercises/01_increment/kernel.cu
  run student_solved "$cudalab" check 1 --backend sim --verbose
  [ "$rc" = 0 ] || fail_with_log student_solved "the student's solved 01_increment exited $rc"
  grep -q "(exercises/01_increment/kernel.cu)" "$logs/student_solved" ||
    fail_with_log student_solved "the report does not name the student's file"
  run student_skeleton "$cudalab" check 2 --backend sim
  [ "$rc" = 1 ] || fail_with_log student_skeleton "the untouched skeleton of 02_vector_add exited $rc, not 1"
  if grep -qE '^02_vector_add +passed ' "$logs/student_skeleton"; then
    fail_with_log student_skeleton "the untouched skeleton passed"
  fi

  # The installed solutions are cudalab's data: a submission checked in the student's folder cannot read them.
  if grep -q "^sandbox: Landlock" "$logs/all_solutions"; then
    sed "s|@PROJECT@|$data|g" "$scratch/reads_solution.cu" >"$scratch/student/reads_solution.cu"
    run escape "$cudalab" check 5 --file "$scratch/student/reads_solution.cu" --backend sim --verbose
    ! grep -q ESCAPED "$logs/escape" || fail_with_log escape "a submission read the installed solutions"
    [ "$rc" = 0 ] || fail_with_log escape "the escape attempt exited $rc"
    grep -qF "the sandbox blocked: open $data/solutions/05_reduce/kernel.cu (permission denied by the sandbox)" \
      "$logs/escape" || fail_with_log escape "the sandbox did not report the blocked read"
  else
    echo "note: no Landlock here; the sandbox's file rules are not exercised"
  fi

  # The instructor's program lives with the runners, where `cudalab grade` looks for it.
  if [ -x "$prefix/lib/cudalab/cudalab-grading" ]; then
    run grade_help "$cudalab" grade --help
    if [ "$rc" != 0 ] || ! grep -q "Usage: cudalab grade" "$logs/grade_help"; then
      fail_with_log grade_help "cudalab grade --help (cudalab-grading) exited $rc"
    fi
  fi

  # Nothing the installed cudalab said points back into the source tree.
  if grep -lF "$source/" "$logs"/*; then
    fail "the installed cudalab named the source tree $source (in the logs listed above)"
  fi
}

if [ "${1:-}" = "--installed" ]; then
  shift
  installed_phase "$@"
  exit 0
fi

[ $# = 4 ] || fail "usage: install_test.sh BUILD_DIR SOURCE_DIR CPACK CMAKE"
build=$(realpath "$1")
source=$(realpath "$2")
cpack=$3
cmake=$4
start=$SECONDS
if [ ! -d "$source/solutions" ]; then
  echo "skipped: the students' distribution has no solutions/ to check an installation with"
  exit 77  # SKIP_RETURN_CODE
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/cudalab-install.XXXXXX")
scratch=$(realpath "$scratch")
trap 'rm -rf "$scratch"' EXIT
case "$scratch/" in "$source"/* | "$build"/*) fail "the scratch folder $scratch must lie outside $source" ;; esac
logs=$scratch/logs
mkdir -p "$logs"
root=$scratch/root
prefix=$root/usr

# 1. Package and unpack.
method=${CUDALAB_INSTALL_TEST_METHOD:-deb}
command -v dpkg-deb >/dev/null || method=cmake
if [ "$method" = deb ]; then
  run cpack "$cpack" --config "$build/CPackConfig.cmake" -B "$scratch/packages"
  [ "$rc" = 0 ] || fail_with_log cpack "cpack exited $rc"
  expected=(cudalab cudalab-solutions)
  [ -x "$build/bin/cudalab-grading" ] && expected+=(cudalab-grading)
  declare -A built=()
  depends=()
  for deb in "$scratch"/packages/*.deb; do
    [ -e "$deb" ] || fail "cpack made no .deb"
    package=$(dpkg-deb -f "$deb" Package)
    built[$package]=1
    IFS=',' read -ra groups <<<"$(dpkg-deb -f "$deb" Depends)"
    depends+=("${groups[@]}")
    dpkg-deb -x "$deb" "$root"
  done
  for package in "${expected[@]}"; do
    [ -n "${built[$package]:-}" ] || fail "cpack made no $package package (made: ${!built[*]})"
  done
  # Every Depends group names Debian packages, one of which is installed here (where the build linked them).
  declare -A allowed=()
  for group in "${depends[@]}"; do
    found=""
    IFS='|' read -ra alternatives <<<"$group"
    for alternative in "${alternatives[@]}"; do
      name=$(awk '{print $1}' <<<"$alternative")
      [[ "$name" =~ ^[a-z0-9][a-z0-9+.-]+$ ]] || fail "Depends: '$name' is not a Debian package name"
      allowed[$name]=1
      if [[ "$name" == cudalab* ]]; then
        [ -n "${built[$name]:-}" ] && found=$name
      elif [ "$(dpkg-query -W -f='${Status}' "$name" 2>/dev/null || true)" = "install ok installed" ]; then
        found=$name
      fi
    done
    [ -n "$found" ] || fail "Depends: no package of '$group' is installed here (is each a Debian package name?)"
  done
  # Every library an installed program links comes with cudalab or from a package it depends on.
  declare -A owners=()
  for file in "$prefix"/bin/* "$prefix"/lib/cudalab/*; do
    [ "$(head -c 4 "$file" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
    while read -r lib; do
      [ -e "$prefix/lib/cudalab/$lib" ] && continue
      # The GPU runner's CUDA runtime comes with the toolkit it was built with: a Suggests.
      [[ "$lib" =~ ^lib(cuda|cudart|cupti|nvrtc|nvJitLink)[.-] ]] && continue
      # "libfmt.so.9 => /lib/…/libfmt.so.9 (0x…)"; the loader: "/lib64/ld-linux-x86-64.so.2 (0x…)"
      path=$(ldd "$file" | awk -v lib="$lib" '{ n = split($1, part, "/") } $1 == lib { print $3 } n > 1 && part[n] == lib { print $1 }')
      [ -e "${path:-/nonexistent}" ] || fail "$(basename "$file") links $lib, which is not found here"
      if [ -z "${owners[$path]:-}" ]; then
        owner=""
        real=$(realpath "$path")
        for candidate in "$path" "$real" "${path#/usr}" "/usr$path" "${real#/usr}" "/usr$real"; do
          owner=$(dpkg-query -S "$candidate" 2>/dev/null | head -1 | cut -d: -f1 || true)
          [ -n "$owner" ] && break
        done
        [ -n "$owner" ] || fail "$(basename "$file") links $path, which no Debian package owns"
        owners[$path]=$owner
      fi
      [ -n "${allowed[${owners[$path]}]:-}" ] ||
        fail "$(basename "$file") links $lib from ${owners[$path]}, which no cudalab package depends on"
    done < <(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  done
  echo "packages: ${!built[*]} (each library linked is owned by a Depends package)"
else
  for component in runtime solutions grading; do
    run "install_$component" "$cmake" --install "$build" --prefix "$prefix" --component "$component" --strip
    [ "$rc" = 0 ] || fail_with_log "install_$component" "cmake --install --component $component exited $rc"
  done
  echo "installed with cmake --install per component (no dpkg-deb)"
fi

# 2. The installed layout.
for part in bin/cudalab lib/cudalab/cudalab-runner-sim lib/cudalab/libcudalab_sim.so \
  share/cudalab/sim-include/cuda_runtime.h share/cudalab/exercises/01_increment/kernel.cu \
  share/cudalab/exercises/01_increment/README.md share/cudalab/solutions/01_increment/kernel.cu \
  share/doc/cudalab/README.md share/doc/cudalab/docs/architecture.md; do
  [ -e "$prefix/$part" ] || fail "the installation lacks $part"
done
[ -z "$(find "$prefix/share/cudalab" -name task.cpp)" ] || fail "the installation ships the trusted task.cpp"

# 3. Use it, the source tree out of sight where the kernel lets a user namespace hide it.
cp "$source/tests/escapes/reads_solution.cu" "$scratch/"
if unshare --user --map-root-user --mount true 2>/dev/null; then
  unshare --user --map-root-user --mount bash "$0" --installed "$prefix" "$scratch" "$source" "$build" hide
else
  echo "note: no user namespace here: the source tree stays visible; the outputs are checked for it instead"
  bash "$0" --installed "$prefix" "$scratch" "$source" "$build" show
fi
echo "install test passed in $((SECONDS - start)) s"
