// explain: divergence | 17 | `if (tid < stride)` with the stride halving each step
// The first reduction most people write: the interleaved tree. At stride s only the threads whose
// index is a multiple of 2s add, so every warp stays busy through every step with 16, 8, 4, 2, 1
// of its 32 lanes working (15 % of its lanes on average over the tree). Right output; the block
// sums go to one float by atomicAdd, and a second kernel scales. Keeping the working threads
// together (`if (tid < stride)`, stride halving from blockDim.x / 2) lets whole warps finish early.
#include <cuda_runtime.h>

constexpr int THREADS = 256;

__global__ void sum_of_squares(const float* x, float* total, int n) {
  __shared__ float s[THREADS];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] * x[i] : 0.0f;
  __syncthreads();
  for (int stride = 1; stride < blockDim.x; stride *= 2) {
    if (threadIdx.x % (2 * stride) == 0) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, s[0]);
}

__global__ void scale(const float* x, float* y, const float* total, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] / sqrtf(*total);
}

void solve(const float* x, float* y, int n) {
  float* total = nullptr;
  cudaMalloc(&total, sizeof(float));
  cudaMemset(total, 0, sizeof(float));
  const int blocks = (n + THREADS - 1) / THREADS;
  sum_of_squares<<<blocks, THREADS>>>(x, total, n);
  scale<<<blocks, THREADS>>>(x, y, total, n);
  cudaFree(total);
}
