// 15_reduce_any: results = {Σ x, max x, min x} from one reduction template instantiated for any
// associative operator (device pointers).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "../task_support.hpp"

namespace cudalab::tasks {
namespace {

/// Error allowed in a float32 sum of k terms whose magnitudes add up to `magnitude` (05_reduce's).
double sum_tolerance(std::size_t k, double magnitude) {
  return 4.0 * kUnitRoundoff * std::sqrt(static_cast<double>(k)) * magnitude + kTinyFloat;
}

/// Where the inputs of a size lie: all negative, all positive, or both signs. The size picks it,
/// so that every run has sizes of each kind and a wrong identity (0 for max or min) shows.
struct Range {
  float lo, hi;
};
Range input_range(std::size_t n) {
  switch (n % 3) {
    case 0:
      return {-1.5f, -0.5f};  // all negative: max = 0 is wrong
    case 1:
      return {0.5f, 1.5f};  // all positive: min = 0 is wrong
    default:
      return {-0.5f, 1.5f};  // mixed signs, mean 0.5
  }
}

const char* const kResultNames[] = {"results[0] (the sum)", "results[1] (the maximum)", "results[2] (the minimum)"};

class ReduceAnyTask final : public Task {
 public:
  ReduceAnyTask() {
    info_.number = 15;
    info_.id = "15_reduce_any";
    info_.name = "reduce_any";
    info_.summary = "results = {Σ x, max x, min x} from one reduction template for any associative operator";
    info_.teaches = "one reduction template for any associative operator";
    info_.pointers = PointerKind::device;
    info_.signature.params = {
        {Param::Kind::buffer, "x", DType::f32, true},
        {Param::Kind::buffer, "results", DType::f32, false},
        {Param::Kind::scalar_int, "n", DType::i32, false},
    };
  }

  [[nodiscard]] const TaskInfo& info() const override { return info_; }

  [[nodiscard]] std::vector<Case> cases(const CaseOptions& options) const override { return cases_1d(options); }

  [[nodiscard]] std::vector<Buffer> make_buffers(const Case& c, Rng& rng) const override {
    const std::size_t n = dim_size(c, "n");
    Buffer x = Buffer::make("x", DType::f32, Role::input, n);
    // Values 1 wide around ±1 (or from -0.5 to 1.5): the sum grows with n, so a partial sum is far
    // from the total, and all-negative or all-positive sizes expose a wrong identity.
    const Range range = input_range(n);
    fill_uniform(x.f32(), range.lo, range.hi, rng);
    return {std::move(x), Buffer::make("results", DType::f32, Role::output, 3)};
  }

  // results[0]: a float32 sum in any order, 05_reduce's tolerance 4·u·√n·Σ|x_i| (see there).
  // results[1] and results[2]: max and min never round (the answer is one of the inputs, whatever
  // the order of comparisons), so they must be exact: tolerance 0.
  [[nodiscard]] std::vector<Expected> reference(const Case& c, const std::vector<Buffer>& inputs) const override {
    const auto n = static_cast<std::int64_t>(c.dim("n"));
    const auto x = inputs.at(0).f32();
    double total = 0.0, magnitude = 0.0;
    float largest = -std::numeric_limits<float>::infinity(), smallest = std::numeric_limits<float>::infinity();
#pragma omp parallel for schedule(static) reduction(+ : total, magnitude) reduction(max : largest) \
    reduction(min : smallest)
    for (std::int64_t i = 0; i < n; ++i) {
      total += static_cast<double>(x[i]);
      magnitude += std::abs(static_cast<double>(x[i]));
      largest = std::max(largest, x[i]);
      smallest = std::min(smallest, x[i]);
    }
    Expected e;
    e.buffer = 1;
    e.value = {total, static_cast<double>(largest), static_cast<double>(smallest)};
    e.tolerance = {sum_tolerance(static_cast<std::size_t>(n), magnitude), 0.0, 0.0};
    return {std::move(e)};
  }

  // x read once (the three reductions fused into one pass), three floats written; per element an
  // add, a max and a min.
  [[nodiscard]] Cost cost(const Case& c) const override {
    const auto n = static_cast<double>(c.dim("n"));
    return {4.0 * n + 12.0, 3.0 * n};
  }

  void cpu_solve(const Case& c, std::vector<Buffer>& buffers, int threads) const override {
    const auto n = static_cast<std::int64_t>(c.dim("n"));
    const auto x = buffers.at(0).f32().first(static_cast<std::size_t>(n));
    const float* data = x.data();
    float largest = -std::numeric_limits<float>::infinity(), smallest = std::numeric_limits<float>::infinity();
#pragma omp parallel for simd num_threads(cpu_threads(threads)) schedule(static) reduction(max        \
                                                                                           : largest) \
    reduction(min                                                                                     \
              : smallest)
    for (std::int64_t i = 0; i < n; ++i) {
      largest = std::max(largest, data[i]);
      smallest = std::min(smallest, data[i]);
    }
    auto results = buffers.at(1).f32();
    results[0] = blocked_sum(x, threads, block_sum);
    results[1] = largest;
    results[2] = smallest;
  }

  [[nodiscard]] std::string cpu_solve_name() const override { return cpu_sum_name("float32 sum in blocks, max, min"); }

  [[nodiscard]] std::optional<std::string> diagnose(const Case& c, const std::vector<Buffer>& inputs,
                                                    const Buffer& actual, const Expected& expected) const override {
    const std::size_t n = dim_size(c, "n");
    const auto x = inputs.at(0).f32();
    if (actual.count() != 3 || x.size() != n || expected.value.size() != 3) return std::nullopt;
    const double got[] = {actual.value(0), actual.value(1), actual.value(2)};
    const double largest = expected.value[1], smallest = expected.value[2];
    auto right = [&](std::size_t k) { return std::abs(got[k] - expected.value[k]) <= expected.tolerance[k]; };

    if (got[1] == 0.0 && largest < 0.0) {
      return std::string(
          "max is 0: the identity of max is -INFINITY, not 0. Every value here is negative, so a 0 can only come "
          "from the identity (the value of threads with no element); identity() must be neutral: max(identity, v) "
          "= v for every v");
    }
    if (got[2] == 0.0 && smallest > 0.0) {
      return std::string(
          "min is 0: the identity of min is +INFINITY, not 0. Every value here is positive, so a 0 can only come "
          "from the identity (the value of threads with no element); identity() must be neutral: min(identity, v) "
          "= v for every v");
    }
    if (largest != smallest && got[1] == smallest && got[2] == largest) {
      return std::string("min and max are swapped: results[1] must hold the maximum and results[2] the minimum");
    }
    for (std::size_t k = 0; k < 3; ++k) {
      if (std::isnan(got[k]) && right((k + 1) % 3) && right((k + 2) % 3)) {
        return std::string(kResultNames[k]) +
               " is NaN while the other two are right: was it ever written? solve must store all three results";
      }
    }
    if (right(0) || !std::isfinite(got[0])) return std::nullopt;

    // The sum of one block's elements only: the first k elements (k a multiple of 32) or one
    // block of B contiguous elements, as 05_reduce's hint finds them. Blocks start and end at
    // multiples of 32 or at n, so prefix sums are kept there only, n/32 of them.
    constexpr std::size_t kWarp = 32;
    const std::size_t points = (n + kWarp - 1) / kWarp + 1;
    std::vector<double> prefix(points, 0.0), prefix_abs(points, 0.0);  // of x[0, min(32·j, n))
    for (std::size_t i = 0; i < n; ++i) {
      prefix[i / kWarp + 1] += static_cast<double>(x[i]);
      prefix_abs[i / kWarp + 1] += std::abs(static_cast<double>(x[i]));
    }
    for (std::size_t j = 1; j < points; ++j) prefix[j] += prefix[j - 1], prefix_abs[j] += prefix_abs[j - 1];
    auto point = [&](std::size_t i) { return i >= n ? points - 1 : i / kWarp; };
    auto matches = [&](std::size_t lo, std::size_t hi) {
      const std::size_t a = point(lo), b = point(hi);
      return std::abs(got[0] - (prefix[b] - prefix[a])) <= sum_tolerance(hi - lo, prefix_abs[b] - prefix_abs[a]);
    };
    for (std::size_t block = 32; block <= 1024 && block < n; block *= 2) {
      for (std::size_t lo = 0; lo < n; lo += block) {
        const std::size_t hi = std::min(n, lo + block);
        if (matches(lo, hi)) {
          return "the sum covers elements " + std::to_string(lo) + " to " + std::to_string(hi - 1) +
                 " only, one block's partial result of " + std::to_string(block) +
                 ": the partial results of every block must be combined (a second pass over them, or the last "
                 "block to finish combines them)";
        }
      }
    }
    if (right(1) && right(2)) {
      return std::string(
          "only the sum is wrong, while max and min (the same template) are right: look at the sum's functor. "
          "apply(a, b) must be a + b and identity() 0; an operator that is not associative (such as a - b) gives "
          "a different answer for every shape of the reduction tree");
    }
    return std::nullopt;
  }

 private:
  TaskInfo info_;
};

CUDALAB_REGISTER_TASK(ReduceAnyTask);

}  // namespace
}  // namespace cudalab::tasks
