// Pieces shared by the task definitions (exercises/*/task.cpp): the standard 1D sizes, integer
// generation and float32 error constants. Trusted side only; student kernels never include it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

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
  for (const std::int64_t n :
       {1, 2, 3, 31, 32, 33, 255, 256, 257, 1000, 1023, 1024, 1025, 4097, 65537, 100003}) {
    out.push_back(Case{{{"n", n}}, false});
  }
  out.push_back(Case{{{"n", options.simulator ? kLargeSim : kLargeGpu}}, true});
  return out;
}

/// Uniform integers in [lo, hi]; raw draws for the same reason as fill_uniform (reproducible
/// across standard libraries). The modulo bias is below 2^-50 for ranges this small.
inline void fill_uniform_int(std::span<std::int32_t> out, std::int32_t lo, std::int32_t hi,
                             Rng& rng) {
  const auto width = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo + 1);
  for (std::int32_t& v : out)
    v = static_cast<std::int32_t>(lo + static_cast<std::int64_t>(rng() % width));
}

/// Inputs are never all zeros (DESIGN.md): a zero vector hides a kernel that never reads its
/// input. Only a tiny case can draw all zeros, so a single fix-up is enough.
template <typename T>
void ensure_not_all_zero(std::span<T> values, T replacement) {
  if (!values.empty() && std::all_of(values.begin(), values.end(), [](T v) { return v == T{0}; })) {
    values[0] = replacement;
  }
}

/// The dimension as a size; dims are ≥ 1 by contract.
inline std::size_t dim_size(const Case& c, const char* name) {
  return static_cast<std::size_t>(c.dim(name));
}

// One factory per exercise; registry.cpp lists them in order.
std::unique_ptr<Task> make_increment_task();
std::unique_ptr<Task> make_vector_add_task();
std::unique_ptr<Task> make_matmul_task();
std::unique_ptr<Task> make_normalize_task();
std::unique_ptr<Task> make_reduce_task();

}  // namespace cudalab::tasks
