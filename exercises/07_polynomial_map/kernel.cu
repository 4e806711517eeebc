// 07_polynomial_map — evaluate a polynomial at every element: y[i] = p(x[i]), where
//   p(x) = c[0] + c[1]*x + c[2]*x^2 + ... + c[7]*x^7.
//
// Contract (the harness calls solve; keep the signature exactly as it is):
//   void solve(const float* coefficients, const float* x, float* y, int n)
//   - coefficients is a DEVICE pointer to 8 floats c[0] ... c[7] (new ones on every call).
//   - x and y are DEVICE pointers to n floats each, n >= 1.
//   - When solve returns, y[i] must equal p(x[i]); coefficients and x unchanged.
//   - The kernel must read the coefficients from __constant__ memory, filled with
//     cudaMemcpyToSymbol: that is what this exercise practises.
//
// Read exercises/07_polynomial_map/README.md first. Check your work with:
//   ./cudalab check 07_polynomial_map
#include <cuda_runtime.h>

#include <stdexcept>

// TODO(student): constant memory. Declare the coefficients at file scope:
//   __constant__ float c_coefficients[8];
// Every thread can read it; only the host can fill it (cudaMemcpyToSymbol in solve).

__global__ void polynomial(const float* x, float* y, int n) {
  // TODO(student): an element-wise map. One thread per element: i = blockIdx.x * blockDim.x +
  //   threadIdx.x, and if (i < n) compute y[i] from x[i] alone (a grid-stride loop later).
  // TODO(student): Horner's rule with the coefficients from constant memory:
  //   p = c_coefficients[7]; then p = p * x[i] + c_coefficients[k] for k = 6 down to 0.
  //   Seven multiply-adds, no powers, fewer roundings.
}

void solve(const float* coefficients, const float* x, float* y, int n) {
  // TODO(student): fill constant memory from the device buffer, every call (the coefficients
  //   change): cudaMemcpyToSymbol(c_coefficients, coefficients, 8 * sizeof(float), 0,
  //   cudaMemcpyDeviceToDevice). The kind says where the source lives.
  // TODO(student): launch polynomial with enough blocks to cover n, then check cudaGetLastError().
  throw std::logic_error("not implemented yet: write polynomial and solve in exercises/07_polynomial_map/kernel.cu");
}
