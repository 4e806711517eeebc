// expect: wrong_output | instead of s[row]
// Bug: the factor is looked up with the column index, s[col], instead of the row's, s[row]: x
// and y mixed up in one place. Only shapes with at least as many rows as columns are read inside
// s (the others read past its end); the hint names the swap there.
#include <cuda_runtime.h>

__global__ void scale_rows(const float* A, const float* s, float* B, int M, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) B[row * N + col] = s[col < M ? col : M - 1] * A[row * N + col];
}

void solve(const float* A, const float* s, float* B, int M, int N) {
  const dim3 block(32, 8);
  const dim3 grid((N + 31) / 32, (M + 7) / 8);
  scale_rows<<<grid, block>>>(A, s, B, M, N);
}
