// Reference solution for 06_scale_2d: B[r][c] = s[r] * A[r][c], row-major M×N.
//
// Contract: void solve(const float* A, const float* s, float* B, int M, int N) — DEVICE pointers.
//
// The kernel is memory-bound (8 bytes moved per multiply), so everything here serves the memory
// system; on an H100 it moves its bytes as fast as a device-to-device copy (docs/performance.md):
//   - blocks of 32×8 threads: the 32 threads of a warp work along one row and the y extent picks 8
//     rows, so a warp's loads are neighbouring addresses;
//   - float4 loads and stores: a row of an M×N matrix starts 16-byte aligned only when N % 4 == 0,
//     so each row is cut into a scalar head (up to 3 elements, to the first 16-byte boundary), a
//     float4 body and a scalar tail. A and B share the head when their bases agree modulo 16 bytes
//     (the harness's buffers do); otherwise a scalar kernel does the work;
//   - one pass, no grid-stride loop: a block per 32 float4s of 8 rows, as many blocks as the matrix
//     needs. Blocks start roughly in blockIdx order, x fastest, so the blocks in flight at any
//     moment cover a band of whole neighbouring rows: one contiguous stretch of memory, which the
//     DRAM serves best. (A grid sized to the SMs with a grid-stride loop reached 85 %: its blocks
//     each walk their own rows, hundreds of streams far apart);
//   - plain loads and stores: the streaming hints (__ldcs, __stcs) measured 1-2 % slower here.
//     s[r] is read once per row and thread, from the cache.
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

constexpr int BLOCK_X = 32;  // one warp along a row
constexpr int BLOCK_Y = 8;   // rows per block
constexpr int MAX_GRID_Y = 65535;

__global__ void __launch_bounds__(BLOCK_X* BLOCK_Y)
    scale_rows_vec(const float* __restrict__ A, const float* __restrict__ s, float* __restrict__ B, int M, int N) {
  // gridDim.y stops at 65535: taller matrices loop over bands of rows (once for most shapes).
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
    const int v = blockIdx.x * BLOCK_X + threadIdx.x;
    if (v < vectors) {
      const float4 in = reinterpret_cast<const float4*>(a + head)[v];
      reinterpret_cast<float4*>(b + head)[v] = make_float4(factor * in.x, factor * in.y, factor * in.z, factor * in.w);
    }
  }
}

// A and B not aligned alike (never with the harness's buffers): one float per thread.
__global__ void __launch_bounds__(BLOCK_X* BLOCK_Y)
    scale_rows(const float* __restrict__ A, const float* __restrict__ s, float* __restrict__ B, int M, int N) {
  const int col = blockIdx.x * BLOCK_X + threadIdx.x;
  for (int row = blockIdx.y * BLOCK_Y + threadIdx.y; row < M; row += gridDim.y * BLOCK_Y) {
    const size_t at = static_cast<size_t>(row) * N + col;
    if (col < N) B[at] = s[row] * A[at];
  }
}

void solve(const float* A, const float* s, float* B, int M, int N) {
  const bool alike = (reinterpret_cast<uintptr_t>(A) - reinterpret_cast<uintptr_t>(B)) % 16 == 0;
  const int per_block = alike ? 4 * BLOCK_X : BLOCK_X;  // columns a block covers (a float4 or a float a thread)
  // At least one block in x: a row shorter than its head has no float4, but block 0 does its floats.
  const dim3 grid(std::max(1, N / per_block + (N % per_block != 0)), std::min((M + BLOCK_Y - 1) / BLOCK_Y, MAX_GRID_Y));
  const dim3 block(BLOCK_X, BLOCK_Y);
  if (alike) {
    scale_rows_vec<<<grid, block>>>(A, s, B, M, N);
  } else {
    scale_rows<<<grid, block>>>(A, s, B, M, N);
  }
  check(cudaGetLastError(), "launch of scale_rows");
}
