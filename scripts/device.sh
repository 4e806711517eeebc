#!/usr/bin/env bash
# Build here, run on the lent GPU machine (which has nvcc and the driver but none of our Debian
# dependencies). Two steps, one per machine:
#
#   scripts/device.sh build [TARGET...]  here: configure + build the `device` preset (sm_90a,
#                                      Release), all of it or the targets named (on 2 cores a
#                                      whole build takes half an hour: name what the run needs),
#                                      copy the Debian shared libraries it needs into
#                                      build/device/lib, pack it into .device/ (carry .device)
#   scripts/device.sh test [ARGS...]   there: run the test suite (ctest ARGS) and the main job,
#                                      logs into $OUT
#   scripts/device.sh run CMD...       there: run CMD with the same set-up (paths, libraries)
#
# The build folder holds absolute paths of this checkout (/work/main); on the device the script
# points that path at its copy of the tree, so ctest and the compiled-in paths work unchanged.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build_root=/work/main

bundle_libs() {
  local lib_dir=$here/build/device/lib
  mkdir -p "$lib_dir"
  for exe in "$here"/build/device/bin/*; do
    [ -x "$exe" ] && [ -f "$exe" ] || continue
    ldd "$exe" 2>/dev/null | awk '/=> \//{print $3}' | while read -r lib; do
      case "$(basename "$lib")" in
        libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libutil.so*|ld-linux*|libstdc++.so*|libgcc_s.so*|libcuda*|libcudart*|libcupti*|libcublas*|libnv*) ;;
        *) cp -Lu "$lib" "$lib_dir/" ;;
      esac
    done
  done
}

case "${1:-}" in
  build)
    shift
    cd "$here"
    cmake --preset device >/dev/null
    cmake --build --preset device -j "$(nproc)" ${1:+--target "$@"}
    rm -rf build/device/lib
    bundle_libs
    # Travels as one compressed file (carry .device): the folder itself is over the 64 MiB limit.
    # Objects and the test programs' precompiled headers (hundreds of MB) are needed only to build.
    mkdir -p .device
    tar -C build -czf .device/build-device.tar.gz --exclude='device/CMakeFiles' --exclude='*.o' --exclude='*.gch' device
    du -sh build/device .device/build-device.tar.gz
    ;;
  test|run)
    mode=$1
    shift
    if [ "$here" != "$build_root" ]; then
      mkdir -p "$(dirname "$build_root")"
      [ -e "$build_root" ] || ln -s "$here" "$build_root"
    fi
    cd "$build_root"
    if [ -f .device/build-device.tar.gz ] && [ ! -x build/device/bin/cudalab ]; then
      mkdir -p build && tar -C build -xzf .device/build-device.tar.gz
    fi
    # OpenBLAS 0.3.21 may not know the host CPU and fall back to SSE3 kernels: name the family.
    if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
      if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX; else export OPENBLAS_CORETYPE=Haswell; fi
    fi
    export LD_LIBRARY_PATH=$build_root/build/device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export CUDALAB_CACHE_DIR=/tmp/cudalab-cache
    out=${OUT:-/tmp/out}
    mkdir -p "$out"
    if [ "$mode" = run ]; then
      exec "$@"
    fi
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
    cli=./build/device/bin/cudalab
    {
      set +e  # the failing checks below are meant to fail
      echo "== cudalab check --all --solution (gpu)"; $cli check --all --solution --seed 1 --color never; echo "exit $?"
      echo "== cudalab check --all --solution --backend sim"; $cli check --all --solution --backend sim --seed 1 --color never; echo "exit $?"
      echo "== cudalab check --all (the skeletons)"; $cli check --all --seed 1 --color never; echo "exit $?"
      printf '#include <stdexcept>\nvoid solve(const float* A, const float* B, float* C, int M, int N, int K) {\n  int x = ;\n}\n' >/tmp/broken.cu
      echo "== cudalab check 03_matmul --file /tmp/broken.cu"; $cli check 03_matmul --file /tmp/broken.cu --color never; echo "exit $?"
      echo "== a known-wrong kernel"; $cli check 03_matmul --file tests/wrong/03_matmul/k_tail_dropped.cu --seed 1 --color never; echo "exit $?"
    } 2>&1 | tee "$out/cli.txt"
    # The format and naming checks need clang-format and clang-tidy, which the GPU machine lacks;
    # they run here and in CI.
    ctest --test-dir build/device --output-on-failure -j 4 -LE format "$@" 2>&1 | tee "$out/ctest.txt"
    ;;
  *)
    sed -n '2,16p' "$0"
    exit 2
    ;;
esac
