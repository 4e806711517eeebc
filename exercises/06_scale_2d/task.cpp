// 06_scale_2d: B = diag(s)·A — every row of an M×N matrix scaled by its own factor, with a 2D grid
// of 2D blocks (device pointers).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>

#include "../task_support.hpp"

namespace cudalab::tasks {
namespace {

/// The harness's poison (judge.cpp): a signalling NaN with this payload, never written since.
bool never_written(float v) { return std::bit_cast<std::uint32_t>(v) == 0x7FA0DEADu; }

/// Whether B is what a kernel leaves that puts element (r, c) at r * M + c, as if rows were M long
/// (read from A there, or from the right place): rows overlap where N > M (one of the threads
/// that store to an element wins) and leave gaps where N < M. Every element that some such thread
/// stores holds s[r] times A's value for one of them; no other element was written; and some
/// element differs from the right answer.
bool rows_m_apart(std::size_t M, std::size_t N, std::span<const float> A, std::span<const float> s,
                  std::span<const float> B) {
  auto close = [](float got, double want) {
    return std::abs(static_cast<double>(got) - want) <= 4.0 * kUnitRoundoff * std::abs(want) + kTinyFloat;
  };
  std::size_t telling = 0;
  for (std::size_t p = 0; p < M * N; ++p) {
    // The rows r whose elements r * M + c (c < N) include p.
    const std::size_t lo = p >= N ? (p - N) / M + 1 : 0;
    const std::size_t hi = std::min(M - 1, p / M);
    if (lo > hi) {
      if (!std::isnan(B[p])) return false;  // never written: still the poison, a NaN
      continue;
    }
    bool explained = false;
    for (std::size_t r = lo; r <= hi && !explained; ++r) {
      const double f = s[r];
      explained = close(B[p], f * A[p]) || close(B[p], f * A[r * N + (p - r * M)]);
    }
    if (!explained) return false;
    const std::size_t right_row = p / N;
    telling += close(B[p], static_cast<double>(s[right_row]) * A[p]) ? 0 : 1;
  }
  return telling > 0;
}

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
    A.rows = static_cast<int>(M);  // its shape, for `cudalab show`'s pictures
    A.cols = static_cast<int>(N);
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
    auto close = [](float got, double want) {
      return std::abs(static_cast<double>(got) - want) <= 4.0 * kUnitRoundoff * std::abs(want) + kTinyFloat;
    };
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
    // s indexed by the column: where N > M the columns from M on read past s's M factors, so they
    // are written but wrong, and the columns before it hold s[column]·A. (Where N ≤ M the check
    // above names it.) A bound that stops at M instead leaves those columns never written.
    if (N > M) {
      bool before_match = true;
      for (std::size_t r = 0; r < M && before_match; ++r) {
        for (std::size_t col = 0; col < M && before_match; ++col) {
          const double want = static_cast<double>(s[col]) * static_cast<double>(A[r * N + col]);
          before_match = close(B[r * N + col], want);
        }
      }
      bool after_written_wrong = true;
      for (std::size_t col = M; col < N && after_written_wrong; ++col) {
        std::size_t wrong = 0;
        for (std::size_t r = 0; r < M; ++r) {
          const std::size_t at = r * N + col;
          if (never_written(B[at])) {
            after_written_wrong = false;
            break;
          }
          wrong += close(B[at], expected.value[at]) ? 0 : 1;
        }
        after_written_wrong = after_written_wrong && wrong > 0;
      }
      if (before_match && after_written_wrong) {
        return "every column from " + std::to_string(M) +
               " on is wrong, and the columns before it hold s[column] · A: s is indexed by the column, so "
               "columns past s's M factors read beyond its end. s holds one factor per row: use s[row], the y index "
               "(blockIdx.y * blockDim.y + threadIdx.y)";
      }
    }
    if (M > 1 && N > 1 && M != N && rows_m_apart(M, N, A, s, B)) {
      return "elements are at row * M + column: in a row-major M×N matrix, row r starts at r * N "
             "(N is the row length)";
    }
    return std::nullopt;
  }

 private:
  TaskInfo info_;
};

CUDALAB_REGISTER_TASK(Scale2dTask);

}  // namespace
}  // namespace cudalab::tasks
