// 07_polynomial_map: y[i] = p(x[i]) for a degree-7 polynomial whose coefficients live in
// __constant__ memory, filled by cudaMemcpyToSymbol (device pointers).
#include <array>
#include <cmath>
#include <cstdint>

#include "../task_support.hpp"

namespace cudalab::tasks {
namespace {

/// Coefficients c[0] … c[7] of p(x) = c[0] + c[1]·x + … + c[7]·x⁷.
constexpr std::size_t kCoefficients = 8;

/// Σ c[k]·x^k and Σ |c[k]|·|x|^k in float64, with the coefficients in the given order.
struct Evaluation {
  double value = 0;
  double magnitude = 0;
};
Evaluation evaluate(std::span<const float> c, float xf, bool reversed = false) {
  const double x = xf;
  Evaluation e;
  double power = 1.0;
  for (std::size_t k = 0; k < kCoefficients; ++k) {
    const double ck = c[reversed ? kCoefficients - 1 - k : k];
    e.value += ck * power;
    e.magnitude += std::abs(ck * power);
    power *= x;
  }
  return e;
}

class PolynomialMapTask final : public Task {
 public:
  PolynomialMapTask() {
    info_.number = 7;
    info_.id = "07_polynomial_map";
    info_.name = "polynomial_map";
    info_.summary = "y[i] = p(x[i]), p's coefficients in __constant__ memory";
    info_.teaches = "element-wise maps; __constant__ memory";
    info_.pointers = PointerKind::device;
    info_.requires_constant_memory = true;  // the exercise is the constant-memory copy
    info_.signature.params = {
        {Param::Kind::buffer, "coefficients", DType::f32, true},
        {Param::Kind::buffer, "x", DType::f32, true},
        {Param::Kind::buffer, "y", DType::f32, false},
        {Param::Kind::scalar_int, "n", DType::i32, false},
    };
  }

  [[nodiscard]] const TaskInfo& info() const override { return info_; }

  [[nodiscard]] std::vector<Case> cases(const CaseOptions& options) const override { return cases_1d(options); }

  [[nodiscard]] std::vector<Buffer> make_buffers(const Case& c, Rng& rng) const override {
    Buffer coefficients = Buffer::make("coefficients", DType::f32, Role::input, kCoefficients);
    // Coefficients of both signs and new ones every call: a polynomial compiled into the kernel,
    // or coefficients kept from an earlier call, cannot pass. c[7] is kept away from zero so that
    // dropping the last term shows.
    fill_uniform(coefficients.f32(), -1.0f, 1.0f, rng);
    float& last = coefficients.f32()[kCoefficients - 1];
    last = last < 0.0f ? last - 0.5f : last + 0.5f;
    Buffer x = Buffer::make("x", DType::f32, Role::input, dim_size(c, "n"));
    fill_uniform(x.f32(), -1.5f, 1.5f, rng);  // |x| > 1 makes the high powers matter
    ensure_not_all_zero(x.f32(), 1.25f);
    return {std::move(coefficients), std::move(x), Buffer::make("y", DType::f32, Role::output, dim_size(c, "n"))};
  }

  // Horner's rule in float32 (p = c[7]; p = p·x + c[k] for k = 6 … 0, with or without FMA) has
  // error ≤ γ(2d)·Σ|c[k]|·|x|^k for degree d = 7, γ(m) = m·u / (1 − m·u) (Higham, "Accuracy and
  // Stability of Numerical Algorithms", 5.1). Summing c[k]·x^k with the powers built by repeated
  // multiplication has the same kind of bound, about (2d + 1)·u·Σ|c[k]·x^k|. We allow 16·u of
  // Σ|c[k]|·|x|^k, which covers both, plus kTinyFloat for results that flush to zero. Near a root
  // of p the relative error can be large, but no correct float32 evaluation does better there.
  [[nodiscard]] std::vector<Expected> reference(const Case& c, const std::vector<Buffer>& inputs) const override {
    const auto n = static_cast<std::int64_t>(c.dim("n"));
    const auto coefficients = inputs.at(0).f32();
    const auto x = inputs.at(1).f32();
    Expected e;
    e.buffer = 2;
    e.value.resize(static_cast<std::size_t>(n));
    e.tolerance.resize(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      const Evaluation p = evaluate(coefficients, x[i]);
      e.value[i] = p.value;
      e.tolerance[i] = 16.0 * kUnitRoundoff * p.magnitude + kTinyFloat;
    }
    return {std::move(e)};
  }

  // x read and y written once (the 32 bytes of coefficients are negligible); Horner's 7
  // multiply-adds per element.
  [[nodiscard]] Cost cost(const Case& c) const override {
    const auto n = static_cast<double>(c.dim("n"));
    return {8.0 * n, 2.0 * (kCoefficients - 1) * n};
  }

  void cpu_solve(const Case& c, std::vector<Buffer>& buffers, int threads) const override {
    const auto n = static_cast<std::int64_t>(c.dim("n"));
    std::array<float, kCoefficients> k{};
    std::ranges::copy(buffers.at(0).f32(), k.begin());
    const float* x = buffers.at(1).f32().data();
    float* y = buffers.at(2).f32().data();
#pragma omp parallel for simd num_threads(cpu_threads(threads)) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      const float v = x[i];
      float p = k[7];
      p = p * v + k[6];
      p = p * v + k[5];
      p = p * v + k[4];
      p = p * v + k[3];
      p = p * v + k[2];
      p = p * v + k[1];
      y[i] = p * v + k[0];
    }
  }

  [[nodiscard]] std::string cpu_solve_name() const override { return cpu_loop_name("Horner loop"); }

  [[nodiscard]] std::optional<std::string> diagnose(const Case& c, const std::vector<Buffer>& inputs,
                                                    const Buffer& actual, const Expected& expected) const override {
    const std::size_t n = dim_size(c, "n");
    const auto coefficients = inputs.at(0).f32();
    const auto x = inputs.at(1).f32();
    const auto y = actual.f32();
    if (y.size() != n || expected.value.size() != n || coefficients.size() != kCoefficients) return std::nullopt;
    // Whether y[i] ≈ f(i) everywhere, with the reference's allowance at each point.
    auto everywhere = [&](auto&& f) {
      for (std::size_t i = 0; i < n; ++i) {
        const Evaluation want = f(i);
        if (!(std::abs(static_cast<double>(y[i]) - want.value) <= 16.0 * kUnitRoundoff * want.magnitude + kTinyFloat)) {
          return false;
        }
      }
      return true;
    };
    if (everywhere([&](std::size_t i) { return evaluate(coefficients, x[i], true); })) {
      return std::string(
          "y is the polynomial with its coefficients in reverse order: coefficients[k] multiplies x^k, so "
          "coefficients[7] is the x^7 term (Horner's rule starts from it: p = c[7]; p = p * x + c[6]; …)");
    }
    const std::array<float, kCoefficients> without_last = [&] {
      std::array<float, kCoefficients> k{};
      std::ranges::copy(coefficients, k.begin());
      k[kCoefficients - 1] = 0.0f;
      return k;
    }();
    if (everywhere([&](std::size_t i) { return evaluate(without_last, x[i]); })) {
      return std::string("the x^7 term is missing: all 8 coefficients count, c[0] to c[7] (an off-by-one loop?)");
    }
    if (everywhere([&](std::size_t) { return Evaluation{coefficients[0], std::abs(coefficients[0])}; })) {
      return std::string("every y[i] equals coefficients[0]: was x[i] used?");
    }
    return std::nullopt;
  }

 private:
  TaskInfo info_;
};

CUDALAB_REGISTER_TASK(PolynomialMapTask);

}  // namespace
}  // namespace cudalab::tasks
