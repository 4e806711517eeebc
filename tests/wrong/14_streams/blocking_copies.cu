// expect: requirement_unmet | use cudaMemcpyAsync
// Bug: the 02_vector_add way: one cudaMemcpy in, one kernel, one cudaMemcpy out. Right numbers,
// but every step waits for the one before it: nothing can overlap.
#include <cuda_runtime.h>

__global__ void hypotenuse(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sqrtf(1.0f + x[i] * x[i]);
}

void solve(const float* x, float* y, int n) {
  float *d_x, *d_y;
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaMemcpy(d_x, x, n * sizeof(float), cudaMemcpyHostToDevice);
  hypotenuse<<<(n + 255) / 256, 256>>>(d_x, d_y, n);
  cudaMemcpy(y, d_y, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d_x);
  cudaFree(d_y);
}
