// expect: uninitialized_read | bins as solve received it
// finding: uninitialized_read | 21 | set it before adding into it
// finding on gpu: wrong_output | - | the garbage the harness filled bins with
// Bug: the blocks' histograms are right, but bins is never zeroed: atomicAdd adds each block's
// counts onto the garbage bins arrived with (the harness fills it with 0x7EADBEEF).
#include <cuda_runtime.h>

#include <algorithm>

constexpr int THREADS_PER_BLOCK = 256;

__global__ void histogram(const int* values, int* bins, int n, int num_bins) {
  extern __shared__ int hist[];
  for (int b = threadIdx.x; b < num_bins; b += blockDim.x) hist[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd(&hist[values[i]], 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < num_bins; b += blockDim.x) {
    if (hist[b] != 0) atomicAdd(&bins[b], hist[b]);
  }
}

void solve(const int* values, int* bins, int n, int num_bins) {
  // the bug: no cudaMemset(bins, 0, num_bins * sizeof(int)) here
  const int blocks = std::min((n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, 64);
  histogram<<<blocks, THREADS_PER_BLOCK, num_bins * sizeof(int)>>>(values, bins, n, num_bins);
}
