// finding: out_of_bounds | 13 | past the end of x
// finding on gpu: out_of_bounds | 13 | past the end of a
// Bug: the tile is loaded without `i < n`: the last block's threads past n read beyond x, into
// tile slots whose sums nobody uses (the output is right); only a checked access shows the read.
#include <cuda_runtime.h>

constexpr int B = 256;  // threads per block = elements per tile

__global__ void scan_tiles(const int* x, int* y, int* sums, int n) {
  __shared__ int s[B];
  const int i = blockIdx.x * B + threadIdx.x;
  // the bug: no `i < n ? x[i] : 0`
  s[threadIdx.x] = x[i];
  __syncthreads();
  for (int offset = 1; offset < B; offset *= 2) {
    const int left = threadIdx.x >= offset ? s[threadIdx.x - offset] : 0;
    __syncthreads();
    s[threadIdx.x] += left;
    __syncthreads();
  }
  if (i < n) y[i] = s[threadIdx.x];
  if (threadIdx.x == B - 1) sums[blockIdx.x] = s[(n - 1 - blockIdx.x * B) < B - 1 ? n - 1 - blockIdx.x * B : B - 1];
}

__global__ void scan_sums(int* sums, int count) {
  for (int b = 1; b < count; ++b) sums[b] += sums[b - 1];
}

__global__ void add_offsets(int* y, const int* sums, int n) {
  const int i = blockIdx.x * B + threadIdx.x;
  if (blockIdx.x > 0 && i < n) y[i] += sums[blockIdx.x - 1];
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
