// expect: wrong_output | only the first 32 columns
// Bug: one warp per row, but each lane reads one element, A[row][lane], and there is no loop over
// the row: right while N <= 32, and every longer row loses its columns from 32 on.
#include <cuda_runtime.h>

constexpr int THREADS = 256;
constexpr int ROWS_PER_BLOCK = THREADS / 32;

__global__ void row_norms(const float* A, float* norms, int M, int N) {
  const int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= M) return;
  const float v = lane < N ? A[row * N + lane] : 0.0f;  // the bug: no loop (col += 32)
  float s = v * v;
  for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
  if (lane == 0) norms[row] = sqrtf(s);
}

void solve(const float* A, float* norms, int M, int N) {
  row_norms<<<(M + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, THREADS>>>(A, norms, M, N);
}
