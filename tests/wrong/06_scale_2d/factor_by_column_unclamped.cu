// expect: out_of_bounds | past the end of s
// never: does your grid cover all N columns?
// Bug: the factor is s[col], the column index, instead of s[row]. Where the matrix is wider than
// tall, the columns from M on read past the end of s (M factors), so every column from M on is
// wrong: the pattern of a grid that stops early, though the grid covers every column. The
// simulator's checks see the reads past s; on a GPU the values must name the index.
#include <cuda_runtime.h>

__global__ void scale_rows(const float* A, const float* s, float* B, int M, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) B[row * N + col] = s[col] * A[row * N + col];
}

void solve(const float* A, const float* s, float* B, int M, int N) {
  const dim3 block(32, 8);
  const dim3 grid((N + 31) / 32, (M + 7) / 8);
  scale_rows<<<grid, block>>>(A, s, B, M, N);
}
