// expect: wrong_output | Swap blockIdx.x and blockIdx.y
// Bug: each tile is read and transposed within itself correctly, but written to B at the tile
// position it had in A (row blockIdx.y, column blockIdx.x) instead of the mirrored one (row
// blockIdx.x, column blockIdx.y). Right only while the whole matrix fits in one tile.
#include <cuda_runtime.h>

constexpr int TILE = 32;

__global__ void transpose_tiled(const float* A, float* B, int M, int N) {
  __shared__ float tile[TILE][TILE + 1];
  int col = blockIdx.x * TILE + threadIdx.x;
  int row = blockIdx.y * TILE + threadIdx.y;
  if (row < M && col < N) tile[threadIdx.y][threadIdx.x] = A[row * N + col];
  __syncthreads();
  col = blockIdx.x * TILE + threadIdx.x;  // the bug: blockIdx.y * TILE + threadIdx.x
  row = blockIdx.y * TILE + threadIdx.y;  // the bug: blockIdx.x * TILE + threadIdx.y
  if (row < N && col < M) B[row * M + col] = tile[threadIdx.x][threadIdx.y];
}

void solve(const float* A, float* B, int M, int N) {
  const dim3 block(TILE, TILE);
  const dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  transpose_tiled<<<grid, block>>>(A, B, M, N);
}
