// finding: data_race | 14 | between the steps of a reduction tree
// Bug: the reduction tree has no __syncthreads() between its steps, so a thread adds a partner's
// slot before the partner has added into it.
#include <cuda_runtime.h>

constexpr int THREADS = 256;

__global__ void sum_of_squares(const float* x, float* total, int n) {
  __shared__ float partial[THREADS];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? x[i] * x[i] : 0.0f;
  __syncthreads();
  for (int stride = THREADS / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    // the bug: no __syncthreads() here
  }
  if (threadIdx.x == 0) atomicAdd(total, partial[0]);
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
