// finding: out_of_bounds | 11 | including the reads of a reduction tree
// Bug: each thread loads x[i] without checking i < n (the grid is rounded up to whole blocks), so
// the last block reads past the end of x; the sum is wrong by whatever lay there.
#include <cuda_runtime.h>

constexpr int THREADS = 256;

__global__ void block_sums(const float* x, float* sum, int n) {
  __shared__ float partial[THREADS];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = x[i];
  __syncthreads();
  for (int stride = THREADS / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}

void solve(const float* x, float* sum, int n) {
  cudaMemset(sum, 0, sizeof(float));
  block_sums<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, sum, n);
}
