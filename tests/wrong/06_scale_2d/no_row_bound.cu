// expect: out_of_bounds | B
// finding: out_of_bounds | 12 | past the end of s
// finding on gpu: out_of_bounds | 12 | past the end of a
// Bug: only the column is tested (col < N). The grid's bottom row of blocks reaches past row
// M - 1 whenever M is not a multiple of 8, and those threads read past the end of A and s and
// write past the end of B.
#include <cuda_runtime.h>

__global__ void scale_rows(const float* A, const float* s, float* B, int M, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < N) B[row * N + col] = s[row] * A[row * N + col];
}

void solve(const float* A, const float* s, float* B, int M, int N) {
  const dim3 block(32, 8);
  const dim3 grid((N + 31) / 32, (M + 7) / 8);
  scale_rows<<<grid, block>>>(A, s, B, M, N);
}
