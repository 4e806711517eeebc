// 05_reduce: solve works out its grid at the first call and keeps it (a static), one thread per
// element. Right while n fits the first grid (256 threads, from n=1), wrong from n=257 on. Every
// case of a check runs in one process, as the calls in a program do, so the check sees it.
#include <cuda_runtime.h>

__global__ void sum_one_each(const float* x, float* sum, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(sum, x[i]);
}

void solve(const float* x, float* sum, int n) {
  static int blocks = 0;
  if (blocks == 0) blocks = (n + 255) / 256;  // the bug: not worked out again for a larger n
  cudaMemset(sum, 0, sizeof(float));
  sum_one_each<<<blocks, 256>>>(x, sum, n);
}
