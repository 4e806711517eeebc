// 05_reduce — add up a whole array: *sum = x[0] + x[1] + ... + x[n-1].
//
// Contract (the harness calls solve; keep the signature exactly as it is):
//   void solve(const float* x, float* sum, int n)
//   - x is a DEVICE pointer to n floats, n >= 1 (up to tens of millions); it must stay unchanged.
//   - sum is a DEVICE pointer to ONE float. It starts out holding garbage (the harness fills it
//     with NaN), so solve must set it to zero before adding anything into it.
//
// Read exercises/05_reduce/README.md first. Check your work with:
//   ./cudalab check 05_reduce
#include <cuda_runtime.h>

#include <stdexcept>

// Adds v across the 32 lanes of a warp; lane 0 ends up with the warp's total.
__device__ float warp_reduce_sum(float v) {
  // TODO(student): warp shuffles. For offset = 16, 8, 4, 2, 1:
  //   v += __shfl_down_sync(0xffffffffu, v, offset);  (reads v from the lane `offset` above)
  return v;
}

__global__ void reduce_sum(const float* x, float* sum, int n) {
  // TODO(student): each thread adds its elements in a register (grid-stride loop).
  // TODO(student): reduce within each warp with warp_reduce_sum; lane 0 of each warp stores the
  //   result in a __shared__ array (one slot per warp); __syncthreads(); warp 0 reduces those.
  // TODO(student): one atomicAdd(sum, block_total) per block, from a single thread: blocks
  //   finish in any order, and atomicAdd keeps their additions from overwriting each other.
}

void solve(const float* x, float* sum, int n) {
  // TODO(student): zero *sum first (cudaMemset), because atomicAdd adds to what is there.
  // TODO(student): launch reduce_sum with a block size that is a multiple of 32 and enough
  //   blocks to keep the GPU busy (capping the count is fine: the grid-stride loop does the rest).
  throw std::logic_error("not implemented yet: write reduce_sum and solve in exercises/05_reduce/kernel.cu");
}
