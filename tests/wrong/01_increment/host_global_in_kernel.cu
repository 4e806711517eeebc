// expect: compile_error | identifier "step" is undefined in device code
// Bug: the kernel reads a namespace-scope variable that lives in host memory. The GPU cannot see
// it (only __device__, __constant__ and __managed__ variables, or a const with a constant
// initializer, are visible to device code): nvcc rejects the use, and so must the simulator,
// where the CPU would happily read it.
#include <cuda_runtime.h>

int step = 1;

__global__ void increment_by_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += step;
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
