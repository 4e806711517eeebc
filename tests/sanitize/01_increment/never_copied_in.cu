// finding: uninitialized_read | 8 | cudaMalloc'd memory holds garbage
// Bug: the input is never copied to the device, so the kernel increments whatever cudaMalloc's
// memory held.
#include <cuda_runtime.h>

__global__ void increment_by_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

void solve(int* data, int n) {
  int* d_data = nullptr;
  cudaMalloc(&d_data, n * sizeof(int));
  // the bug: no cudaMemcpy(d_data, data, ..., cudaMemcpyHostToDevice) here
  increment_by_one<<<(n + 255) / 256, 256>>>(d_data, n);
  cudaMemcpy(data, d_data, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_data);
}
