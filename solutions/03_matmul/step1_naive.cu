// Speed ladder for 03_matmul, step 1 of 4: naive, one thread per element of C.
//
// Contract: void solve(const float* A, const float* B, float* C, int M, int N, int K) — DEVICE
// pointers, row-major; A is M×K, B is K×N, C is M×N; M, N, K >= 1, any shape.
//
// The starting point of the ladder, and deliberately NOT a passing exercise solution: it uses no
// shared memory, so `cudalab check` reports "requirement not met" (the output is right).
//
// Why it is slow: every multiply-add reads two floats from global memory, 8 bytes per 2 FLOP, an
// arithmetic intensity of 0.25 FLOP/byte. The GPU can do ~100× more FLOP per byte of DRAM
// bandwidth than that, so the kernel waits on memory; only the L1/L2 caches, which catch some of
// the repeated reads of rows of A and columns of B, keep it from being slower still.
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(err));
  }
}

constexpr int BLOCK_X = 32;  // threads along a row of C: one warp reads 32 consecutive B/C elements
constexpr int BLOCK_Y = 8;   // 256 threads per block

}  // namespace

// Thread (x, y) computes C[row][col] as the dot product of row `row` of A and column `col` of B.
// threadIdx.x walks the columns, so the 32 threads of a warp read 32 consecutive floats of a row
// of B (one coalesced 128-byte access) and all read the same element of A (one broadcast).
__global__ void matmul_naive(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                             int N, int K) {
  const int col = blockIdx.x * BLOCK_X + threadIdx.x;
  const int row = blockIdx.y * BLOCK_Y + threadIdx.y;
  if (row >= M || col >= N) return;  // no barriers in this kernel, so threads may leave early

  const float* a = A + static_cast<size_t>(row) * K;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) {
    acc = fmaf(a[k], B[static_cast<size_t>(k) * N + col], acc);
  }
  C[static_cast<size_t>(row) * N + col] = acc;
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(BLOCK_X, BLOCK_Y);
  const dim3 grid((N + BLOCK_X - 1) / BLOCK_X, (M + BLOCK_Y - 1) / BLOCK_Y);
  matmul_naive<<<grid, block>>>(A, B, C, M, N, K);
  check(cudaGetLastError(), "launch of matmul_naive");
}
