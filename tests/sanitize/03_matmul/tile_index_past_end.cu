// finding: out_of_bounds | 14 | a __shared__ array holds exactly what it declares
// Bug: the tile is declared TILE×TILE but the block is (TILE+1)×TILE threads, so the last column
// of threads stores one element past the end of each row (and the last row past the array).
#include <cuda_runtime.h>

constexpr int TILE = 16;

__global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  const int row = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[threadIdx.y][threadIdx.x] = (row < M && k0 + threadIdx.x < K) ? A[row * K + k0 + threadIdx.x] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE && k0 + k < K; ++k) {
      if (col < N) acc += As[threadIdx.y][k] * B[(k0 + k) * N + col];
    }
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(TILE + 1, TILE);  // the bug: one column of threads too many for the tile
  const dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  matmul_tiled<<<grid, block>>>(A, B, C, M, N, K);
}
