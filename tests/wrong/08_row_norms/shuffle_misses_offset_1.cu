// expect: wrong_output | stopped before offset 1
// Bug: the shuffle loop runs while offset > 1, so its last step (offset 1) is missing: lane 0
// ends with the sums of the even lanes only, and the columns of the odd lanes are lost.
#include <cuda_runtime.h>

constexpr int THREADS = 256;
constexpr int ROWS_PER_BLOCK = THREADS / 32;

__global__ void row_norms(const float* A, float* norms, int M, int N) {
  const int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= M) return;
  float s = 0.0f;
  for (int c = lane; c < N; c += 32) s += A[row * N + c] * A[row * N + c];
  for (int offset = 16; offset > 1; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);  // the bug: > 0
  if (lane == 0) norms[row] = sqrtf(s);
}

void solve(const float* A, float* norms, int M, int N) {
  row_norms<<<(M + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, THREADS>>>(A, norms, M, N);
}
