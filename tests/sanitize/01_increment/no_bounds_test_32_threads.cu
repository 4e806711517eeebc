// finding: out_of_bounds | 9 | check the index
// Bug: no `if (i < n)`: the threads of the last block past n read and write data[i] beyond the
// end of the device buffer. With 32 threads a block the stray accesses stay inside the allocation's
// rounding on many sizes, so the output is right and only a checked access shows the bug.
#include <cuda_runtime.h>

__global__ void increment_by_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  data[i] += 1;  // the bug: no bounds test
}

void solve(int* data, int n) {
  int* d = nullptr;
  cudaMalloc(&d, n * sizeof(int));
  cudaMemcpy(d, data, n * sizeof(int), cudaMemcpyHostToDevice);
  increment_by_one<<<(n + 31) / 32, 32>>>(d, n);
  cudaMemcpy(data, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
}
