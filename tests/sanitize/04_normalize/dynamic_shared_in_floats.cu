// finding: out_of_bounds | 10 | __shared__ array holds
// Bug: the launch asks for `threads` bytes of dynamic shared memory where the kernel needs
// `threads` floats (threads * sizeof(float) bytes): three quarters of the threads store past the
// end of the extern __shared__ array.
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
  sum_of_squares<<<blocks, threads, threads>>>(x, d_total, n);  // the bug: bytes, not floats
  scale<<<blocks, threads>>>(x, y, d_total, n);
  cudaFree(d_total);
}
