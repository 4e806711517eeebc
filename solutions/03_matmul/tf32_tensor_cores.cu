// Tensor-core tier of 03_matmul (optional, GPU only): C = A·B on the tensor cores in TF32.
//
// Contract: void solve(const float* A, const float* B, float* C, int M, int N, int K) — DEVICE
// pointers, row-major; A is M×K, B is K×N, C is M×N; M, N, K >= 1, any shape.
//
// Check and time it at TF32 precision; it does not meet the FP32 contract, and the CPU simulator
// has no tensor cores:
//   ./cudalab check 03_matmul --file solutions/03_matmul/tf32_tensor_cores.cu --tf32
//   ./cudalab bench 03_matmul --ladder       # the last row of the ladder
//
// Tensor cores multiply small matrix tiles in one instruction per warp: here 16×16×8 tiles
// through the wmma API (nvcuda::wmma, <mma.h>). Their FP32 mode is TF32: each input keeps 10 of
// its 23 mantissa bits (rounded here with __float_to_tf32), products are exact and sums are FP32.
// So C differs from the FP32 result by up to about 2^-10 of Σ|A_ik·B_kj|, which `--tf32` allows.
//  1. Block tile 128×128, K steps of 32; WARPS warps, each owning a WM×WN tile of C as
//     (WM/16)×(WN/16) accumulator fragments that stay in registers for the whole K loop.
//  2. cp.async (sm_80+): global → shared copies that bypass registers and run in the background.
//     STAGES buffers of each tile form a pipeline: while the warps multiply tile s, the copies of
//     tiles s+1 .. s+STAGES-1 are in flight. cp.async.wait_group waits for the oldest only.
//  3. Padded rows: a fragment load reads 8 rows × 4 columns of A (or 4 rows × 8 columns of B) at
//     once; rows of 32+4 floats (A) and 128+8 floats (B) put those 32 reads in 32 different banks.
//  4. The accumulators go to C through shared memory, so that the final stores are coalesced and
//     bounds-checked at the edges.
#include <cuda_runtime.h>
#include <mma.h>

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

using namespace nvcuda;

constexpr int BM = 128, BN = 128, BK = 32;
constexpr int LDA = BK + 4;  // idea 3: padded row lengths, in floats (multiples of 4 for wmma)
constexpr int LDB = BN + 8;
constexpr int A_STAGE = BM * LDA;  // floats per pipeline stage of each tile
constexpr int B_STAGE = BK * LDB;

template <int WM_, int WN_, int STAGES_>
struct Config {
  static constexpr int WM = WM_, WN = WN_, STAGES = STAGES_;
  static constexpr int WARPS_N = BN / WN;
  static constexpr int THREADS = (BM / WM) * WARPS_N * 32;
  static constexpr int FM = WM / 16, FN = WN / 16;  // accumulator fragments per warp
  static constexpr size_t SHARED_BYTES = STAGES * (A_STAGE + B_STAGE) * sizeof(float);
  static_assert(BM * BN * sizeof(float) <= SHARED_BYTES, "the output tile is staged in the same memory");
};

using Tier = Config<64, 64, 2>;  // 4 warps of 64×64: 16 accumulator fragments each

// Idea 2: 16-byte asynchronous copy global → shared; `valid == false` writes zeros instead (the
// source-size operand 0 reads nothing).
__device__ __forceinline__ void copy_async16(float* shared, const float* global, bool valid) {
  const auto address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(global), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::); }
template <int PENDING>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
}

// Starts the copies of the K tile at k0 into one stage. VEC (K % 4 == 0, N % 4 == 0, aligned):
// 16-byte copies, a group of 4 wholly inside or outside; otherwise element by element, at once.
template <class T, bool VEC>
__device__ __forceinline__ void load_stage(const float* __restrict__ A, const float* __restrict__ B, float* A_tile,
                                           float* B_tile, int M, int N, int K, int row0, int col0, int k0) {
  for (int f = threadIdx.x; f < BM * BK / 4; f += T::THREADS) {
    const int m = f / (BK / 4), k = (f % (BK / 4)) * 4;
    const int g_row = row0 + m, g_k = k0 + k;
    float* dst = A_tile + m * LDA + k;
    if (VEC) {
      const bool valid = g_row < M && g_k < K;
      copy_async16(dst, valid ? A + static_cast<size_t>(g_row) * K + g_k : A, valid);
    } else {
      for (int j = 0; j < 4; ++j) dst[j] = g_row < M && g_k + j < K ? A[static_cast<size_t>(g_row) * K + g_k + j] : 0.0f;
    }
  }
  for (int f = threadIdx.x; f < BK * BN / 4; f += T::THREADS) {
    const int k = f / (BN / 4), n = (f % (BN / 4)) * 4;
    const int g_k = k0 + k, g_col = col0 + n;
    float* dst = B_tile + k * LDB + n;
    if (VEC) {
      const bool valid = g_k < K && g_col < N;
      copy_async16(dst, valid ? B + static_cast<size_t>(g_k) * N + g_col : B, valid);
    } else {
      for (int j = 0; j < 4; ++j) dst[j] = g_k < K && g_col + j < N ? B[static_cast<size_t>(g_k) * N + g_col + j] : 0.0f;
    }
  }
}

template <class T, bool VEC>
__global__ void __launch_bounds__(T::THREADS)
    matmul_tf32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  extern __shared__ __align__(128) float shared[];
  float* A_tiles = shared;                          // STAGES × BM×LDA
  float* B_tiles = shared + T::STAGES * A_STAGE;    // STAGES × BK×LDB
  const int warp = threadIdx.x / 32;
  const int warp_m = (warp / T::WARPS_N) * T::WM;  // this warp's tile of C inside the block's
  const int warp_n = (warp % T::WARPS_N) * T::WN;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[T::FM][T::FN];
  for (int i = 0; i < T::FM; ++i)
    for (int j = 0; j < T::FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  // Idea 2: fill the pipeline, then each step waits for the oldest tile, refills the stage that
  // the previous step finished with, and multiplies.
  const int steps = (K + BK - 1) / BK;
  for (int s = 0; s < T::STAGES - 1; ++s) {
    if (s < steps) load_stage<T, VEC>(A, B, A_tiles + s * A_STAGE, B_tiles + s * B_STAGE, M, N, K, row0, col0, s * BK);
    commit_copies();  // an empty group past the end keeps the count that wait_copies relies on
  }
  for (int s = 0; s < steps; ++s) {
    wait_copies<T::STAGES - 2>();  // tile s has landed (this thread's copies)...
    __syncthreads();               // ...everyone's; and the stage refilled below is no longer read
    const int next = s + T::STAGES - 1;
    if (next < steps) {
      const int stage = next % T::STAGES;
      load_stage<T, VEC>(A, B, A_tiles + stage * A_STAGE, B_tiles + stage * B_STAGE, M, N, K, row0, col0, next * BK);
    }
    commit_copies();

    const float* A_tile = A_tiles + (s % T::STAGES) * A_STAGE;
    const float* B_tile = B_tiles + (s % T::STAGES) * B_STAGE;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 8) {
      wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a[T::FM];
      wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b[T::FN];
#pragma unroll
      for (int i = 0; i < T::FM; ++i) {
        wmma::load_matrix_sync(a[i], A_tile + (warp_m + i * 16) * LDA + kk, LDA);
#pragma unroll
        for (int e = 0; e < a[i].num_elements; ++e) a[i].x[e] = wmma::__float_to_tf32(a[i].x[e]);
      }
#pragma unroll
      for (int j = 0; j < T::FN; ++j) {
        wmma::load_matrix_sync(b[j], B_tile + kk * LDB + warp_n + j * 16, LDB);
#pragma unroll
        for (int e = 0; e < b[j].num_elements; ++e) b[j].x[e] = wmma::__float_to_tf32(b[j].x[e]);
      }
#pragma unroll
      for (int i = 0; i < T::FM; ++i)
#pragma unroll
        for (int j = 0; j < T::FN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
  }

  // Idea 4: the block's C tile through shared memory (BM×BN floats, row-major), then coalesced,
  // bounds-checked stores.
  wait_copies<0>();
  __syncthreads();
  for (int i = 0; i < T::FM; ++i)
    for (int j = 0; j < T::FN; ++j)
      wmma::store_matrix_sync(shared + (warp_m + i * 16) * BN + warp_n + j * 16, acc[i][j], BN, wmma::mem_row_major);
  __syncthreads();
  for (int f = threadIdx.x; f < BM * BN; f += T::THREADS) {
    const int row = row0 + f / BN, col = col0 + f % BN;
    if (row < M && col < N) C[static_cast<size_t>(row) * N + col] = shared[f];
  }
}

template <class T>
void launch(const float* A, const float* B, float* C, int M, int N, int K, bool vec) {
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  auto kernel = vec ? matmul_tf32<T, true> : matmul_tf32<T, false>;
  // More than 48 KiB of shared memory per block must be asked for.
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(T::SHARED_BYTES)),
        "cudaFuncSetAttribute");
  kernel<<<grid, T::THREADS, T::SHARED_BYTES>>>(A, B, C, M, N, K);
  check(cudaGetLastError(), "launch of matmul_tf32");
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  const bool vec = K % 4 == 0 && N % 4 == 0 && aligned16(A) && aligned16(B);
  launch<Tier>(A, B, C, M, N, K, vec);
}
