// expect: uninitialized_read | sum as solve received it: its contents are garbage
// finding: uninitialized_read | 31 | set it before adding into it
// finding on gpu: wrong_output | - | *sum starts with garbage
// never: (never written)
// never: did the kernel run
// Bug: *sum is never set to zero, so the blocks atomically add onto the garbage it held (the
// harness fills it with a signalling NaN, which the first addition turns into a written NaN).
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
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  acc = warp_reduce_sum(acc);
  if (lane == 0) warp_sums[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = warp_reduce_sum(lane < static_cast<int>(blockDim.x / 32) ? warp_sums[lane] : 0.0f);
    if (lane == 0) atomicAdd(sum, acc);
  }
}

void solve(const float* x, float* sum, int n) {
  const int blocks = std::min((n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, 1024);
  reduce_sum<<<blocks, THREADS_PER_BLOCK>>>(x, sum, n);
}
