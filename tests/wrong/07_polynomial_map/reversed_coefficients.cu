// expect: wrong_output | reverse order
// Bug: Horner's rule started from c[0] instead of c[7], so c[0] multiplies x^7 and c[7] is the
// constant term: the polynomial with its coefficients reversed.
#include <cuda_runtime.h>

__constant__ float c_coefficients[8];

__global__ void polynomial(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float p = c_coefficients[0];
  for (int k = 1; k < 8; ++k) p = p * x[i] + c_coefficients[k];
  y[i] = p;
}

void solve(const float* coefficients, const float* x, float* y, int n) {
  cudaMemcpyToSymbol(c_coefficients, coefficients, 8 * sizeof(float), 0, cudaMemcpyDeviceToDevice);
  polynomial<<<(n + 255) / 256, 256>>>(x, y, n);
}
