// expect: wrong_output | exp overflowed: subtract the row's maximum first
// Bug: the textbook formula exp(x) / Σ exp(x) without the max shift. Rows whose values pass 88.7
// overflow: expf gives inf, the sum is inf, and inf / inf is NaN (finite / inf is 0). Rows with
// small values come out right, which is why this bug survives tests on small random inputs.
#include <cuda_runtime.h>

constexpr int THREADS = 256;
constexpr int ROWS_PER_BLOCK = THREADS / 32;

__global__ void softmax_rows(const float* X, float* Y, int M, int N) {
  const int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= M) return;
  const float* x = X + row * N;
  float s = 0.0f;
  for (int c = lane; c < N; c += 32) s += expf(x[c]);  // the bug: expf(x[c] - max)
  for (int offset = 16; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
  for (int c = lane; c < N; c += 32) Y[row * N + c] = expf(x[c]) / s;
}

void solve(const float* X, float* Y, int M, int N) {
  softmax_rows<<<(M + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, THREADS>>>(X, Y, M, N);
}
