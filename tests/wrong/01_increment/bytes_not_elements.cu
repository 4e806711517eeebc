// expect: wrong_output | sizeof
// never: does your grid cover all n elements?
// Bug: the copy back is given n (a count of ints) where cudaMemcpy wants bytes, n * sizeof(int):
// only the first quarter of the array comes back incremented.
#include <cuda_runtime.h>

#include <stdexcept>

__global__ void increment_by_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

void solve(int* data, int n) {
  const size_t bytes = static_cast<size_t>(n) * sizeof(int);
  int* d_data = nullptr;
  cudaMalloc(&d_data, bytes);
  cudaMemcpy(d_data, data, bytes, cudaMemcpyHostToDevice);
  increment_by_one<<<(n + 255) / 256, 256>>>(d_data, n);
  cudaMemcpy(data, d_data, n, cudaMemcpyDeviceToHost);
  cudaFree(d_data);
}
