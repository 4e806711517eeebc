// 12_softmax: Y = softmax of every row of an M×N matrix, numerically stable, in one fused kernel
// (device pointers).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <utility>

#include "../task_support.hpp"

namespace cudalab::tasks {
namespace {

/// expf(x) is infinite from here on: ln(FLT_MAX) = 88.7228.
constexpr double kExpOverflow = 88.72283935546875;

/// The row offsets are in [0, kMaxOffset): the largest make expf(x) overflow without the max shift.
constexpr float kMaxOffset = 90.0f;

/// A spike row holds one value this far above its offset: more than kExpOverflow above any other
/// element of the row, so that a maximum that misses it overflows (see make_buffers).
constexpr float kSpike = 100.0f;

/// Relative error allowed in Y[r][c] (see reference()): `shift` = |x − max of the row|,
/// `range` = max − min of the row.
double relative_tolerance(double shift, double range, std::size_t n) {
  return kUnitRoundoff * (3.0 * shift + 6.0 * range + 4.0 * std::sqrt(static_cast<double>(n)) + 84.0);
}

/// Per row: its maximum, its minimum and Σ exp(x − max), in float64.
struct RowStats {
  double max = 0, min = 0, sum = 0;
};

RowStats row_stats(const float* row, std::size_t n) {
  RowStats s{-INFINITY, INFINITY, 0.0};
  for (std::size_t c = 0; c < n; ++c) {
    s.max = std::max(s.max, static_cast<double>(row[c]));
    s.min = std::min(s.min, static_cast<double>(row[c]));
  }
  for (std::size_t c = 0; c < n; ++c) s.sum += std::exp(static_cast<double>(row[c]) - s.max);
  return s;
}

class SoftmaxTask final : public Task {
 public:
  SoftmaxTask() {
    info_.number = 12;
    info_.id = "12_softmax";
    info_.name = "softmax";
    info_.summary = "Y = row-wise softmax of X: max, exp-sum and scale fused in one kernel";
    info_.teaches = "fused row kernels; a numerically stable exp";
    info_.pointers = PointerKind::device;
    info_.signature.params = {
        {Param::Kind::buffer, "X", DType::f32, true},
        {Param::Kind::buffer, "Y", DType::f32, false},
        {Param::Kind::scalar_int, "M", DType::i32, false},
        {Param::Kind::scalar_int, "N", DType::i32, false},
    };
  }

  [[nodiscard]] const TaskInfo& info() const override { return info_; }

  // The usual 2D shapes, plus rows around a warp's and a block's width and many short rows, as in
  // 08_row_norms: the per-row mapping is the same; and rows longer than 20480 floats, where a
  // kernel that keeps the row in registers runs out of room, longer than 32768 (registers and
  // shared memory), and longer than 90000, more than one SM's registers and shared memory hold.
  [[nodiscard]] std::vector<Case> cases(const CaseOptions& options) const override {
    return cases_2d(
        options,
        {{3, 31}, {3, 32}, {3, 33}, {2, 1024}, {2, 1025}, {3, 4097}, {2, 20481}, {2, 50001}, {2, 100003}, {100003, 3}});
  }

  // X[r][c] = offset_r + uniform [-10, 10), offset_r uniform in [0, 90): in the rows with the
  // larger offsets expf(x) overflows (x > 88.72), so a softmax without the max shift gives inf/inf
  // = NaN there, and rows differ in scale. A quarter of the rows (with N ≥ 2) also hold one spike,
  // offset_r + 100 at a random column: then the spike is more than 88.72 above every other value,
  // so a maximum that misses it (taken over the first columns only) overflows too. The softmax of
  // a spike row is 1 at the spike and below 2^-126 elsewhere.
  [[nodiscard]] std::vector<Buffer> make_buffers(const Case& c, Rng& rng) const override {
    const std::size_t M = dim_size(c, "M"), N = dim_size(c, "N");
    Buffer X = Buffer::make("X", DType::f32, Role::input, M * N);
    X.rows = static_cast<int>(M);  // its shape, for `cudalab show`'s pictures
    X.cols = static_cast<int>(N);
    auto x = X.f32();
    fill_uniform(x, -10.0f, 10.0f, rng);
    std::vector<float> offsets(M), spikes(M);
    fill_uniform(offsets, 0.0f, kMaxOffset, rng);
    fill_uniform(spikes, 0.0f, 1.0f, rng);
    for (std::size_t r = 0; r < M; ++r) {
      for (std::size_t col = 0; col < N; ++col) x[r * N + col] += offsets[r];
      if (N >= 2 && spikes[r] < 0.25f) {
        const auto at = std::min(N - 1, static_cast<std::size_t>(spikes[r] * 4.0f * static_cast<float>(N)));
        x[r * N + at] = offsets[r] + kSpike;
      }
    }
    ensure_not_all_zero(x, 1.0f);
    Buffer Y = Buffer::make("Y", DType::f32, Role::output, M * N);
    Y.rows = static_cast<int>(M);
    Y.cols = static_cast<int>(N);
    return {std::move(X), std::move(Y)};
  }

  // A float32 kernel computes, per row, m = max x (exact: a maximum never rounds), d_c = x_c − m,
  // e_c = exp(d_c), S = Σ e_c and y_c = e_c / S (or e_c · (1/S)). Relative errors, in units of u:
  //  - d_c rounds by at most u·|d_c|, which exp turns into a relative error u·|d_c|; expf adds
  //    ≤ 2 ulp (≤ 4u). __expf (ex2.approx of x·log2 e) is allowed too: its error is
  //    2 + 1.16·|d_c| ulp by CUDA's guide, so we allow 3·|d_c| + 4 for e_c.
  //  - S: its terms carry at most the largest term error, 3·R + 4 (R = max − min of the row,
  //    |d_c| ≤ R); the sum of N positive terms adds about √N roundings statistically (4·√N with a
  //    wide margin, as in 04_normalize).
  //  - The online variant keeps a running max and rescales partial sums by exp(m_old − m_new):
  //    the differences' roundings telescope to at most 3·R along a chain, and each rescale adds an
  //    expf and a multiply (5); a chain sees about ln(N) new maxima plus the ~10 merges of a
  //    shuffle and block tree, so 16 rescales (80) cover it.
  //  - The division: 1 rounding, 2 for a reciprocal and a multiply.
  // So |y_c − ref| ≤ ref·u·(3·|d_c| + 6·R + 4·√N + 84) with margin, plus kTinyFloat for the
  // values of a spike row that underflow (exp(−90) < 2^-126) and may flush to zero.
  [[nodiscard]] std::vector<Expected> reference(const Case& c, const std::vector<Buffer>& inputs) const override {
    const auto M = static_cast<std::int64_t>(c.dim("M")), N = static_cast<std::int64_t>(c.dim("N"));
    const auto X = inputs.at(0).f32();
    Expected e;
    e.buffer = 1;
    e.value.resize(static_cast<std::size_t>(M * N));
    e.tolerance.resize(e.value.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < M; ++r) {
      const float* row = X.data() + r * N;
      const RowStats s = row_stats(row, static_cast<std::size_t>(N));
      for (std::int64_t col = 0; col < N; ++col) {
        const double d = static_cast<double>(row[col]) - s.max;
        const double y = std::exp(d) / s.sum;
        e.value[r * N + col] = y;
        e.tolerance[r * N + col] =
            y * relative_tolerance(std::abs(d), s.max - s.min, static_cast<std::size_t>(N)) + kTinyFloat;
      }
    }
    return {std::move(e)};
  }

  // X read once and Y written once (a fused kernel that keeps the row on chip, or that reads it a
  // second time from L2); per element a compare, a subtraction, an exp, an add and a multiply.
  [[nodiscard]] Cost cost(const Case& c) const override {
    const auto elements = static_cast<double>(c.dim("M")) * static_cast<double>(c.dim("N"));
    return {8.0 * elements, 5.0 * elements};
  }

  // Rows spread over the threads; per row a SIMD max, expf(x − max) stored in Y, their sum in 16
  // lanes (as 05_reduce's blocks), and a multiply by 1/S.
  void cpu_solve(const Case& c, std::vector<Buffer>& buffers, int threads) const override {
    const auto M = static_cast<std::int64_t>(c.dim("M")), N = static_cast<std::int64_t>(c.dim("N"));
    const float* X = buffers.at(0).f32().data();
    float* Y = buffers.at(1).f32().data();
#pragma omp parallel for num_threads(cpu_threads(threads)) schedule(static)
    for (std::int64_t r = 0; r < M; ++r) {
      const float* x = X + r * N;
      float* y = Y + r * N;
      float m = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : m)
      for (std::int64_t col = 0; col < N; ++col) m = std::max(m, x[col]);
      for (std::int64_t col = 0; col < N; ++col) y[col] = std::exp(x[col] - m);
      float s = 0.0f;
      for (std::int64_t from = 0; from < N; from += kSumBlock) {
        s += lane_sum(y + from, std::min(kSumBlock, N - from), [](float v) { return v; });
      }
      const float inv = 1.0f / s;
#pragma omp simd
      for (std::int64_t col = 0; col < N; ++col) y[col] *= inv;
    }
  }

  [[nodiscard]] std::string cpu_solve_name() const override { return cpu_loop_name("row softmax"); }

  [[nodiscard]] std::optional<std::string> diagnose(const Case& c, const std::vector<Buffer>& inputs,
                                                    const Buffer& actual, const Expected& expected) const override {
    const std::size_t M = dim_size(c, "M"), N = dim_size(c, "N");
    const auto X = inputs.at(0).f32();
    const auto Y = actual.f32();
    if (Y.size() != M * N || X.size() != M * N || expected.value.size() != M * N) return std::nullopt;
    auto element_ok = [&](std::size_t i) {
      return std::abs(static_cast<double>(Y[i]) - expected.value[i]) <= expected.tolerance[i];
    };
    std::vector<bool> bad(M, false);
    std::vector<RowStats> stats(M);
    bool nonfinite = false;
    for (std::size_t r = 0; r < M; ++r) {
      stats[r] = row_stats(X.data() + r * N, N);
      for (std::size_t col = 0; col < N; ++col) {
        bad[r] = bad[r] || !element_ok(r * N + col);
        nonfinite = nonfinite || !std::isfinite(Y[r * N + col]);
      }
    }
    if (std::none_of(bad.begin(), bad.end(), [](bool b) { return b; })) return std::nullopt;
    // The overflow patterns below leave the other rows right: an output wrong everywhere is not one.
    const bool some_right = std::any_of(bad.begin(), bad.end(), [](bool b) { return !b; });

    // Without the shift, Σ exp(x) overflows exactly in the rows where ln Σ exp(x) > 88.72; other
    // rows come out right. A band of 2 around the threshold is left undecided.
    if (nonfinite) {
      if (!some_right) return std::nullopt;
      bool matches = true;
      for (std::size_t r = 0; r < M && matches; ++r) {
        const double top = stats[r].max + std::log(stats[r].sum);  // ln Σ exp(x)
        if (bad[r] ? top < kExpOverflow - 2.0 : top > kExpOverflow + 2.0) matches = false;
      }
      if (matches) {
        return std::string(
            "exp overflowed: subtract the row's maximum first. Every wrong row has a value above 88.72, where "
            "expf(x) is infinite, and every other row is right: compute expf(x - max) (the softmax does not "
            "change when all of a row is shifted by one number)");
      }
      // A maximum over the first W columns only: the rows whose true maximum lies beyond them, more
      // than 88.72 above, overflow.
      for (std::size_t width = 32; width <= 1024 && width < N; width *= 2) {
        bool fits = true, any = false;
        for (std::size_t r = 0; r < M && fits; ++r) {
          const float* row = X.data() + r * N;
          const double first_max = *std::max_element(row, row + width);
          const double gap = stats[r].max + std::log(stats[r].sum) - first_max;  // ln Σ exp(x - first_max)
          if (bad[r] ? gap < kExpOverflow - 2.0 : gap > kExpOverflow + 2.0) fits = false;
          any = any || bad[r];
        }
        if (fits && any) {
          return "the maximum was taken over the first " + std::to_string(width) +
                 " columns of each row only: a larger value further along the row made expf(x - max) overflow. "
                 "The max must loop over the whole row (and be combined across all its threads) before any "
                 "exponential";
        }
      }
      return std::nullopt;
    }

    // Whether Y[r][c] = want(r, c) everywhere, to 4× the tolerance.
    auto everywhere = [&](auto&& want) {
      for (std::size_t r = 0; r < M; ++r) {
        for (std::size_t col = 0; col < N; ++col) {
          const std::size_t i = r * N + col;
          const double w = want(r, col);
          if (!(std::abs(static_cast<double>(Y[i]) - w) <=
                4.0 * expected.tolerance[i] / expected.value[i] * w + kTinyFloat)) {
            return false;
          }
        }
      }
      return true;
    };
    if (everywhere([&](std::size_t r, std::size_t col) { return expected.value[r * N + col] * stats[r].sum; })) {
      return std::string(
          "Y holds expf(x - max) without the division: each row must be divided by its sum of exponentials so "
          "that it adds up to 1");
    }
    if (M > 1) {
      // Every row divided by one sum over the whole matrix: Y[r][c] = exp(x − m_r) / Σ_r' S_r'.
      double total = 0.0;
      for (const RowStats& s : stats) total += s.sum;
      if (everywhere(
              [&](std::size_t r, std::size_t col) { return expected.value[r * N + col] * stats[r].sum / total; })) {
        return std::string(
            "Y was normalised by the sum over the whole matrix: the whole of Y adds up to 1, but each row must. "
            "Divide each row by the sum of its own exponentials");
      }
    }
    return std::nullopt;
  }

 private:
  TaskInfo info_;
};

CUDALAB_REGISTER_TASK(SoftmaxTask);

}  // namespace
}  // namespace cudalab::tasks
