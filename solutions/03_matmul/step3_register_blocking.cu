// Speed ladder for 03_matmul, step 3 of 4: 2D register blocking, an 8×8 micro-tile per thread.
//
// Contract: void solve(const float* A, const float* B, float* C, int M, int N, int K) — DEVICE
// pointers, row-major; A is M×K, B is K×N, C is M×N; M, N, K >= 1, any shape.
//
// What this step teaches: registers are the fastest memory, so make each value loaded from shared
// memory feed many FMAs. In step 2 a thread computes one element of C: two shared loads per FMA.
// Here a thread computes an 8×8 block of C held in 64 registers. For each k it loads 8 values of
// a column of the A tile and 8 of a row of the B tile into registers and does their outer
// product: 16 shared loads feed 64 FMAs, 8× fewer loads per FMA than step 2.
//
// The same reuse happens one level up: a block computes a 128×128 tile of C, so each element of A
// or B loaded from global memory is used 128 times (step 2: 32 times), an arithmetic intensity of
// 32 FLOP per byte of global traffic. The kernel is now limited by the FMA units and by how
// well loads overlap with them, which step 4 works on.
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

constexpr int BM = 128;  // rows of C per block
constexpr int BN = 128;  // columns of C per block
constexpr int BK = 8;    // depth of one K step: the A tile is BM×BK, the B tile BK×BN
constexpr int TM = 8;    // rows of C per thread
constexpr int TN = 8;    // columns of C per thread
constexpr int THREADS = (BM / TM) * (BN / TN);  // 16×16 = 256 threads
constexpr int A_LOADS = BM * BK / THREADS;      // elements of the A tile each thread loads (4)
constexpr int B_LOADS = BK * BN / THREADS;      // elements of the B tile each thread loads (4)
static_assert(A_LOADS * THREADS == BM * BK && B_LOADS * THREADS == BK * BN, "tiles split evenly over threads");

__global__ void __launch_bounds__(THREADS)
    matmul_register_blocking(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                             int N, int K) {
  __shared__ float A_tile[BM][BK];  // 4 KiB
  __shared__ float B_tile[BK][BN];  // 4 KiB

  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * BM;  // first row of this block's tile of C
  const int col0 = blockIdx.x * BN;  // first column
  const int tx = tid % (BN / TN);    // this thread's micro-tile: rows ty*TM.., columns tx*TN..
  const int ty = tid / (BN / TN);

  float acc[TM][TN] = {};  // the 8×8 micro-tile of C: fully unrolled loops keep it in registers

  for (int k0 = 0; k0 < K; k0 += BK) {
    // Cooperative loads: 1024 elements per tile, 4 per thread. Consecutive threads take
    // consecutive elements of a row, so the global reads are coalesced; elements outside A or B
    // load as zero (zero padding), which is what makes every edge tile correct.
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
      const int idx = tid + i * THREADS;
      const int r = idx / BK;
      const int c = idx % BK;
      const int g_row = row0 + r;
      const int g_k = k0 + c;
      A_tile[r][c] = (g_row < M && g_k < K) ? A[static_cast<size_t>(g_row) * K + g_k] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
      const int idx = tid + i * THREADS;
      const int r = idx / BN;
      const int c = idx % BN;
      const int g_k = k0 + r;
      const int g_col = col0 + c;
      B_tile[r][c] = (g_k < K && g_col < N) ? B[static_cast<size_t>(g_k) * N + g_col] : 0.0f;
    }
    __syncthreads();  // tiles complete before anyone reads them

#pragma unroll
    for (int k = 0; k < BK; ++k) {
      // Load a column slice of A and a row slice of B into registers once...
      float a_frag[TM];
      float b_frag[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a_frag[i] = A_tile[ty * TM + i][k];
#pragma unroll
      for (int j = 0; j < TN; ++j) b_frag[j] = B_tile[k][tx * TN + j];
      // ...and use each of them TN (or TM) times: the outer product, 64 FMAs from 16 loads.
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
      }
    }
    __syncthreads();  // everyone done reading before the next step overwrites the tiles
  }

  // Write the micro-tile; at the right and bottom edges only the elements inside C.
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = row0 + ty * TM + i;
    if (row >= M) break;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int col = col0 + tx * TN + j;
      if (col < N) C[static_cast<size_t>(row) * N + col] = acc[i][j];
    }
  }
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  matmul_register_blocking<<<grid, THREADS>>>(A, B, C, M, N, K);
  check(cudaGetLastError(), "launch of matmul_register_blocking");
}
