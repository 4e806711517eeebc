// finding: data_race | 17 | make the update atomic
// Bug: each block counts into a shared histogram with a plain `hist[v]++`: two threads of a block
// that see the same value read the same count and one increment is lost. On the simulator a
// block's threads run one after another, so the counts come out right without the checked run.
#include <cuda_runtime.h>

constexpr int THREADS = 256;
constexpr int MAX_BINS = 1024;

__global__ void histogram(const int* values, int* bins, int n, int num_bins) {
  __shared__ int hist[MAX_BINS];
  for (int b = threadIdx.x; b < num_bins; b += blockDim.x) hist[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int v = values[i];
    if (v >= 0 && v < num_bins) {
      hist[v]++;  // the bug: not atomic
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < num_bins; b += blockDim.x) atomicAdd(&bins[b], hist[b]);
}

void solve(const int* values, int* bins, int n, int num_bins) {
  cudaMemset(bins, 0, num_bins * sizeof(int));
  const int blocks = (n + THREADS - 1) / THREADS < 64 ? (n + THREADS - 1) / THREADS : 64;
  histogram<<<blocks, THREADS>>>(values, bins, n, num_bins);
}
