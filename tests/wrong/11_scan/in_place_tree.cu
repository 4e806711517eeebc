// expect: data_race | read into a register, __syncthreads(), then write
// never: make the update atomic
// only on: sim
// finding: data_race | 20 | a data race on shared memory
// finding on gpu: skip: on a GPU whether a thread reads its neighbour before or after the update is not determined
// Bug: Hillis–Steele in place, with no second buffer and no barrier between reading and writing:
// a thread may read s[t - offset] after that neighbour already added this step's value into it,
// and count some elements twice. Read into a register, __syncthreads(), then write (or swap two
// buffers). The simulator runs a block's threads one after another, so every read sees the update.
#include <cuda_runtime.h>

constexpr int B = 256;  // threads per block = elements per tile

__global__ void scan_tiles(const int* x, int* y, int* sums, int n) {
  __shared__ int s[B];
  const int i = blockIdx.x * B + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < B; offset *= 2) {
    if (threadIdx.x >= offset) s[threadIdx.x] += s[threadIdx.x - offset];  // the bug: read and write in one step
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
