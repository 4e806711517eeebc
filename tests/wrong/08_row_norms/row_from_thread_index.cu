// expect: data_race | a data race between blocks on global memory
// finding: data_race | 19 | a data race between blocks
// finding on gpu: wrong_output | - | one block's worth
// Bug: the warp's row comes from threadIdx alone (row = threadIdx.x / 32), so every block
// computes rows 0 to 7 again (every block writes the same norms[0..7]: a race between blocks,
// even if they write equal values), and rows from 8 on are never written.
#include <cuda_runtime.h>

constexpr int THREADS = 256;
constexpr int ROWS_PER_BLOCK = THREADS / 32;

__global__ void row_norms(const float* A, float* norms, int M, int N) {
  const int row = threadIdx.x / 32;  // the bug: + blockIdx.x * ROWS_PER_BLOCK
  const int lane = threadIdx.x % 32;
  if (row >= M) return;
  float s = 0.0f;
  for (int c = lane; c < N; c += 32) s += A[row * N + c] * A[row * N + c];
  for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
  if (lane == 0) norms[row] = sqrtf(s);
}

void solve(const float* A, float* norms, int M, int N) {
  row_norms<<<(M + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, THREADS>>>(A, norms, M, N);
}
