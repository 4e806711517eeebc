// 08_row_norms: norms[r] = ‖A[r][:]‖₂ for every row of an M×N matrix — a kernel written for one
// row, launched with one warp (or one block) per row (device pointers).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <utility>

#include "../task_support.hpp"

namespace cudalab::tasks {
namespace {

/// Relative error allowed in the norm of a row of n elements (see reference()).
double relative_tolerance(std::size_t n) { return kUnitRoundoff * (4.0 * std::sqrt(static_cast<double>(n)) + 4.0); }

class RowNormsTask final : public Task {
 public:
  RowNormsTask() {
    info_.number = 8;
    info_.id = "08_row_norms";
    info_.name = "row_norms";
    info_.summary = "norms[r] = ‖row r of A‖₂ with one warp per row";
    info_.teaches = "a warp or a block per row (generalised ufuncs)";
    info_.pointers = PointerKind::device;
    info_.signature.params = {
        {Param::Kind::buffer, "A", DType::f32, true},
        {Param::Kind::buffer, "norms", DType::f32, false},
        {Param::Kind::scalar_int, "M", DType::i32, false},
        {Param::Kind::scalar_int, "N", DType::i32, false},
    };
  }

  [[nodiscard]] const TaskInfo& info() const override { return info_; }

  // The usual 2D shapes, plus rows around a warp's width and a block's (one warp or one block per
  // row must loop over a row longer than itself), two long rows (a row cut over several blocks,
  // whose partial sums must all arrive), and many short rows (a grid that covers only some rows, a
  // warp wasted on a row of 1–3 elements).
  [[nodiscard]] std::vector<Case> cases(const CaseOptions& options) const override {
    return cases_2d(options,
                    {{3, 31}, {3, 32}, {3, 33}, {2, 1024}, {2, 1025}, {3, 4097}, {2, 16411}, {65537, 1}, {100003, 3}});
  }

  [[nodiscard]] std::vector<Buffer> make_buffers(const Case& c, Rng& rng) const override {
    const std::size_t M = dim_size(c, "M"), N = dim_size(c, "N");
    Buffer A = Buffer::make("A", DType::f32, Role::input, M * N);
    A.rows = static_cast<int>(M);  // its shape, for `cudalab show`'s pictures
    A.cols = static_cast<int>(N);
    // The offset keeps the rows' norms away from 1, so that a missing square root shows, and
    // every row differs from its neighbours, so that a row computed twice or skipped shows.
    fill_uniform(A.f32(), -1.0f + 0.25f, 1.0f + 0.25f, rng);
    ensure_not_all_zero(A.f32(), 0.25f);
    return {std::move(A), Buffer::make("norms", DType::f32, Role::output, M)};
  }

  // Each row is 04_normalize's norm on its own: a float32 kernel computes s = Σ_c A[r][c]² in some
  // order (a lane's strided columns, then a shuffle tree; or a block tree) and sqrtf(s).
  //  - The squares and the sum: all terms are positive, so the relative error of s is about
  //    u·√N statistically (≤ 4·u·√N with a wide margin, see 03_matmul).
  //  - sqrt halves that: ≤ 2·u·√N, plus one rounding for sqrtf (2 for s·rsqrtf(s) or a scaled
  //    hypot-style norm).
  // So |norm − ref| ≤ ref·u·(2·√N + 2); we allow ref·u·(4·√N + 4), plus kTinyFloat for a row of
  // zeros. Rows are independent: no error is shared between them.
  [[nodiscard]] std::vector<Expected> reference(const Case& c, const std::vector<Buffer>& inputs) const override {
    const auto M = static_cast<std::int64_t>(c.dim("M")), N = static_cast<std::int64_t>(c.dim("N"));
    const auto A = inputs.at(0).f32();
    const double rel = relative_tolerance(static_cast<std::size_t>(N));
    Expected e;
    e.buffer = 1;
    e.value.resize(static_cast<std::size_t>(M));
    e.tolerance.resize(static_cast<std::size_t>(M));
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < M; ++r) {
      double squares = 0.0;
      for (std::int64_t col = 0; col < N; ++col) {
        const auto v = static_cast<double>(A[r * N + col]);
        squares += v * v;
      }
      const double norm = std::sqrt(squares);
      e.value[r] = norm;
      e.tolerance[r] = norm * rel + kTinyFloat;
    }
    return {std::move(e)};
  }

  // A read once, one float written per row; per element a square and an add, per row a sqrt.
  [[nodiscard]] Cost cost(const Case& c) const override {
    const auto M = static_cast<double>(c.dim("M")), N = static_cast<double>(c.dim("N"));
    return {4.0 * M * N + 4.0 * M, 2.0 * M * N + M};
  }

  // Rows spread over the threads; each row's sum of squares as 04_normalize's (16 SIMD lanes,
  // blocks of kSumBlock elements), then sqrtf: the error budget of reference().
  void cpu_solve(const Case& c, std::vector<Buffer>& buffers, int threads) const override {
    const auto M = static_cast<std::int64_t>(c.dim("M")), N = static_cast<std::int64_t>(c.dim("N"));
    const float* A = buffers.at(0).f32().data();
    float* norms = buffers.at(1).f32().data();
#pragma omp parallel for num_threads(cpu_threads(threads)) schedule(static)
    for (std::int64_t r = 0; r < M; ++r) {
      const float* row = A + r * N;
      float s = 0.0f;
      for (std::int64_t from = 0; from < N; from += kSumBlock)
        s += block_sum_of_squares(row + from, std::min(kSumBlock, N - from));
      norms[r] = std::sqrt(s);
    }
  }

  [[nodiscard]] std::string cpu_solve_name() const override { return cpu_sum_name("float32 row norms"); }

  [[nodiscard]] std::optional<std::string> diagnose(const Case& c, const std::vector<Buffer>& inputs,
                                                    const Buffer& actual, const Expected& expected) const override {
    const std::size_t M = dim_size(c, "M"), N = dim_size(c, "N");
    const auto A = inputs.at(0).f32();
    const auto got = actual.f32();
    if (got.size() != M || A.size() != M * N || expected.value.size() != M) return std::nullopt;
    const double rel = relative_tolerance(N);

    // The sum of squares of the columns of row r that `keep` selects.
    auto partial_squares = [&](std::size_t r, auto&& keep) {
      double s = 0.0;
      for (std::size_t col = 0; col < N; ++col) {
        if (keep(col)) s += static_cast<double>(A[r * N + col]) * static_cast<double>(A[r * N + col]);
      }
      return s;
    };
    // Whether every row holds want(r), to twice the allowed relative error, and some row's
    // want(r) is clearly not its norm (so that a right answer never matches a mistake).
    auto every_row = [&](auto&& want) {
      bool distinct = false;
      for (std::size_t r = 0; r < M; ++r) {
        const double w = want(r);
        if (!(std::abs(static_cast<double>(got[r]) - w) <= 2.0 * rel * std::abs(w) + kTinyFloat)) return false;
        distinct = distinct || std::abs(w - expected.value[r]) > 2.0 * expected.tolerance[r];
      }
      return distinct;
    };

    if (every_row([&](std::size_t r) { return expected.value[r] * expected.value[r]; })) {
      return std::string(
          "every norms[r] is the row's sum of squares, norms² — forgot the square root: store sqrtf(sum)");
    }
    // A warp (or block) of W threads that reads one element per thread and does not loop over the row.
    for (std::size_t width = 32; width <= 1024 && width < N; width *= 2) {
      if (every_row([&](std::size_t r) {
            return std::sqrt(partial_squares(r, [&](std::size_t col) { return col < width; }));
          })) {
        return "each norm covers only the first " + std::to_string(width) + " columns of its row: " +
               (width == 32 ? "one warp per row must loop over the row (col = lane; col < N; col += 32)"
                            : "the threads of a row must loop over it (col += the number of threads per row)") +
               ", not stop after one element each";
      }
    }
    // A shuffle tree that misses lanes: lane l of a warp-per-row kernel sums the columns col with
    // col % 32 == l.
    if (N > 1) {
      if (every_row([&](std::size_t r) {
            return std::sqrt(partial_squares(r, [](std::size_t col) { return col % 32 % 2 == 0; }));
          })) {
        return std::string(
            "each norm covers only the even lanes' columns (col % 32 even): the shuffle loop stopped before "
            "offset 1 — add offsets 16, 8, 4, 2 and 1");
      }
      for (std::size_t lanes = 1; lanes < 32; lanes *= 2) {
        if (N > lanes && every_row([&](std::size_t r) {
              return std::sqrt(partial_squares(r, [&](std::size_t col) { return col % 32 < lanes; }));
            })) {
          return "each norm covers only the columns of lanes 0 to " + std::to_string(lanes - 1) + " (col % 32 < " +
                 std::to_string(lanes) +
                 "): the shuffle tree must start at offset 16 so that "
                 "lane 0 collects all 32 lanes";
        }
      }
    }
    // The first R rows right and every later row never written (still NaN): the rows were not
    // all mapped to warps.
    std::size_t right = 0;
    while (right < M &&
           std::abs(static_cast<double>(got[right]) - expected.value[right]) <= expected.tolerance[right]) {
      ++right;
    }
    if (right > 0 && right < M && std::all_of(got.begin() + static_cast<std::ptrdiff_t>(right), got.end(), [](float v) {
          return std::isnan(v);
        })) {
      if (right <= 1024) {
        return "only the first " + std::to_string(right) +
               " rows were computed, one block's worth: is the row index "
               "built from threadIdx alone? Each block must take its own rows (row = blockIdx.x * rows_per_block + "
               "threadIdx.x / 32 for a warp per row), and the grid must reach row M - 1";
      }
      return "only the first " + std::to_string(right) + " rows were computed: the grid covers " +
             std::to_string(right) +
             " rows and nothing handles the rest — loop over the rows (row += the rows the "
             "whole grid covers) or launch enough blocks";
    }
    return std::nullopt;
  }

 private:
  TaskInfo info_;
};

CUDALAB_REGISTER_TASK(RowNormsTask);

}  // namespace
}  // namespace cudalab::tasks
