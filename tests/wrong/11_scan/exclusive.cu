// expect: wrong_output | y[i] is the sum before x[i]
// Bug: each thread stores the sum of the elements before its own (an exclusive scan); the
// contract asks for the inclusive one, y[i] = x[0] + ... + x[i].
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
  if (i < n) y[i] = s[threadIdx.x] - x[i];  // the bug: the sum before x[i]
  if (threadIdx.x == B - 1) sums[blockIdx.x] = s[B - 1];
}

// The block totals, scanned by one thread: slow, but not the point here.
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
