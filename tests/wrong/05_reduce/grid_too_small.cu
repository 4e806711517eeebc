// expect: wrong_output | sum of the first
// Bug: the grid is sized for 4 elements per thread, but each thread reads only one element (no
// grid-stride loop), so once n > 256 only a prefix of x is added up.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>

constexpr int THREADS_PER_BLOCK = 256;

__device__ float warp_reduce_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__device__ float block_reduce_sum(float v, float* warp_sums) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  v = warp_reduce_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_reduce_sum(lane < static_cast<int>(blockDim.x / 32) ? warp_sums[lane] : 0.0f);
  return v;
}

__global__ void reduce_sum(const float* x, float* sum, int n) {
  __shared__ float warp_sums[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = block_reduce_sum(i < n ? x[i] : 0.0f, warp_sums);
  if (threadIdx.x == 0) atomicAdd(sum, v);
}

void solve(const float* x, float* sum, int n) {
  cudaMemset(sum, 0, sizeof(float));
  const int per_block = THREADS_PER_BLOCK * 4;
  reduce_sum<<<(n + per_block - 1) / per_block, THREADS_PER_BLOCK>>>(x, sum, n);
}
