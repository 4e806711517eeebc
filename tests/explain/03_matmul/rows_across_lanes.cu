// explain: uncoalesced | 19 | neighbouring threads read addresses K floats apart (K=176)
// explain: uncoalesced | 20 | neighbouring threads read addresses N floats apart (N=160)
// explain: traffic | 19 | even with every access coalesced
// A tiled matmul whose threads are laid out the wrong way round: threadIdx.x picks the ROW of C,
// so the lanes of a warp read 16 rows of A, K floats apart (16 sectors per request where 4 or 5
// would do), and 16 rows of B. The tiles are right, but only 16×16: each input is still read 10 or
// more times over. (C is written down its columns too, but once per element: too little to matter.)
#include <cuda_runtime.h>

constexpr int TILE = 16;

__global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE + 1];
  __shared__ float Bs[TILE][TILE + 1];
  const int row = blockIdx.x * TILE + threadIdx.x;  // the mistake: x should move the column
  const int col = blockIdx.y * TILE + threadIdx.y;
  float sum = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[threadIdx.x][threadIdx.y] = row < M && k0 + threadIdx.y < K ? A[row * K + k0 + threadIdx.y] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = col < N && k0 + threadIdx.x < K ? B[(k0 + threadIdx.x) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) sum += As[threadIdx.x][k] * Bs[threadIdx.y][k];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = sum;
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 grid((M + TILE - 1) / TILE, (N + TILE - 1) / TILE);
  matmul_tiled<<<grid, dim3(TILE, TILE)>>>(A, B, C, M, N, K);
}
