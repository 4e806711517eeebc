// expect: wrong_output | never written
// Bug: the grid's y extent is M / 8, rounded down: when M is not a multiple of 8 the last rows
// get no threads and are never written.
#include <cuda_runtime.h>

__global__ void scale_rows(const float* A, const float* s, float* B, int M, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) B[row * N + col] = s[row] * A[row * N + col];
}

void solve(const float* A, const float* s, float* B, int M, int N) {
  const dim3 block(32, 8);
  const dim3 grid((N + 31) / 32, M / 8 > 0 ? M / 8 : 1);
  scale_rows<<<grid, block>>>(A, s, B, M, N);
}
