// expect: wrong_output | earlier
// Bug: the coefficients are copied to constant memory on the first call only, to save the copy.
// Constant memory keeps its value between calls, but the next call brings new coefficients:
// from the second call on, every y is the old polynomial.
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
  static bool copied = false;
  if (!copied) {
    cudaMemcpyToSymbol(c_coefficients, coefficients, 8 * sizeof(float), 0, cudaMemcpyDeviceToDevice);
    copied = true;
  }
  polynomial<<<(n + 255) / 256, 256>>>(x, y, n);
}
