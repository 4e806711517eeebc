// finding: none
// Correct: the block's partial sums live in dynamic shared memory sized at launch (the third
// <<<>>> argument), reduced with a barrier between every step; the total is added atomically.
#include <cuda_runtime.h>

__global__ void sum_of_squares(const float* x, float* total, int n) {
  extern __shared__ float partial[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? x[i] * x[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, partial[0]);
}

__global__ void scale(const float* x, float* y, const float* total, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] / sqrtf(*total);
}

void solve(const float* x, float* y, int n) {
  constexpr int threads = 128;
  float* d_total = nullptr;
  cudaMalloc(&d_total, sizeof(float));
  cudaMemset(d_total, 0, sizeof(float));
  const int blocks = (n + threads - 1) / threads;
  sum_of_squares<<<blocks, threads, threads * sizeof(float)>>>(x, d_total, n);
  scale<<<blocks, threads>>>(x, y, d_total, n);
  cudaFree(d_total);
}
