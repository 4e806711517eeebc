// explain: uncoalesced | 19 | neighbouring threads read addresses 16 ints (64 bytes) apart
// The histogram done right (a private histogram per block in shared memory, one global atomic per
// bin), but each thread counts its own slice of consecutive values, as a CPU thread would: at
// n = 1048579 and 264 × 256 threads, a slice of 16. At every step the 32 lanes of a warp read 32
// ints 64 bytes apart, one from each of 32 sectors, where a grid-stride loop (i += all threads)
// reads 32 neighbouring ints from 4 sectors.
#include <cuda_runtime.h>

constexpr int THREADS = 256;
constexpr int BLOCKS = 264;

__global__ void histogram(const int* values, int* bins, int n, int num_bins) {
  extern __shared__ int hist[];
  for (int b = threadIdx.x; b < num_bins; b += blockDim.x) hist[b] = 0;
  __syncthreads();
  const int threads = gridDim.x * blockDim.x;
  const int per_thread = (n + threads - 1) / threads;
  const int first = (blockIdx.x * blockDim.x + threadIdx.x) * per_thread;
  for (int i = first; i < first + per_thread && i < n; ++i) atomicAdd(&hist[values[i]], 1);
  __syncthreads();
  for (int b = threadIdx.x; b < num_bins; b += blockDim.x) {
    if (hist[b] != 0) atomicAdd(&bins[b], hist[b]);
  }
}

void solve(const int* values, int* bins, int n, int num_bins) {
  cudaMemset(bins, 0, num_bins * sizeof(int));
  histogram<<<BLOCKS, THREADS, num_bins * sizeof(int)>>>(values, bins, n, num_bins);
}
