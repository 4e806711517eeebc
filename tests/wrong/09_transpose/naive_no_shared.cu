// expect: requirement_unmet | must use shared memory
// Bug: the right B, from one thread per element and no tile: a warp reads 32 neighbouring floats of
// a row of A, but writes them down a column of B, M floats apart, 32 separate memory transactions
// per warp store. The exercise is the shared-memory tile that makes both sides coalesced.
#include <cuda_runtime.h>

__global__ void transpose_naive(const float* A, float* B, int M, int N) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) B[col * M + row] = A[row * N + col];
}

void solve(const float* A, float* B, int M, int N) {
  const dim3 block(32, 8);
  const dim3 grid((N + 31) / 32, (M + 7) / 8);
  transpose_naive<<<grid, block>>>(A, B, M, N);
}
