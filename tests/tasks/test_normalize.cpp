// 04_normalize: the reference is a unit vector along x; float32 kernels pass; the hints.
#include <gtest/gtest.h>

#include "task_testing.hpp"

namespace cudalab {
namespace {

const Task& normalize() { return task_testing::task("04_normalize"); }

/// y = x / ‖x‖ in float32, the sum of squares from `sum` and the scaling by division or rsqrt.
std::vector<float> float32_normalize(std::span<const float> x, float sum_of_squares, bool use_rsqrt) {
  std::vector<float> y(x.size());
  const float norm = std::sqrt(sum_of_squares);
  // rsqrtf may be off by 2 ulp: model its worst case.
  const float inv = std::nextafter(std::nextafter(1.0f / norm, INFINITY), INFINITY);
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = use_rsqrt ? x[i] * inv : x[i] / norm;
  return y;
}

std::vector<float> squares(std::span<const float> x) {
  std::vector<float> s(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) s[i] = x[i] * x[i];
  return s;
}

TEST(Normalize, ReferenceIsAUnitVectorAlongX) {
  for (const Case& c : task_testing::checked_cases(normalize())) {
    const auto bufs = task_testing::buffers(normalize(), c);
    const Expected e = normalize().reference(c, bufs).at(0);
    EXPECT_EQ(e.buffer, 1u);
    const auto x = bufs[0].f32();
    long double norm2 = 0, xnorm2 = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      norm2 += static_cast<long double>(e.value[i]) * e.value[i];
      xnorm2 += static_cast<long double>(x[i]) * x[i];
    }
    EXPECT_NEAR(static_cast<double>(norm2), 1.0, 1e-12) << c.label();
    const double xnorm = std::sqrt(static_cast<double>(xnorm2));
    for (std::size_t i = 0; i < x.size(); ++i) {  // parallel, same direction
      ASSERT_NEAR(e.value[i] * xnorm, x[i], 1e-12 * std::abs(x[i]) + 1e-15) << c.label() << " i=" << i;
    }
  }
}

TEST(Normalize, ToleranceFollowsTheFormula) {
  const Case c{{{"n", 4097}}, false};
  const auto bufs = task_testing::buffers(normalize(), c);
  const Expected e = normalize().reference(c, bufs).at(0);
  const double u = 0x1p-24;
  const double largest = std::abs(
      *std::max_element(e.value.begin(), e.value.end(), [](double a, double b) { return std::abs(a) < std::abs(b); }));
  for (std::size_t i = 0; i < e.value.size(); ++i) {
    const double want = std::abs(e.value[i]) * u * (4 * std::sqrt(4097.0) + 8) + u * largest;
    ASSERT_NEAR(e.tolerance[i], want, 1e-12 * want);
  }
}

TEST(Normalize, Float32KernelsInEveryOrderPass) {
  for (const Case& c : task_testing::checked_cases(normalize())) {
    const auto bufs = task_testing::buffers(normalize(), c);
    const Expected e = normalize().reference(c, bufs).at(0);
    const auto sq = squares(bufs[0].f32());
    for (const auto& [order, sum] : task_testing::sums_in_every_order(sq)) {
      for (const bool rsqrt : {false, true}) {
        EXPECT_EQ(task_testing::mismatches(e, float32_normalize(bufs[0].f32(), sum, rsqrt)), 0u)
            << c.label() << " " << order << (rsqrt ? " rsqrt" : " division");
      }
    }
  }
}

TEST(Normalize, MistakesFail) {
  for (const Case& c : task_testing::checked_cases(normalize())) {
    if (c.dim("n") < 2) continue;
    const auto bufs = task_testing::buffers(normalize(), c);
    const Expected e = normalize().reference(c, bufs).at(0);
    const auto x = bufs[0].f32();
    const auto sq = squares(x);
    auto y = float32_normalize(x, task_testing::sum_pairwise(sq), false);
    std::size_t at = 0;
    while (std::abs(x[at]) < 0.5f) ++at;
    y[at] *= 1.001f;  // one element 0.1% off
    EXPECT_EQ(task_testing::mismatches(e, y), 1u) << c.label();
    // The norm without the last element (a bound i < n - 1).
    const auto short_norm =
        float32_normalize(x, task_testing::sum_pairwise(std::span<const float>(sq).first(sq.size() - 1)), false);
    if (std::abs(x.back()) > 0.5f && c.dim("n") <= 4097) {  // beyond, within float32 error
      EXPECT_GT(task_testing::mismatches(e, short_norm), 0u) << c.label();
    }
    std::vector<double> shifted(e.value);
    shifted[at] += 10 * e.tolerance[at];
    EXPECT_EQ(task_testing::mismatches(e, shifted), 1u);
  }
}

TEST(Normalize, HintWhenNotDivided) {
  const Case c{{{"n", 1025}}, false};
  const auto bufs = task_testing::buffers(normalize(), c);
  const Expected e = normalize().reference(c, bufs).at(0);
  Buffer out = bufs[1];
  std::copy(bufs[0].f32().begin(), bufs[0].f32().end(), out.f32().begin());
  const auto hint = normalize().diagnose(c, bufs, out, e);
  ASSERT_TRUE(hint);
  EXPECT_EQ(*hint, "y equals x: the vector was not divided by its norm");
}

TEST(Normalize, HintWhenTheSquareRootIsMissing) {
  for (const std::int64_t n : {33, 1025, 100003}) {
    const Case c{{{"n", n}}, false};
    const auto bufs = task_testing::buffers(normalize(), c);
    const Expected e = normalize().reference(c, bufs).at(0);
    const auto sq = squares(bufs[0].f32());
    const float s = task_testing::sum_blocked(sq, 256, 1024);
    Buffer out = bufs[1];
    for (std::size_t i = 0; i < out.count(); ++i) out.f32()[i] = bufs[0].f32()[i] / s;
    const auto hint = normalize().diagnose(c, bufs, out, e);
    ASSERT_TRUE(hint) << n;
    EXPECT_EQ(*hint, "y = x / ‖x‖²: did you forget the square root?");
  }
}

TEST(Normalize, HintWhenEachBlockUsesItsOwnNorm) {
  const Case c{{{"n", 4097}}, false};
  const auto bufs = task_testing::buffers(normalize(), c);
  const Expected e = normalize().reference(c, bufs).at(0);
  const auto x = bufs[0].f32();
  Buffer out = bufs[1];
  for (std::size_t b = 0; b < x.size(); b += 256) {
    const auto block = x.subspan(b, std::min<std::size_t>(256, x.size() - b));
    const float norm = std::sqrt(task_testing::sum_pairwise(squares(block)));
    for (std::size_t i = 0; i < block.size(); ++i) out.f32()[b + i] = block[i] / norm;
  }
  const auto hint = normalize().diagnose(c, bufs, out, e);
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("each block of 256 elements was divided by its own norm"), std::string::npos) << *hint;
}

TEST(Normalize, NoHintWhenNothingMatches) {
  const Case c{{{"n", 1025}}, false};
  const auto bufs = task_testing::buffers(normalize(), c);
  const Expected e = normalize().reference(c, bufs).at(0);
  Buffer out = bufs[1];
  for (std::size_t i = 0; i < out.count(); ++i) out.f32()[i] = static_cast<float>(e.value[i] * 1.5);
  EXPECT_EQ(normalize().diagnose(c, bufs, out, e), std::nullopt);
  for (auto& v : out.f32()) v = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(normalize().diagnose(c, bufs, out, e), std::nullopt);
}

}  // namespace
}  // namespace cudalab
