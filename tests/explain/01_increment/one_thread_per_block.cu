// explain: traffic | 11 | fill the warps, with blocks of a multiple of 32 threads
// Blocks and threads the wrong way round: <<<n, 1>>> launches n blocks of ONE thread each. The
// output is right, but every warp has a single working lane, so each of its loads and stores moves
// a whole 32-byte sector for one 4-byte int: 8 times the bytes the task needs (and an SM holds at
// most 32 blocks, so 32 working threads). <<<(n + 255) / 256, 256>>> gives every lane an element,
// which is what the finding's fix says.
#include <cuda_runtime.h>

__global__ void increment_by_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // blockDim.x is 1: i is the block's number
  if (i < n) data[i] += 1;
}

void solve(int* data, int n) {
  const size_t bytes = static_cast<size_t>(n) * sizeof(int);
  int* d_data = nullptr;
  cudaMalloc(&d_data, bytes);
  cudaMemcpy(d_data, data, bytes, cudaMemcpyHostToDevice);
  increment_by_one<<<n, 1>>>(d_data, n);  // the mistake: n blocks of 1 thread
  cudaMemcpy(data, d_data, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_data);
}
