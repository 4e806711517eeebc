// finding: out_of_bounds | 8 | check the index against the size
// Bug: the loop bound is `<=`: every thread of the last block that has i == n reads a[n] and b[n]
// and writes c[n], one element past each device array.
#include <cuda_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) c[i] = a[i] + b[i];
}

void solve(const float* a, const float* b, float* c, int n) {
  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  const size_t bytes = n * sizeof(float);
  cudaMalloc(&d_a, bytes);
  cudaMalloc(&d_b, bytes);
  cudaMalloc(&d_c, bytes);
  cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice);
  vector_add<<<n / 256 + 1, 256>>>(d_a, d_b, d_c, n);
  cudaMemcpy(c, d_c, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
}
