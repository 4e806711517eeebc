// Reference solution for 03_matmul: C = A·B with shared-memory tiles.
//
// Contract: void solve(const float* A, const float* B, float* C, int M, int N, int K) — DEVICE
// pointers, row-major; A is M×K, B is K×N, C is M×N; M, N, K >= 1, any shape.
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

}  // namespace

constexpr int TILE = 16;  // a TILE×TILE block: 256 threads, 2 KiB of shared memory for both tiles

// Each block computes one TILE×TILE tile of C. It walks along K one tile at a time: the block
// loads a tile of A and a tile of B into shared memory (each element read from global memory
// once per block instead of TILE times), waits, multiplies the tiles, waits again, moves on.
__global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float A_tile[TILE][TILE];
  __shared__ float B_tile[TILE][TILE];

  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;  // row of C (and of A) this thread owns
  const int col = blockIdx.x * TILE + tx;  // column of C (and of B) this thread owns

  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {  // k0 < K, not K / TILE steps: the last tile may be partial
    // Edge tiles: elements outside A or B load as zero, which adds nothing to the dot product.
    // Every thread still takes part in the loads and barriers, even if it owns no element of C.
    const int a_col = k0 + tx;
    const int b_row = k0 + ty;
    A_tile[ty][tx] = (row < M && a_col < K) ? A[static_cast<size_t>(row) * K + a_col] : 0.0f;
    B_tile[ty][tx] = (b_row < K && col < N) ? B[static_cast<size_t>(b_row) * N + col] : 0.0f;
    __syncthreads();  // the tiles are complete before anyone reads them

    for (int k = 0; k < TILE; ++k) {
      acc = fmaf(A_tile[ty][k], B_tile[k][tx], acc);
    }
    __syncthreads();  // everyone is done reading before the next iteration overwrites the tiles
  }

  if (row < M && col < N) {
    C[static_cast<size_t>(row) * N + col] = acc;
  }
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(TILE, TILE);
  // x walks the columns of C, y its rows; round up so partial edge tiles get a block.
  const dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  matmul_tiled<<<grid, block>>>(A, B, C, M, N, K);
  check(cudaGetLastError(), "launch of matmul_tiled");
}
