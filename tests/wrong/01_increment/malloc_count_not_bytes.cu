// expect: cuda_error | cudaMalloc and cudaMemcpy count bytes
// never: a launch or a kernel failed
// Bug: cudaMalloc is given n, a count of ints, where it wants bytes (n * sizeof(int)): the copy
// of n ints into the n-byte buffer is the first call that fails, and the report must name it
// rather than blame the kernel.
#include <cuda_runtime.h>

__global__ void increment_by_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

void solve(int* data, int n) {
  int* d_data = nullptr;
  cudaMalloc(&d_data, n);  // the bug: n bytes, not n * sizeof(int)
  cudaMemcpy(d_data, data, n * sizeof(int), cudaMemcpyHostToDevice);
  const int threads = 256;
  increment_by_one<<<(n + threads - 1) / threads, threads>>>(d_data, n);
  cudaMemcpy(data, d_data, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_data);
}
