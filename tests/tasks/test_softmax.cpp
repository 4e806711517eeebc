// 12_softmax: the reference against long double; float32 softmaxes (three steps, online, __expf,
// reciprocal) pass; each known mistake gets its hint, and a right answer none.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>

#include "task_testing.hpp"

namespace cudalab {
namespace {

const Task& softmax() { return task_testing::task("12_softmax"); }

enum class Shift { row_max, none, first_32 };
enum class Divide { row_sum, reciprocal, none, matrix_sum };

/// __expf's worst case as CUDA documents it: exp2 of x·log2(e) rounded to float, then 2 ulp off.
float fast_expf(float x) {
  const float e = std::exp2(x * 1.44269504f);
  return std::nextafter(std::nextafter(e, INFINITY), INFINITY);
}

/// A float32 softmax, step by step as a kernel does it, with the sum in `order`.
std::vector<float> softmax_f32(std::span<const float> X, std::size_t M, std::size_t N, Shift shift = Shift::row_max,
                               Divide divide = Divide::row_sum, bool fast = false,
                               float (*sum)(std::span<const float>) = task_testing::sum_pairwise) {
  std::vector<float> Y(M * N), sums(M);
  for (std::size_t r = 0; r < M; ++r) {
    const float* x = X.data() + r * N;
    float m = 0.0f;
    if (shift != Shift::none)
      m = *std::max_element(x, x + (shift == Shift::first_32 ? std::min<std::size_t>(N, 32) : N));
    for (std::size_t c = 0; c < N; ++c) Y[r * N + c] = fast ? fast_expf(x[c] - m) : std::exp(x[c] - m);
    sums[r] = sum(std::span<const float>(Y).subspan(r * N, N));
  }
  const float total = task_testing::sum_pairwise(sums);
  for (std::size_t r = 0; r < M; ++r) {
    for (std::size_t c = 0; c < N; ++c) {
      float& y = Y[r * N + c];
      if (divide == Divide::row_sum) y /= sums[r];
      if (divide == Divide::reciprocal) y *= 1.0f / sums[r];
      if (divide == Divide::matrix_sum) y /= total;
    }
  }
  return Y;
}

/// The online softmax of one thread per row: a running max, the running sum rescaled as it grows.
std::vector<float> online_softmax_f32(std::span<const float> X, std::size_t M, std::size_t N) {
  std::vector<float> Y(M * N);
  for (std::size_t r = 0; r < M; ++r) {
    const float* x = X.data() + r * N;
    float m = -INFINITY, s = 0.0f;
    for (std::size_t c = 0; c < N; ++c) {
      if (x[c] > m) {
        s = s * std::exp(m - x[c]) + 1.0f;
        m = x[c];
      } else {
        s += std::exp(x[c] - m);
      }
    }
    for (std::size_t c = 0; c < N; ++c) Y[r * N + c] = std::exp(x[c] - m) / s;
  }
  return Y;
}

std::optional<std::string> softmax_hint(const Case& c, const std::vector<Buffer>& bufs, std::span<const float> values) {
  const Expected e = softmax().reference(c, bufs).at(0);
  Buffer out = bufs[1];
  std::copy(values.begin(), values.end(), out.f32().begin());
  return softmax().diagnose(c, bufs, out, e);
}

TEST(Softmax, ReferenceMatchesLongDouble) {
  for (const Case& c : task_testing::checked_cases(softmax())) {
    const auto bufs = task_testing::buffers(softmax(), c);
    const Expected e = softmax().reference(c, bufs).at(0);
    EXPECT_EQ(e.buffer, 1u);
    const std::size_t M = c.dim("M"), N = c.dim("N");
    const auto X = bufs[0].f32();
    const double u = 0x1p-24;
    for (std::size_t r = 0; r < M; ++r) {
      const float* x = X.data() + r * N;
      const long double m = *std::max_element(x, x + N), lo = *std::min_element(x, x + N);
      long double s = 0, row_total = 0;
      for (std::size_t col = 0; col < N; ++col) s += std::exp(static_cast<long double>(x[col]) - m);
      for (std::size_t col = 0; col < N; ++col) {
        const std::size_t i = r * N + col;
        const double want = static_cast<double>(std::exp(static_cast<long double>(x[col]) - m) / s);
        ASSERT_NEAR(e.value[i], want, 1e-13 * want) << c.label() << " at " << i;
        const double tol = want * u *
                               (3 * static_cast<double>(m - x[col]) + 6 * static_cast<double>(m - lo) +
                                4 * std::sqrt(static_cast<double>(N)) + 84) +
                           0x1p-126;
        ASSERT_NEAR(e.tolerance[i], tol, 1e-9 * tol) << c.label() << " at " << i;
        row_total += e.value[i];
      }
      ASSERT_NEAR(static_cast<double>(row_total), 1.0, 1e-12) << c.label() << " row " << r;
    }
  }
}

TEST(Softmax, InputsOverflowWithoutTheShift) {
  const Case c = task_testing::case_labelled(softmax(), "M=1000 N=3");
  const auto bufs = task_testing::buffers(softmax(), c);
  const auto X = bufs[0].f32();
  EXPECT_GT(*std::max_element(X.begin(), X.end()), 150.0f);  // spike rows
  std::size_t overflowing = 0;
  for (std::size_t r = 0; r < 1000; ++r) overflowing += *std::max_element(&X[r * 3], &X[r * 3] + 3) > 88.73f;
  EXPECT_GT(overflowing, 250u);  // the spikes and the largest offsets
}

TEST(Softmax, Float32SoftmaxesPass) {
  for (const Case& c : task_testing::checked_cases(softmax())) {
    const auto bufs = task_testing::buffers(softmax(), c);
    const Expected e = softmax().reference(c, bufs).at(0);
    const std::size_t M = c.dim("M"), N = c.dim("N");
    const auto X = bufs[0].f32();
    EXPECT_EQ(task_testing::mismatches(e, softmax_f32(X, M, N)), 0u) << c.label() << " pairwise";
    EXPECT_EQ(task_testing::mismatches(
                  e, softmax_f32(X, M, N, Shift::row_max, Divide::row_sum, false, task_testing::sum_sequential)),
              0u)
        << c.label() << " sequential";
    EXPECT_EQ(task_testing::mismatches(e, softmax_f32(X, M, N, Shift::row_max, Divide::reciprocal, true)), 0u)
        << c.label() << " __expf and a reciprocal";
    EXPECT_EQ(task_testing::mismatches(e, online_softmax_f32(X, M, N)), 0u) << c.label() << " online";
  }
}

TEST(Softmax, MistakesFail) {
  for (const Case& c : task_testing::checked_cases(softmax())) {
    const auto bufs = task_testing::buffers(softmax(), c);
    const Expected e = softmax().reference(c, bufs).at(0);
    const std::size_t M = c.dim("M"), N = c.dim("N");
    auto Y = softmax_f32(bufs[0].f32(), M, N);
    std::size_t at = 0;
    while (e.value[at] < 1e-6) ++at;
    Y[at] *= 1.001f;  // one element 0.1% off
    EXPECT_EQ(task_testing::mismatches(e, Y), 1u) << c.label();
    std::vector<double> shifted(e.value);
    shifted[at] += 10 * e.tolerance[at];
    EXPECT_EQ(task_testing::mismatches(e, shifted), 1u) << c.label();
  }
}

TEST(Softmax, HintWhenTheMaximumIsNotSubtracted) {
  for (const char* label : {"M=1000 N=3", "M=255 N=257", "M=100003 N=3"}) {
    const Case c = task_testing::case_labelled(softmax(), label);
    const auto bufs = task_testing::buffers(softmax(), c);
    const auto hint = softmax_hint(c, bufs, softmax_f32(bufs[0].f32(), c.dim("M"), c.dim("N"), Shift::none));
    ASSERT_TRUE(hint) << label;
    EXPECT_NE(hint->find("exp overflowed: subtract the row's maximum first"), std::string::npos) << *hint;
  }
}

TEST(Softmax, HintWhenTheMaximumCoversTheFirstColumnsOnly) {
  for (const char* label : {"M=255 N=257", "M=1023 N=1025"}) {
    const Case c = task_testing::case_labelled(softmax(), label);
    const auto bufs = task_testing::buffers(softmax(), c);
    const auto hint = softmax_hint(c, bufs, softmax_f32(bufs[0].f32(), c.dim("M"), c.dim("N"), Shift::first_32));
    ASSERT_TRUE(hint) << label;
    EXPECT_NE(hint->find("maximum was taken over the first 32 columns"), std::string::npos) << *hint;
  }
}

TEST(Softmax, HintWhenNotDivided) {
  for (const char* label : {"M=1 N=1", "M=33 N=33", "M=3 N=4097"}) {
    const Case c = task_testing::case_labelled(softmax(), label);
    const auto bufs = task_testing::buffers(softmax(), c);
    const auto Y = softmax_f32(bufs[0].f32(), c.dim("M"), c.dim("N"), Shift::row_max, Divide::none);
    if (c.dim("N") == 1) {  // exp(x - max) = 1 is the softmax of a single element: right
      EXPECT_EQ(task_testing::mismatches(softmax().reference(c, bufs).at(0), Y), 0u);
      continue;
    }
    const auto hint = softmax_hint(c, bufs, Y);
    ASSERT_TRUE(hint) << label;
    EXPECT_NE(hint->find("without the division"), std::string::npos) << *hint;
  }
}

TEST(Softmax, HintWhenDividedByTheWholeMatrixSum) {
  for (const char* label : {"M=2 N=1", "M=33 N=33", "M=1000 N=3"}) {
    const Case c = task_testing::case_labelled(softmax(), label);
    const auto bufs = task_testing::buffers(softmax(), c);
    const auto hint =
        softmax_hint(c, bufs, softmax_f32(bufs[0].f32(), c.dim("M"), c.dim("N"), Shift::row_max, Divide::matrix_sum));
    ASSERT_TRUE(hint) << label;
    EXPECT_NE(hint->find("normalised by the sum over the whole matrix"), std::string::npos) << *hint;
  }
}

TEST(Softmax, NoHintForARightOrUnrelatedAnswer) {
  for (const Case& c : task_testing::checked_cases(softmax())) {
    const auto bufs = task_testing::buffers(softmax(), c);
    const auto right = softmax_f32(bufs[0].f32(), c.dim("M"), c.dim("N"));
    EXPECT_EQ(softmax_hint(c, bufs, right), std::nullopt) << c.label();
    std::vector<float> off(right);
    for (float& v : off) v = v * 0.5f + 0.25f;
    EXPECT_EQ(softmax_hint(c, bufs, off), std::nullopt) << c.label();
    for (float& v : off) v = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(softmax_hint(c, bufs, off), std::nullopt) << c.label();
  }
}

}  // namespace
}  // namespace cudalab
