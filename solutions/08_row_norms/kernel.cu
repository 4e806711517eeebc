// Reference solution for 08_row_norms: norms[r] = sqrt(sum over c of A[r][c]^2).
//
// Contract: void solve(const float* A, float* norms, int M, int N) — DEVICE pointers; A is M×N
// row-major, norms holds M floats.
//
// The work is one small reduction per row, and the whole matrix is read once: the kernel is
// memory-bound, so the design is about reading A at full bandwidth whatever its shape.
//   - A group of G lanes per row, G a power of two from 1 to 32 chosen from N: each lane gets a
//     few float4s of its row. A full warp on a row of 3 floats would leave 29 lanes idle; a warp
//     of G-lane groups reads 32/G consecutive rows, a contiguous stretch of A, so the loads stay
//     coalesced whatever N is.
//   - One block per row when rows are long and too few to fill the GPU with warps (M = 4,
//     N = 100000): a warp per row would then use 4 warps of the whole device.
//   - float4 loads where the row allows: rows start at A + r·N, which is 16-byte aligned only when
//     N % 4 == 0, so each row peels up to 3 scalars at its head, then reads float4s, then its
//     tail. Several loads are issued before they are used (UNROLL), so that enough bytes are in
//     flight per SM to cover the memory's latency.
//   - The grid is sized from the SM count, and groups loop over rows (a grid-stride loop over
//     rows), so no launch is larger than the device can hold at once.
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

constexpr int THREADS = 256;      // 8 warps per block
constexpr int BLOCKS_PER_SM = 8;  // 2048 threads per SM: the H100's maximum, the most loads in flight
constexpr int UNROLL = 4;         // float4 loads issued back to back per lane
constexpr int WARP_SIZE = 32;

// The sum of squares of `row`'s n floats that lane `lane` of a group of `width` lanes owns: the
// scalar head up to the first 16-byte boundary, every width-th float4 after it, and the tail.
__device__ float lane_sum_of_squares(const float* __restrict__ row, int n, int lane, int width) {
  const int misaligned = static_cast<int>((reinterpret_cast<std::uintptr_t>(row) / sizeof(float)) % 4);
  const int head = min((4 - misaligned) % 4, n);
  const int n4 = (n - head) / 4;
  const float4* row4 = reinterpret_cast<const float4*>(row + head);
  float acc[UNROLL] = {};
  // Loops, not ifs: a group narrower than 4 lanes has more head and tail floats than lanes.
  for (int h = lane; h < head; h += width) acc[0] = fmaf(row[h], row[h], acc[0]);
  int v = lane;
  for (; v + (UNROLL - 1) * width < n4; v += UNROLL * width) {
    float4 q[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) q[u] = __ldcs(row4 + v + u * width);  // read once: do not keep in cache
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      acc[u] = fmaf(q[u].x, q[u].x, acc[u]);
      acc[u] = fmaf(q[u].y, q[u].y, acc[u]);
      acc[u] = fmaf(q[u].z, q[u].z, acc[u]);
      acc[u] = fmaf(q[u].w, q[u].w, acc[u]);
    }
  }
  for (; v < n4; v += width) {
    const float4 q = __ldcs(row4 + v);
    acc[1] += q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
  }
  for (int t = head + 4 * n4 + lane; t < n; t += width) acc[2] = fmaf(row[t], row[t], acc[2]);
  float total = 0.0f;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) total += acc[u];
  return total;
}

// Rows handed to groups of G lanes: a warp holds 32/G groups, and the grid loops over rows. The
// loop bound is the same for the whole warp (its first row), so every lane reaches every shuffle;
// a lane whose row is past M adds nothing and writes nothing.
template <int G>
__global__ void __launch_bounds__(THREADS)
    row_norms_by_group(const float* __restrict__ A, float* __restrict__ norms, int M, int N) {
  constexpr int ROWS_PER_WARP = WARP_SIZE / G;
  const int lane = threadIdx.x % G;
  const int group_in_warp = (threadIdx.x % WARP_SIZE) / G;
  const long long warp = (static_cast<long long>(blockIdx.x) * THREADS + threadIdx.x) / WARP_SIZE;
  const long long warps = static_cast<long long>(gridDim.x) * (THREADS / WARP_SIZE);
  for (long long first = warp * ROWS_PER_WARP; first < M; first += warps * ROWS_PER_WARP) {
    const long long row = first + group_in_warp;
    float s = row < M ? lane_sum_of_squares(A + row * N, N, lane, G) : 0.0f;
    // A butterfly within each aligned group of G lanes: every lane of the group ends with the sum.
#pragma unroll
    for (int offset = G / 2; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
    if (lane == 0 && row < M) norms[row] = sqrtf(s);
  }
}

// One block per row, for long rows that are too few to fill the GPU with warps. Warps reduce with
// shuffles, lane 0 of each parks its sum in shared memory, and warp 0 adds those.
__global__ void __launch_bounds__(THREADS)
    row_norms_by_block(const float* __restrict__ A, float* __restrict__ norms, int M, int N) {
  __shared__ float warp_sums[THREADS / WARP_SIZE];
  for (int row = blockIdx.x; row < M; row += gridDim.x) {
    float s = lane_sum_of_squares(A + static_cast<long long>(row) * N, N, threadIdx.x, THREADS);
#pragma unroll
    for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
    if (threadIdx.x % WARP_SIZE == 0) warp_sums[threadIdx.x / WARP_SIZE] = s;
    __syncthreads();  // every warp's sum is in shared memory before warp 0 reads them
    if (threadIdx.x < WARP_SIZE) {
      s = threadIdx.x < THREADS / WARP_SIZE ? warp_sums[threadIdx.x] : 0.0f;
#pragma unroll
      for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
      if (threadIdx.x == 0) norms[row] = sqrtf(s);
    }
    __syncthreads();  // warp 0 has read warp_sums before the next row overwrites them
  }
}

template <int G>
void launch_groups(const float* A, float* norms, int M, int N, int max_blocks) {
  constexpr int ROWS_PER_BLOCK = THREADS / G;
  const long long needed = (static_cast<long long>(M) + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
  const int blocks = static_cast<int>(std::clamp<long long>(needed, 1, max_blocks));
  row_norms_by_group<G><<<blocks, THREADS>>>(A, norms, M, N);
}

void solve(const float* A, float* norms, int M, int N) {
  // The SM count is asked for once: solve runs many times, and every host call before the first
  // launch adds to the time the caller waits.
  static const int sms = [] {
    int device = 0;
    int count = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    return count;
  }();
  const int max_blocks = BLOCKS_PER_SM * sms;

  // Long rows, and fewer of them than two warps per SM's worth of rows: a block per row.
  if (N > 2048 && M < 2 * (THREADS / WARP_SIZE) * sms) {
    row_norms_by_block<<<std::min(M, max_blocks), THREADS>>>(A, norms, M, N);
    check(cudaGetLastError(), "launch of row_norms_by_block");
    return;
  }
  // Otherwise G lanes per row, about 8 floats (two float4s) or more per lane.
  if (N <= 8) {
    launch_groups<1>(A, norms, M, N, max_blocks);
  } else if (N <= 16) {
    launch_groups<2>(A, norms, M, N, max_blocks);
  } else if (N <= 32) {
    launch_groups<4>(A, norms, M, N, max_blocks);
  } else if (N <= 64) {
    launch_groups<8>(A, norms, M, N, max_blocks);
  } else if (N <= 128) {
    launch_groups<16>(A, norms, M, N, max_blocks);
  } else {
    launch_groups<32>(A, norms, M, N, max_blocks);
  }
  check(cudaGetLastError(), "launch of row_norms_by_group");
}
