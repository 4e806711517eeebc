// explain: divergence | 17 | `if (tid < stride)` with the stride halving each step
// The interleaved tree: at stride s only threads whose index is a multiple of 2s add, so every
// warp stays busy through every step with 16, 8, 4, 2, 1 of its 32 lanes working. Keeping the
// working threads together (`if (tid < stride)`, stride halving) lets whole warps finish early.
#include <cuda_runtime.h>

constexpr int THREADS = 256;

__global__ void block_sums(const float* x, float* partial, int n) {
  __shared__ float s[THREADS];
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * THREADS + tid;
  s[tid] = i < static_cast<unsigned>(n) ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = 1; stride < THREADS; stride *= 2) {
    if (tid % (2 * stride) == 0) {
      s[tid] += s[tid + stride];
    }
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = s[0];
}

__global__ void add_partials(const float* partial, float* sum, int blocks) {
  float total = 0.0f;
  for (int b = threadIdx.x; b < blocks; b += 32) total += partial[b];
  for (int offset = 16; offset > 0; offset /= 2) total += __shfl_down_sync(0xffffffffu, total, offset);
  if (threadIdx.x == 0) *sum = total;
}

void solve(const float* x, float* sum, int n) {
  const int blocks = (n + THREADS - 1) / THREADS;
  float* partial = nullptr;
  cudaMalloc(&partial, blocks * sizeof(float));
  block_sums<<<blocks, THREADS>>>(x, partial, n);
  add_partials<<<1, 32>>>(partial, sum, blocks);
  cudaFree(partial);
}
