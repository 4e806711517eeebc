// Speed ladder for 03_matmul, step 2 of 4: shared-memory tiles, one thread per element of C.
//
// Contract: void solve(const float* A, const float* B, float* C, int M, int N, int K) — DEVICE
// pointers, row-major; A is M×K, B is K×N, C is M×N; M, N, K >= 1, any shape.
//
// What this step teaches: data reuse through shared memory. A block of TILE×TILE threads loads a
// TILE×TILE tile of A and one of B once, then every thread reads TILE values of each from shared
// memory. Each global load now feeds TILE multiply-adds instead of one, so the arithmetic
// intensity grows from 0.25 to TILE/4 FLOP/byte (8 for TILE = 32).
//
// What still limits it: every multiply-add needs two shared-memory loads (one of them a
// broadcast), so the kernel is bound by shared-memory bandwidth and instruction issue, not by the
// FMA units. Step 3 fixes that with register blocking.
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(err));
  }
}

}  // namespace

// 32×32: 1024 threads per block and 8 KiB of shared memory for both tiles. A row of a tile is
// exactly one warp, so global loads are coalesced and shared-memory accesses are conflict-free.
constexpr int TILE = 32;

__global__ void matmul_shared_tiles(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                    int M, int N, int K) {
  __shared__ float A_tile[TILE][TILE];
  __shared__ float B_tile[TILE][TILE];

  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;  // row of C (and of A) this thread owns
  const int col = blockIdx.x * TILE + tx;  // column of C (and of B) this thread owns

  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {  // k0 < K: the last, partial tile of K is included
    // Zero padding at the edges: elements outside A or B load as 0.0f and add nothing. Threads
    // that own no element of C still load and still reach every barrier.
    const int a_col = k0 + tx;
    const int b_row = k0 + ty;
    A_tile[ty][tx] = (row < M && a_col < K) ? A[static_cast<size_t>(row) * K + a_col] : 0.0f;
    B_tile[ty][tx] = (b_row < K && col < N) ? B[static_cast<size_t>(b_row) * N + col] : 0.0f;
    __syncthreads();  // both tiles complete before anyone reads them

    // A_tile[ty][k] is the same address for the whole warp (a broadcast); B_tile[k][tx] is 32
    // consecutive floats, one per bank: neither access has a bank conflict.
#pragma unroll
    for (int k = 0; k < TILE; ++k) {
      acc = fmaf(A_tile[ty][k], B_tile[k][tx], acc);
    }
    __syncthreads();  // everyone is done reading before the next iteration overwrites the tiles
  }

  if (row < M && col < N) {
    C[static_cast<size_t>(row) * N + col] = acc;
  }
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(TILE, TILE);
  const dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  matmul_shared_tiles<<<grid, block>>>(A, B, C, M, N, K);
  check(cudaGetLastError(), "launch of matmul_shared_tiles");
}
