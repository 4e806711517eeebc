// expect: compile_error | calling a __host__ function(
// Bug: the kernel calls a helper that is not marked __device__: without a qualifier a function
// is host code only, and device code cannot call it. nvcc rejects the call ("calling a __host__
// function from a __global__ function is not allowed"); the simulator, where host and device
// share one CPU, must reject it too.
#include <cuda_runtime.h>

int plus_one(int x) { return x + 1; }

__global__ void increment_by_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = plus_one(data[i]);
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
