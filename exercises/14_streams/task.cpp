// 14_streams: y[i] = sqrt(1 + x[i]²) with host pointers to page-locked memory, the work split into
// chunks whose copies and kernels run on several streams so that copies overlap kernels.
#include <cmath>
#include <cstdint>

#include "../task_support.hpp"

namespace cudalab::tasks {
namespace {

class StreamsTask final : public Task {
 public:
  StreamsTask() {
    info_.number = 14;
    info_.id = "14_streams";
    info_.name = "streams";
    info_.summary = "y[i] = sqrt(1 + x[i]²), chunks copied and computed on several streams";
    info_.teaches = "streams and pinned memory: copies overlap kernels";
    info_.pointers = PointerKind::host;
    info_.requires_streams = true;  // the exercise is the overlap
    info_.signature.params = {
        {Param::Kind::buffer, "x", DType::f32, true},
        {Param::Kind::buffer, "y", DType::f32, false},
        {Param::Kind::scalar_int, "n", DType::i32, false},
    };
  }

  [[nodiscard]] const TaskInfo& info() const override { return info_; }

  [[nodiscard]] std::vector<Case> cases(const CaseOptions& options) const override { return cases_1d(options); }

  [[nodiscard]] std::vector<Buffer> make_buffers(const Case& c, Rng& rng) const override {
    Buffer x = Buffer::make("x", DType::f32, Role::input, dim_size(c, "n"));
    // Both signs and magnitudes on both sides of 1: y = |x| or y = 1 + x² cannot pass.
    fill_uniform(x.f32(), -4.0f, 4.0f, rng);
    ensure_not_all_zero(x.f32(), 2.0f);
    return {std::move(x), Buffer::make("y", DType::f32, Role::output, dim_size(c, "n"))};
  }

  // x², then 1 + x², each rounded once (or once together as an FMA); sqrtf is correctly rounded
  // and halves the relative error of its argument: |y − ref| ≤ (u + u/2·2)·ref ≈ 2u·ref. We allow
  // 4u·ref (an approximate square root of 1 ulp fits too).
  [[nodiscard]] std::vector<Expected> reference(const Case& c, const std::vector<Buffer>& inputs) const override {
    const auto n = static_cast<std::int64_t>(c.dim("n"));
    const auto x = inputs.at(0).f32();
    Expected e;
    e.buffer = 1;
    e.value.resize(static_cast<std::size_t>(n));
    e.tolerance.resize(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      const double v = static_cast<double>(x[i]);
      e.value[i] = std::sqrt(1.0 + v * v);
      e.tolerance[i] = 4.0 * kUnitRoundoff * e.value[i];
    }
    return {std::move(e)};
  }

  // x goes to the device and y comes back once each; a multiply, an add and a square root.
  [[nodiscard]] Cost cost(const Case& c) const override {
    const auto n = static_cast<double>(c.dim("n"));
    return {8.0 * n, 3.0 * n};
  }

  void cpu_solve(const Case& c, std::vector<Buffer>& buffers, int threads) const override {
    const auto n = static_cast<std::int64_t>(c.dim("n"));
    const float* x = buffers.at(0).f32().data();
    float* y = buffers.at(1).f32().data();
#pragma omp parallel for simd num_threads(cpu_threads(threads)) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) y[i] = std::sqrt(1.0f + x[i] * x[i]);
  }

  [[nodiscard]] std::string cpu_solve_name() const override { return cpu_loop_name("sqrt loop"); }

  // The pipeline's usual slip: a chunk count rounded down, so the short last chunk (or all of a
  // small x) never goes through. y is then right up to some element and never written after it.
  [[nodiscard]] std::optional<std::string> diagnose(const Case& c, const std::vector<Buffer>& inputs,
                                                    const Buffer& actual, const Expected& expected) const override {
    (void)inputs;
    const std::size_t n = dim_size(c, "n");
    const auto y = actual.f32();
    if (y.size() != n || expected.value.size() != n) return std::nullopt;
    std::size_t right = 0;
    while (right < n && std::abs(static_cast<double>(y[right]) - expected.value[right]) <= expected.tolerance[right]) {
      ++right;
    }
    for (std::size_t i = right; i < n; ++i) {
      if (!std::isnan(y[i])) return std::nullopt;  // written, and wrong: not this slip
    }
    if (right == n) return std::nullopt;
    if (right == 0) {
      return std::string(
          "no element of y came back: if n is smaller than one chunk, the loop ran no chunk at all (count the chunks "
          "as (n + CHUNK - 1) / CHUNK); otherwise copy each chunk's result back with cudaMemcpyAsync(y + first, ..., "
          "cudaMemcpyDeviceToHost, stream) and wait for every stream before solve returns");
    }
    return "y is right up to element " + std::to_string(right - 1) + " and never written from " +
           std::to_string(right) + " on: the last " + std::to_string(n - right) +
           " elements, a chunk shorter than the others, were not copied, computed or copied back — count the chunks "
           "as (n + CHUNK - 1) / CHUNK and give the last one n - first elements";
  }

 private:
  TaskInfo info_;
};

CUDALAB_REGISTER_TASK(StreamsTask);

}  // namespace
}  // namespace cudalab::tasks
