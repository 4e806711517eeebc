// Reference solution for 03_matmul: C = A·B in FP32, near the limit of the FP32 units.
//
// Contract: void solve(const float* A, const float* B, float* C, int M, int N, int K) — DEVICE
// pointers, row-major; A is M×K, B is K×N, C is M×N; M, N, K >= 1, any shape.
//
// This is step 4 of the speed ladder (step4_vectorized_double_buffered.cu: shared tiles, 8×8
// register blocking, float4 loads, double buffering, A transposed and padded) plus three ideas
// that together take it from about 74 % to about 82 % of cuBLAS SGEMM on an H100
// (docs/performance.md has the measured table):
//  1. Warp tiles. The 8 warps of a block each own a 32×64 sub-tile of C, and a warp's 32 lanes
//     are laid out 4×8 inside it. For one k, the warp then reads only 4 distinct float4 of A and
//     8 of B from shared memory (the rest are broadcasts): fewer shared-memory wavefronts per FMA
//     than the block-wide layout of step 4.
//  2. Fragment prefetching. The 8+8 values a thread multiplies for step k are loaded from shared
//     memory while the FMAs of step k-1 run (two register copies, `a_frag[2]`/`b_frag[2]`). At
//     the end of a K tile the next tile is stored and the barrier taken before the last step's
//     FMAs, so the first loads of the next tile are in flight across the barrier too: the FMA
//     units never wait on a load they could have issued earlier.
//  3. Grouped block order. Blocks run roughly in blockIdx order. Walking C row by row, the blocks
//     in flight share one band of A but need all of B, which does not fit in L2 at 4096²;
//     walking bands of GROUP tile rows column by column keeps both operands' panels in L2.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(err));
  }
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

constexpr int A_PAD = 4;  // floats of padding per row of the transposed A tile (bank conflicts)
constexpr int GROUP = 8;  // tile rows per band of the block order (idea 3)

// One tile configuration. A block of THREADS computes BM×BN of C in K steps of BK; warp w owns the
// WM×WN sub-tile at (w / WARPS_N, w % WARPS_N); each lane computes GM×GN groups of 4×4 inside it,
// SUB_M rows and SUB_N columns apart, so that neighbouring lanes read neighbouring float4s.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int GM_, int GN_, int MIN_BLOCKS_>
struct Tiling {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, GM = GM_, GN = GN_;
  static constexpr int MIN_BLOCKS = MIN_BLOCKS_;  // blocks per SM the register budget must allow
  static constexpr int WARPS_N = BN / WN;
  static constexpr int THREADS = (BM / WM) * WARPS_N * 32;
  static constexpr int TM = GM * 4, TN = GN * 4;  // the micro-tile of C per thread
  static constexpr int SUB_M = WM / GM, SUB_N = WN / GN;
  static constexpr int LANES_N = SUB_N / 4;             // lanes side by side in a warp tile row
  static constexpr int A_LOADS = BM * BK / 4 / THREADS;  // float4s of the A tile per thread
  static constexpr int B_LOADS = BK * BN / 4 / THREADS;  // float4s of the B tile per thread
  static_assert((SUB_M / 4) * LANES_N == 32, "a warp's 32 lanes cover its warp tile");
  static_assert(A_LOADS * THREADS * 4 == BM * BK && B_LOADS * THREADS * 4 == BK * BN, "even load split");
};

// 128×128 tiles, 8 warps of 32×64, 8×8 per thread, at most 128 registers so 2 blocks fit an SM.
using Large = Tiling<128, 128, 8, 32, 64, 2, 2, 2>;
// 64×64 tiles for grids with fewer large tiles than SMs (1024² has 64): 4 warps, 4×8 per thread.
using Small = Tiling<64, 64, 16, 32, 32, 1, 2, 4>;

// Loads this thread's share of the A tile (rows row0.., columns k0..) and B tile (rows k0..,
// columns col0..) from global memory into registers. Out-of-range elements are zero. VEC: one
// float4 per 4 elements, which needs K % 4 == 0 and N % 4 == 0 (whole groups inside or outside).
template <class T, bool VEC>
__device__ __forceinline__ void load_tiles(const float* __restrict__ A, const float* __restrict__ B, int M, int N,
                                           int K, int row0, int col0, int k0, float4 (&a)[T::A_LOADS],
                                           float4 (&b)[T::B_LOADS]) {
#pragma unroll
  for (int i = 0; i < T::A_LOADS; ++i) {
    const int f = threadIdx.x + i * T::THREADS;  // which float4 of the BM×BK tile
    const int g_row = row0 + f / (T::BK / 4);
    const int g_k = k0 + (f % (T::BK / 4)) * 4;
    const float* p = A + static_cast<size_t>(g_row) * K + g_k;
    if (VEC) {
      a[i] = (g_row < M && g_k < K) ? *reinterpret_cast<const float4*>(p) : make_float4(0.f, 0.f, 0.f, 0.f);
    } else {
      const bool row_ok = g_row < M;
      a[i].x = (row_ok && g_k + 0 < K) ? p[0] : 0.0f;
      a[i].y = (row_ok && g_k + 1 < K) ? p[1] : 0.0f;
      a[i].z = (row_ok && g_k + 2 < K) ? p[2] : 0.0f;
      a[i].w = (row_ok && g_k + 3 < K) ? p[3] : 0.0f;
    }
  }
#pragma unroll
  for (int i = 0; i < T::B_LOADS; ++i) {
    const int f = threadIdx.x + i * T::THREADS;  // which float4 of the BK×BN tile
    const int g_k = k0 + f / (T::BN / 4);
    const int g_col = col0 + (f % (T::BN / 4)) * 4;
    const float* p = B + static_cast<size_t>(g_k) * N + g_col;
    if (VEC) {
      b[i] = (g_k < K && g_col < N) ? *reinterpret_cast<const float4*>(p) : make_float4(0.f, 0.f, 0.f, 0.f);
    } else {
      const bool k_ok = g_k < K;
      b[i].x = (k_ok && g_col + 0 < N) ? p[0] : 0.0f;
      b[i].y = (k_ok && g_col + 1 < N) ? p[1] : 0.0f;
      b[i].z = (k_ok && g_col + 2 < N) ? p[2] : 0.0f;
      b[i].w = (k_ok && g_col + 3 < N) ? p[3] : 0.0f;
    }
  }
}

// Writes the registers filled by load_tiles into one buffer of the shared tiles: A transposed
// (A_tile[k][m], so a thread's 4 rows for one k are one float4), B as it is.
template <class T>
__device__ __forceinline__ void store_tiles(float (*A_tile)[T::BM + A_PAD], float (*B_tile)[T::BN],
                                            const float4 (&a)[T::A_LOADS], const float4 (&b)[T::B_LOADS]) {
#pragma unroll
  for (int i = 0; i < T::A_LOADS; ++i) {
    const int f = threadIdx.x + i * T::THREADS;
    const int m = f / (T::BK / 4);
    const int k = (f % (T::BK / 4)) * 4;
    A_tile[k + 0][m] = a[i].x;
    A_tile[k + 1][m] = a[i].y;
    A_tile[k + 2][m] = a[i].z;
    A_tile[k + 3][m] = a[i].w;
  }
#pragma unroll
  for (int i = 0; i < T::B_LOADS; ++i) {
    const int f = threadIdx.x + i * T::THREADS;
    const int k = f / (T::BN / 4);
    const int n = (f % (T::BN / 4)) * 4;
    *reinterpret_cast<float4*>(&B_tile[k][n]) = b[i];
  }
}

// The values one thread multiplies at step k: TM of A's column k, TN of B's row k (idea 1).
template <class T>
__device__ __forceinline__ void load_fragments(const float (*A_tile)[T::BM + A_PAD], const float (*B_tile)[T::BN],
                                               int k, int m0, int n0, float (&a)[T::TM], float (&b)[T::TN]) {
#pragma unroll
  for (int g = 0; g < T::GM; ++g) {
    const float4 v = *reinterpret_cast<const float4*>(&A_tile[k][m0 + g * T::SUB_M]);
    a[g * 4 + 0] = v.x;
    a[g * 4 + 1] = v.y;
    a[g * 4 + 2] = v.z;
    a[g * 4 + 3] = v.w;
  }
#pragma unroll
  for (int g = 0; g < T::GN; ++g) {
    const float4 v = *reinterpret_cast<const float4*>(&B_tile[k][n0 + g * T::SUB_N]);
    b[g * 4 + 0] = v.x;
    b[g * 4 + 1] = v.y;
    b[g * 4 + 2] = v.z;
    b[g * 4 + 3] = v.w;
  }
}

template <class T, bool VEC>
__global__ void __launch_bounds__(T::THREADS, T::MIN_BLOCKS)
    matmul_warp_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                      int K) {
  // Two buffers of each tile: compute on one while the next K step is written to the other.
  __shared__ __align__(16) float A_tiles[2][T::BK][T::BM + A_PAD];
  __shared__ __align__(16) float B_tiles[2][T::BK][T::BN];

  // Idea 3: block b of a band of GROUP tile rows walks the band column by column.
  const int tiles_m = (M + T::BM - 1) / T::BM;
  const int tiles_n = (N + T::BN - 1) / T::BN;
  const int band = blockIdx.x / (GROUP * tiles_n);
  const int band_rows = min(tiles_m - band * GROUP, GROUP);
  const int in_band = blockIdx.x % (GROUP * tiles_n);
  const int row0 = (band * GROUP + in_band % band_rows) * T::BM;
  const int col0 = (in_band / band_rows) * T::BN;

  // Idea 1: this thread's first row and column inside the block tile.
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int m0 = (warp / T::WARPS_N) * T::WM + (lane / T::LANES_N) * 4;
  const int n0 = (warp % T::WARPS_N) * T::WN + (lane % T::LANES_N) * 4;

  float acc[T::TM][T::TN] = {};
  float4 a_next[T::A_LOADS];  // the next K tile, on its way from global memory
  float4 b_next[T::B_LOADS];
  float a_frag[2][T::TM];  // idea 2: step k's values, and step k+1's being loaded
  float b_frag[2][T::TN];

  const int steps = (K + T::BK - 1) / T::BK;
  load_tiles<T, VEC>(A, B, M, N, K, row0, col0, 0, a_next, b_next);
  store_tiles<T>(A_tiles[0], B_tiles[0], a_next, b_next);
  __syncthreads();
  load_fragments<T>(A_tiles[0], B_tiles[0], 0, m0, n0, a_frag[0], b_frag[0]);

  for (int s = 0; s < steps; ++s) {
    const int cur = s & 1;
    const bool more = s + 1 < steps;
    // The next tile's global loads take hundreds of cycles; nothing needs them before the last k.
    if (more) load_tiles<T, VEC>(A, B, M, N, K, row0, col0, (s + 1) * T::BK, a_next, b_next);

#pragma unroll
    for (int k = 0; k < T::BK; ++k) {
      if (k == T::BK - 1 && more) {
        // Step k's fragments are already in registers: the other buffer (last read in step s-1,
        // before the previous barrier) can be filled, and after this barrier read from.
        store_tiles<T>(A_tiles[cur ^ 1], B_tiles[cur ^ 1], a_next, b_next);
        __syncthreads();
      }
      if (k + 1 < T::BK) {
        load_fragments<T>(A_tiles[cur], B_tiles[cur], k + 1, m0, n0, a_frag[(k + 1) % 2], b_frag[(k + 1) % 2]);
      } else if (more) {
        load_fragments<T>(A_tiles[cur ^ 1], B_tiles[cur ^ 1], 0, m0, n0, a_frag[(k + 1) % 2], b_frag[(k + 1) % 2]);
      }
#pragma unroll
      for (int i = 0; i < T::TM; ++i) {
#pragma unroll
        for (int j = 0; j < T::TN; ++j) acc[i][j] = fmaf(a_frag[k % 2][i], b_frag[k % 2][j], acc[i][j]);
      }
    }
  }

  // Write the micro-tile: 4 consecutive columns at a time, as one float4 where they are all
  // inside C and aligned, element by element at the right edge or when N % 4 != 0.
#pragma unroll
  for (int i = 0; i < T::TM; ++i) {
    const int row = row0 + m0 + (i / 4) * T::SUB_M + i % 4;
    if (row >= M) continue;
    float* c_row = C + static_cast<size_t>(row) * N;
#pragma unroll
    for (int g = 0; g < T::GN; ++g) {
      const int col = col0 + n0 + g * T::SUB_N;
      const float* v = &acc[i][g * 4];
      if (VEC && col < N) {  // N % 4 == 0, so col < N means col + 3 < N
        *reinterpret_cast<float4*>(c_row + col) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (col + j < N) c_row[col + j] = v[j];
        }
      }
    }
  }
}

template <class T>
void launch(const float* A, const float* B, float* C, int M, int N, int K, bool vec) {
  // A 1-D grid: the block order is computed in the kernel (idea 3).
  const int blocks = ((M + T::BM - 1) / T::BM) * ((N + T::BN - 1) / T::BN);
  if (vec) {
    matmul_warp_tiled<T, true><<<blocks, T::THREADS>>>(A, B, C, M, N, K);
  } else {
    matmul_warp_tiled<T, false><<<blocks, T::THREADS>>>(A, B, C, M, N, K);
  }
  check(cudaGetLastError(), "launch of matmul_warp_tiled");
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  // float4 everywhere only if every row of A, B and C starts 16-byte aligned.
  const bool vec = K % 4 == 0 && N % 4 == 0 && aligned16(A) && aligned16(B) && aligned16(C);

  int device = 0;
  int sms = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");

  // Large tiles reuse each loaded value more, but below one tile per SM some SMs would idle.
  const long long large_tiles =
      static_cast<long long>((M + Large::BM - 1) / Large::BM) * ((N + Large::BN - 1) / Large::BN);
  if (large_tiles >= sms) {
    launch<Large>(A, B, C, M, N, K, vec);
  } else {
    launch<Small>(A, B, C, M, N, K, vec);
  }
}
