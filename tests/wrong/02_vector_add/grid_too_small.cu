// expect: wrong_output | does your grid cover all n elements?
// Bug: the grid is sized for 4 elements per thread (n / (64 * 4) blocks of 64 threads), but the
// kernel still handles one element per thread and has no grid-stride loop, so only about the
// first quarter of c is computed once n > 64.
#include <cuda_runtime.h>

#include <stdexcept>

constexpr int THREADS = 64;
constexpr int ELEMENTS_PER_THREAD = 4;

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
  cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice);
  const int per_block = THREADS * ELEMENTS_PER_THREAD;
  vector_add<<<(n + per_block - 1) / per_block, THREADS>>>(d_a, d_b, d_c, n);
  cudaMemcpy(c, d_c, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
}
