// expect: compile_error | a host function call cannot be configured
// Bug: the kernel is missing its __global__ qualifier, so it is an ordinary host function, and
// only a __global__ function can be launched with <<<...>>>. nvcc rejects the launch; the
// simulator must too, at the launch's line, rather than run the "kernel" on the CPU.
#include <cuda_runtime.h>

void increment_by_one(int* data, int n) {
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
  cudaFree(d_data);
}
