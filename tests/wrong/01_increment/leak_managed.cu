// expect: device_leak | not freed
// Bug: the result is right, but the managed buffer is never released with cudaFree. Managed memory
// (cudaMallocManaged) is device memory too, on both backends.
#include <cuda_runtime.h>

__global__ void increment_by_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

void solve(int* data, int n) {
  int* d_data = nullptr;
  cudaMallocManaged(&d_data, n * sizeof(int));
  cudaMemcpy(d_data, data, n * sizeof(int), cudaMemcpyHostToDevice);
  const int threads = 256;
  increment_by_one<<<(n + threads - 1) / threads, threads>>>(d_data, n);
  cudaMemcpy(data, d_data, n * sizeof(int), cudaMemcpyDeviceToHost);
  // the bug: no cudaFree(d_data)
}
