// expect: uninitialized_read | shared memory that no thread of this block had written
// never: out of bounds
// Bug: the write side was copied from the read side: it bounds and indexes B as if it were M×N,
// `if (row < M && col < N) B[row * N + col]`, as A is. B is N×M: its rows are M long, its row
// index runs to N and its column index to M. The writes stay inside B, but in the wrong places,
// and where the bounds let a thread write an element of the tile that was never loaded, garbage.
#include <cuda_runtime.h>

constexpr int TILE = 32;

__global__ void transpose_tiled(const float* A, float* B, int M, int N) {
  __shared__ float tile[TILE][TILE + 1];
  const int col = blockIdx.x * TILE + threadIdx.x;
  const int row = blockIdx.y * TILE + threadIdx.y;
  if (row < M && col < N) tile[threadIdx.y][threadIdx.x] = A[row * N + col];
  __syncthreads();
  const int b_col = blockIdx.y * TILE + threadIdx.x, b_row = blockIdx.x * TILE + threadIdx.y;
  if (b_row < M && b_col < N) B[b_row * N + b_col] = tile[threadIdx.x][threadIdx.y];  // the bug: N×M
}

void solve(const float* A, float* B, int M, int N) {
  const dim3 block(TILE, TILE);
  const dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  transpose_tiled<<<grid, block>>>(A, B, M, N);
}
