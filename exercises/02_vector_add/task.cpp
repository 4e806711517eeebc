// 02_vector_add: c = a + b with host pointers: copy only a and b in, allocate c on the device,
// copy only c out.
#include <cmath>
#include <cstdint>

#include "../task_support.hpp"

namespace cudalab::tasks {
namespace {

/// One float32 addition rounds once: |fl(a + b) − (a + b)| ≤ u·|a + b|. The tolerance allows
/// twice that (one ulp), so the rule does not depend on how the rounding tie is broken.
double add_tolerance(double exact) { return 2.0 * kUnitRoundoff * std::abs(exact); }

class VectorAddTask final : public Task {
 public:
  VectorAddTask() {
    info_.number = 2;
    info_.id = "02_vector_add";
    info_.name = "vector_add";
    info_.summary = "c = a + b: copy only the inputs in and only the result out";
    info_.teaches = "a grid that covers n; copying only what is needed";
    info_.pointers = PointerKind::host;
    info_.signature.params = {
        {Param::Kind::buffer, "a", DType::f32, true},
        {Param::Kind::buffer, "b", DType::f32, true},
        {Param::Kind::buffer, "c", DType::f32, false},
        {Param::Kind::scalar_int, "n", DType::i32, false},
    };
  }

  [[nodiscard]] const TaskInfo& info() const override { return info_; }

  [[nodiscard]] std::vector<Case> cases(const CaseOptions& options) const override { return cases_1d(options); }

  [[nodiscard]] std::vector<Buffer> make_buffers(const Case& c, Rng& rng) const override {
    const std::size_t n = dim_size(c, "n");
    Buffer a = Buffer::make("a", DType::f32, Role::input, n);
    Buffer b = Buffer::make("b", DType::f32, Role::input, n);
    // Different offsets keep a, b, a + a and b + b apart, so that using one input twice (or
    // copying one input) cannot pass.
    fill_uniform(a.f32(), -4.0f + 1.25f, 4.0f + 1.25f, rng);
    fill_uniform(b.f32(), -4.0f - 2.5f, 4.0f - 2.5f, rng);
    ensure_not_all_zero(a.f32(), 1.25f);
    ensure_not_all_zero(b.f32(), -2.5f);
    return {std::move(a), std::move(b), Buffer::make("c", DType::f32, Role::output, n)};
  }

  // Sum of two floats is exact in float64 (53 bits hold both 24-bit significands here), and the
  // float32 result rounds it once: add_tolerance.
  [[nodiscard]] std::vector<Expected> reference(const Case& c, const std::vector<Buffer>& inputs) const override {
    const std::size_t n = dim_size(c, "n");
    const auto a = inputs.at(0).f32();
    const auto b = inputs.at(1).f32();
    Expected e;
    e.buffer = 2;
    e.value.resize(n);
    e.tolerance.resize(n);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {
      const double sum = static_cast<double>(a[i]) + static_cast<double>(b[i]);
      e.value[i] = sum;
      e.tolerance[i] = add_tolerance(sum);
    }
    return {std::move(e)};
  }

  // a and b read, c written: 3 floats per element; one addition each.
  [[nodiscard]] Cost cost(const Case& c) const override {
    const auto n = static_cast<double>(c.dim("n"));
    return {12.0 * n, n};
  }

  void cpu_solve(const Case& c, std::vector<Buffer>& buffers, [[maybe_unused]] int threads) const override {
    const auto n = static_cast<std::int64_t>(c.dim("n"));
    const float* a = buffers.at(0).f32().data();
    const float* b = buffers.at(1).f32().data();
    float* out = buffers.at(2).f32().data();
#pragma omp parallel for simd num_threads(cpu_threads(threads)) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
  }

  [[nodiscard]] std::string cpu_solve_name() const override { return cpu_loop_name("loop"); }

  [[nodiscard]] std::optional<std::string> diagnose(const Case& c, const std::vector<Buffer>& inputs,
                                                    const Buffer& actual, const Expected& expected) const override {
    const std::size_t n = dim_size(c, "n");
    const auto a = inputs.at(0).f32();
    const auto b = inputs.at(1).f32();
    const auto out = actual.f32();
    if (out.size() != n || expected.value.size() != n) return std::nullopt;

    // c equals `scale·x` everywhere: an input used twice or copied through.
    auto equals = [&](std::span<const float> x, double scale) {
      for (std::size_t i = 0; i < n; ++i) {
        const double want = scale * static_cast<double>(x[i]);
        if (!(std::abs(static_cast<double>(out[i]) - want) <= add_tolerance(want))) return false;
      }
      return true;
    };
    if (equals(a, 2.0)) return std::string("c equals a + a: b was ignored");
    if (equals(b, 2.0)) return std::string("c equals b + b: a was ignored");
    if (equals(a, 1.0)) return std::string("c equals a: b was ignored");
    if (equals(b, 1.0)) return std::string("c equals b: a was ignored");

    // n bytes copied instead of n floats: the first n/4 elements are right, the rest were never
    // written back (poison) or computed from uninitialised device memory.
    auto right = [&](std::size_t i) {
      return std::abs(static_cast<double>(out[i]) - expected.value[i]) <= expected.tolerance[i];
    };
    const std::size_t quarter = n / 4;
    if (quarter >= 2) {
      bool head_right = true;
      for (std::size_t i = 0; i < quarter && head_right; ++i) head_right = right(i);
      // The element at n/4 is split in two when n % 4 != 0; leave it out.
      const std::size_t tail_from = n % 4 == 0 ? quarter : quarter + 1;
      std::size_t tail_right = 0;
      for (std::size_t i = tail_from; i < n; ++i) tail_right += right(i) ? 1 : 0;
      if (head_right && tail_right * 64 <= n - tail_from) {
        return std::string(
            "only the first n/4 elements of c are right: cudaMemcpy counts bytes, not elements "
            "— pass n * sizeof(float)");
      }
    }
    return std::nullopt;
  }

 private:
  TaskInfo info_;
};

CUDALAB_REGISTER_TASK(VectorAddTask);

}  // namespace
}  // namespace cudalab::tasks
