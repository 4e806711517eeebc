// 11_scan — inclusive prefix sum: y[i] = x[0] + x[1] + ... + x[i].
//
// Contract (the harness calls solve; keep the signature exactly as it is):
//   void solve(const int* x, int* y, int n)
//   - x and y are DEVICE pointers to n ints each, n >= 1 (up to tens of millions); x must stay
//     unchanged. No sum leaves int32.
//   - When solve returns, y[i] must equal x[0] + ... + x[i] (inclusive: y[0] = x[0]).
//   - You may cudaMalloc scratch space (for the block totals); cudaFree it before returning.
//
// Read exercises/11_scan/README.md first. Check your work with:
//   ./cudalab check 11_scan
#include <cuda_runtime.h>

#include <stdexcept>

constexpr int THREADS_PER_BLOCK = 256;  // each block scans a tile of THREADS_PER_BLOCK elements

// Phase 1: each block scans its tile and writes the tile's total to block_sums[blockIdx.x].
__global__ void scan_tiles(const int* x, int* y, int* block_sums, int n) {
  // TODO(student): a scan tree in shared memory. Load the tile into a __shared__ array (0 past n),
  //   __syncthreads().
  // TODO(student): Hillis–Steele: for offset = 1, 2, 4, ... < blockDim.x, each thread adds the
  //   value `offset` places to its left. Read that value into a register, __syncthreads(), then
  //   write your sum, __syncthreads(): without the barrier in the middle a thread may read a
  //   value its neighbour already updated in this step (or use two buffers and swap them).
  // TODO(student): store the tile's scan to y (only i < n); the last thread writes the tile's
  //   total to block_sums[blockIdx.x].
}

// Phase 2: scan the block totals. One block is enough if it walks them in pieces of blockDim.x,
// carrying the running sum from piece to piece (there are tens of thousands at the largest n).
__global__ void scan_block_sums(int* block_sums, int count) {
  // TODO(student): turn block_sums into its inclusive scan.
}

// Phase 3: every element of block b > 0 gets the sum of all blocks before it.
__global__ void add_offsets(int* y, const int* block_sums, int n) {
  // TODO(student): y[i] += block_sums[blockIdx.x - 1] for the blocks after the first: the blocks
  //   before this one, not this block's own total.
}

void solve(const int* x, int* y, int n) {
  // TODO(student): cudaMalloc the block totals, launch the three phases in order (a launch
  //   starts only after the one before it has finished: the barrier between blocks), cudaFree.
  throw std::logic_error(
      "not implemented yet: write scan_tiles, scan_block_sums, add_offsets and solve in exercises/11_scan/kernel.cu");
}
