// expect: data_race | with no barrier between
// only on: sim
// finding: data_race | 20 | add __syncthreads()
// finding on gpu: skip: on a GPU whether a merge overtakes the counting is not determined
// Bug: no __syncthreads() between counting into the block's histogram and adding it to bins: a
// thread merges its bins while other threads of the block are still counting into them, and the
// counts that arrive after the merge are lost. On the simulator the threads of a block run one
// after another after the first barrier, so the early merges always miss counts.
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
  // the bug: no __syncthreads() here
  for (int b = threadIdx.x; b < num_bins; b += blockDim.x) {
    if (hist[b] != 0) atomicAdd(&bins[b], hist[b]);
  }
}

void solve(const int* values, int* bins, int n, int num_bins) {
  cudaMemset(bins, 0, num_bins * sizeof(int));
  const int blocks = std::min((n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, 64);
  histogram<<<blocks, THREADS_PER_BLOCK, num_bins * sizeof(int)>>>(values, bins, n, num_bins);
}
