// expect: wrong_output | does your grid cover all N rows?
// never: does your grid cover all M rows?
// Bug: the grid's x extent, over A's N columns, is N / TILE rounded down: the last columns of A,
// the last rows of B (N×M), are never written. The hint must name N, B's row count, not M.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

constexpr int TILE = 32;

__global__ void transpose_tiles(const float* A, float* B, int M, int N) {
  __shared__ float tile[TILE][TILE + 1];
  const int col = blockIdx.x * TILE + threadIdx.x;  // column of A
  const int row = blockIdx.y * TILE + threadIdx.y;  // row of A
  if (row < M && col < N) tile[threadIdx.y][threadIdx.x] = A[static_cast<size_t>(row) * N + col];
  __syncthreads();
  const int b_row = blockIdx.x * TILE + threadIdx.y;  // row of B = column of A
  const int b_col = blockIdx.y * TILE + threadIdx.x;  // column of B = row of A
  if (b_row < N && b_col < M) B[static_cast<size_t>(b_row) * M + b_col] = tile[threadIdx.x][threadIdx.y];
}

void solve(const float* A, float* B, int M, int N) {
  const dim3 block(TILE, TILE);
  const dim3 grid(std::max(1, N / TILE), (M + TILE - 1) / TILE);  // the bug: N / TILE rounds down
  transpose_tiles<<<grid, block>>>(A, B, M, N);
}
