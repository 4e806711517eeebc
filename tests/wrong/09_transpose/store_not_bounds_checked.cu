// expect: out_of_bounds | past the end of B
// finding: out_of_bounds | 20 | past the end of B
// finding on gpu: out_of_bounds | 20 | past the end of a
// never: wrong output
// Bug: the edge tiles are loaded with a bounds check, but the transposed tile is stored without
// one. Tiles at the right or bottom edge stick out of the matrix, and their threads past the last
// row or column of B write past its end (a thread whose column is M or more lands in the next row
// of B, one whose row is N or more after the last). Right only when M and N are multiples of 32.
#include <cuda_runtime.h>

constexpr int TILE = 32;

__global__ void transpose_tiled(const float* A, float* B, int M, int N) {
  __shared__ float tile[TILE][TILE + 1];
  const int col = blockIdx.x * TILE + threadIdx.x;
  const int row = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = (row < M && col < N) ? A[row * N + col] : 0.0f;
  __syncthreads();
  const int b_col = blockIdx.y * TILE + threadIdx.x, b_row = blockIdx.x * TILE + threadIdx.y;
  B[b_row * M + b_col] = tile[threadIdx.x][threadIdx.y];  // the bug: no `if (b_row < N && b_col < M)`
}

void solve(const float* A, float* B, int M, int N) {
  const dim3 block(TILE, TILE);
  const dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  transpose_tiled<<<grid, block>>>(A, B, M, N);
}
