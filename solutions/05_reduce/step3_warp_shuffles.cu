// Speed ladder for 05_reduce, step 3 of 4: warp shuffles, shared memory only between warps.
//
// Contract: void solve(const float* x, float* sum, int n) — DEVICE pointers; x holds n >= 1
// floats, sum points to ONE float whose initial content is garbage.
//
// What this step teaches: the 32 threads of a warp can read each other's registers directly.
// __shfl_down_sync(mask, v, offset) returns v from the lane `offset` places higher, so five
// rounds (offsets 16, 8, 4, 2, 1) leave a warp's sum in lane 0: no shared memory, no barrier,
// a handful of instructions. Shared memory is needed only to combine the 8 warps of a block:
// one slot per warp and a single __syncthreads(), instead of step 2's 8 barriers.
//
// What still limits it: each thread loads just one 4-byte element and then spends ~20
// instructions reducing it, and a block per 256 elements means 256× fewer atomics than step 1
// but still a great many. Step 4 gives each thread many elements.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(err));
  }
}

}  // namespace

constexpr int THREADS_PER_BLOCK = 256;  // a multiple of 32: the reduction works warp by warp
constexpr int WARP_SIZE = 32;
constexpr int WARPS_PER_BLOCK = THREADS_PER_BLOCK / WARP_SIZE;

// Adds v across the 32 lanes of a warp; lane 0 ends with the total. All 32 lanes must call it
// (the full mask 0xffffffff says so).
__device__ __forceinline__ float warp_reduce_sum(float v) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
    v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  return v;
}

__global__ void reduce_warp_shuffles(const float* __restrict__ x, float* sum, int n) {
  __shared__ float warp_sums[WARPS_PER_BLOCK];

  const int i = blockIdx.x * THREADS_PER_BLOCK + threadIdx.x;
  // No early return for i >= n: every lane must take part in the shuffles. It adds a zero.
  float v = i < n ? x[i] : 0.0f;

  const int lane = threadIdx.x % WARP_SIZE;
  const int warp = threadIdx.x / WARP_SIZE;
  v = warp_reduce_sum(v);  // warp level: registers only

  if (lane == 0) warp_sums[warp] = v;  // block level: one value per warp
  __syncthreads();
  if (warp == 0) {
    v = warp_reduce_sum(lane < WARPS_PER_BLOCK ? warp_sums[lane] : 0.0f);
    if (lane == 0) atomicAdd(sum, v);  // grid level: one atomic per block
  }
}

void solve(const float* x, float* sum, int n) {
  check(cudaMemset(sum, 0, sizeof(float)), "cudaMemset(sum)");  // *sum arrives as garbage

  const int blocks = (n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;  // one element per thread
  reduce_warp_shuffles<<<blocks, THREADS_PER_BLOCK>>>(x, sum, n);
  check(cudaGetLastError(), "launch of reduce_warp_shuffles");
}
