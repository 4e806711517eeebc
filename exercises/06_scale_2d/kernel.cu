// 06_scale_2d — scale every row of a matrix by its own factor: B[r][c] = s[r] * A[r][c].
//
// Contract (the harness calls solve; keep the signature exactly as it is):
//   void solve(const float* A, const float* s, float* B, int M, int N)
//   - A and B are DEVICE pointers to M×N floats, row-major: element (r, c) is at r * N + c.
//   - s is a DEVICE pointer to M floats, one factor per row. M, N >= 1.
//   - When solve returns, B[r * N + c] must equal s[r] * A[r * N + c]; A and s unchanged.
//   - Launch with a 2D grid or 2D block (dim3): that is what this exercise practises.
//
// Read exercises/06_scale_2d/README.md first. Check your work with:
//   ./cudalab check 06_scale_2d
#include <cuda_runtime.h>

#include <stdexcept>

__global__ void scale_rows(const float* A, const float* s, float* B, int M, int N) {
  // TODO(student): 2D thread position. The column is the x index,
  //   blockIdx.x * blockDim.x + threadIdx.x, and the row is the y index (the same with .y), so
  //   that the 32 threads of a warp read neighbouring elements of one row (coalescing).
  // TODO(student): bounds in both directions. The grid is rounded up to whole blocks on the
  //   right and at the bottom: only threads with row < M and col < N may touch memory.
  // TODO(student): row-major indexing. Element (row, col) is at row * N + col — N, the row
  //   length — so write B[row * N + col] = s[row] * A[row * N + col].
}

void solve(const float* A, const float* s, float* B, int M, int N) {
  // TODO(student): a 2D launch. Pick a block of 2D threads, e.g. dim3 block(32, 8), and a grid
  //   with enough blocks to cover N columns in x and M rows in y (round up: (N + 31) / 32).
  // TODO(student): launch scale_rows<<<grid, block>>>(A, s, B, M, N) and check cudaGetLastError().
  // Later: a 2D grid-stride loop, so that a fixed grid covers any matrix (README.md).
  throw std::logic_error("not implemented yet: write scale_rows and solve in exercises/06_scale_2d/kernel.cu");
}
