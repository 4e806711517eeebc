// expect: wrong_output | did you forget the square root
// Bug: divides by the sum of squares instead of its square root.
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

__global__ void sum_of_squares(const float* x, float* partials, int n) {
  __shared__ float warp_sums[32];
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    acc += x[i] * x[i];
  }
  acc = block_reduce_sum(acc, warp_sums);
  if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}

__global__ void sum_partials(const float* partials, float* total, int count) {
  __shared__ float warp_sums[32];
  float acc = 0.0f;
  for (int i = threadIdx.x; i < count; i += blockDim.x) acc += partials[i];
  acc = block_reduce_sum(acc, warp_sums);
  if (threadIdx.x == 0) *total = acc;
}

__global__ void scale(const float* x, float* y, const float* total, int n) {
  const float norm = *total;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = x[i] / norm;
  }
}

void solve(const float* x, float* y, int n) {
  const int blocks = std::min((n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, 4096);
  float* d_scratch = nullptr;
  cudaMalloc(&d_scratch, (blocks + 1) * sizeof(float));
  sum_of_squares<<<blocks, THREADS_PER_BLOCK>>>(x, d_scratch, n);
  sum_partials<<<1, THREADS_PER_BLOCK>>>(d_scratch, d_scratch + blocks, blocks);
  scale<<<blocks, THREADS_PER_BLOCK>>>(x, y, d_scratch + blocks, n);
  cudaFree(d_scratch);
}
