// expect: wrong_output | cudaMemcpy counts bytes, not elements
// never: does your grid cover all n elements?
// Bug: the inputs are copied in with n (a count of floats) where cudaMemcpy wants bytes,
// n * sizeof(float): only the first quarter of a and b reaches the device, and c is wrong from
// there on. The launch has a thread for every element: the copies, not the grid, stop early.
#include <cuda_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void solve(const float* a, const float* b, float* c, int n) {
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  cudaMalloc(&d_a, bytes);
  cudaMalloc(&d_b, bytes);
  cudaMalloc(&d_c, bytes);
  cudaMemcpy(d_a, a, n, cudaMemcpyHostToDevice);  // the bug: n bytes
  cudaMemcpy(d_b, b, n, cudaMemcpyHostToDevice);
  vector_add<<<(n + 255) / 256, 256>>>(d_a, d_b, d_c, n);
  cudaMemcpy(c, d_c, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
}
