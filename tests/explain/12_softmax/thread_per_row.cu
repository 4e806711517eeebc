// explain: occupancy | 29 | launch enough blocks to fill the GPU
// explain: uncoalesced | 19 | neighbouring threads read addresses N floats apart (N=1021)
// explain: uncoalesced | 21 | neighbouring threads read addresses N floats apart (N=1021)
// explain: uncoalesced | 23 | neighbouring threads read addresses N floats apart (N=1021)
// explain: uncoalesced | 24 | neighbouring threads write addresses N floats apart (N=1021)
// One thread per row, with the max trick: each thread walks its row three times (max, sum, output),
// a warp's 32 lanes touching 32 floats N apart: 32 sectors for 128 useful bytes, in each loop and
// the stores; and 1027 rows are 5 blocks. A warp per row (as in 08_row_norms) fixes both.
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
