// expect: wrong_output | more than once
// Bug: the kernel mixes the two covering patterns, a bounds-checked single element AND a
// grid-stride loop starting at the same index, so every element of the first pass is
// incremented twice (by the same thread: deterministic, no race).
#include <cuda_runtime.h>

#include <stdexcept>

__global__ void increment_by_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
  for (int j = i; j < n; j += blockDim.x * gridDim.x) data[j] += 1;
}

void solve(int* data, int n) {
  const size_t bytes = static_cast<size_t>(n) * sizeof(int);
  int* d_data = nullptr;
  cudaMalloc(&d_data, bytes);
  cudaMemcpy(d_data, data, bytes, cudaMemcpyHostToDevice);
  increment_by_one<<<(n + 255) / 256, 256>>>(d_data, n);
  cudaMemcpy(data, d_data, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_data);
}
