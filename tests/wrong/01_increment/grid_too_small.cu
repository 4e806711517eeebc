// expect: wrong_output | does your grid cover all n elements?
// Bug: the grid is sized for 256 threads per block but launched with 128 (the block size was
// changed in one place only), so only the first half of the elements is covered once n > 128.
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
  const int threads = 128;
  const int blocks = (n + 255) / 256;
  increment_by_one<<<blocks, threads>>>(d_data, n);
  cudaMemcpy(data, d_data, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_data);
}
