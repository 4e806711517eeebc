// 10_histogram — count how often each value occurs: bins[b] = the number of i with values[i] == b.
//
// Contract (the harness calls solve; keep the signature exactly as it is):
//   void solve(const int* values, int* bins, int n, int num_bins)
//   - values is a DEVICE pointer to n ints, n >= 1 (up to tens of millions); every values[i] is
//     in [0, num_bins). It must stay unchanged.
//   - bins is a DEVICE pointer to num_bins ints, 1 <= num_bins <= 4096. It starts out holding
//     garbage (the harness fills it), so solve must zero it before counting into it.
//   - Some launch must use shared memory: each block counts into its own histogram there.
//
// Read exercises/10_histogram/README.md first. Check your work with:
//   ./cudalab check 10_histogram
#include <cuda_runtime.h>

#include <stdexcept>

constexpr int THREADS_PER_BLOCK = 256;

// Each block builds a private histogram of its values in shared memory, then adds it to bins.
__global__ void histogram(const int* values, int* bins, int n, int num_bins) {
  // TODO(student): privatisation. Declare the block's histogram in shared memory, sized by the
  //   launch: `extern __shared__ int hist[];` (num_bins ints, the third <<<>>> argument).
  // TODO(student): zero it (a loop over the bins with stride blockDim.x: there may be more bins
  //   than threads), then __syncthreads() so that no thread counts into a bin not yet zeroed.
  // TODO(student): count this thread's values (a grid-stride loop) with atomicAdd(&hist[v], 1):
  //   several threads may hit one bin at once, and `hist[v]++` would lose some of their updates.
  // TODO(student): __syncthreads(), so that every count is in, then add each non-zero bin to
  //   the global histogram with ONE atomicAdd(&bins[b], hist[b]) per bin, not one per value.
}

void solve(const int* values, int* bins, int n, int num_bins) {
  // TODO(student): zero bins first (cudaMemset), because atomicAdd adds to what is there.
  // TODO(student): launch histogram with num_bins * sizeof(int) bytes of dynamic shared memory
  //   and a moderate grid (a few blocks per multiprocessor: each block merges a whole histogram).
  throw std::logic_error("not implemented yet: write histogram and solve in exercises/10_histogram/kernel.cu");
}
