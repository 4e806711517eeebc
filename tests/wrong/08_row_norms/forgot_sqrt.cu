// expect: wrong_output | forgot the square root
// Bug: a correct warp per row whose lane 0 stores the row's sum of squares, ‖row‖², and never
// takes its square root.
#include <cuda_runtime.h>

constexpr int THREADS = 256;
constexpr int ROWS_PER_BLOCK = THREADS / 32;

__global__ void row_norms(const float* A, float* norms, int M, int N) {
  const int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= M) return;
  float s = 0.0f;
  for (int c = lane; c < N; c += 32) s += A[row * N + c] * A[row * N + c];
  for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
  if (lane == 0) norms[row] = s;  // the bug: sqrtf(s)
}

void solve(const float* A, float* norms, int M, int N) {
  row_norms<<<(M + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, THREADS>>>(A, norms, M, N);
}
