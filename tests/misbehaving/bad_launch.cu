// 01_increment: a block of 2048 threads is an invalid launch configuration.
#include <cuda_runtime.h>
__global__ void increment_by_one(int* d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] += 1;
}
void solve(int* data, int n) {
  int* d = nullptr;
  cudaMalloc(&d, n * sizeof(int));
  cudaMemcpy(d, data, n * sizeof(int), cudaMemcpyHostToDevice);
  increment_by_one<<<(n + 2047) / 2048, 2048>>>(d, n);
  cudaMemcpy(data, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
}
