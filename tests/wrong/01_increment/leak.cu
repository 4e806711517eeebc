// expect: device_leak | not freed
// Bug: the result is right, but the device buffer is never released with cudaFree.
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
  cudaMemcpy(data, d_data, bytes, cudaMemcpyDeviceToHost);
}
