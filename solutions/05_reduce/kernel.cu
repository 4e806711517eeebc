// Reference solution for 05_reduce: *sum = x[0] + x[1] + ... + x[n-1].
//
// Contract: void solve(const float* x, float* sum, int n) — DEVICE pointers; x holds n >= 1
// floats, sum points to ONE float whose initial content is garbage.
//
// Three levels, each matched to the hardware: every thread adds many elements in a register
// (grid-stride loop), each warp adds its 32 values with shuffles, each block adds its warps'
// sums through shared memory, and one atomicAdd per block combines the blocks.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(err));
  }
}

constexpr int THREADS_PER_BLOCK = 256;  // a multiple of 32: the reduction works warp by warp
constexpr int MAX_BLOCKS = 1024;        // few blocks, many elements per thread: few atomics

}  // namespace

constexpr int WARP_SIZE = 32;
constexpr int MAX_WARPS = 1024 / WARP_SIZE;

// Adds v across the 32 lanes of a warp; lane 0 ends with the total.
__device__ float warp_reduce_sum(float v) {
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
    v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  return v;
}

__global__ void reduce_sum(const float* x, float* sum, int n) {
  __shared__ float warp_sums[MAX_WARPS];

  // 1. Thread level: a register accumulates this thread's share of x.
  float acc = 0.0f;
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    acc += x[i];
  }

  // 2. Warp level: shuffles, no shared memory and no barrier needed.
  const int lane = threadIdx.x % WARP_SIZE;
  const int warp = threadIdx.x / WARP_SIZE;
  acc = warp_reduce_sum(acc);

  // 3. Block level: one value per warp through shared memory, then warp 0 adds them.
  if (lane == 0) warp_sums[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    const int num_warps = blockDim.x / WARP_SIZE;
    acc = warp_reduce_sum(lane < num_warps ? warp_sums[lane] : 0.0f);
    // 4. Grid level: blocks run in any order and cannot wait for each other, so each adds its
    //    total atomically. One atomic per block, not per element, keeps contention negligible.
    if (lane == 0) atomicAdd(sum, acc);
  }
}

void solve(const float* x, float* sum, int n) {
  // atomicAdd adds to whatever *sum holds, and it holds garbage: start from zero.
  check(cudaMemset(sum, 0, sizeof(float)), "cudaMemset(sum)");

  const int blocks = std::min((n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, MAX_BLOCKS);
  reduce_sum<<<blocks, THREADS_PER_BLOCK>>>(x, sum, n);
  check(cudaGetLastError(), "launch of reduce_sum");
}
