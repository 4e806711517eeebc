// expect: wrong_output | sizeof
// never: does your grid cover all n elements?
// Bug: the copy back is given n (a count of floats) where cudaMemcpy wants bytes,
// n * sizeof(float): only the first quarter of c reaches the host.
#include <cuda_runtime.h>

#include <stdexcept>

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

void solve(const float* a, const float* b, float* c, int n) {
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  cudaMalloc(&d_a, bytes);
  cudaMalloc(&d_b, bytes);
  cudaMalloc(&d_c, bytes);
  cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice);
  vector_add<<<(n + 255) / 256, 256>>>(d_a, d_b, d_c, n);
  cudaMemcpy(c, d_c, n, cudaMemcpyDeviceToHost);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
}
