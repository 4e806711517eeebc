// expect: data_race | make the update atomic
// finding: data_race | 20 | make the update atomic
// finding on gpu: skip: whether racecheck names lanes of a warp that store one shared word at once is not sure
// Bug: the block counts with a plain `hist[v]++`: a read, an add and a write. Two threads that read
// the same counter at once both write back old + 1, and one of the two values is lost (on a GPU the
// lanes of a warp that hit one bin in the same instruction all store the same old + 1). The
// simulator runs a block's threads one after another, so it never loses an update: the plain check
// runs on a GPU, and `check --sanitize` names the race on the simulator.
#include <cuda_runtime.h>

#include <algorithm>

constexpr int THREADS_PER_BLOCK = 256;

__global__ void histogram(const int* values, int* bins, int n, int num_bins) {
  extern __shared__ int hist[];
  for (int b = threadIdx.x; b < num_bins; b += blockDim.x) hist[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    hist[values[i]]++;  // the bug: not atomicAdd(&hist[values[i]], 1)
  }
  __syncthreads();
  for (int b = threadIdx.x; b < num_bins; b += blockDim.x) {
    if (hist[b] != 0) atomicAdd(&bins[b], hist[b]);
  }
}

void solve(const int* values, int* bins, int n, int num_bins) {
  cudaMemset(bins, 0, num_bins * sizeof(int));
  const int blocks = std::min((n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, 64);
  histogram<<<blocks, THREADS_PER_BLOCK, num_bins * sizeof(int)>>>(values, bins, n, num_bins);
}
