// expect: uninitialized_read | C as solve received it
// Bug: the result is added to C (C[...] += acc) instead of stored, so whatever C held before
// (the harness fills outputs with NaN) poisons every element.
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
  for (int k0 = 0; k0 < K; k0 += TILE) {
    const int a_col = k0 + tx;
    const int b_row = k0 + ty;
    A_tile[ty][tx] = (row < M && a_col < K) ? A[static_cast<size_t>(row) * K + a_col] : 0.0f;
    B_tile[ty][tx] = (b_row < K && col < N) ? B[static_cast<size_t>(b_row) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += A_tile[ty][k] * B_tile[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[static_cast<size_t>(row) * N + col] += acc;
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(TILE, TILE);
  const dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  matmul_tiled<<<grid, block>>>(A, B, C, M, N, K);
}
