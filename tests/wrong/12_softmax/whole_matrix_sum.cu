// expect: wrong_output | normalised by the sum over the whole matrix
// Bug: every row's sum of exponentials is added into one global total (atomicAdd), and every
// element is divided by that total: all of Y adds up to 1, instead of each row.
#include <cuda_runtime.h>

constexpr int THREADS = 256;
constexpr int ROWS_PER_BLOCK = THREADS / 32;

__device__ float g_total;

__device__ float row_max(const float* x, int N, int lane) {
  float m = -INFINITY;
  for (int c = lane; c < N; c += 32) m = fmaxf(m, x[c]);
  for (int offset = 16; offset > 0; offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
  return m;
}

__global__ void zero_total() { g_total = 0.0f; }

__global__ void add_row_sums(const float* X, int M, int N) {
  const int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= M) return;
  const float* x = X + row * N;
  const float m = row_max(x, N, lane);
  float s = 0.0f;
  for (int c = lane; c < N; c += 32) s += expf(x[c] - m);
  for (int offset = 16; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
  if (lane == 0) atomicAdd(&g_total, s);  // the bug: one sum for all rows
}

__global__ void scale(const float* X, float* Y, int M, int N) {
  const int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= M) return;
  const float* x = X + row * N;
  const float m = row_max(x, N, lane);
  for (int c = lane; c < N; c += 32) Y[row * N + c] = expf(x[c] - m) / g_total;
}

void solve(const float* X, float* Y, int M, int N) {
  const int blocks = (M + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
  zero_total<<<1, 1>>>();
  add_row_sums<<<blocks, THREADS>>>(X, M, N);
  scale<<<blocks, THREADS>>>(X, Y, M, N);
}
