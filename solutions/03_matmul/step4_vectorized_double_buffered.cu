// Speed ladder for 03_matmul, step 4 of 4: float4 loads, double buffering, conflict-free layouts.
//
// Contract: void solve(const float* A, const float* B, float* C, int M, int N, int K) — DEVICE
// pointers, row-major; A is M×K, B is K×N, C is M×N; M, N, K >= 1, any shape.
//
// Step 3 made the FMA units the bottleneck in principle; this step removes what still keeps them
// waiting:
//  1. Vector loads. One float4 load moves 16 bytes in one instruction instead of four: fewer
//     load instructions competing with the FMAs for issue slots, in global and shared memory.
//     A float4 access must be 16-byte aligned, so they are used only where every row starts on a
//     multiple of 4 floats (K % 4 == 0 for A, N % 4 == 0 for B and C, aligned base pointers);
//     otherwise the same kernel is compiled with scalar loads (the VEC template parameter).
//  2. Double buffering. Two copies of each shared tile: while the block computes on one, the
//     global loads for the next K step are already in flight into registers, and they are written
//     to the other copy afterwards. Global-memory latency (hundreds of cycles) hides behind the
//     FMAs, and one barrier per K step suffices instead of two.
//  3. Bank-conflict-free shared memory. Shared memory has 32 banks of 4 bytes; threads of a warp
//     that hit different addresses in one bank are served one after another.
//     - A is stored transposed (A_tile[k][m]), so the 4 rows a thread needs for one k are 4
//       consecutive floats: one float4 load. The transposing store writes a column, which would
//       put a warp's stores into few banks; padding each row by 4 floats shifts the rows across
//       the banks, and the store is conflict-free for the 128×128 tiles (keeping rows 16-byte
//       aligned for float4).
//     - A thread's 8 columns are two groups of 4: tx*4.. and BN/2 + tx*4... (not tx*8..tx*8+7).
//       The float4 loads of 16 neighbouring threads are then 256 contiguous bytes, which hits
//       every bank evenly; tx*8 would leave half of them idle and serialise the rest. Rows are
//       split the same way.
//  4. Tile size from the grid. A 128×128 tile gives the most reuse, but a 1024×1024 C has only 64
//     of them, fewer than the SMs of a large GPU; below one tile per SM, 64×64 tiles (4×4 per
//     thread) keep every SM busy.
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

constexpr int THREADS = 256;  // both tile configurations below use 256 threads per block
constexpr int A_PAD = 4;      // floats of padding per row of the transposed A tile

// One tile configuration: a block computes BM×BN of C in K steps of BK; a thread computes TM×TN,
// as TM/4 × TN/4 groups of 4×4 spread evenly over the block tile (see note 3 above).
template <int BM_, int BN_, int BK_, int TM_, int TN_>
struct Tiling {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_;
  static constexpr int GROUPS_M = TM / 4;                // groups of 4 rows per thread
  static constexpr int GROUPS_N = TN / 4;                // groups of 4 columns per thread
  static constexpr int SPAN_M = BM / GROUPS_M;           // distance between a thread's row groups
  static constexpr int SPAN_N = BN / GROUPS_N;           // distance between its column groups
  static constexpr int A_LOADS = BM * BK / 4 / THREADS;  // float4s of the A tile per thread
  static constexpr int B_LOADS = BK * BN / 4 / THREADS;  // float4s of the B tile per thread
  static_assert((BM / TM) * (BN / TN) == THREADS, "one micro-tile per thread");
  static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "micro-tiles and K steps in groups of 4");
  static_assert(A_LOADS * THREADS * 4 == BM * BK && B_LOADS * THREADS * 4 == BK * BN, "even load split");
};

using Large = Tiling<128, 128, 8, 8, 8>;  // 8×8 per thread: 64 FMAs per 4 float4 shared loads
using Small = Tiling<64, 64, 16, 4, 4>;   // 4×4 per thread, for grids with fewer tiles than SMs

// Loads this thread's share of the A tile (rows row0.., columns k0..) and B tile (rows k0..,
// columns col0..) from global memory into registers. Out-of-range elements are zero.
template <class T, bool VEC>
__device__ __forceinline__ void load_tiles(const float* __restrict__ A, const float* __restrict__ B, int M, int N,
                                           int K, int row0, int col0, int k0, float4 (&a)[T::A_LOADS],
                                           float4 (&b)[T::B_LOADS]) {
  const int tid = threadIdx.x;
#pragma unroll
  for (int i = 0; i < T::A_LOADS; ++i) {
    const int f = tid + i * THREADS;  // which float4 of the BM×BK tile
    const int g_row = row0 + f / (T::BK / 4);
    const int g_k = k0 + (f % (T::BK / 4)) * 4;
    const float* p = A + static_cast<size_t>(g_row) * K + g_k;
    if (VEC) {
      // K % 4 == 0 and g_k % 4 == 0: the 4 elements are either all inside A or all outside.
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
    const int f = tid + i * THREADS;  // which float4 of the BK×BN tile
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

// Writes the registers filled by load_tiles into one buffer of the shared tiles: A transposed,
// B as it is (one float4 store).
template <class T>
__device__ __forceinline__ void store_tiles(float (*A_tile)[T::BM + A_PAD], float (*B_tile)[T::BN],
                                            const float4 (&a)[T::A_LOADS], const float4 (&b)[T::B_LOADS]) {
  const int tid = threadIdx.x;
#pragma unroll
  for (int i = 0; i < T::A_LOADS; ++i) {
    const int f = tid + i * THREADS;
    const int m = f / (T::BK / 4);
    const int k = (f % (T::BK / 4)) * 4;
    A_tile[k + 0][m] = a[i].x;
    A_tile[k + 1][m] = a[i].y;
    A_tile[k + 2][m] = a[i].z;
    A_tile[k + 3][m] = a[i].w;
  }
#pragma unroll
  for (int i = 0; i < T::B_LOADS; ++i) {
    const int f = tid + i * THREADS;
    const int k = f / (T::BN / 4);
    const int n = (f % (T::BN / 4)) * 4;
    *reinterpret_cast<float4*>(&B_tile[k][n]) = b[i];
  }
}

// At most 128 registers per thread, so that two blocks (16 warps) fit on an SM: one block's warps
// compute while the other's wait at a barrier. The 8×8 micro-tile needs about that many.
template <class T, bool VEC>
__global__ void __launch_bounds__(THREADS, 2)
    matmul_vectorized(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                      int K) {
  // Two buffers of each tile (index 0/1): compute on one while the next K step fills the other.
  __shared__ __align__(16) float A_tiles[2][T::BK][T::BM + A_PAD];
  __shared__ __align__(16) float B_tiles[2][T::BK][T::BN];

  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * T::BM;
  const int col0 = blockIdx.x * T::BN;
  const int tx = tid % (T::BN / T::TN);  // rows g*SPAN_M + ty*4 + 0..3, columns g*SPAN_N + tx*4 + 0..3
  const int ty = tid / (T::BN / T::TN);

  float acc[T::TM][T::TN] = {};
  float4 a_next[T::A_LOADS];  // the next K step's tiles, on their way from global memory
  float4 b_next[T::B_LOADS];

  const int steps = (K + T::BK - 1) / T::BK;
  load_tiles<T, VEC>(A, B, M, N, K, row0, col0, 0, a_next, b_next);
  store_tiles<T>(A_tiles[0], B_tiles[0], a_next, b_next);
  __syncthreads();

  for (int s = 0; s < steps; ++s) {
    const int cur = s & 1;
    const bool more = s + 1 < steps;
    // Issue the next step's global loads first: they take hundreds of cycles, and nothing below
    // needs them until store_tiles, so they overlap with the FMAs of this step.
    if (more) load_tiles<T, VEC>(A, B, M, N, K, row0, col0, (s + 1) * T::BK, a_next, b_next);

#pragma unroll
    for (int k = 0; k < T::BK; ++k) {
      float a_frag[T::TM];
      float b_frag[T::TN];
#pragma unroll
      for (int g = 0; g < T::GROUPS_M; ++g) {
        const float4 v = *reinterpret_cast<const float4*>(&A_tiles[cur][k][g * T::SPAN_M + ty * 4]);
        a_frag[g * 4 + 0] = v.x;
        a_frag[g * 4 + 1] = v.y;
        a_frag[g * 4 + 2] = v.z;
        a_frag[g * 4 + 3] = v.w;
      }
#pragma unroll
      for (int g = 0; g < T::GROUPS_N; ++g) {
        const float4 v = *reinterpret_cast<const float4*>(&B_tiles[cur][k][g * T::SPAN_N + tx * 4]);
        b_frag[g * 4 + 0] = v.x;
        b_frag[g * 4 + 1] = v.y;
        b_frag[g * 4 + 2] = v.z;
        b_frag[g * 4 + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < T::TM; ++i) {
#pragma unroll
        for (int j = 0; j < T::TN; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
      }
    }

    // The other buffer was last read in step s-1, and every thread has passed the barrier at the
    // end of step s-1 since: it is free to overwrite without another barrier.
    if (more) store_tiles<T>(A_tiles[cur ^ 1], B_tiles[cur ^ 1], a_next, b_next);
    __syncthreads();  // the next buffer is complete, and this one is no longer read
  }

  // Write the micro-tile: 4 consecutive columns at a time, as one float4 where they are all
  // inside C and aligned, element by element at the right edge or when N % 4 != 0.
#pragma unroll
  for (int i = 0; i < T::TM; ++i) {
    const int row = row0 + (i / 4) * T::SPAN_M + ty * 4 + i % 4;
    if (row >= M) continue;
    float* c_row = C + static_cast<size_t>(row) * N;
#pragma unroll
    for (int g = 0; g < T::GROUPS_N; ++g) {
      const int col = col0 + g * T::SPAN_N + tx * 4;
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
  const dim3 grid((N + T::BN - 1) / T::BN, (M + T::BM - 1) / T::BM);
  if (vec) {
    matmul_vectorized<T, true><<<grid, THREADS>>>(A, B, C, M, N, K);
  } else {
    matmul_vectorized<T, false><<<grid, THREADS>>>(A, B, C, M, N, K);
  }
  check(cudaGetLastError(), "launch of matmul_vectorized");
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  // float4 everywhere only if every row of A, B and C starts 16-byte aligned.
  const bool vec = K % 4 == 0 && N % 4 == 0 && aligned16(A) && aligned16(B) && aligned16(C);

  int device = 0;
  int sms = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");

  const long long large_tiles =
      static_cast<long long>((M + Large::BM - 1) / Large::BM) * ((N + Large::BN - 1) / Large::BN);
  if (large_tiles >= sms) {
    launch<Large>(A, B, C, M, N, K, vec);
  } else {
    launch<Small>(A, B, C, M, N, K, vec);
  }
}
