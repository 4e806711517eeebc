// expect: wrong_output | no cudaMemcpyToSymbol was made
// Bug: the __constant__ array is declared and read, but solve never copies the coefficients into
// it: constant memory starts as zeros, so every y[i] is 0.
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
  (void)coefficients;  // the bug: never copied to c_coefficients
  polynomial<<<(n + 255) / 256, 256>>>(x, y, n);
}
