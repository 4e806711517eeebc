// expect: requirement_unmet | __constant__ memory
// Bug: the kernel reads the coefficients straight from the device buffer it was given. The
// numbers are right, but the exercise is constant memory, and no cudaMemcpyToSymbol was made.
#include <cuda_runtime.h>

__global__ void polynomial(const float* c, const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float p = c[7];
  for (int k = 6; k >= 0; --k) p = p * x[i] + c[k];
  y[i] = p;
}

void solve(const float* coefficients, const float* x, float* y, int n) {
  polynomial<<<(n + 255) / 256, 256>>>(coefficients, x, y, n);
}
