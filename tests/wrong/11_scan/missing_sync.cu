// expect: data_race | add __syncthreads() between writing shared memory and reading
// only on: sim
// finding: data_race | 17 | add __syncthreads() between writing shared memory and reading
// finding on gpu: skip: on a GPU whether a thread reads a value before its owner updated it is not determined
// Bug: no __syncthreads() after each step of the in-block tree writes its sums: the next step
// reads s[t - offset] while the thread that owns it may not have written this step's value yet.
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
    s[threadIdx.x] += left;  // the bug: no __syncthreads() after this write
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
