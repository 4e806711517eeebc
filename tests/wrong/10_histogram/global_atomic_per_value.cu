// expect: requirement_unmet | must use shared memory
// Bug: no privatisation: every thread adds each of its values straight to bins with a global
// atomicAdd. The counts are right, but on a GPU every update of a bin goes to one L2 slice, one
// after another, and a skewed input sends most of them to the same one or two addresses. The
// exercise asks for per-block histograms in shared memory.
#include <cuda_runtime.h>

#include <algorithm>

constexpr int THREADS_PER_BLOCK = 256;

__global__ void histogram(const int* values, int* bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd(&bins[values[i]], 1);
  }
}

void solve(const int* values, int* bins, int n, int num_bins) {
  cudaMemset(bins, 0, num_bins * sizeof(int));
  const int blocks = std::min((n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, 1024);
  histogram<<<blocks, THREADS_PER_BLOCK>>>(values, bins, n);
}
