// explain: occupancy | 20 | launch enough blocks to fill the GPU
// One block for the whole array: a grid-stride loop gives every element a thread in turn, and the
// output is right, but a block runs on one SM, so 1 of the GPU's SMs works and the others idle.
// The loop is right; the grid is too small: (n + 255) / 256 blocks, or a few per SM.
#include <cuda_runtime.h>

__global__ void increment_all(int* data, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    data[i] += 1;
  }
}

void solve(int* data, int n) {
  const size_t bytes = static_cast<size_t>(n) * sizeof(int);
  int* d_data = nullptr;
  cudaMalloc(&d_data, bytes);
  cudaMemcpy(d_data, data, bytes, cudaMemcpyHostToDevice);
  // The mistake: one block of 256 threads walks the whole array, on one of the GPU's SMs.
  constexpr int kThreads = 256;
  increment_all<<<1, kThreads>>>(d_data, n);
  cudaMemcpy(data, d_data, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_data);
}
