// 06_scale_2d: B = diag(s)·A — every row of an M×N matrix scaled by its own factor, with a 2D grid
// of 2D blocks (device pointers).
#include <cmath>
#include <cstdint>

#include "../task_support.hpp"

namespace cudalab::tasks {
namespace {

class Scale2dTask final : public Task {
 public:
  Scale2dTask() {
    info_.number = 6;
    info_.id = "06_scale_2d";
    info_.name = "scale_2d";
    info_.summary = "B[r][c] = s[r]·A[r][c] with a 2D grid of 2D blocks";
    info_.teaches = "2D grids and blocks (dim3); row-major indexing";
    info_.pointers = PointerKind::device;
    info_.requires_2d_launch = true;  // the exercise is the 2D launch
    info_.signature.params = {
        {Param::Kind::buffer, "A", DType::f32, true},      {Param::Kind::buffer, "s", DType::f32, true},
        {Param::Kind::buffer, "B", DType::f32, false},     {Param::Kind::scalar_int, "M", DType::i32, false},
        {Param::Kind::scalar_int, "N", DType::i32, false},
    };
  }

  [[nodiscard]] const TaskInfo& info() const override { return info_; }

  [[nodiscard]] std::vector<Case> cases(const CaseOptions& options) const override { return cases_2d(options); }

  [[nodiscard]] std::vector<Buffer> make_buffers(const Case& c, Rng& rng) const override {
    const std::size_t M = dim_size(c, "M"), N = dim_size(c, "N");
    Buffer A = Buffer::make("A", DType::f32, Role::input, M * N);
    Buffer s = Buffer::make("s", DType::f32, Role::input, M);
    fill_uniform(A.f32(), -1.0f, 1.0f, rng);
    // Factors in [2, 4): each row's differs from 1 (a copy cannot pass) and from its neighbours'
    // (a column index used as the row index shows).
    fill_uniform(s.f32(), 2.0f, 4.0f, rng);
    ensure_not_all_zero(A.f32(), 0.5f);
    Buffer B = Buffer::make("B", DType::f32, Role::output, M * N);
    B.rows = static_cast<int>(M);
    B.cols = static_cast<int>(N);
    return {std::move(A), std::move(s), std::move(B)};
  }

  // One float32 multiply per element, correctly rounded: within u·|ref| of the exact product.
  [[nodiscard]] std::vector<Expected> reference(const Case& c, const std::vector<Buffer>& inputs) const override {
    const auto M = static_cast<std::int64_t>(c.dim("M")), N = static_cast<std::int64_t>(c.dim("N"));
    const auto A = inputs.at(0).f32();
    const auto s = inputs.at(1).f32();
    Expected e;
    e.buffer = 2;
    e.value.resize(static_cast<std::size_t>(M * N));
    e.tolerance.resize(e.value.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < M; ++r) {
      for (std::int64_t col = 0; col < N; ++col) {
        const double v = static_cast<double>(s[r]) * static_cast<double>(A[r * N + col]);
        e.value[r * N + col] = v;
        e.tolerance[r * N + col] = kUnitRoundoff * std::abs(v) + kTinyFloat;
      }
    }
    return {std::move(e)};
  }

  // A read and B written once (s is M floats, negligible); one multiply per element.
  [[nodiscard]] Cost cost(const Case& c) const override {
    const auto elements = static_cast<double>(c.dim("M")) * static_cast<double>(c.dim("N"));
    return {8.0 * elements, elements};
  }

  void cpu_solve(const Case& c, std::vector<Buffer>& buffers, int threads) const override {
    const auto M = static_cast<std::int64_t>(c.dim("M")), N = static_cast<std::int64_t>(c.dim("N"));
    const float* A = buffers.at(0).f32().data();
    const float* s = buffers.at(1).f32().data();
    float* B = buffers.at(2).f32().data();
#pragma omp parallel for num_threads(cpu_threads(threads)) schedule(static)
    for (std::int64_t r = 0; r < M; ++r) {
      const float f = s[r];
#pragma omp simd
      for (std::int64_t col = 0; col < N; ++col) B[r * N + col] = f * A[r * N + col];
    }
  }

  [[nodiscard]] std::string cpu_solve_name() const override { return cpu_loop_name("row scaling"); }

  [[nodiscard]] std::optional<std::string> diagnose(const Case& c, const std::vector<Buffer>& inputs,
                                                    const Buffer& actual, const Expected& expected) const override {
    const std::size_t M = dim_size(c, "M"), N = dim_size(c, "N");
    const auto A = inputs.at(0).f32();
    const auto s = inputs.at(1).f32();
    const auto B = actual.f32();
    if (B.size() != M * N || expected.value.size() != M * N) return std::nullopt;
    // Whether B[r][c] = f(r, c) everywhere, to a few roundings.
    auto everywhere = [&](auto&& f) {
      for (std::size_t r = 0; r < M; ++r) {
        for (std::size_t col = 0; col < N; ++col) {
          const double want = f(r, col);
          if (!(std::abs(static_cast<double>(B[r * N + col]) - want) <=
                4.0 * kUnitRoundoff * std::abs(want) + kTinyFloat)) {
            return false;
          }
        }
      }
      return true;
    };
    if (everywhere([&](std::size_t r, std::size_t col) { return static_cast<double>(A[r * N + col]); })) {
      return std::string("B equals A: no row was multiplied by its factor s[row]");
    }
    if (M > 1 && N <= M) {  // s[column] exists for every column
      if (everywhere([&](std::size_t r, std::size_t col) {
            return static_cast<double>(s[col]) * static_cast<double>(A[r * N + col]);
          })) {
        return std::string(
            "each element was scaled by s[column] instead of s[row]: the row is the y index "
            "(blockIdx.y * blockDim.y + threadIdx.y), the column the x index");
      }
    }
    if (M > 1 && N > 1) {
      // The row index multiplied by M instead of N: the element at (r, c) read or written as if
      // rows were M long. Told apart only where N < M: there each such element has one writer.
      const std::size_t wrong_stride = M;
      std::size_t ok = 0;
      std::size_t total = 0;
      for (std::size_t r = 0; r < M && total < 4096; ++r) {
        for (std::size_t col = 0; col < N && total < 4096; ++col) {
          const std::size_t at = r * wrong_stride + col;
          if (at >= M * N || col >= M) continue;
          ++total;
          const double want = static_cast<double>(s[r]) * static_cast<double>(A[at]);
          ok += std::abs(static_cast<double>(B[at]) - want) <= 4.0 * kUnitRoundoff * std::abs(want) + kTinyFloat;
        }
      }
      if (N < M && total > 16 && ok == total) {
        return "elements are at row * M + column: in a row-major M×N matrix, row r starts at r * N "
               "(N is the row length)";
      }
    }
    return std::nullopt;
  }

 private:
  TaskInfo info_;
};

CUDALAB_REGISTER_TASK(Scale2dTask);

}  // namespace
}  // namespace cudalab::tasks
