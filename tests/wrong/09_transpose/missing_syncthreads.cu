// expect: data_race | with no barrier between
// only on: sim
// finding: data_race | 20 | between writing shared memory and reading what other threads wrote
// Bug: no __syncthreads() between storing the tile and reading it back transposed. Each thread
// reads tile[threadIdx.x][threadIdx.y], an element that ANOTHER thread stores, which may not have
// happened yet. (The simulator runs the threads one after another, so the element is still the
// garbage shared memory started with; on a GPU the outcome depends on timing, so this kernel is
// checked on the simulator only.)
#include <cuda_runtime.h>

constexpr int TILE = 32;

__global__ void transpose_tiled(const float* A, float* B, int M, int N) {
  __shared__ float tile[TILE][TILE + 1];
  const int col = blockIdx.x * TILE + threadIdx.x;
  const int row = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = (row < M && col < N) ? A[row * N + col] : 0.0f;
  // the bug: no __syncthreads() here
  const int b_col = blockIdx.y * TILE + threadIdx.x, b_row = blockIdx.x * TILE + threadIdx.y;
  if (b_row < N && b_col < M) B[b_row * M + b_col] = tile[threadIdx.x][threadIdx.y];
}

void solve(const float* A, float* B, int M, int N) {
  const dim3 block(TILE, TILE);
  const dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  transpose_tiled<<<grid, block>>>(A, B, M, N);
}
