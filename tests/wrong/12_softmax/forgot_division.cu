// expect: wrong_output | without the division
// Bug: the max shift and the exponentials are right, but nothing divides by the row's sum: Y holds
// exp(x - max), whose largest element in each row is 1, and no row adds up to 1.
#include <cuda_runtime.h>

constexpr int THREADS = 256;
constexpr int ROWS_PER_BLOCK = THREADS / 32;

__global__ void softmax_rows(const float* X, float* Y, int M, int N) {
  const int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= M) return;
  const float* x = X + row * N;
  float m = -INFINITY;
  for (int c = lane; c < N; c += 32) m = fmaxf(m, x[c]);
  for (int offset = 16; offset > 0; offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
  for (int c = lane; c < N; c += 32) Y[row * N + c] = expf(x[c] - m);  // the bug: / sum
}

void solve(const float* X, float* Y, int M, int N) {
  softmax_rows<<<(M + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, THREADS>>>(X, Y, M, N);
}
