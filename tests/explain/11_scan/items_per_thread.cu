// explain: uncoalesced | 23 | neighbouring threads read addresses 8 ints (32 bytes) apart
// explain: uncoalesced | 36 | neighbouring threads write addresses 8 ints (32 bytes) apart
// A three-phase scan whose threads each take ITEMS = 8 consecutive elements and scan them in
// registers, as fast scans do, but load and store them one int at a time: at every step the 32
// lanes of a warp touch 32 ints 32 bytes apart, 32 sectors where 4 would hold them. Fast scans
// give a thread consecutive elements too, but move them with coalesced loads (a warp reads 32
// neighbouring int4s, or the tile goes through shared memory first).
#include <cuda_runtime.h>

constexpr int THREADS = 256;
constexpr int ITEMS = 8;  // consecutive elements per thread
constexpr int TILE = THREADS * ITEMS;

// Each thread scans its ITEMS consecutive elements in registers; the threads' totals are scanned
// in shared memory (Hillis–Steele); the tile's total goes to block_sums.
__global__ void scan_tiles(const int* x, int* y, int* block_sums, int n) {
  __shared__ int s[THREADS];
  const int tid = threadIdx.x;
  const int first = blockIdx.x * TILE + tid * ITEMS;
  int v[ITEMS];
  int total = 0;
  for (int k = 0; k < ITEMS; ++k) {
    total += first + k < n ? x[first + k] : 0;
    v[k] = total;
  }
  s[tid] = total;
  __syncthreads();
  for (int d = 1; d < THREADS; d *= 2) {
    const int left = tid >= d ? s[tid - d] : 0;
    __syncthreads();
    s[tid] += left;
    __syncthreads();
  }
  const int before = s[tid] - total;  // the sum of the threads before this one
  for (int k = 0; k < ITEMS; ++k) {
    if (first + k < n) y[first + k] = v[k] + before;
  }
  if (tid == THREADS - 1) block_sums[blockIdx.x] = s[tid];
}

// One block walks the totals in pieces of THREADS, carrying the running sum.
__global__ void scan_totals(int* block_sums, int blocks) {
  __shared__ int s[THREADS];
  __shared__ int carry;
  const int tid = threadIdx.x;
  if (tid == 0) carry = 0;
  for (int base = 0; base < blocks; base += THREADS) {
    s[tid] = base + tid < blocks ? block_sums[base + tid] : 0;
    __syncthreads();
    for (int d = 1; d < THREADS; d *= 2) {
      const int left = tid >= d ? s[tid - d] : 0;
      __syncthreads();
      s[tid] += left;
      __syncthreads();
    }
    if (base + tid < blocks) block_sums[base + tid] = s[tid] + carry;
    __syncthreads();
    if (tid == 0) carry += s[THREADS - 1];
    __syncthreads();
  }
}

// Every element of tile b > 0 adds the sum of the tiles before it.
__global__ void add_offsets(int* y, const int* block_sums, int n) {
  if (blockIdx.x == 0) return;
  const int add = block_sums[blockIdx.x - 1];
  const int end = min(static_cast<int>(blockIdx.x + 1) * TILE, n);
  for (int i = blockIdx.x * TILE + threadIdx.x; i < end; i += THREADS) y[i] += add;
}

void solve(const int* x, int* y, int n) {
  const int tiles = (n + TILE - 1) / TILE;
  int* block_sums = nullptr;
  cudaMalloc(&block_sums, tiles * sizeof(int));
  scan_tiles<<<tiles, THREADS>>>(x, y, block_sums, n);
  scan_totals<<<1, THREADS>>>(block_sums, tiles);
  add_offsets<<<tiles, THREADS>>>(y, block_sums, n);
  cudaFree(block_sums);
}
