// 12_softmax — the softmax of every row of a matrix, computed so that exp never overflows:
//   Y[r][c] = exp(X[r][c] - max_r) / (exp(X[r][0] - max_r) + ... + exp(X[r][N-1] - max_r)),
// where max_r is the largest value of row r.
//
// Contract (the harness calls solve; keep the signature exactly as it is):
//   void solve(const float* X, float* Y, int M, int N)
//   - X and Y are DEVICE pointers to M×N matrices of floats, row-major (row r starts at r * N),
//     M >= 1 and N >= 1. X must stay unchanged.
//   - When solve returns, every row of Y is the softmax of the same row of X (it adds up to 1).
//   - X holds values up to about 190: expf(x) is infinite for x > 88.7, so subtract the row's
//     maximum before taking any exponential.
//
// Read exercises/12_softmax/README.md first. Check your work with:
//   ./cudalab check 12_softmax
#include <cuda_runtime.h>

#include <stdexcept>

constexpr int THREADS_PER_BLOCK = 256;  // 8 warps: 8 rows per block
constexpr int WARP_SIZE = 32;
constexpr int ROWS_PER_BLOCK = THREADS_PER_BLOCK / WARP_SIZE;

// One warp computes the softmax of one row, all three steps in this one kernel (fused): the row
// is read from memory once, and the later loops find it in the cache.
__global__ void softmax_rows(const float* X, float* Y, int M, int N) {
  // TODO(student): rows to warps, as in 08_row_norms: row = blockIdx.x * ROWS_PER_BLOCK +
  //   threadIdx.x / 32, lane = threadIdx.x % 32; a warp whose row is past M returns.
  // TODO(student): step 1, the row's maximum (the max trick). Each lane takes the max of its
  //   columns lane, lane + 32, ... (start from -INFINITY), then the warp combines them with
  //   m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset)) for offset = 16, 8, 4, 2, 1: with xor,
  //   every lane ends with the row's maximum, not only lane 0.
  // TODO(student): step 2, the sum of expf(x - max) over the row, the same way (a loop, then
  //   shuffles with xor so that every lane has the sum). Every exponent is <= 0: no overflow.
  // TODO(student): step 3, write Y[row][c] = expf(X[row][c] - max) / sum for the lane's columns.
  //   (Steps 1 and 2 can be one loop: the online softmax keeps a running max m and a running sum s,
  //   and when a value v > m arrives, s = s * expf(m - v) + 1 and m = v. See the README.)
}

void solve(const float* X, float* Y, int M, int N) {
  // TODO(student): launch softmax_rows with THREADS_PER_BLOCK threads per block and one warp per
  //   row: (M + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK blocks.
  throw std::logic_error("not implemented yet: write softmax_rows and solve in exercises/12_softmax/kernel.cu");
}
