// expect: wrong_output | row r starts at r * N
// Bug: element (row, col) is taken at row * M + col, as if every row held M elements. Right for
// square matrices only; in a tall one (M > N) rows overlap and most elements are never written.
#include <cuda_runtime.h>

__global__ void scale_rows(const float* A, const float* s, float* B, int M, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N && row * M + col < M * N) B[row * M + col] = s[row] * A[row * M + col];
}

void solve(const float* A, const float* s, float* B, int M, int N) {
  const dim3 block(16, 16);
  const dim3 grid((N + 15) / 16, (M + 15) / 16);
  scale_rows<<<grid, block>>>(A, s, B, M, N);
}
