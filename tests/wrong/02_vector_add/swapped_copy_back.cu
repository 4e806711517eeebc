// expect: cuda_error | the destination comes first
// never: a launch or a kernel failed
// Bug: the copy back has its pointers the wrong way round, cudaMemcpy(d_c, c, ...), as if the
// source came first: cudaMemcpy's destination is its first argument.
#include <cuda_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void solve(const float* a, const float* b, float* c, int n) {
  const size_t bytes = n * sizeof(float);
  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  cudaMalloc(&d_a, bytes);
  cudaMalloc(&d_b, bytes);
  cudaMalloc(&d_c, bytes);
  cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice);
  const int threads = 256;
  vector_add<<<(n + threads - 1) / threads, threads>>>(d_a, d_b, d_c, n);
  cudaMemcpy(d_c, c, bytes, cudaMemcpyDeviceToHost);  // the bug: should be cudaMemcpy(c, d_c, ...)
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
}
