// 01_increment: right at every size but n=33, where solve dereferences a null pointer. The crash
// ends the runner's process; the cases after it run in a new one and pass.
#include <cuda_runtime.h>

__global__ void add_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

void solve(int* data, int n) {
  if (n == 33) {
    volatile int* p = nullptr;
    *p = n;
  }
  int* d = nullptr;
  cudaMalloc(&d, n * sizeof(int));
  cudaMemcpy(d, data, n * sizeof(int), cudaMemcpyHostToDevice);
  add_one<<<(n + 255) / 256, 256>>>(d, n);
  cudaMemcpy(data, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
}
