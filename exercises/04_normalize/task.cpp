// 04_normalize: y = x / ‖x‖₂ with device pointers; the sum of squares is a shared-memory block
// reduction.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "../task_support.hpp"

namespace cudalab::tasks {
namespace {

/// Relative error allowed in y (see reference()).
double relative_tolerance(std::size_t n) { return kUnitRoundoff * (4.0 * std::sqrt(static_cast<double>(n)) + 8.0); }

class NormalizeTask final : public Task {
 public:
  NormalizeTask() {
    info_.number = 4;
    info_.id = "04_normalize";
    info_.name = "normalize";
    info_.summary = "y = x / ‖x‖₂ with a shared-memory block reduction";
    info_.teaches = "block reductions in shared memory; barriers";
    info_.pointers = PointerKind::device;
    info_.requires_shared_memory = true;  // the block reduction goes through shared memory
    info_.signature.params = {
        {Param::Kind::buffer, "x", DType::f32, true},
        {Param::Kind::buffer, "y", DType::f32, false},
        {Param::Kind::scalar_int, "n", DType::i32, false},
    };
  }

  [[nodiscard]] const TaskInfo& info() const override { return info_; }

  [[nodiscard]] std::vector<Case> cases(const CaseOptions& options) const override { return cases_1d(options); }

  [[nodiscard]] std::vector<Buffer> make_buffers(const Case& c, Rng& rng) const override {
    const std::size_t n = dim_size(c, "n");
    Buffer x = Buffer::make("x", DType::f32, Role::input, n);
    // The offset makes ‖x‖ differ from 1 and from ‖x‖² at every size, so that skipping the
    // division or the square root is visible.
    fill_uniform(x.f32(), -1.0f + 0.25f, 1.0f + 0.25f, rng);
    ensure_not_all_zero(x.f32(), 0.25f);  // a zero vector has no direction
    return {std::move(x), Buffer::make("y", DType::f32, Role::output, n)};
  }

  // A correct float32 kernel computes s = Σ x_i² in some order (block trees, then atomics or a
  // second pass), then y_i = x_i / sqrtf(s) or x_i * rsqrtf(s).
  //  - The squares and the sum: all terms are positive, so as in a dot product the relative
  //    error of s is about u·√n statistically (≤ 4·u·√n with a wide margin, see 03_matmul).
  //  - sqrt halves that relative error: ‖x‖ is off by ≤ 2·u·√n, plus 1 rounding for sqrtf
  //    (2 ulp for rsqrtf).
  //  - The division, or the multiply by rsqrtf, adds 1 to 2 roundings.
  // So |y_i − ref_i| ≤ |ref_i|·u·(2·√n + 6); we allow |ref_i|·u·(4·√n + 8), plus u·max|ref|
  // for elements near zero, whose relative error is not bounded by flush-to-zero arithmetic.
  // Not covered, rightly: one float accumulating all 2^26 squares in sequence (a single thread,
  // or an atomicAdd per element) stagnates once its ulp outgrows the terms: ‖x‖ ~10% low.
  [[nodiscard]] std::vector<Expected> reference(const Case& c, const std::vector<Buffer>& inputs) const override {
    const auto n = static_cast<std::int64_t>(c.dim("n"));
    const auto x = inputs.at(0).f32();
    double squares = 0.0;
    float largest = 0.0f;
#pragma omp parallel for schedule(static) reduction(+ : squares) reduction(max : largest)
    for (std::int64_t i = 0; i < n; ++i) {
      squares += static_cast<double>(x[i]) * static_cast<double>(x[i]);
      largest = std::max(largest, std::abs(x[i]));
    }
    const double norm = std::sqrt(squares);
    const double rel = relative_tolerance(static_cast<std::size_t>(n));
    const double floor = kUnitRoundoff * static_cast<double>(largest) / norm;
    Expected e;
    e.buffer = 1;
    e.value.resize(static_cast<std::size_t>(n));
    e.tolerance.resize(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      const double y = static_cast<double>(x[i]) / norm;
      e.value[i] = y;
      e.tolerance[i] = std::abs(y) * rel + floor;
    }
    return {std::move(e)};
  }

  // x is read twice (once for the sum of squares, once to scale it) and y written once; per
  // element a square, an add and a division.
  [[nodiscard]] Cost cost(const Case& c) const override {
    const auto n = static_cast<double>(c.dim("n"));
    return {12.0 * n, 3.0 * n};
  }

  // The sum of squares as 05_reduce sums (blocked_sum), then one division per element: the
  // error budget of reference().
  void cpu_solve(const Case& c, std::vector<Buffer>& buffers, int threads) const override {
    const auto n = static_cast<std::int64_t>(c.dim("n"));
    const auto x = buffers.at(0).f32();
    const float norm = std::sqrt(blocked_sum(x, threads, block_sum_of_squares));
    const float* in = x.data();
    float* y = buffers.at(1).f32().data();
#pragma omp parallel for simd num_threads(cpu_threads(threads)) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) y[i] = in[i] / norm;
  }

  [[nodiscard]] std::string cpu_solve_name() const override { return cpu_sum_name("float32 norm in blocks"); }

  [[nodiscard]] std::optional<std::string> diagnose(const Case& c, const std::vector<Buffer>& inputs,
                                                    const Buffer& actual, const Expected& expected) const override {
    const std::size_t n = dim_size(c, "n");
    const auto x = inputs.at(0).f32();
    const auto y = actual.f32();
    if (y.size() != n || x.size() != n || expected.value.size() != n) return std::nullopt;
    double squares = 0.0;
    for (const float v : x) squares += static_cast<double>(v) * static_cast<double>(v);
    const double norm = std::sqrt(squares);

    // Whether y_i = x_i / d_i for all i, allowing twice the usual relative error (a sum of
    // squares used without its square root carries twice the relative error of a norm).
    auto divided_by = [&](auto&& divisor) {
      for (std::size_t i = 0; i < n; ++i) {
        const double d = divisor(i);
        const double want = static_cast<double>(x[i]) / d;
        const double allowed = 2.0 * expected.tolerance[i] * norm / d;
        if (!(std::abs(static_cast<double>(y[i]) - want) <= allowed)) return false;
      }
      return true;
    };
    if (divided_by([](std::size_t) { return 1.0; })) {
      return std::string("y equals x: the vector was not divided by its norm");
    }
    if (divided_by([&](std::size_t) { return squares; })) {
      return std::string("y = x / ‖x‖²: did you forget the square root?");
    }
    // Each block divided its elements by the norm of its own B elements, not of the whole x.
    for (std::size_t block = 32; block <= 1024 && block < n; block *= 2) {
      std::vector<double> block_norm((n + block - 1) / block, 0.0);
      for (std::size_t i = 0; i < n; ++i) {
        block_norm[i / block] += static_cast<double>(x[i]) * static_cast<double>(x[i]);
      }
      for (double& v : block_norm) v = std::sqrt(v);
      if (divided_by([&](std::size_t i) { return block_norm[i / block]; })) {
        return "each block of " + std::to_string(block) +
               " elements was divided by its own norm: ‖x‖ must sum the squares of every "
               "block before any element is divided";
      }
    }
    return std::nullopt;
  }

 private:
  TaskInfo info_;
};

CUDALAB_REGISTER_TASK(NormalizeTask);

}  // namespace
}  // namespace cudalab::tasks
