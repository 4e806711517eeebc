// 01_increment: solve never returns.
#include <cuda_runtime.h>
void solve(int* data, int n) {
  volatile int spin = 1;
  while (spin) data[0] = n;
}
