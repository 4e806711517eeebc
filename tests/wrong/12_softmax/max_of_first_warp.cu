// expect: wrong_output | maximum was taken over the first 32 columns
// Bug: each lane takes one element, x[lane], as its share of the maximum, with no loop over the
// row: the "max" is that of the first 32 columns. Softmax does not change when a row is shifted
// by any number, so most rows still come out right; but where a value further along is more than
// 88.7 above that max, its exponential overflows and the row turns into NaN.
#include <cuda_runtime.h>

constexpr int THREADS = 256;
constexpr int ROWS_PER_BLOCK = THREADS / 32;

__global__ void softmax_rows(const float* X, float* Y, int M, int N) {
  const int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= M) return;
  const float* x = X + row * N;
  float m = lane < N ? x[lane] : -INFINITY;  // the bug: no loop (c = lane; c < N; c += 32)
  for (int offset = 16; offset > 0; offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
  float s = 0.0f;
  for (int c = lane; c < N; c += 32) s += expf(x[c] - m);
  for (int offset = 16; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
  for (int c = lane; c < N; c += 32) Y[row * N + c] = expf(x[c] - m) / s;
}

void solve(const float* X, float* Y, int M, int N) {
  softmax_rows<<<(M + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, THREADS>>>(X, Y, M, N);
}
