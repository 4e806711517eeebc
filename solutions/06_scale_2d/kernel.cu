// Reference solution for 06_scale_2d: B[r][c] = s[r] * A[r][c], row-major M×N.
//
// Contract: void solve(const float* A, const float* s, float* B, int M, int N) — DEVICE pointers.
//
// The kernel is memory-bound (8 bytes moved per multiply), so everything here serves the memory
// system (about 90 % of a device-to-device copy on an H100, docs/performance.md):
//   - blocks of 32×8 threads: the 32 threads of a warp lie along a row, so a warp reads 32
//     neighbouring floats — one 128-byte line — and the y extent picks 8 rows;
//   - each thread does COLS columns 32 apart, loads issued back to back: several loads in flight
//     per thread hide the memory's latency;
//   - the grid covers the columns once and only as many row groups as fill the GPU; a 2D
//     grid-stride loop walks the rest, so the grid's size does not depend on M;
//   - A and B are touched once: streaming loads and stores (__ldcs, __stcs) tell the caches not to
//     keep them. s[r] is read once per row and thread, from L1.
// Rows of any length work: no vector loads, which would need every row to start on 16 bytes
// (N % 4 == 0); scalar loads of whole warps are coalesced just as well.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(err));
}

}  // namespace

constexpr int BLOCK_X = 32;  // one warp along a row
constexpr int BLOCK_Y = 8;   // rows per block
constexpr int COLS = 4;      // columns per thread, BLOCK_X apart
constexpr int BLOCKS_PER_SM = 16;

__global__ void __launch_bounds__(BLOCK_X* BLOCK_Y)
    scale_rows(const float* __restrict__ A, const float* __restrict__ s, float* __restrict__ B, int M, int N) {
  const int col0 = blockIdx.x * (BLOCK_X * COLS) + threadIdx.x;
  for (int row = blockIdx.y * BLOCK_Y + threadIdx.y; row < M; row += gridDim.y * BLOCK_Y) {
    const float factor = s[row];
    const size_t base = static_cast<size_t>(row) * N;  // row * N overflows int for large matrices
    for (int col = col0; col < N; col += gridDim.x * (BLOCK_X * COLS)) {
      float v[COLS];
#pragma unroll
      for (int k = 0; k < COLS; ++k) {
        const int c = col + k * BLOCK_X;
        v[k] = c < N ? __ldcs(A + base + c) : 0.0f;
      }
#pragma unroll
      for (int k = 0; k < COLS; ++k) {
        const int c = col + k * BLOCK_X;
        if (c < N) __stcs(B + base + c, factor * v[k]);
      }
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
  const int col_blocks = std::min((N + BLOCK_X * COLS - 1) / (BLOCK_X * COLS), 65535);
  const int row_groups = (M + BLOCK_Y - 1) / BLOCK_Y;
  const int wanted_rows = std::max(1, BLOCKS_PER_SM * sms / col_blocks);
  const dim3 grid(col_blocks, std::min({row_groups, wanted_rows, 65535}));
  const dim3 block(BLOCK_X, BLOCK_Y);
  scale_rows<<<grid, block>>>(A, s, B, M, N);
  check(cudaGetLastError(), "launch of scale_rows");
}
