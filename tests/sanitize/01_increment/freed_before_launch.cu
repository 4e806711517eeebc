// finding: out_of_bounds | 17 | cudaFree device memory only after the last kernel
// finding on gpu: out_of_bounds | 9 | read 4 bytes of global memory
// Bug: the device array is freed before the kernel that uses it is launched (the calls are in
// the wrong order), so the kernel works on memory that no longer belongs to the program.
#include <cuda_runtime.h>

__global__ void increment_by_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

void solve(int* data, int n) {
  int* d_data = nullptr;
  cudaMalloc(&d_data, n * sizeof(int));
  cudaMemcpy(d_data, data, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaFree(d_data);  // the bug: freed before the launch and the copy back
  increment_by_one<<<(n + 255) / 256, 256>>>(d_data, n);
  cudaMemcpy(data, d_data, n * sizeof(int), cudaMemcpyDeviceToHost);
}
