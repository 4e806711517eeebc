// Speed ladder for 05_reduce, step 4 of 4: float4 loads, a grid sized to the GPU, many
// independent accumulators per thread, warp shuffles, one atomic per block.
//
// Contract: void solve(const float* x, float* sum, int n) — DEVICE pointers; x holds n >= 1
// floats, sum points to ONE float whose initial content is garbage.
//
// A sum does one addition per 4 bytes read, so it can go no faster than DRAM delivers x; the
// goal is to keep enough loads in flight to saturate it and to spend almost nothing else:
//  1. Grid sized from the SM count. Just enough blocks to fill every SM (BLOCKS_PER_SM of
//     THREADS each); a grid-stride loop gives each thread many elements. The per-thread work is
//     a couple of adds per element, and the block-level reduction and the atomic happen once per
//     block instead of once per 256 elements (step 3).
//  2. float4 loads. One 16-byte load instruction instead of four 4-byte ones: a quarter of the
//     load instructions for the same bytes. float4 needs 16-byte alignment, so the up to 3
//     elements before the first aligned address (the head) and the up to 3 after the last whole
//     float4 (the tail) are read as scalars.
//  3. Several independent accumulators. DRAM latency is ~1 µs; bandwidth = bytes in flight /
//     latency, so every thread issues UNROLL loads before it uses any of them, and adds them into
//     separate accumulators. One accumulator would chain each add on the previous one.
//  4. Warp shuffles and one atomic per block, as in step 3.
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

}  // namespace

constexpr int THREADS_PER_BLOCK = 256;  // a multiple of 32: the reduction works warp by warp
constexpr int BLOCKS_PER_SM = 8;        // 8 × 256 = 2048 threads: a full H100 SM
constexpr int UNROLL = 4;               // float4 loads in flight per thread per iteration
constexpr int WARP_SIZE = 32;
constexpr int WARPS_PER_BLOCK = THREADS_PER_BLOCK / WARP_SIZE;

// Adds v across the 32 lanes of a warp; lane 0 ends with the total.
__device__ __forceinline__ float warp_reduce_sum(float v) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
    v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  return v;
}

__device__ __forceinline__ void add4(float4& acc, const float4 v) {
  acc.x += v.x;
  acc.y += v.y;
  acc.z += v.z;
  acc.w += v.w;
}

__global__ void __launch_bounds__(THREADS_PER_BLOCK) reduce_vectorized(const float* __restrict__ x, float* sum, int n) {
  __shared__ float warp_sums[WARPS_PER_BLOCK];

  // x = head (scalars up to the first 16-byte boundary) + body (whole float4s) + tail (scalars).
  // cudaMalloc'd memory is aligned, so the head is usually empty; x + offset need not be.
  const int misalignment = static_cast<int>(reinterpret_cast<std::uintptr_t>(x) % 16);
  const int to_boundary = ((16 - misalignment) % 16) / 4;  // floats before the first aligned one
  const int head = to_boundary < n ? to_boundary : n;
  const float4* body = reinterpret_cast<const float4*>(x + head);
  const int n4 = (n - head) / 4;  // float4s in the body
  const int tail_start = head + 4 * n4;

  const int gtid = blockIdx.x * THREADS_PER_BLOCK + threadIdx.x;
  const int stride = gridDim.x * THREADS_PER_BLOCK;

  // UNROLL float4 accumulators: 4·UNROLL independent chains of additions per thread.
  float4 acc[UNROLL];
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) acc[u] = make_float4(0.f, 0.f, 0.f, 0.f);

  // Main loop: UNROLL grid-wide strips per iteration. Each strip is read by consecutive threads
  // at consecutive addresses (coalesced), and all UNROLL loads are issued before the first add.
  int i = gtid;
  for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
    float4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = body[i + u * stride];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) add4(acc[u], v[u]);
  }
  for (; i < n4; i += stride) add4(acc[0], body[i]);  // the last, partial round of strips

  // Head and tail: at most 3 elements each, taken by the first threads of the grid.
  if (gtid < head) acc[0].x += x[gtid];
  if (gtid < n - tail_start) acc[0].y += x[tail_start + gtid];

  float v = 0.0f;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) v += (acc[u].x + acc[u].y) + (acc[u].z + acc[u].w);

  // Warp, then block, then one atomic per block (see step 3).
  const int lane = threadIdx.x % WARP_SIZE;
  const int warp = threadIdx.x / WARP_SIZE;
  v = warp_reduce_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_reduce_sum(lane < WARPS_PER_BLOCK ? warp_sums[lane] : 0.0f);
    if (lane == 0) atomicAdd(sum, v);
  }
}

void solve(const float* x, float* sum, int n) {
  check(cudaMemset(sum, 0, sizeof(float)), "cudaMemset(sum)");  // *sum arrives as garbage

  int device = 0;
  int sms = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");

  // Enough blocks to fill the GPU, but no more than there are float4s to hand out.
  const int blocks_needed = (n / 4 + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;
  const int blocks = std::max(1, std::min(blocks_needed, sms * BLOCKS_PER_SM));
  reduce_vectorized<<<blocks, THREADS_PER_BLOCK>>>(x, sum, n);
  check(cudaGetLastError(), "launch of reduce_vectorized");
}
