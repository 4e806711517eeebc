// expect: uninitialized_read | shared memory that no thread of this block had written
// finding: uninitialized_read | 18 | every block starts with garbage in shared memory
// finding on gpu: skip: compute-sanitizer does not look for reads of unwritten shared memory
// only on: sim
// Bug: the block's shared-memory histogram is never zeroed, so each block counts on top of whatever
// its shared memory held, and adds that garbage to every bin. The simulator starts every block's
// shared memory as -1s, so every bin comes out short by the number of blocks. (On a GPU the garbage
// is what an earlier kernel left, so this kernel is checked on the simulator only.)
#include <cuda_runtime.h>

#include <algorithm>

constexpr int THREADS_PER_BLOCK = 256;

__global__ void histogram(const int* values, int* bins, int n, int num_bins) {
  extern __shared__ int hist[];  // the bug: never zeroed
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd(&hist[values[i]], 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < num_bins; b += blockDim.x) atomicAdd(&bins[b], hist[b]);
}

void solve(const int* values, int* bins, int n, int num_bins) {
  cudaMemset(bins, 0, num_bins * sizeof(int));
  const int blocks = std::min((n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, 64);
  histogram<<<blocks, THREADS_PER_BLOCK, num_bins * sizeof(int)>>>(values, bins, n, num_bins);
}
