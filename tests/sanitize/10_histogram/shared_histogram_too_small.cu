// finding: out_of_bounds | 13 | past the end of hist
// finding on gpu: out_of_bounds | 13 | shared memory
// Bug: the private histogram is declared for 256 bins whatever num_bins is. With more bins, the
// zeroing loop and the counting run past its end into whatever shared memory follows: on a GPU
// other variables or nothing at all, on the simulator's plain run its heap. The checked run names
// the first store past the end.
#include <cuda_runtime.h>

constexpr int THREADS = 256;

__global__ void histogram(const int* values, int* bins, int n, int num_bins) {
  __shared__ int hist[256];
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
  cudaMemset(bins, 0, num_bins * sizeof(int));
  histogram<<<8, THREADS>>>(values, bins, n, num_bins);
}
