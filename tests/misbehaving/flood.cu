// 01_increment: solve prints without end.
#include <cstdio>
#include <cuda_runtime.h>
void solve(int* data, int n) {
  for (;;) std::printf("debugging output, n = %d, data[0] = %d\n", n, data[0]);
}
