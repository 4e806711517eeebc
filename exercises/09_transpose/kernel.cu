// 09_transpose — B = Aᵀ, through a shared-memory tile so that reads and writes are both coalesced.
//
// Contract (the harness calls solve; keep the signature exactly as it is):
//   void solve(const float* A, float* B, int M, int N)
//   - A and B are DEVICE pointers (already on the GPU: no cudaMalloc or cudaMemcpy needed).
//   - Row-major: A is M×N (A[r * N + c]), B is N×M (B[c * M + r]).
//   - M, N >= 1 and any shape: 1×1, one row, one column, not multiples of your tile size.
//   - B[c][r] = A[r][c] exactly. A must be unchanged.
//   - Your kernel must stage tiles of A in __shared__ memory.
//
// Read exercises/09_transpose/README.md first. Check your work with:
//   ./cudalab check 09_transpose
#include <cuda_runtime.h>

#include <stdexcept>

constexpr int TILE = 32;  // the block is TILE×TILE threads; each moves one element
static_assert(TILE * TILE <= 1024, "a block holds at most 1024 threads");

__global__ void transpose_tiled(const float* A, float* B, int M, int N) {
  // TODO(student): shared memory and bank conflicts. Declare __shared__ float tile[TILE][TILE + 1]:
  //   the extra column shifts each row by one bank, so that reading a COLUMN of the tile (32
  //   threads, 32 different rows) touches 32 different banks instead of one bank 32 times.
  // TODO(student): coalesced read. This block's tile of A starts at row blockIdx.y * TILE and
  //   column blockIdx.x * TILE. Thread (threadIdx.x, threadIdx.y) loads A[row][col] with
  //   row = blockIdx.y * TILE + threadIdx.y and col = blockIdx.x * TILE + threadIdx.x (a warp reads
  //   32 neighbouring floats of one row) into tile[threadIdx.y][threadIdx.x], only if row < M and
  //   col < N (edge tiles stick out of the matrix).
  // TODO(student): __syncthreads(): each thread is about to read an element that ANOTHER thread
  //   loaded.
  // TODO(student): coalesced write. The tile goes to B at row blockIdx.x * TILE and column
  //   blockIdx.y * TILE: the block indices swap. Thread (threadIdx.x, threadIdx.y) writes
  //   B[row][col] with row = blockIdx.x * TILE + threadIdx.y and col = blockIdx.y * TILE +
  //   threadIdx.x (again 32 neighbouring floats per warp), taking tile[threadIdx.x][threadIdx.y]
  //   (a column of the tile), only if row < N and col < M. B's rows are M long: B[row * M + col].
}

void solve(const float* A, float* B, int M, int N) {
  // TODO(student): launch a 2D grid of TILE×TILE blocks: dim3 block(TILE, TILE) and a dim3 grid
  //   with one block per tile of A: enough in x to cover all N columns, in y all M rows, rounding up.
  throw std::logic_error("not implemented yet: write transpose_tiled and solve in exercises/09_transpose/kernel.cu");
}
