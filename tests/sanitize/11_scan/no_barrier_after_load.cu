// finding: data_race | 18 | add __syncthreads() between writing shared memory and reading
// Bug: no __syncthreads() after the block loads its tile: the first step reads s[t - 1] while the
// thread that loads it may not have stored it yet. On the simulator the threads of a block load in
// order, so the plain run gets the right answer; the checked run names the race.
#include <cuda_runtime.h>

constexpr int B = 256;  // threads per block = elements per tile

__global__ void scan_tiles(const int* x, int* y, int* sums, int n) {
  __shared__ int s[B];
  const int i = blockIdx.x * B + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0;
  // the bug: no __syncthreads() here
  for (int offset = 1; offset < B; offset *= 2) {
    int left = 0;
    // Each step reads first, then waits, then writes: the barrier at the end of the loop body is
    // missing for the loads above only.
    if (threadIdx.x >= offset) left = s[threadIdx.x - offset];
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
