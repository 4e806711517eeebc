// Deliberately broken: the sim toolchain must report the compiler's error at line 14 of THIS file,
// although a launch above it was rewritten.
#include <cuda_runtime.h>

__global__ void fine(int* p) { *p = 1; }

void solve(int* data, int n) {
  fine<<<
      1,
      1>>>(
      data);
  (void)n;
  int ok = 0;
  int broken = undeclared_identifier + ok;
}
