// expect: wrong_output | adds its own total on top of the sums of the blocks before
// Bug: an off-by-one at the block boundary: after the block totals are scanned (inclusively),
// block k adds sums[k], which already holds its own total, instead of sums[k - 1].
#include <cuda_runtime.h>

constexpr int B = 256;  // threads per block = elements per tile

__global__ void scan_tiles(const int* x, int* y, int* sums, int n) {
  __shared__ int s[B];
  const int i = blockIdx.x * B + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < B; offset *= 2) {
    const int left = threadIdx.x >= offset ? s[threadIdx.x - offset] : 0;
    __syncthreads();
    s[threadIdx.x] += left;
    __syncthreads();
  }
  if (i < n) y[i] = s[threadIdx.x];
  if (threadIdx.x == B - 1) sums[blockIdx.x] = s[B - 1];
}

// The block totals, scanned by one thread: slow, but not the point here.
__global__ void scan_sums(int* sums, int count) {
  for (int b = 1; b < count; ++b) sums[b] += sums[b - 1];
}

__global__ void add_offsets(int* y, const int* sums, int n) {
  const int i = blockIdx.x * B + threadIdx.x;
  if (blockIdx.x > 0 && i < n) y[i] += sums[blockIdx.x] /* the bug: sums[blockIdx.x - 1] */;
}

void solve(const int* x, int* y, int n) {
  const int blocks = (n + B - 1) / B;
  int* sums = nullptr;
  cudaMalloc(&sums, blocks * sizeof(int));
  scan_tiles<<<blocks, B>>>(x, y, sums, n);
  scan_sums<<<1, 1>>>(sums, blocks);
  add_offsets<<<blocks, B>>>(y, sums, n);
  cudaFree(sums);
}
