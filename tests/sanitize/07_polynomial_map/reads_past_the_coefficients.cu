// finding: out_of_bounds | 15 | past the end of the __constant__ array c
// finding on gpu: skip: not yet run under compute-sanitizer on a GPU
// Bug: a polynomial of degree 7 has 8 coefficients, c[0] … c[7], but Horner's rule starts from
// c[8]: one float past the end of the __constant__ array. What lies there is not the polynomial's
// (often 0, when the answer even comes out right). The checked run lays constants out between
// padding and names the read.
#include <cuda_runtime.h>

constexpr int DEGREE = 8;  // the bug: the degree is 7; 8 is the number of coefficients
__constant__ float c[8];

__global__ void polynomial(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float p = c[DEGREE];
  for (int k = DEGREE - 1; k >= 0; --k) p = fmaf(p, x[i], c[k]);
  y[i] = p;
}

void solve(const float* coefficients, const float* x, float* y, int n) {
  cudaMemcpyToSymbol(c, coefficients, sizeof(c), 0, cudaMemcpyDeviceToDevice);
  polynomial<<<(n + 255) / 256, 256>>>(x, y, n);
}
