// finding: barrier_error | 11 | every lane named in a shuffle's or vote's mask
// finding on gpu: none (synccheck does not flag a shuffle whose mask names exited lanes)
// Bug: threads past n return, then the rest shuffle with the full mask 0xffffffff, which names
// the lanes that returned: the shuffle waits for lanes that never come.
#include <cuda_runtime.h>

__global__ void warp_sums(const float* x, float* sum, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;  // the bug: these lanes are still in the mask below
  float v = x[i];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(sum, v);
}

void solve(const float* x, float* sum, int n) {
  cudaMemset(sum, 0, sizeof(float));
  warp_sums<<<(n + 255) / 256, 256>>>(x, sum, n);
}
