// explain: occupancy | 22 | launch enough blocks to fill the GPU
// explain: uncoalesced | 15 | neighbouring threads read addresses N floats apart
// One thread per row: each thread walks its own row, so a warp's 32 lanes read 32 floats N apart
// (32 sectors for 128 useful bytes; a warp per row reads them in 4), and 1027 rows are 5 blocks.
// The right norms, read the wrong way round.
#include <cuda_runtime.h>

constexpr int THREADS = 256;

__global__ void row_norms(const float* A, float* norms, int M, int N) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M) return;
  float sum = 0.0f;
  for (int c = 0; c < N; ++c) {
    const float v = A[row * N + c];
    sum += v * v;
  }
  norms[row] = sqrtf(sum);
}

void solve(const float* A, float* norms, int M, int N) {
  row_norms<<<(M + THREADS - 1) / THREADS, THREADS>>>(A, norms, M, N);
}
