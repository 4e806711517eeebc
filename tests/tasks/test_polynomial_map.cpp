// 07_polynomial_map: the reference evaluates p; Horner and a sum of powers in float32 pass; the
// constant-memory requirement is set; the hints for reversed coefficients and a dropped term.
#include <gtest/gtest.h>

#include "task_testing.hpp"

namespace cudalab {
namespace {

const Task& polynomial() { return task_testing::task("07_polynomial_map"); }

std::vector<float> horner(std::span<const float> c, std::span<const float> x, bool fma, int top = 7) {
  std::vector<float> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    float p = c[top];
    for (int k = top - 1; k >= 0; --k) p = fma ? std::fma(p, x[i], c[k]) : p * x[i] + c[k];
    y[i] = p;
  }
  return y;
}

std::vector<float> sum_of_powers(std::span<const float> c, std::span<const float> x) {
  std::vector<float> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    float power = 1.0f, sum = 0.0f;
    for (int k = 0; k < 8; ++k, power *= x[i]) sum += c[k] * power;
    y[i] = sum;
  }
  return y;
}

TEST(PolynomialMap, Float32EvaluationsInEitherOrderPass) {
  EXPECT_TRUE(polynomial().info().requires_constant_memory);
  for (const Case& c : task_testing::small_cases(polynomial())) {
    const auto bufs = task_testing::buffers(polynomial(), c);
    ASSERT_EQ(bufs[0].count(), 8u);
    const Expected e = polynomial().reference(c, bufs).at(0);
    const auto coefficients = bufs[0].f32();
    const auto x = bufs[1].f32();
    EXPECT_EQ(task_testing::mismatches(e, horner(coefficients, x, true)), 0u) << c.label();
    EXPECT_EQ(task_testing::mismatches(e, horner(coefficients, x, false)), 0u) << c.label();
    EXPECT_EQ(task_testing::mismatches(e, sum_of_powers(coefficients, x)), 0u) << c.label();
  }
}

TEST(PolynomialMap, ReferenceIsThePolynomial) {
  const Case c = task_testing::case_labelled(polynomial(), "n=3");
  auto bufs = task_testing::buffers(polynomial(), c);
  const float k[8] = {1, -2, 0.5f, 0, 0, 0, 0, 1};  // 1 − 2x + x²/2 + x⁷
  std::ranges::copy(k, bufs[0].f32().begin());
  const float xs[3] = {0.0f, 1.0f, -0.5f};
  std::ranges::copy(xs, bufs[1].f32().begin());
  const Expected e = polynomial().reference(c, bufs).at(0);
  EXPECT_DOUBLE_EQ(e.value[0], 1.0);
  EXPECT_DOUBLE_EQ(e.value[1], 0.5);
  EXPECT_DOUBLE_EQ(e.value[2], 1.0 + 1.0 + 0.125 - 0.0078125);
}

TEST(PolynomialMap, HintsNameReversedCoefficientsAndTheDroppedTerm) {
  const Case c = task_testing::case_labelled(polynomial(), "n=1000");
  const auto bufs = task_testing::buffers(polynomial(), c);
  const Expected e = polynomial().reference(c, bufs).at(0);
  const auto coefficients = bufs[0].f32();
  const auto x = bufs[1].f32();

  std::vector<float> reversed(coefficients.rbegin(), coefficients.rend());
  const auto backwards = horner(reversed, x, true);
  ASSERT_GT(task_testing::mismatches(e, backwards), 0u);
  EXPECT_NE(
      polynomial().diagnose(c, bufs, task_testing::output_buffer("y", backwards), e).value_or("").find("reverse order"),
      std::string::npos);

  const auto short_one = horner(coefficients, x, true, 6);
  ASSERT_GT(task_testing::mismatches(e, short_one), 0u);
  EXPECT_NE(polynomial()
                .diagnose(c, bufs, task_testing::output_buffer("y", short_one), e)
                .value_or("")
                .find("x^7 term is missing"),
            std::string::npos);

  EXPECT_FALSE(
      polynomial().diagnose(c, bufs, task_testing::output_buffer("y", horner(coefficients, x, true)), e).has_value());
}

}  // namespace
}  // namespace cudalab
