// explain: uncoalesced | 19 | neighbouring threads read addresses N floats apart (N=1021)
// explain: uncoalesced | 21 | neighbouring threads read addresses N floats apart (N=1021)
// explain: uncoalesced | 23 | neighbouring threads read addresses N floats apart (N=1021)
// explain: uncoalesced | 24 | neighbouring threads write addresses N floats apart (N=1021)
// One thread per row, with the max trick: each thread walks its row three times (max, sum of
// exponentials, output). At every step the 32 lanes of a warp touch 32 floats N floats apart, one
// from each of 32 rows: 32 sectors for 128 useful bytes, in each of the three loops and in the
// stores. A warp per row (as in 08_row_norms) reads and writes 32 neighbouring floats at a time.
#include <cuda_runtime.h>

constexpr int THREADS = 256;

__global__ void softmax_rows(const float* X, float* Y, int M, int N) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M) return;
  const float* x = X + static_cast<long long>(row) * N;
  float* y = Y + static_cast<long long>(row) * N;
  float m = -INFINITY;
  for (int c = 0; c < N; ++c) m = fmaxf(m, x[c]);
  float sum = 0.0f;
  for (int c = 0; c < N; ++c) sum += expf(x[c] - m);
  for (int c = 0; c < N; ++c) {
    const float e = expf(x[c] - m);
    y[c] = e / sum;
  }
}

void solve(const float* X, float* Y, int M, int N) {
  softmax_rows<<<(M + THREADS - 1) / THREADS, THREADS>>>(X, Y, M, N);
}
