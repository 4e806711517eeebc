// Reference solution for 06_scale_2d: B[r][c] = s[r] * A[r][c], row-major M×N.
//
// Contract: void solve(const float* A, const float* s, float* B, int M, int N) — DEVICE pointers.
//
// The kernel is memory-bound (8 bytes moved per multiply), so everything here serves the memory
// system (docs/performance.md has the H100's figures):
//   - blocks of 32×8 threads: the 32 threads of a warp work along one row and the y extent picks 8
//     rows, so a warp's loads are neighbouring addresses;
//   - float4 loads and stores: a row of an M×N matrix starts 16-byte aligned only when N % 4 == 0,
//     so each row is cut into a scalar head (up to 3 elements, to the first 16-byte boundary), a
//     float4 body and a scalar tail. A and B share the head when their bases agree modulo 16 bytes
//     (the harness's buffers do); otherwise a scalar kernel does the work;
//   - each thread issues VEC float4 loads 32 apart before its stores: 64 bytes in flight per thread
//     hide the memory's latency;
//   - the grid covers a row's float4s in x and only as many row groups in y as fill the GPU; a 2D
//     grid-stride loop walks the rest, so the grid does not depend on M;
//   - A and B are touched once: streaming loads and stores (__ldcs, __stcs) keep them out of the
//     caches. s[r] is read once per row and thread.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(err));
}

}  // namespace

constexpr int BLOCK_X = 32;             // one warp along a row
constexpr int BLOCK_Y = 8;              // rows per block
constexpr int VEC = 4;                  // float4s per thread per step, BLOCK_X apart
constexpr int SEGMENT = BLOCK_X * VEC;  // float4s of a row one block does per step
constexpr int BLOCKS_PER_SM = 8;

__device__ __forceinline__ float4 times(float f, float4 v) { return make_float4(f * v.x, f * v.y, f * v.z, f * v.w); }

__global__ void __launch_bounds__(BLOCK_X* BLOCK_Y)
    scale_rows_vec(const float* __restrict__ A, const float* __restrict__ s, float* __restrict__ B, int M, int N) {
  for (int row = blockIdx.y * BLOCK_Y + threadIdx.y; row < M; row += gridDim.y * BLOCK_Y) {
    const float factor = s[row];
    const float* a = A + static_cast<size_t>(row) * N;  // row * N overflows int for large matrices
    float* b = B + static_cast<size_t>(row) * N;
    // Elements before the row's first 16-byte boundary, then whole float4s, then the rest.
    const int head = min(N, static_cast<int>((16 - reinterpret_cast<uintptr_t>(a) % 16) % 16 / 4));
    const int vectors = (N - head) / 4;
    const int tail = head + 4 * vectors;
    if (blockIdx.x == 0 && threadIdx.x < head) b[threadIdx.x] = factor * a[threadIdx.x];
    if (blockIdx.x == 0 && threadIdx.x < N - tail) b[tail + threadIdx.x] = factor * a[tail + threadIdx.x];
    const float4* a4 = reinterpret_cast<const float4*>(a + head);
    float4* b4 = reinterpret_cast<float4*>(b + head);
    for (int v0 = blockIdx.x * SEGMENT + threadIdx.x; v0 < vectors; v0 += gridDim.x * SEGMENT) {
      float4 v[VEC];
#pragma unroll
      for (int k = 0; k < VEC; ++k) {
        const int i = v0 + k * BLOCK_X;
        if (i < vectors) v[k] = __ldcs(a4 + i);
      }
#pragma unroll
      for (int k = 0; k < VEC; ++k) {
        const int i = v0 + k * BLOCK_X;
        if (i < vectors) __stcs(b4 + i, times(factor, v[k]));
      }
    }
  }
}

// A and B not aligned alike (never with the harness's buffers): one float at a time.
__global__ void __launch_bounds__(BLOCK_X* BLOCK_Y)
    scale_rows(const float* __restrict__ A, const float* __restrict__ s, float* __restrict__ B, int M, int N) {
  for (int row = blockIdx.y * BLOCK_Y + threadIdx.y; row < M; row += gridDim.y * BLOCK_Y) {
    const size_t base = static_cast<size_t>(row) * N;
    for (int col = blockIdx.x * BLOCK_X + threadIdx.x; col < N; col += gridDim.x * BLOCK_X) {
      B[base + col] = s[row] * A[base + col];
    }
  }
}

void solve(const float* A, const float* s, float* B, int M, int N) {
  static const int sms = [] {
    int device = 0;
    int count = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    return count;
  }();
  const bool alike = (reinterpret_cast<uintptr_t>(A) - reinterpret_cast<uintptr_t>(B)) % 16 == 0;
  const int per_block = alike ? 4 * SEGMENT : BLOCK_X;  // columns one block covers per step
  const int col_blocks = std::min((N + per_block - 1) / per_block, 65535);
  const int row_groups = (M + BLOCK_Y - 1) / BLOCK_Y;
  const int wanted_rows = std::max(1, BLOCKS_PER_SM * sms / col_blocks);
  const dim3 grid(col_blocks, std::min({row_groups, wanted_rows, 65535}));
  const dim3 block(BLOCK_X, BLOCK_Y);
  if (alike) {
    scale_rows_vec<<<grid, block>>>(A, s, B, M, N);
  } else {
    scale_rows<<<grid, block>>>(A, s, B, M, N);
  }
  check(cudaGetLastError(), "launch of scale_rows");
}
