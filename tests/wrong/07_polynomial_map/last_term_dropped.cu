// expect: wrong_output | the x^7 term is missing
// Bug: an off-by-one copies only 7 coefficients (7 * sizeof(float) bytes) into constant memory;
// c_coefficients[7] stays 0, so the x^7 term is dropped.
#include <cuda_runtime.h>

__constant__ float c_coefficients[8];

__global__ void polynomial(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float p = c_coefficients[7];
  for (int k = 6; k >= 0; --k) p = p * x[i] + c_coefficients[k];
  y[i] = p;
}

void solve(const float* coefficients, const float* x, float* y, int n) {
  cudaMemcpyToSymbol(c_coefficients, coefficients, 7 * sizeof(float), 0, cudaMemcpyDeviceToDevice);
  polynomial<<<(n + 255) / 256, 256>>>(x, y, n);
}
