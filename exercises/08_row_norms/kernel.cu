// 08_row_norms — the length of every row of a matrix: norms[r] = sqrt(A[r][0]^2 + ... + A[r][N-1]^2).
//
// Contract (the harness calls solve; keep the signature exactly as it is):
//   void solve(const float* A, float* norms, int M, int N)
//   - A is a DEVICE pointer to an M×N matrix of floats, row-major (row r starts at A + r * N),
//     M >= 1 and N >= 1; it must stay unchanged.
//   - norms is a DEVICE pointer to M floats. When solve returns, norms[r] must be the Euclidean
//     norm of row r, for every r.
//
// Read exercises/08_row_norms/README.md first. Check your work with:
//   ./cudalab check 08_row_norms
#include <cuda_runtime.h>

#include <stdexcept>

constexpr int THREADS_PER_BLOCK = 256;  // 8 warps: 8 rows per block
constexpr int WARP_SIZE = 32;
constexpr int ROWS_PER_BLOCK = THREADS_PER_BLOCK / WARP_SIZE;

// One warp computes the norm of one row: the kernel is written for a single row, and the launch
// maps rows to warps.
__global__ void row_norms(const float* A, float* norms, int M, int N) {
  // TODO(student): rows to warps. The warp's row is blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32,
  //   and its lane is threadIdx.x % 32. A warp whose row is past M returns (the whole warp together).
  // TODO(student): the per-row work. Each lane adds up the squares of the columns lane, lane + 32,
  //   lane + 64, ... of its row (a loop: rows can be longer than 32), keeping the sum in a register.
  //   Neighbouring lanes read neighbouring floats, so the warp's loads are coalesced.
  // TODO(student): warp shuffles. Add the 32 lanes' sums with __shfl_down_sync(0xffffffffu, s, offset)
  //   for offset = 16, 8, 4, 2, 1; lane 0 then holds the row's sum and writes sqrtf(sum) to norms[row].
}

void solve(const float* A, float* norms, int M, int N) {
  // TODO(student): launch row_norms with THREADS_PER_BLOCK threads per block and enough blocks
  //   for one warp per row: (M + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK.
  throw std::logic_error("not implemented yet: write row_norms and solve in exercises/08_row_norms/kernel.cu");
}
