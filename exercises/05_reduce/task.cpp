// 05_reduce: *sum = Σ x[i] with device pointers; sum points to one device float.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "../task_support.hpp"

namespace cudalab::tasks {
namespace {

/// Error allowed in a float32 sum of k terms whose magnitudes add up to `magnitude`.
double sum_tolerance(std::size_t k, double magnitude) {
  return 4.0 * kUnitRoundoff * std::sqrt(static_cast<double>(k)) * magnitude + kTinyFloat;
}

class ReduceTask final : public Task {
 public:
  ReduceTask() {
    info_.number = 5;
    info_.id = "05_reduce";
    info_.name = "reduce";
    info_.summary = "*sum = Σ x[i]: block reductions combined across the grid";
    info_.teaches = "warp shuffles; combining blocks with atomics";
    info_.pointers = PointerKind::device;
    info_.signature.params = {
        {Param::Kind::buffer, "x", DType::f32, true},
        {Param::Kind::buffer, "sum", DType::f32, false},
        {Param::Kind::scalar_int, "n", DType::i32, false},
    };
  }

  [[nodiscard]] const TaskInfo& info() const override { return info_; }

  [[nodiscard]] std::vector<Case> cases(const CaseOptions& options) const override { return cases_1d(options); }

  [[nodiscard]] std::vector<Buffer> make_buffers(const Case& c, Rng& rng) const override {
    const std::size_t n = dim_size(c, "n");
    Buffer x = Buffer::make("x", DType::f32, Role::input, n);
    // Mean 0.5: the sum grows with n, so a partial sum (one block's, the first B elements')
    // is far from the total; mixed signs still exercise cancellation.
    fill_uniform(x.f32(), -1.0f + 0.5f, 1.0f + 0.5f, rng);
    ensure_not_all_zero(x.f32(), 0.5f);
    return {std::move(x), Buffer::make("sum", DType::f32, Role::output, 1)};
  }

  // A float32 sum of n terms in any order (shuffle or shared-memory trees, block partials
  // combined with atomics in any order, a second pass) has error Σ_k δ_k·s_k with |δ_k| ≤ u and
  // partial sums |s_k| ≤ Σ|x_i|. The roundings are independent and zero-mean, so the error is
  // about u·√n·Σ|x_i| at most statistically (see 03_matmul); we allow 4·u·√n·Σ|x_i|, plus
  // kTinyFloat. The float64 reference is exact to ~n·2^-53·Σ|x_i|. Not covered: one chain of
  // millions of additions into a single float (every thread atomicAdd-ing its own element);
  // once the running sum's ulp outgrows the terms the roundings stop being zero-mean, and the
  // error is real.
  [[nodiscard]] std::vector<Expected> reference(const Case& c, const std::vector<Buffer>& inputs) const override {
    const auto n = static_cast<std::int64_t>(c.dim("n"));
    const auto x = inputs.at(0).f32();
    double total = 0.0;
    double magnitude = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : total, magnitude)
    for (std::int64_t i = 0; i < n; ++i) {
      total += static_cast<double>(x[i]);
      magnitude += std::abs(static_cast<double>(x[i]));
    }
    Expected e;
    e.buffer = 1;
    e.value = {total};
    e.tolerance = {sum_tolerance(static_cast<std::size_t>(n), magnitude)};
    return {std::move(e)};
  }

  // x read once, one float written; one addition per element.
  [[nodiscard]] Cost cost(const Case& c) const override {
    const auto n = static_cast<double>(c.dim("n"));
    return {4.0 * n + 4.0, n};
  }

  void cpu_solve(const Case& c, std::vector<Buffer>& buffers, int threads) const override {
    const auto x = buffers.at(0).f32().first(dim_size(c, "n"));
    buffers.at(1).f32()[0] = blocked_sum(x, threads, block_sum);
  }

  [[nodiscard]] std::string cpu_solve_name() const override { return cpu_sum_name("float32 sum in blocks"); }

  [[nodiscard]] std::optional<std::string> diagnose(const Case& c, const std::vector<Buffer>& inputs,
                                                    const Buffer& actual, const Expected& expected) const override {
    (void)expected;
    const std::size_t n = dim_size(c, "n");
    const auto x = inputs.at(0).f32();
    if (actual.count() != 1 || x.size() != n) return std::nullopt;
    const double got = actual.value(0);
    if (std::isnan(got)) {
      // The two ways a reduction picks up memory nobody wrote: the output it accumulates into,
      // and shared-memory slots of threads that had no element.
      return std::string(
          "the sum is NaN, so something added memory that was never written: either *sum starts with "
          "garbage (set it to 0 with cudaMemset before accumulating into it) or the tree reads "
          "shared-memory slots that no thread wrote (threads past n must store 0 in theirs)");
    }
    if (!std::isfinite(got)) return std::nullopt;

    // Partial sums a kernel may have left in *sum: the first k elements (only the first blocks
    // reached it) or one block of B elements (each block overwrote *sum instead of adding to it).
    // Candidates start and end at multiples of 32 (a warp) or at n, so prefix sums are kept
    // there only, n/32 of them instead of n. The closest candidate within tolerance wins.
    constexpr std::size_t kWarp = 32;
    const std::size_t points = (n + kWarp - 1) / kWarp + 1;
    std::vector<double> prefix(points, 0.0), prefix_abs(points, 0.0);  // of x[0, min(32·j, n))
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t j = i / kWarp + 1;
      prefix[j] += static_cast<double>(x[i]);
      prefix_abs[j] += std::abs(static_cast<double>(x[i]));
    }
    for (std::size_t j = 1; j < points; ++j) prefix[j] += prefix[j - 1], prefix_abs[j] += prefix_abs[j - 1];
    auto point = [&](std::size_t i) { return i >= n ? points - 1 : i / kWarp; };
    // How far `got` is from the sum of x[lo, hi), in units of that sum's tolerance.
    auto distance = [&](std::size_t lo, std::size_t hi) {
      const std::size_t a = point(lo), b = point(hi);
      return std::abs(got - (prefix[b] - prefix[a])) /
             sum_tolerance(std::min(hi, n) - lo, prefix_abs[b] - prefix_abs[a]);
    };
    // A candidate counts only when it is clearly not the full sum: near the end of x, the sum
    // of the first k elements is itself within tolerance of the total.
    const double total_tol = sum_tolerance(n, prefix_abs[points - 1]);
    auto distinct = [&](std::size_t lo, std::size_t hi) {
      const std::size_t a = point(lo), b = point(hi);
      const double partial_tol = sum_tolerance(std::min(hi, n) - lo, prefix_abs[b] - prefix_abs[a]);
      return std::abs((prefix[b] - prefix[a]) - prefix[points - 1]) > total_tol + partial_tol;
    };
    double best = 1.0;  // must be within tolerance
    std::size_t best_k = 0;
    for (std::size_t k = kWarp; k < n; k += kWarp) {
      if (const double d = distance(0, k); d <= best && distinct(0, k)) best = d, best_k = k;
    }
    if (best_k != 0) {
      return "your sum equals the sum of the first " + std::to_string(best_k) +
             " elements: did every block's partial sum reach *sum? (B = " + std::to_string(best_k) + ")";
    }
    std::size_t best_lo = 0, best_block = 0;
    for (std::size_t block = 32; block <= 1024 && block < n; block *= 2) {
      for (std::size_t lo = block; lo < n; lo += block) {
        const std::size_t hi = std::min(n, lo + block);
        if (const double d = distance(lo, hi); d <= best && distinct(lo, hi)) {
          best = d, best_lo = lo, best_block = block;
        }
      }
    }
    if (best_block != 0) {
      return "your sum equals the sum of elements " + std::to_string(best_lo) + " to " +
             std::to_string(std::min(n, best_lo + best_block) - 1) + " only, one block of " +
             std::to_string(best_block) + ": each block overwrote *sum — add the partial sums with atomicAdd";
    }
    return std::nullopt;
  }

 private:
  TaskInfo info_;
};

CUDALAB_REGISTER_TASK(ReduceTask);

}  // namespace
}  // namespace cudalab::tasks
