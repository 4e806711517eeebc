// explain: uncoalesced | 13 | read addresses N floats apart (N=1021)
// explain: uncoalesced | 14 | write addresses N floats apart (N=1021)
// x and y the wrong way round: threadIdx.x picks the ROW, so the 32 threads of a warp walk down a
// column, N floats apart, and each touches a sector of its own: about 31 sectors per request where
// 4 or 5 would hold the warp's 128 bytes. Right output; making x the column (and the grid's x
// extent cover N) turns each request into one row's neighbouring floats.
#include <cuda_runtime.h>

__global__ void scale_rows(const float* A, const float* s, float* B, int M, int N) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;  // the mistake: x should move the column
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const float v = s[row] * A[row * N + col];
  B[row * N + col] = v;
}

void solve(const float* A, const float* s, float* B, int M, int N) {
  const dim3 block(32, 8);
  const dim3 grid((M + block.x - 1) / block.x, (N + block.y - 1) / block.y);
  scale_rows<<<grid, block>>>(A, s, B, M, N);
}
