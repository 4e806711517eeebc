// expect: cuda_error | a grid of 0 blocks: a block count computed as n / threads rounds down to 0
// only on: sim
// Bug: the block count n / 256 rounds down: at n < 256 the grid has 0 blocks and the launch is
// refused (cudaErrorInvalidConfiguration); above, the last partial block is missing. On a GPU the
// refused launch is reported as the error after solve, without its grid (the launch is not
// recorded), hence sim only.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

__global__ void increment_by_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

void solve(int* data, int n) {
  int* d_data = nullptr;
  const size_t bytes = static_cast<size_t>(n) * sizeof(int);
  if (cudaMalloc(&d_data, bytes) != cudaSuccess) throw std::runtime_error("cudaMalloc failed");
  cudaMemcpy(d_data, data, bytes, cudaMemcpyHostToDevice);
  increment_by_one<<<n / 256, 256>>>(d_data, n);
  cudaMemcpy(data, d_data, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_data);
}
