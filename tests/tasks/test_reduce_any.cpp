// 15_reduce_any: the reference against a compensated sum and exact max/min; float32 sums in every
// order pass, any other max or min fails; each known mistake gets its hint, and a right answer none.
#include <gtest/gtest.h>

#include <limits>
#include <optional>

#include "task_testing.hpp"

namespace cudalab {
namespace {

const Task& reduce_any() { return task_testing::task("15_reduce_any"); }

/// The three results as a float32 kernel would give them, the sum in `order`.
std::vector<float> results_f32(std::span<const float> x, float sum) {
  return {sum, *std::max_element(x.begin(), x.end()), *std::min_element(x.begin(), x.end())};
}

std::optional<std::string> reduce_any_hint(const Case& c, const std::vector<Buffer>& bufs, std::vector<float> values) {
  const Expected e = reduce_any().reference(c, bufs).at(0);
  Buffer out = bufs[1];
  std::copy(values.begin(), values.end(), out.f32().begin());
  return reduce_any().diagnose(c, bufs, out, e);
}

TEST(ReduceAny, ReferenceIsTheSumMaxAndMin) {
  for (const Case& c : task_testing::checked_cases(reduce_any())) {
    const auto bufs = task_testing::buffers(reduce_any(), c);
    const Expected e = reduce_any().reference(c, bufs).at(0);
    EXPECT_EQ(e.buffer, 1u);
    ASSERT_EQ(e.value.size(), 3u);
    const auto x = bufs[0].f32();
    long double magnitude = 0;
    for (const float v : x) magnitude += std::abs(static_cast<long double>(v));
    EXPECT_NEAR(e.value[0], static_cast<double>(task_testing::kahan_sum(x)), 1e-13 * static_cast<double>(magnitude))
        << c.label();
    const double want = 4.0 * 0x1p-24 * std::sqrt(static_cast<double>(x.size())) * static_cast<double>(magnitude);
    EXPECT_NEAR(e.tolerance[0], want, 1e-9 * want + 0x1p-126) << c.label();
    EXPECT_EQ(e.value[1], *std::max_element(x.begin(), x.end())) << c.label();
    EXPECT_EQ(e.value[2], *std::min_element(x.begin(), x.end())) << c.label();
    EXPECT_EQ(e.tolerance[1], 0.0);
    EXPECT_EQ(e.tolerance[2], 0.0);
  }
}

TEST(ReduceAny, SizesCoverEverySignPattern) {
  std::size_t negative = 0, positive = 0, mixed = 0;
  for (const Case& c : task_testing::checked_cases(reduce_any())) {
    const auto bufs = task_testing::buffers(reduce_any(), c);
    const auto x = bufs[0].f32();
    const float hi = *std::max_element(x.begin(), x.end()), lo = *std::min_element(x.begin(), x.end());
    negative += hi < 0;
    positive += lo > 0;
    mixed += lo < 0 && hi > 0;
  }
  EXPECT_GE(negative, 4u);
  EXPECT_GE(positive, 4u);
  EXPECT_GE(mixed, 4u);
}

TEST(ReduceAny, Float32ResultsInEveryOrderPass) {
  for (const Case& c : task_testing::checked_cases(reduce_any())) {
    const auto bufs = task_testing::buffers(reduce_any(), c);
    const Expected e = reduce_any().reference(c, bufs).at(0);
    for (const auto& [order, sum] : task_testing::sums_in_every_order(bufs[0].f32())) {
      EXPECT_EQ(task_testing::mismatches(e, results_f32(bufs[0].f32(), sum)), 0u) << c.label() << " " << order;
    }
  }
}

TEST(ReduceAny, MaxAndMinMustBeExact) {
  for (const Case& c : task_testing::checked_cases(reduce_any())) {
    const auto bufs = task_testing::buffers(reduce_any(), c);
    const Expected e = reduce_any().reference(c, bufs).at(0);
    auto r = results_f32(bufs[0].f32(), task_testing::sum_pairwise(bufs[0].f32()));
    auto off = r;
    off[1] = std::nextafter(off[1], INFINITY);  // one ulp above the maximum
    EXPECT_EQ(task_testing::mismatches(e, off), 1u) << c.label();
    off = r;
    off[2] = std::nextafter(off[2], -INFINITY);
    EXPECT_EQ(task_testing::mismatches(e, off), 1u) << c.label();
    off = r;
    off[0] = static_cast<float>(e.value[0] + 10 * e.tolerance[0]);
    EXPECT_EQ(task_testing::mismatches(e, off), 1u) << c.label();
  }
}

TEST(ReduceAny, HintWhenTheIdentityIsZero) {
  for (const char* label : {"n=3", "n=255", "n=1023"}) {  // all negative
    const Case c = task_testing::case_labelled(reduce_any(), label);
    const auto bufs = task_testing::buffers(reduce_any(), c);
    auto r = results_f32(bufs[0].f32(), task_testing::sum_pairwise(bufs[0].f32()));
    r[1] = 0.0f;
    const auto hint = reduce_any_hint(c, bufs, r);
    ASSERT_TRUE(hint) << label;
    EXPECT_NE(hint->find("max is 0: the identity of max is -INFINITY, not 0"), std::string::npos) << *hint;
  }
  for (const char* label : {"n=1", "n=256", "n=1000"}) {  // all positive
    const Case c = task_testing::case_labelled(reduce_any(), label);
    const auto bufs = task_testing::buffers(reduce_any(), c);
    auto r = results_f32(bufs[0].f32(), task_testing::sum_pairwise(bufs[0].f32()));
    r[2] = 0.0f;
    const auto hint = reduce_any_hint(c, bufs, r);
    ASSERT_TRUE(hint) << label;
    EXPECT_NE(hint->find("min is 0: the identity of min is +INFINITY, not 0"), std::string::npos) << *hint;
  }
}

TEST(ReduceAny, HintWhenMaxAndMinAreSwapped) {
  const Case c = task_testing::case_labelled(reduce_any(), "n=1025");
  const auto bufs = task_testing::buffers(reduce_any(), c);
  auto r = results_f32(bufs[0].f32(), task_testing::sum_pairwise(bufs[0].f32()));
  std::swap(r[1], r[2]);
  const auto hint = reduce_any_hint(c, bufs, r);
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("min and max are swapped"), std::string::npos) << *hint;
}

TEST(ReduceAny, HintWhenAResultIsNeverWritten) {
  const Case c = task_testing::case_labelled(reduce_any(), "n=4097");
  const auto bufs = task_testing::buffers(reduce_any(), c);
  auto r = results_f32(bufs[0].f32(), task_testing::sum_pairwise(bufs[0].f32()));
  r[2] = std::numeric_limits<float>::quiet_NaN();
  const auto hint = reduce_any_hint(c, bufs, r);
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("results[2] (the minimum) is NaN while the other two are right"), std::string::npos) << *hint;
}

TEST(ReduceAny, HintWhenOneBlocksSumIsTakenForTheTotal) {
  for (const char* label : {"n=257", "n=65537"}) {
    const Case c = task_testing::case_labelled(reduce_any(), label);
    const auto bufs = task_testing::buffers(reduce_any(), c);
    const auto x = bufs[0].f32();
    auto r = results_f32(x, task_testing::sum_pairwise(x.first(256)));
    const auto hint = reduce_any_hint(c, bufs, r);
    ASSERT_TRUE(hint) << label;
    EXPECT_NE(hint->find("covers elements 0 to 255 only, one block's partial result of 256"), std::string::npos)
        << *hint;
  }
}

TEST(ReduceAny, HintWhenTheSumsOperatorIsNotAssociative) {
  const Case c = task_testing::case_labelled(reduce_any(), "n=100003");
  const auto bufs = task_testing::buffers(reduce_any(), c);
  const auto x = bufs[0].f32();
  // A warp's tree with a - b: lane 0 ends with Σ ± x over its lanes.
  float v = 0.0f;
  for (std::size_t i = 0; i < x.size(); ++i) v += (i % 2 == 0 ? 1.0f : -1.0f) * x[i];
  const auto hint = reduce_any_hint(c, bufs, results_f32(x, v));
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("not associative"), std::string::npos) << *hint;
}

TEST(ReduceAny, NoHintForARightOrUnrelatedAnswer) {
  for (const Case& c : task_testing::checked_cases(reduce_any())) {
    const auto bufs = task_testing::buffers(reduce_any(), c);
    const auto right = results_f32(bufs[0].f32(), task_testing::sum_pairwise(bufs[0].f32()));
    EXPECT_EQ(reduce_any_hint(c, bufs, right), std::nullopt) << c.label();
    auto off = right;
    off[1] += 0.5f;
    off[2] -= 0.5f;
    EXPECT_EQ(reduce_any_hint(c, bufs, off), std::nullopt) << c.label();
    std::fill(off.begin(), off.end(), std::numeric_limits<float>::quiet_NaN());
    EXPECT_EQ(reduce_any_hint(c, bufs, off), std::nullopt) << c.label();
  }
}

}  // namespace
}  // namespace cudalab
