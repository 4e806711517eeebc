// Pieces shared by the task definitions (exercises/*/task.cpp): the standard 1D sizes, integer
// generation, float32 error constants and the building blocks of the CPU baselines. Trusted side
// only; student kernels never include it.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/registry.hpp"
#include "cudalab/task.hpp"

namespace cudalab::tasks {

/// Unit roundoff of float32: round-to-nearest makes |fl(x) − x| ≤ u·|x|.
inline constexpr double kUnitRoundoff = 0x1p-24;

/// The smallest positive normal float32: absolute slack for results that flush to zero.
inline constexpr double kTinyFloat = 0x1p-126;

/// Largest 1D size on the GPU (256 MiB of float32) and on the simulator, which runs on a CPU.
inline constexpr std::int64_t kLargeGpu = std::int64_t{1} << 26;
inline constexpr std::int64_t kLargeSim = (std::int64_t{1} << 20) + 3;

/// Sizes for a 1D exercise: tiny, around warp and block boundaries, odd mid sizes, one large.
inline std::vector<Case> cases_1d(const CaseOptions& options) {
  std::vector<Case> out;
  for (const std::int64_t n : {1, 2, 3, 31, 32, 33, 255, 256, 257, 1000, 1023, 1024, 1025, 4097, 65537, 100003}) {
    out.push_back(Case{{{"n", n}}, false});
  }
  out.push_back(Case{{{"n", options.simulator ? kLargeSim : kLargeGpu}}, true});
  return out;
}

/// An M×N matrix case (M rows, N columns, row-major).
inline Case matrix_case(std::int64_t M, std::int64_t N, bool large = false) {
  return Case{{{"M", M}, {"N", N}}, large};
}

/// An exercise's own M×N shapes, checked after the usual ones (cases_2d).
using Shapes = std::initializer_list<std::pair<std::int64_t, std::int64_t>>;

/// The usual 2D shapes: single elements, one row, one column, 16 and 32 (the usual block and tile
/// widths) ±1 in each direction, tall and wide matrices.
inline constexpr std::pair<std::int64_t, std::int64_t> kShapes2d[] = {
    {1, 1},   {1, 2},   {2, 1},   {3, 5},   {1, 100},   {100, 1},   {15, 17},  {16, 16},  {17, 33},
    {31, 32}, {32, 31}, {33, 33}, {64, 48}, {255, 257}, {257, 255}, {1000, 3}, {3, 1000}, {1023, 1025}};

/// Sizes for a 2D (M×N, row-major) exercise: the usual shapes (kShapes2d), then the exercise's
/// `extra` ones, then one large matrix: `large_gpu` elements on a side on the GPU, about a million
/// elements on the simulator.
inline std::vector<Case> cases_2d(const CaseOptions& options, Shapes extra = {}, std::int64_t large_gpu = 8192) {
  std::vector<Case> out;
  for (const auto& [M, N] : kShapes2d) out.push_back(matrix_case(M, N));
  for (const auto& [M, N] : extra) out.push_back(matrix_case(M, N));
  out.push_back(options.simulator ? matrix_case(1027, 1021, true) : matrix_case(large_gpu, large_gpu + 1, true));
  return out;
}

/// Uniform integers in [lo, hi]; raw draws for the same reason as fill_uniform (reproducible
/// across standard libraries). The modulo bias is below 2^-50 for ranges this small.
inline void fill_uniform_int(std::span<std::int32_t> out, std::int32_t lo, std::int32_t hi, Rng& rng) {
  const auto width = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo + 1);
  for (std::int32_t& v : out) v = static_cast<std::int32_t>(lo + static_cast<std::int64_t>(rng() % width));
}

/// Inputs are never all zeros: a zero vector hides a kernel that never reads its
/// input. Only a tiny case can draw all zeros, so a single fix-up is enough.
template <typename T>
void ensure_not_all_zero(std::span<T> values, T replacement) {
  if (!values.empty() && std::all_of(values.begin(), values.end(), [](T v) { return v == T{0}; })) {
    values[0] = replacement;
  }
}

/// The dimension as a size; dims are ≥ 1 by contract.
inline std::size_t dim_size(const Case& c, const char* name) { return static_cast<std::size_t>(c.dim(name)); }

// ---- CPU baselines (Task::cpu_solve) ------------------------------------------------------------
// The task files are compiled with -O3 whatever the build type (exercises/CMakeLists.txt) but for
// the architecture's baseline instruction set, not -march=native: the binaries are built on one
// machine and run on another. On x86-64 that is SSE2. The loops below are memory-bound at the
// sizes where speedups are quoted, so wider vectors would change little.

/// The instruction set the loops were vectorised for, as the compiler saw it.
inline constexpr const char* kSimdIsa =
#if defined(__AVX512F__)
    "AVX-512";
#elif defined(__AVX2__)
    "AVX2";
#elif defined(__AVX__)
    "AVX";
#elif defined(__SSE2__) || defined(_M_X64)
    "SSE2";
#elif defined(__ARM_NEON)
    "NEON";
#else
    "scalar";
#endif

/// "OpenMP <what> (-O3)": names a cpu_solve whose threads share the work but whose loops do not
/// vectorise (scatters, carried sums).
inline std::string cpu_threaded_name(const std::string& what) {
#if defined(_OPENMP)
  return "OpenMP " + what + " (-O3)";
#else
  return "single-thread " + what + " (-O3)";            // built without OpenMP
#endif
}

/// "OpenMP + SIMD <what> (-O3, SSE2)": names a cpu_solve built from the loops here.
inline std::string cpu_loop_name(const std::string& what) {
#if defined(_OPENMP)
  const std::string threading = "OpenMP + SIMD ";
#else
  const std::string threading = "single-thread SIMD ";  // built without OpenMP
#endif
  return threading + what + " (-O3, " + kSimdIsa + ")";
}

/// The thread count a cpu_solve runs on: at least one.
inline int cpu_threads(int threads) { return std::max(threads, 1); }

/// Elements per block of a float32 CPU sum (see blocked_sum).
inline constexpr std::int64_t kSumBlock = std::int64_t{1} << 14;

/// Σ f(x[i]) in float32 over one block: 16 interleaved lanes (a vector of any width from 4 to 16
/// floats holds them, so the order does not depend on the ISA), then the lanes pairwise. Always
/// inlined, so that each SIMD clone below compiles it for its own instruction set.
template <typename F>
#if defined(__GNUC__)
[[gnu::always_inline]]
#endif
inline float
lane_sum(const float* x, std::int64_t n, F f) {
  constexpr std::int64_t kLanes = 16;
  std::array<float, kLanes> lanes{};
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
#pragma omp simd
    for (std::int64_t l = 0; l < kLanes; ++l) lanes[l] += f(x[i + l]);
  }
  for (std::int64_t l = 0; i < n; ++i, ++l) lanes[l] += f(x[i]);
  for (std::int64_t width = kLanes / 2; width > 0; width /= 2) {
    for (std::int64_t l = 0; l < width; ++l) lanes[l] += lanes[l + width];
  }
  return lanes[0];
}

// The sums are the one place where wider vectors pay off on the CPU (the lanes' add chains, not
// memory, limit one thread: +20% with AVX2 on a Zen 4 core), so their block kernels are built
// twice on x86-64 and the loader picks the AVX2 clone where the CPU has it (GCC target_clones,
// resolved once through an ifunc). The order of additions is the same in both clones.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define CUDALAB_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
inline constexpr const char* kSumIsa = "SSE2/AVX2 clones";
#else
#define CUDALAB_SIMD_CLONES
inline constexpr const char* kSumIsa = kSimdIsa;
#endif

/// One block of a float32 sum, Σ x[i] (see lane_sum).
CUDALAB_SIMD_CLONES static inline float block_sum(const float* x, std::int64_t n) {
  return lane_sum(x, n, [](float v) { return v; });
}

/// One block of a float32 sum of squares, Σ x[i]² (see lane_sum).
CUDALAB_SIMD_CLONES static inline float block_sum_of_squares(const float* x, std::int64_t n) {
  return lane_sum(x, n, [](float v) { return v * v; });
}

/// A float32 sum on `threads` threads, the way a careful CPU programmer sums floats: one float
/// accumulating millions of terms in sequence stagnates once its ulp outgrows the terms, so each
/// block of kSumBlock elements is summed in 16 lanes by `block` (≤ 1024 terms per chain), and the
/// block sums (≤ n / 2^14 of them) are added by an OpenMP reduction. The error stays near
/// u·√n·Σ|terms|, inside the tasks' tolerances.
inline float blocked_sum(std::span<const float> x, [[maybe_unused]] int threads,
                         float (*block)(const float*, std::int64_t)) {
  const auto n = static_cast<std::int64_t>(x.size());
  const std::int64_t blocks = (n + kSumBlock - 1) / kSumBlock;
  const float* data = x.data();
  float total = 0.0f;
#pragma omp parallel for num_threads(cpu_threads(threads)) schedule(static) reduction(+ : total)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::int64_t from = b * kSumBlock;
    total += block(data + from, std::min(kSumBlock, n - from));
  }
  return total;
}

/// "OpenMP + SIMD <what> (-O3, SSE2/AVX2 clones)": names a cpu_solve built on blocked_sum.
inline std::string cpu_sum_name(const std::string& what) {
  std::string name = cpu_loop_name(what);
  return name.replace(name.rfind(kSimdIsa), std::string(kSimdIsa).size(), kSumIsa);
}

}  // namespace cudalab::tasks
