// explain: uncoalesced | 14 | neighbouring threads write addresses M floats apart
// The naive transpose: one thread per element and no tile. A warp reads 32 neighbouring floats of
// a row of A (4 sectors of 32 bytes), then writes them down a column of B, M floats apart: 32
// sectors for one request. (Right output; the exercise's check also wants a shared-memory tile.)
#include <cuda_runtime.h>

constexpr int TILE = 32;

__global__ void transpose_naive(const float* A, float* B, int M, int N) {
  const int col = blockIdx.x * TILE + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const float v = A[row * N + col];
  B[col * M + row] = v;
}

void solve(const float* A, float* B, int M, int N) {
  const dim3 block(TILE, 8);
  const dim3 grid((N + TILE - 1) / TILE, (M + 7) / 8);
  transpose_naive<<<grid, block>>>(A, B, M, N);
}
