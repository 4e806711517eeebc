// finding: none
// Correct: each block writes its partial sum to a slot of its own; the last block to finish
// (counted with atomicAdd after a __threadfence) adds the slots. The reads of other blocks' slots
// are ordered by the fence and the atomic: no race. Warp-synchronous steps use __syncwarp.
#include <cuda_runtime.h>

constexpr int THREADS = 128;

__device__ unsigned int blocks_done = 0;

__global__ void reduce(const float* x, float* partials, float* sum, int n) {
  __shared__ float s[THREADS];
  __shared__ bool last;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int stride = THREADS / 2; stride >= 32; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x < 32) {
    float v = s[threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    __syncwarp();
    if (threadIdx.x == 0) {
      partials[blockIdx.x] = v;
      __threadfence();
      last = atomicAdd(&blocks_done, 1u) == gridDim.x - 1;
    }
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    float total = 0.0f;
    for (unsigned b = 0; b < gridDim.x; ++b) total += partials[b];
    *sum = total;
    blocks_done = 0;
  }
}

void solve(const float* x, float* sum, int n) {
  const int blocks = (n + THREADS - 1) / THREADS;
  float* d_partials = nullptr;
  cudaMalloc(&d_partials, blocks * sizeof(float));
  reduce<<<blocks, THREADS>>>(x, d_partials, sum, n);
  cudaFree(d_partials);
}
