// finding: out_of_bounds | 22 | past the end of A
// finding on gpu: out_of_bounds | 22 | past the end of a
// Bug: the tile loop loads A[row][k0 + tx] and B[k0 + ty][col] checking only row and col: at the
// last tile, k0 + tx reaches past K: the next row's elements, and past the end of A (and B) for
// the last row. The simulator's guard zones read as NaN (a wrong result); the checks name the read.
#include <cuda_runtime.h>

constexpr int TILE = 16;

__global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    // The bug: k0 + tx < K (and k0 + ty < K below) is not checked. Products of the elements
    // loaded past K are not added (the loop below stops at K), but the loads themselves read
    // past A.
    As[ty][tx] = row < M ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = col < N && k0 + ty < K ? B[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE && k0 + k < K; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(TILE, TILE);
  const dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  matmul_tiled<<<grid, block>>>(A, B, C, M, N, K);
}
