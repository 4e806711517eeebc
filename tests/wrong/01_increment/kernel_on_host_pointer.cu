// expect: cuda_error | is a host pointer
// expect on gpu: cuda_error | device code cannot use host memory
// Bug: the kernel is launched on the host pointer itself: no cudaMalloc, no cudaMemcpy. Device
// code cannot use ordinary host memory (on a GPU that can reach it through the driver, the
// result may even come out right, but the transfers this exercise is about never happen).
#include <cuda_runtime.h>

__global__ void increment_by_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

void solve(int* data, int n) {
  const int threads = 256;
  increment_by_one<<<(n + threads - 1) / threads, threads>>>(data, n);
  cudaDeviceSynchronize();
}
