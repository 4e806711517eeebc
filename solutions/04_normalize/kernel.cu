// Reference solution for 04_normalize: y = x / ||x||_2 in two passes.
//
// Contract: void solve(const float* x, float* y, int n) — DEVICE pointers to n >= 1 floats.
//
// Pass 1 needs every element before pass 2 can use the result, and threads of different blocks
// cannot wait for each other inside one kernel; so the norm is computed by two small reduction
// kernels, and the kernel boundary is the grid-wide barrier before scaling.
//   1. sum_of_squares: each block reduces its share of x*x to one partial sum.
//   2. sum_partials:   one block adds the partial sums into total[0].
//   3. scale:          y[i] = x[i] / sqrt(total[0]).
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
constexpr int MAX_BLOCKS = 4096;        // also the most partial sums pass 2 has to add

}  // namespace

constexpr int WARP_SIZE = 32;
constexpr int MAX_WARPS = 1024 / WARP_SIZE;  // a block has at most 1024 threads

// Adds v across the 32 lanes of a warp; lane 0 ends with the total. Shuffles move registers
// between lanes directly, with no shared memory and no __syncthreads.
__device__ float warp_reduce_sum(float v) {
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
    v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  return v;
}

// Adds v across the block; thread 0 ends with the total. Each warp reduces its own values, lane 0
// of each warp parks the warp's sum in shared memory, and warp 0 reduces those.
// blockDim.x must be a multiple of 32. `warp_sums` is a __shared__ array of MAX_WARPS floats.
__device__ float block_reduce_sum(float v, float* warp_sums) {
  const int lane = threadIdx.x % WARP_SIZE;
  const int warp = threadIdx.x / WARP_SIZE;
  v = warp_reduce_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();  // every warp's sum is in shared memory before warp 0 reads them
  if (warp == 0) {
    const int num_warps = blockDim.x / WARP_SIZE;
    v = warp_reduce_sum(lane < num_warps ? warp_sums[lane] : 0.0f);
  }
  return v;
}

// Pass 1: partials[blockIdx.x] = sum of x[i]^2 over this block's elements (grid-stride).
__global__ void sum_of_squares(const float* x, float* partials, int n) {
  __shared__ float warp_sums[MAX_WARPS];
  float acc = 0.0f;
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    acc = fmaf(x[i], x[i], acc);
  }
  acc = block_reduce_sum(acc, warp_sums);
  if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}

// Pass 2, run with a single block: *total = sum of the `count` partial sums.
__global__ void sum_partials(const float* partials, float* total, int count) {
  __shared__ float warp_sums[MAX_WARPS];
  float acc = 0.0f;
  for (int i = threadIdx.x; i < count; i += blockDim.x) {
    acc += partials[i];
  }
  acc = block_reduce_sum(acc, warp_sums);
  if (threadIdx.x == 0) *total = acc;
}

// Pass 3: every element divided by the same norm. sqrtf and '/' are correctly rounded in CUDA's
// default mode, which keeps y within about one ulp of the exact quotient.
// Scratch in static device memory: one partial sum per block of pass 1, then the total. A
// cudaMalloc/cudaFree per call would synchronise the device and cost more than the kernels of a
// small vector (and make the timing jittery).
__device__ float g_scratch[MAX_BLOCKS + 1];

__global__ void scale(const float* x, float* y, const float* total, int n) {
  const float norm = sqrtf(*total);
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    y[i] = x[i] / norm;
  }
}

void solve(const float* x, float* y, int n) {
  const int blocks = std::min((n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, MAX_BLOCKS);

  float* d_scratch = nullptr;
  check(cudaGetSymbolAddress(reinterpret_cast<void**>(&d_scratch), g_scratch), "cudaGetSymbolAddress(scratch)");
  float* d_partials = d_scratch;
  float* d_total = d_scratch + blocks;

  sum_of_squares<<<blocks, THREADS_PER_BLOCK>>>(x, d_partials, n);
  check(cudaGetLastError(), "launch of sum_of_squares");
  sum_partials<<<1, THREADS_PER_BLOCK>>>(d_partials, d_total, blocks);
  check(cudaGetLastError(), "launch of sum_partials");
  scale<<<blocks, THREADS_PER_BLOCK>>>(x, y, d_total, n);
  check(cudaGetLastError(), "launch of scale");
}
