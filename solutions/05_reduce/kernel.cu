// Reference solution for 05_reduce: *sum = x[0] + x[1] + ... + x[n-1].
//
// Contract: void solve(const float* x, float* sum, int n) — DEVICE pointers; x holds n >= 1
// floats, sum points to ONE float whose initial content is garbage.
//
// This is step 4 of the speed ladder (a grid sized from the SM count, float4 loads, UNROLL
// independent accumulators, warp shuffles) with one change that matters at the memory's limit:
// about 96 % of a device-to-device copy's bandwidth on an H100 (docs/performance.md).
//
// One launch, and a sum in a fixed order. Step 4 needs *sum zeroed before its atomics: a second
// operation (cudaMemset) with its own launch gap, a few percent of a 100 µs kernel. Here every
// block writes its partial sum to static device memory and counts itself done with an atomic
// ticket; the block that draws the last ticket knows that all partial sums are written, adds
// them and writes *sum. The blocks' sums are added in block order, so the result is the same on
// every run, which atomicAdd of floats does not promise.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(err));
  }
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

constexpr int THREADS = 512;         // a multiple of 32: the reduction works warp by warp
constexpr int BLOCKS_PER_SM = 2;     // 1024 threads per SM: enough loads in flight (measured)
constexpr int UNROLL = 4;            // independent float4 loads per thread per iteration
constexpr int MAX_BLOCKS = 1024;     // room for the partial sums of the largest GPUs' grids
constexpr int WARP_SIZE = 32;

// Per-block partial sums and the count of finished blocks, in static device memory: no
// cudaMalloc per call. The last block resets the count, so every call starts from zero.
__device__ float g_partials[MAX_BLOCKS];
__device__ unsigned int g_blocks_done = 0;

// Adds v across the 32 lanes of a warp; lane 0 ends with the total.
__device__ float warp_reduce_sum(float v) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Adds v across the block; thread 0 ends with the total. Warps reduce with shuffles, lane 0 of
// each parks its warp's sum in shared memory, and warp 0 adds those.
__device__ float block_reduce_sum(float v) {
  __shared__ float warp_sums[THREADS / WARP_SIZE];
  v = warp_reduce_sum(v);
  if (threadIdx.x % WARP_SIZE == 0) warp_sums[threadIdx.x / WARP_SIZE] = v;
  __syncthreads();
  v = threadIdx.x < THREADS / WARP_SIZE ? warp_sums[threadIdx.x] : 0.0f;
  if (threadIdx.x < WARP_SIZE) v = warp_reduce_sum(v);
  return v;
}

// This thread's share of x, grid-stride over float4s (VEC: x is 16-byte aligned) or floats.
template <bool VEC>
__device__ float thread_sum(const float* __restrict__ x, int n) {
  const int stride = blockDim.x * gridDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc[UNROLL] = {};
  if (VEC) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const int n4 = n / 4;
    // UNROLL loads issued back to back, then UNROLL independent additions: 64 bytes in flight.
    for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
      float4 v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) v[u] = x4[i + u * stride];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) acc[u] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    for (; i < n4; i += stride) {
      const float4 v = x4[i];
      acc[0] += (v.x + v.y) + (v.z + v.w);
    }
    // The n % 4 elements after the last whole float4: one each for the grid's first threads.
    const int tail = n4 * 4 + blockIdx.x * blockDim.x + threadIdx.x;
    if (tail < n) acc[0] += x[tail];
  } else {
    for (; i < n; i += stride) acc[0] += x[i];
  }
  float total = 0.0f;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) total += acc[u];
  return total;
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS) reduce_sum(const float* __restrict__ x, float* sum, int n) {
  const float block_total = block_reduce_sum(thread_sum<VEC>(x, n));

  // Publish this block's sum, then take a ticket. __threadfence makes the partial sum
  // visible to every other block before the ticket is.
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    g_partials[blockIdx.x] = block_total;
    __threadfence();
    is_last = atomicAdd(&g_blocks_done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;

  // The last block: every partial sum is written. __ldcg reads them from L2, where the other
  // blocks' writes are, and not from this SM's L1.
  float v = 0.0f;
  for (int b = threadIdx.x; b < gridDim.x; b += THREADS) v += __ldcg(&g_partials[b]);
  v = block_reduce_sum(v);
  if (threadIdx.x == 0) {
    *sum = v;
    g_blocks_done = 0;  // ready for the next call
  }
}

void solve(const float* x, float* sum, int n) {
  // The SM count is asked for once: solve runs many times, and every host call before the first
  // launch adds to the time the caller waits.
  static const int sms = [] {
    int device = 0;
    int count = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    return count;
  }();

  // Enough blocks to fill the GPU, but no more than the data needs (a block per 4×THREADS
  // elements), and at least one.
  const long long needed = (static_cast<long long>(n) + 4LL * THREADS - 1) / (4LL * THREADS);
  const int blocks = static_cast<int>(std::clamp<long long>(needed, 1, std::min(BLOCKS_PER_SM * sms, MAX_BLOCKS)));
  if (aligned16(x)) {
    reduce_sum<true><<<blocks, THREADS>>>(x, sum, n);
  } else {
    reduce_sum<false><<<blocks, THREADS>>>(x, sum, n);
  }
  check(cudaGetLastError(), "launch of reduce_sum");
}
