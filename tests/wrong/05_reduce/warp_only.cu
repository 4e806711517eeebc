// expect: wrong_output | sum of the first
// Bug: each block reduces its warps with shuffles but then adds only warp 0's result to *sum
// (the per-warp sums are never combined through shared memory): only 32 of every 256
// elements count. With one block that is the sum of the first 32 elements.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>

constexpr int THREADS_PER_BLOCK = 256;

__device__ float warp_reduce_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void reduce_sum(const float* x, float* sum, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = warp_reduce_sum(i < n ? x[i] : 0.0f);
  if (threadIdx.x == 0) atomicAdd(sum, v);
}

void solve(const float* x, float* sum, int n) {
  cudaMemset(sum, 0, sizeof(float));
  reduce_sum<<<(n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, THREADS_PER_BLOCK>>>(x, sum, n);
}
