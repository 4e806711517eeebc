// explain: bank_conflict | 23 | Declare it one element wider, tile[…][33] instead of [32]
// The tiled transpose with a [32][32] tile: both global sides are coalesced, but the second half
// reads a column of the tile, 32 floats 128 bytes apart: all in one of shared memory's 32 banks,
// a 32-way conflict that serialises every read. The reference pads the tile to [32][33].
#include <cuda_runtime.h>

constexpr int TILE = 32;
constexpr int BLOCK_ROWS = 8;

__global__ void transpose_tiles(const float* A, float* B, int M, int N) {
  __shared__ float tile[TILE][TILE];  // no padding column
  const int c0 = blockIdx.x * TILE;
  const int r0 = blockIdx.y * TILE;
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    const int r = r0 + threadIdx.y + j;
    const int c = c0 + threadIdx.x;
    if (r < M && c < N) tile[threadIdx.y + j][threadIdx.x] = A[r * N + c];
  }
  __syncthreads();
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    const int b_row = c0 + threadIdx.y + j;
    const int b_col = r0 + threadIdx.x;
    if (b_row < N && b_col < M) B[b_row * M + b_col] = tile[threadIdx.x][threadIdx.y + j];
  }
}

void solve(const float* A, float* B, int M, int N) {
  const dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  transpose_tiles<<<grid, dim3(TILE, BLOCK_ROWS)>>>(A, B, M, N);
}
