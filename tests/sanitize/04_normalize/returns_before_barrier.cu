// finding: barrier_error | 15 | instead of returning early
// finding on gpu: none (synccheck does not flag threads that returned before a barrier)
// Bug: threads past n return before the block's __syncthreads(). CUDA requires every thread of a
// block to reach each barrier; the ones that returned never do (on some GPUs the block hangs, on
// others the barrier releases early and the sum misses values).
#include <cuda_runtime.h>

constexpr int THREADS = 256;

__global__ void sum_of_squares(const float* x, float* total, int n) {
  __shared__ float partial[THREADS];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;  // the bug
  partial[threadIdx.x] = x[i] * x[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    const int count = n - blockIdx.x * blockDim.x < THREADS ? n - blockIdx.x * blockDim.x : THREADS;
    for (int k = 0; k < count; ++k) s += partial[k];
    atomicAdd(total, s);
  }
}

__global__ void scale(const float* x, float* y, const float* total, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] / sqrtf(*total);
}

void solve(const float* x, float* y, int n) {
  float* d_total = nullptr;
  cudaMalloc(&d_total, sizeof(float));
  cudaMemset(d_total, 0, sizeof(float));
  const int blocks = (n + THREADS - 1) / THREADS;
  sum_of_squares<<<blocks, THREADS>>>(x, d_total, n);
  scale<<<blocks, THREADS>>>(x, y, d_total, n);
  cudaFree(d_total);
}
