// finding: uninitialized_read | 20 | write 0 instead of skipping
// finding on gpu: none (compute-sanitizer does not look for reads of unwritten shared memory)
// Bug: at the matrix's edge the threads skip their load instead of storing 0.0f, and the loop
// then multiplies the tile elements nobody wrote (garbage left by an earlier block on a GPU).
#include <cuda_runtime.h>

constexpr int TILE = 16;

__global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int row = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    if (row < M && k0 + threadIdx.x < K) As[threadIdx.y][threadIdx.x] = A[row * K + k0 + threadIdx.x];
    if (col < N && k0 + threadIdx.y < K) Bs[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * N + col];
    __syncthreads();
    const int steps = K - k0 < TILE ? K - k0 : TILE;
    for (int k = 0; k < steps; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(TILE, TILE);
  const dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  matmul_tiled<<<grid, block>>>(A, B, C, M, N, K);
}
