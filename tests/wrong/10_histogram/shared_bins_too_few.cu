// expect: out_of_bounds | past the end of hist
// finding: out_of_bounds | 22 | past the end of hist
// finding on gpu: skip: not yet run under compute-sanitizer on a GPU
// only on: sim
// Bug: the private histogram has 64 bins, but the values go up to num_bins - 1 (255 in most
// cases): atomicAdd(&hist[v], 1) with v >= 64 writes past the end of the array. On a GPU that lands
// in whatever shared memory follows (or faults); on the simulator's plain run a guard after the
// array catches it when the block ends ("wrote past the end of the __shared__ array 'hist'"), and
// the checked run names the line of the first write past the end.
#include <cuda_runtime.h>

#include <algorithm>

constexpr int THREADS = 256;
constexpr int BINS = 64;  // the bug: as many bins as the widest histogram (num_bins, up to 4096) are needed

__global__ void histogram(const int* values, int* bins, int n, int num_bins) {
  __shared__ int hist[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) hist[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd(&hist[values[i]], 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < min(num_bins, BINS); b += blockDim.x) {
    if (hist[b] != 0) atomicAdd(&bins[b], hist[b]);
  }
}

void solve(const int* values, int* bins, int n, int num_bins) {
  cudaMemset(bins, 0, num_bins * sizeof(int));
  const int blocks = std::min((n + THREADS - 1) / THREADS, 64);
  histogram<<<blocks, THREADS>>>(values, bins, n, num_bins);
}
