// expect: wrong_output | the grid covers 16384 rows
// Bug: a thread per row (slow as well: a warp's 32 loads are N floats apart), on a grid capped at
// 64 blocks as if each thread looped over rows, but it handles one row and stops: with more than
// 16384 rows, the rest are never written.
#include <cuda_runtime.h>

#include <algorithm>

constexpr int THREADS = 256;
constexpr int MAX_BLOCKS = 64;

__global__ void row_norms(const float* A, float* norms, int M, int N) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;  // the bug: no loop (row += blockDim.x * gridDim.x)
  if (row >= M) return;
  float s = 0.0f;
  for (int c = 0; c < N; ++c) s += A[row * N + c] * A[row * N + c];
  norms[row] = sqrtf(s);
}

void solve(const float* A, float* norms, int M, int N) {
  const int blocks = std::min((M + THREADS - 1) / THREADS, MAX_BLOCKS);
  row_norms<<<blocks, THREADS>>>(A, norms, M, N);
}
