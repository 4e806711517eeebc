// expect: wrong_output | sum of the first
// Bug: every block reduces its 256 elements correctly, but only block 0 writes its total to
// *sum; the other blocks' totals are dropped. Correct only while one block covers all of x.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>

constexpr int THREADS_PER_BLOCK = 256;

__device__ float warp_reduce_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void reduce_sum(const float* x, float* sum, int n) {
  __shared__ float warp_sums[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = (i < n) ? x[i] : 0.0f;
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  v = warp_reduce_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_reduce_sum(lane < static_cast<int>(blockDim.x / 32) ? warp_sums[lane] : 0.0f);
    if (lane == 0 && blockIdx.x == 0) *sum = v;
  }
}

void solve(const float* x, float* sum, int n) {
  reduce_sum<<<(n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, THREADS_PER_BLOCK>>>(x, sum, n);
}
