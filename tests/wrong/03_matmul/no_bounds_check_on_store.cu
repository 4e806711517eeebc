// expect: out_of_bounds | past the end of C
// finding: out_of_bounds | 33 | past the end of C
// finding on gpu: out_of_bounds | 33 | past the end of a
// never: a buffer of one element
// Bug: the tiles are loaded with bounds checks, but the result is stored without one. Threads of
// the last row of blocks whose row is M or more write past the end of C (and threads whose column
// is N or more write into the next row). Right whenever M and N are multiples of the tile.
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>

constexpr int TILE = 16;

__global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float A_tile[TILE][TILE];
  __shared__ float B_tile[TILE][TILE];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    const int k0 = t * TILE;
    const int a_col = k0 + tx;
    const int b_row = k0 + ty;
    A_tile[ty][tx] = (row < M && a_col < K) ? A[static_cast<size_t>(row) * K + a_col] : 0.0f;
    B_tile[ty][tx] = (b_row < K && col < N) ? B[static_cast<size_t>(b_row) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += A_tile[ty][k] * B_tile[k][tx];
    __syncthreads();
  }
  C[static_cast<size_t>(row) * N + col] = acc;  // no check that row < M and col < N
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(TILE, TILE);
  const dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  matmul_tiled<<<grid, block>>>(A, B, C, M, N, K);
}
