// finding: cuda_error | - | cudaMemcpy writes
// Bug: the copy back counts a million elements too many. The device buffer is large enough, but
// `data` holds n ints: the copy would write past its end (a segmentation fault, or over the next
// case's inputs). The simulator refuses the copy and names the host buffer and both sizes.
#include <cuda_runtime.h>

__global__ void increment_by_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

void solve(int* data, int n) {
  const size_t padded = (n + 1000000) * sizeof(int);
  int* d_data = nullptr;
  cudaMalloc(&d_data, padded);
  cudaMemcpy(d_data, data, n * sizeof(int), cudaMemcpyHostToDevice);
  increment_by_one<<<(n + 255) / 256, 256>>>(d_data, n);
  cudaMemcpy(data, d_data, padded, cudaMemcpyDeviceToHost);
  cudaFree(d_data);
}
