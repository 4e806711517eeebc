// expect: wrong_output | no element of
// Bug: the kernel runs on a device copy, but the result is never copied back to the host, so
// data is left exactly as it was.
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
  cudaDeviceSynchronize();
  cudaFree(d_data);
}
