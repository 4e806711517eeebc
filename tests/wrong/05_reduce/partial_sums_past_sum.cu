// expect: out_of_bounds | partial results need memory of their own
// finding: out_of_bounds | 35 | past the end of sum
// finding on gpu: out_of_bounds | 35 | past the end of a
// Bug: each block stores its partial sum in sum[blockIdx.x], as if sum were an array with one
// element per block, and a second kernel adds them up into sum[0]. sum holds one float: every
// block after the first writes past its end, into memory that is not the kernel's.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>

constexpr int THREADS_PER_BLOCK = 256;
constexpr int MAX_BLOCKS = 1024;

__device__ float warp_reduce_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__device__ float block_reduce_sum(float v) {
  __shared__ float warp_sums[32];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  v = warp_reduce_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_reduce_sum(lane < static_cast<int>(blockDim.x / 32) ? warp_sums[lane] : 0.0f);
  return v;
}

__global__ void partial_sums(const float* x, float* sum, int n) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
  acc = block_reduce_sum(acc);
  if (threadIdx.x == 0) sum[blockIdx.x] = acc;  // one float per block: past the end from block 1 on
}

__global__ void add_partials(float* sum, int count) {
  float acc = 0.0f;
  for (int i = threadIdx.x; i < count; i += blockDim.x) acc += sum[i];
  acc = block_reduce_sum(acc);
  if (threadIdx.x == 0) sum[0] = acc;
}

void solve(const float* x, float* sum, int n) {
  const int blocks = std::min((n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, MAX_BLOCKS);
  partial_sums<<<blocks, THREADS_PER_BLOCK>>>(x, sum, n);
  add_partials<<<1, THREADS_PER_BLOCK>>>(sum, blocks);
}
