// Reference solution for 03_matmul: C = A·B in FP32, near the limit of the FP32 units.
//
// Contract: void solve(const float* A, const float* B, float* C, int M, int N, int K) — DEVICE
// pointers, row-major; A is M×K, B is K×N, C is M×N; M, N, K >= 1, any shape.
//
// This is step 4 of the speed ladder (step4_vectorized_double_buffered.cu: shared tiles, 8×8
// register blocking, float4 loads, double buffering, A transposed and padded) plus six ideas
// that together take it from about 74 % to 90.6 % of cuBLAS SGEMM on an H100 at 4096³ and 92 % at
// 2048³, to 95–100 % at 1024³ and to 87–94 % at odd shapes such as 4095³ (docs/performance.md
// has the measured tables):
//  1. Warp tiles. The 8 warps of a block each own a 32×64 sub-tile of C, and a warp's 32 lanes
//     are laid out 4×8 inside it. For one k, the warp then reads only 4 distinct float4 of A and
//     8 of B from shared memory (the rest are broadcasts): fewer shared-memory wavefronts per FMA
//     than the block-wide layout of step 4.
//  2. Fragment prefetching. The 8+8 values a thread multiplies for step k are loaded from shared
//     memory while the FMAs of step k-1 run (two register copies, `a_frag[2]`/`b_frag[2]`). At
//     the end of a K tile the barrier is taken before the last step's FMAs, so the first loads of
//     the next tile are in flight across the barrier too.
//  3. Fewer instructions per copied value. On an H100 every instruction that is not an FMA takes
//     an issue slot from one. `cp.async` (sm_80+) copies global memory straight into shared
//     memory in one instruction and needs no register to hold the next tile: B's tile moves in
//     16-byte copies, and with those registers free, K tiles of 16 instead of 8 fit (one barrier
//     per 16 steps). A's tile is transposed on its way (A_tile[k][m]): the large tiles load it as
//     float4s into registers and store it after the FMAs (1 load per 4 values; transposing 4-byte
//     `cp.async` copies cost 6 points at 4096³), the small tiles copy it by 4-byte `cp.async`.
//     Elsewhere (the CPU simulator, GPUs before sm_80) the copies are a plain load and store.
//  4. Grouped block order. Blocks run roughly in blockIdx order. Walking C row by row, the blocks
//     in flight share one band of A but need all of B, which does not fit in L2 at 4096²;
//     walking bands of GROUP tile rows column by column keeps both operands' panels in L2.
//  5. Aligned rows by padding. Where K or N is not a multiple of 4, rows of A or B start off a
//     16-byte boundary and float4s cannot reach them. The large tiles then multiply copies of A
//     (M×K4) and B (K4×N4), K and N rounded up to multiples of 4 and the margins zero, in memory
//     from the stream-ordered allocator. The copies cost about 2 % of the product; the 4-byte
//     copies they replace cost 12 points at 4095³ (76 % of cuBLAS before, 87–88 % now).
//  6. Whole tiles without checks. Where M and N are multiples of the block tile and K of the K
//     tile, no copy can fall outside A, B or C, and a kernel instantiated with WHOLE_TILES has no
//     range checks: no comparisons, no chosen source addresses, no zero-filling sizes, no stores
//     column by column. Those instructions each took an issue slot from an FMA (idea 3): 2.2 to 2.5
//     points of cuBLAS at 4096³ and 2048³ (88.4 → 90.6 %, 89.9 → 92.4 %).
#include <cuda_runtime.h>

#include <algorithm>
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
constexpr int GROUP = 8;  // tile rows per band of the block order (idea 4)

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
  static constexpr int LANES_N = SUB_N / 4;  // lanes side by side in a warp tile row
  // The A tile is copied 8 consecutive k of a row at a time: a warp takes 4 rows × 8 k per copy,
  // which the transposed, padded tile spreads over all 32 banks.
  static constexpr int A_ROWS = THREADS / 8;                  // rows of A one copy of the block covers
  static constexpr int A_COPIES = BM * BK / THREADS;          // 4-byte copies of the A tile per thread
  static constexpr int B_VEC_COPIES = BK * BN / 4 / THREADS;  // 16-byte copies of the B tile per thread
  static constexpr int B_COPIES = BK * BN / THREADS;          // 4-byte copies, where rows are unaligned
  static constexpr int A_LOADS = BM * BK / 4 / THREADS;       // float4s of A per thread, through registers
  static_assert((SUB_M / 4) * LANES_N == 32, "a warp's 32 lanes cover its warp tile");
  static_assert(BK % 8 == 0 && BM % A_ROWS == 0, "whole copies of the A tile");
  static_assert(B_VEC_COPIES * THREADS * 4 == BK * BN && THREADS % BN == 0, "whole copies of the B tile");
};

// 128×128 tiles, 8 warps of 32×64, 8×8 per thread, K tiles of 16, at most 128 registers so that
// 2 blocks fit an SM.
using Large = Tiling<128, 128, 16, 32, 64, 2, 2, 2>;
// 64×64 tiles for grids with fewer large tiles than SMs (1024² has 64): 4 warps, 4×8 per thread.
using Small = Tiling<64, 64, 16, 32, 32, 1, 2, 4>;

// Idea 3: one copy from global to shared memory; out of range, zeros (src-size 0 reads nothing).
__device__ __forceinline__ void copy4(float* dst, const float* src, bool in_range) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(to), "l"(src), "r"(in_range ? 4 : 0) : "memory");
#else
  *dst = in_range ? *src : 0.0f;
#endif
}
__device__ __forceinline__ void copy16(float* dst, const float* src, bool in_range) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(src), "r"(in_range ? 16 : 0)
               : "memory");
#else
  *reinterpret_cast<float4*>(dst) = in_range ? *reinterpret_cast<const float4*>(src) : make_float4(0.f, 0.f, 0.f, 0.f);
#endif
}
// Waits for this thread's copies; a barrier after it makes every thread's visible to the block.
__device__ __forceinline__ void copies_done() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// Starts the copies of the K tile at k0 into one buffer of the shared tiles: A transposed
// (A_tile[k][m], so a thread's 4 rows for one k are one float4), B as it is. Out of range, zeros.
// B_VEC: 16-byte copies, which need N % 4 == 0 (a float4 is then wholly inside or outside).
// WHOLE_TILES: every copy is in range (idea 6).
template <class T, bool B_VEC, bool A_REGS, bool WHOLE_TILES>
__device__ __forceinline__ void copy_tiles(float (*A_tile)[T::BM + A_PAD], float (*B_tile)[T::BN],
                                           const float* __restrict__ A, const float* __restrict__ B, int M, int N,
                                           int K, int row0, int col0, int k0) {
#pragma unroll
  for (int i = 0; i < (A_REGS ? 0 : T::A_COPIES); ++i) {
    const int m = threadIdx.x / 8 + (i % (T::BM / T::A_ROWS)) * T::A_ROWS;
    const int k = threadIdx.x % 8 + (i / (T::BM / T::A_ROWS)) * 8;
    const bool in_range = WHOLE_TILES || (row0 + m < M && k0 + k < K);
    copy4(&A_tile[k][m], in_range ? A + static_cast<size_t>(row0 + m) * K + k0 + k : A, in_range);
  }
  if (B_VEC) {
#pragma unroll
    for (int i = 0; i < T::B_VEC_COPIES; ++i) {
      const int f = threadIdx.x + i * T::THREADS;  // which float4 of the BK×BN tile
      const int k = f / (T::BN / 4);
      const int n = (f % (T::BN / 4)) * 4;
      const bool in_range = WHOLE_TILES || (k0 + k < K && col0 + n < N);
      copy16(&B_tile[k][n], in_range ? B + static_cast<size_t>(k0 + k) * N + col0 + n : B, in_range);
    }
  } else {
#pragma unroll
    for (int i = 0; i < T::B_COPIES; ++i) {
      const int f = threadIdx.x + i * T::THREADS;  // which float of the BK×BN tile
      const int k = f / T::BN;
      const int n = f % T::BN;
      const bool in_range = k0 + k < K && col0 + n < N;
      copy4(&B_tile[k][n], in_range ? B + static_cast<size_t>(k0 + k) * N + col0 + n : B, in_range);
    }
  }
}

// A through registers, where its rows are 16-byte aligned: one float4 load per 4 elements (the
// 4-byte copies of A cost 6 points at 4096³), written transposed before the barrier.
template <class T, bool WHOLE_TILES>
__device__ __forceinline__ void load_a(const float* __restrict__ A, int M, int K, int row0, int k0,
                                       float4 (&a)[T::A_LOADS]) {
#pragma unroll
  for (int i = 0; i < T::A_LOADS; ++i) {
    const int f = threadIdx.x + i * T::THREADS;  // which float4 of the BM×BK tile
    const int g_row = row0 + f / (T::BK / 4);
    const int g_k = k0 + (f % (T::BK / 4)) * 4;
    a[i] = (WHOLE_TILES || (g_row < M && g_k < K))
               ? *reinterpret_cast<const float4*>(A + static_cast<size_t>(g_row) * K + g_k)
               : make_float4(0.f, 0.f, 0.f, 0.f);
  }
}
template <class T>
__device__ __forceinline__ void store_a(float (*A_tile)[T::BM + A_PAD], const float4 (&a)[T::A_LOADS]) {
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

template <class T, bool B_VEC, bool A_REGS, bool WHOLE_TILES = false>
__global__ void __launch_bounds__(T::THREADS, T::MIN_BLOCKS)
    matmul_warp_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                      int K, int c_cols, bool c_vec) {
  // Two buffers of each tile: compute on one while the next K tile is copied into the other.
  __shared__ __align__(16) float A_tiles[2][T::BK][T::BM + A_PAD];
  __shared__ __align__(16) float B_tiles[2][T::BK][T::BN];

  // Idea 4: block b of a band of GROUP tile rows walks the band column by column.
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
  float a_frag[2][T::TM];  // idea 2: step k's values, and step k+1's being loaded
  float b_frag[2][T::TN];

  const int steps = (K + T::BK - 1) / T::BK;
  float4 a_next[A_REGS ? T::A_LOADS : 1];  // A_REGS: the next tile of A, on its way
  if (A_REGS) {
    load_a<T, WHOLE_TILES>(A, M, K, row0, 0, reinterpret_cast<float4(&)[T::A_LOADS]>(a_next));
    store_a<T>(A_tiles[0], reinterpret_cast<float4(&)[T::A_LOADS]>(a_next));
  }
  copy_tiles<T, B_VEC, A_REGS, WHOLE_TILES>(A_tiles[0], B_tiles[0], A, B, M, N, K, row0, col0, 0);
  copies_done();
  __syncthreads();
  load_fragments<T>(A_tiles[0], B_tiles[0], 0, m0, n0, a_frag[0], b_frag[0]);

  for (int s = 0; s < steps; ++s) {
    const int cur = s & 1;
    const bool more = s + 1 < steps;
    // The other buffer was last read before the previous barrier: the next tile's copies can
    // start now, and have the whole tile's FMAs to arrive.
    if (more) {
      if (A_REGS)
        load_a<T, WHOLE_TILES>(A, M, K, row0, (s + 1) * T::BK, reinterpret_cast<float4(&)[T::A_LOADS]>(a_next));
      copy_tiles<T, B_VEC, A_REGS, WHOLE_TILES>(A_tiles[cur ^ 1], B_tiles[cur ^ 1], A, B, M, N, K, row0, col0,
                                                (s + 1) * T::BK);
    }

#pragma unroll
    for (int k = 0; k < T::BK; ++k) {
      if (k == T::BK - 1 && more) {
        // Step k's fragments are already in registers: wait for the next tile, then read it.
        if (A_REGS) store_a<T>(A_tiles[cur ^ 1], reinterpret_cast<float4(&)[T::A_LOADS]>(a_next));
        copies_done();
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
  // inside C and aligned, element by element at the right edge or when c_cols % 4 != 0. C has
  // c_cols columns: N, or fewer where B was padded (idea 5). Whole tiles: all inside, aligned.
#pragma unroll
  for (int i = 0; i < T::TM; ++i) {
    const int row = row0 + m0 + (i / 4) * T::SUB_M + i % 4;
    if (!WHOLE_TILES && row >= M) continue;
    float* c_row = C + static_cast<size_t>(row) * c_cols;
#pragma unroll
    for (int g = 0; g < T::GN; ++g) {
      const int col = col0 + n0 + g * T::SUB_N;
      const float* v = &acc[i][g * 4];
      if (WHOLE_TILES || (c_vec && col < c_cols)) {  // c_cols % 4 == 0: col < c_cols means col + 3 < c_cols
        *reinterpret_cast<float4*>(c_row + col) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (col + j < c_cols) c_row[col + j] = v[j];
        }
      }
    }
  }
}

// Idea 5: copies a rows×cols matrix into a padded_rows×padded_cols one, zeros in the margin.
__global__ void copy_padded(const float* __restrict__ src, int rows, int cols, float* __restrict__ dst, int padded_rows,
                            int padded_cols) {
  for (int r = blockIdx.y; r < padded_rows; r += gridDim.y) {
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < padded_cols; c += gridDim.x * blockDim.x) {
      dst[static_cast<size_t>(r) * padded_cols + c] =
          r < rows && c < cols ? src[static_cast<size_t>(r) * cols + c] : 0.f;
    }
  }
}

// The tiles of T that cover an M×N C: one block each, in a 1-D grid whose order the kernel
// computes (idea 4).
template <class T>
long long tile_count(int M, int N) {
  return static_cast<long long>((M + T::BM - 1) / T::BM) * ((N + T::BN - 1) / T::BN);
}

// Any shape, any alignment: A by 4-byte copies, B by 16-byte copies where its rows are aligned.
template <class T>
void launch(const float* A, const float* B, float* C, int M, int N, int K) {
  const auto blocks = static_cast<int>(tile_count<T>(M, N));
  // 16-byte copies of B and float4 stores of C only if their rows start 16-byte aligned.
  const bool b_vec = N % 4 == 0 && aligned16(B);
  const bool c_vec = N % 4 == 0 && aligned16(C);
  if (b_vec) {
    matmul_warp_tiled<T, true, false><<<blocks, T::THREADS>>>(A, B, C, M, N, K, N, c_vec);
  } else {
    matmul_warp_tiled<T, false, false><<<blocks, T::THREADS>>>(A, B, C, M, N, K, N, c_vec);
  }
  check(cudaGetLastError(), "launch of matmul_warp_tiled");
}

// The large tiles' fast path (idea 3): A as float4s through registers, B by 16-byte copies. Needs
// the rows of A and B 16-byte aligned. B is N wide; C is c_cols <= N wide (fewer where B was
// padded, idea 5).
void launch_large_aligned(const float* A, const float* B, float* C, int M, int N, int K, int c_cols) {
  const auto blocks = static_cast<int>(tile_count<Large>(M, N));
  const bool c_vec = c_cols % 4 == 0 && aligned16(C);
  // Idea 6: whole tiles of a C as wide as B, whose rows take float4 stores.
  const bool whole_tiles = M % Large::BM == 0 && N % Large::BN == 0 && K % Large::BK == 0 && c_cols == N && c_vec;
  if (whole_tiles) {
    matmul_warp_tiled<Large, true, true, true><<<blocks, Large::THREADS>>>(A, B, C, M, N, K, c_cols, c_vec);
  } else {
    matmul_warp_tiled<Large, true, true><<<blocks, Large::THREADS>>>(A, B, C, M, N, K, c_cols, c_vec);
  }
  check(cudaGetLastError(), "launch of matmul_warp_tiled");
}

// Idea 5: where K or N is not a multiple of 4, copy A (M×K) and B (K×N) into zero-padded M×K4 and
// K4×N4 buffers, whose rows are aligned, and multiply those: the zeros add nothing to any sum.
// Returns false, having launched nothing, where the buffers cannot be allocated.
bool multiply_padded(const float* A, const float* B, float* C, int M, int N, int K, int device) {
  const int K4 = (K + 3) / 4 * 4;
  const int N4 = (N + 3) / 4 * 4;
  const size_t a_bytes = static_cast<size_t>(M) * K4 * sizeof(float);
  const size_t b_bytes = static_cast<size_t>(K4) * N4 * sizeof(float);
  // The stream-ordered allocator returns its memory to the driver at each synchronisation unless
  // told to keep some: allocating it afresh on every call cost 9 points of cuBLAS at 4095³.
  cudaMemPool_t pool = nullptr;
  check(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool");
  std::uint64_t keep = 0;
  check(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolGetAttribute");
  if (keep < a_bytes + b_bytes) {
    keep = a_bytes + b_bytes;
    check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute");
  }
  float* A4 = nullptr;
  float* B4 = nullptr;
  if (cudaMallocAsync(&A4, a_bytes, nullptr) != cudaSuccess) {
    (void)cudaGetLastError();  // out of memory is not sticky: fall back to the unpadded kernel
    return false;
  }
  if (cudaMallocAsync(&B4, b_bytes, nullptr) != cudaSuccess) {
    (void)cudaGetLastError();
    check(cudaFreeAsync(A4, nullptr), "cudaFreeAsync(A4)");
    return false;
  }
  const int threads = 256;
  copy_padded<<<dim3((K4 + threads - 1) / threads, std::min(M, 65535)), threads>>>(A, M, K, A4, M, K4);
  copy_padded<<<dim3((N4 + threads - 1) / threads, std::min(K4, 65535)), threads>>>(B, K, N, B4, K4, N4);
  check(cudaGetLastError(), "launch of copy_padded");
  launch_large_aligned(A4, B4, C, M, N4, K4, N);
  check(cudaFreeAsync(A4, nullptr), "cudaFreeAsync(A4)");
  check(cudaFreeAsync(B4, nullptr), "cudaFreeAsync(B4)");
  return true;
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  int device = 0;
  int sms = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  // Large tiles reuse each loaded value more, but below one tile per SM some SMs would idle.
  if (tile_count<Large>(M, N) < sms) {
    launch<Small>(A, B, C, M, N, K);
  } else if (K % 4 == 0 && N % 4 == 0 && aligned16(A) && aligned16(B)) {
    launch_large_aligned(A, B, C, M, N, K, N);
  } else if (!multiply_padded(A, B, C, M, N, K, device)) {
    launch<Large>(A, B, C, M, N, K);
  }
}
