// 03_matmul — matrix multiplication C = A·B, tiled through shared memory.
//
// Contract (the harness calls solve; keep the signature exactly as it is):
//   void solve(const float* A, const float* B, float* C, int M, int N, int K)
//   - A, B and C are DEVICE pointers (already on the GPU: no cudaMalloc or cudaMemcpy needed).
//   - Row-major: A is M×K (A[r * K + k]), B is K×N (B[k * N + c]), C is M×N (C[r * N + c]).
//   - M, N, K >= 1 and any shape: 1×1×1, non-square, not multiples of your tile size.
//   - C[r][c] = sum over k of A[r][k] * B[k][c]. A and B must be unchanged.
//   - Your kernel must stage tiles of A and B in __shared__ memory.
//
// Read exercises/03_matmul/README.md first. Check your work with:
//   ./cudalab check 03_matmul
#include <cuda_runtime.h>

#include <stdexcept>

constexpr int TILE = 16;  // the block is TILE×TILE threads; each computes one element of C
static_assert(TILE * TILE <= 1024, "a block holds at most 1024 threads");

__global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  // TODO(student): shared memory. Declare two TILE×TILE __shared__ float arrays, one for a tile
  //   of A and one for a tile of B.
  // TODO(student): 2D thread position. row = blockIdx.y * TILE + threadIdx.y,
  //   col = blockIdx.x * TILE + threadIdx.x.
  // TODO(student): tiling. Loop over K one tile at a time (k0 = 0, TILE, 2*TILE, ... while
  //   k0 < K). In each step every thread loads ONE element of the A tile and ONE of the B
  //   tile; edge tiles: an element outside the matrix is loaded as 0.0f.
  // TODO(student): __syncthreads() after loading (the tile is complete before anyone reads it),
  //   multiply-accumulate across the tile, __syncthreads() again before the next load.
  // TODO(student): write C[row * N + col] only if row < M and col < N.
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  // TODO(student): launch a 2D grid of TILE×TILE blocks: dim3 block(TILE, TILE) and a dim3 grid
  //   that covers all N columns (x) and all M rows (y), rounding up.
  throw std::logic_error("not implemented yet: write matmul_tiled and solve in exercises/03_matmul/kernel.cu");
}
