// finding: out_of_bounds | 9 | check the index against the size
// Bug: `i <= n` instead of `i < n`: the thread with i == n reads and writes one int past the end
// of the device array. The output is right, and on a GPU the stray write usually lands in unused
// memory, so the plain check passes.
#include <cuda_runtime.h>

__global__ void increment_by_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) data[i] += 1;
}

void solve(int* data, int n) {
  int* d_data = nullptr;
  cudaMalloc(&d_data, n * sizeof(int));
  cudaMemcpy(d_data, data, n * sizeof(int), cudaMemcpyHostToDevice);
  increment_by_one<<<(n + 256) / 256, 256>>>(d_data, n);
  cudaMemcpy(data, d_data, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_data);
}
