// 05_reduce: the reference against a compensated sum; float32 reductions in every order pass;
// partial sums and NaN get their hints.
#include <gtest/gtest.h>

#include "task_testing.hpp"

namespace cudalab {
namespace {

const Task& reduce() { return task_testing::task("05_reduce"); }

Buffer with_sum(const std::vector<Buffer>& bufs, double value) {
  Buffer out = bufs[1];
  out.f32()[0] = static_cast<float>(value);
  return out;
}

TEST(Reduce, ReferenceMatchesACompensatedSum) {
  for (const Case& c : task_testing::checked_cases(reduce())) {
    const auto bufs = task_testing::buffers(reduce(), c);
    const auto expected = reduce().reference(c, bufs);
    ASSERT_EQ(expected.size(), 1u);
    const Expected& e = expected[0];
    EXPECT_EQ(e.buffer, 1u);
    ASSERT_EQ(e.value.size(), 1u);
    const auto x = bufs[0].f32();
    long double magnitude = 0;
    for (const float v : x) magnitude += std::abs(static_cast<long double>(v));
    EXPECT_NEAR(e.value[0], static_cast<double>(task_testing::kahan_sum(x)), 1e-13 * static_cast<double>(magnitude))
        << c.label();
    const double want = 4.0 * 0x1p-24 * std::sqrt(static_cast<double>(x.size())) * static_cast<double>(magnitude);
    EXPECT_NEAR(e.tolerance[0], want, 1e-9 * want + 0x1p-126) << c.label();
  }
}

TEST(Reduce, Float32SumsInEveryOrderPass) {
  for (const Case& c : task_testing::checked_cases(reduce())) {
    const auto bufs = task_testing::buffers(reduce(), c);
    const Expected e = reduce().reference(c, bufs).at(0);
    for (const auto& [order, sum] : task_testing::sums_in_every_order(bufs[0].f32())) {
      const float got[] = {sum};
      EXPECT_EQ(task_testing::mismatches(e, got), 0u)
          << c.label() << " " << order << ": " << sum << " vs " << e.value[0] << " ± " << e.tolerance[0];
    }
  }
}

TEST(Reduce, MistakesFail) {
  for (const Case& c : task_testing::checked_cases(reduce())) {
    const auto bufs = task_testing::buffers(reduce(), c);
    const Expected e = reduce().reference(c, bufs).at(0);
    const auto x = bufs[0].f32();
    const double shifted[] = {e.value[0] + 10 * e.tolerance[0]};
    EXPECT_EQ(task_testing::mismatches(e, shifted), 1u);
    const double lower[] = {e.value[0] - 10 * e.tolerance[0]};
    EXPECT_EQ(task_testing::mismatches(e, lower), 1u);
    // A sum missing its largest element (an off-by-one bound) fails at every size up to 1025.
    if (c.dim("n") <= 1025) {
      const double largest = *std::max_element(x.begin(), x.end());
      const double missing[] = {e.value[0] - largest};
      EXPECT_EQ(task_testing::mismatches(e, missing), 1u) << c.label();
    }
    const double nan[] = {std::numeric_limits<double>::quiet_NaN()};
    EXPECT_EQ(task_testing::mismatches(e, nan), 1u);
  }
}

TEST(Reduce, HintWhenTheSumIsNaN) {
  const Case c{{{"n", 1000}}, false};
  const auto bufs = task_testing::buffers(reduce(), c);
  const Expected e = reduce().reference(c, bufs).at(0);
  const auto hint = reduce().diagnose(c, bufs, with_sum(bufs, std::numeric_limits<double>::quiet_NaN()), e);
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("*sum starts with garbage (set it to 0 with cudaMemset"), std::string::npos) << *hint;
  EXPECT_NE(hint->find("shared-memory slots that no thread wrote"), std::string::npos) << *hint;
}

TEST(Reduce, HintWhenOnlyTheFirstBlocksReachedTheSum) {
  for (const auto& [n, k] :
       {std::pair{1025, 256}, std::pair{4097, 1024}, std::pair{100003, 768}, std::pair{65537, 32}}) {
    const Case c{{{"n", n}}, false};
    const auto bufs = task_testing::buffers(reduce(), c);
    const Expected e = reduce().reference(c, bufs).at(0);
    const float partial = task_testing::sum_pairwise(bufs[0].f32().first(static_cast<std::size_t>(k)));
    const auto hint = reduce().diagnose(c, bufs, with_sum(bufs, partial), e);
    ASSERT_TRUE(hint) << n << " " << k;
    EXPECT_NE(hint->find("sum of the first " + std::to_string(k) + " elements"), std::string::npos) << *hint;
    EXPECT_NE(hint->find("did every block's partial sum reach *sum? (B = " + std::to_string(k) + ")"),
              std::string::npos)
        << *hint;
  }
}

TEST(Reduce, HintWhenEachBlockOverwroteTheSum) {
  const Case c{{{"n", 4097}}, false};
  const auto bufs = task_testing::buffers(reduce(), c);
  const Expected e = reduce().reference(c, bufs).at(0);
  const float last_writer = task_testing::sum_pairwise(bufs[0].f32().subspan(2048, 512));
  const auto hint = reduce().diagnose(c, bufs, with_sum(bufs, last_writer), e);
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("sum of elements 2048 to 2559 only, one block of 512"), std::string::npos) << *hint;
  EXPECT_NE(hint->find("atomicAdd"), std::string::npos);
}

TEST(Reduce, NoHintWhenNothingMatches) {
  const Case c{{{"n", 4097}}, false};
  const auto bufs = task_testing::buffers(reduce(), c);
  const Expected e = reduce().reference(c, bufs).at(0);
  for (const double wrong : {0.0, -e.value[0], 2 * e.value[0], std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(reduce().diagnose(c, bufs, with_sum(bufs, wrong), e), std::nullopt) << wrong;
  }
  // Near the total, a prefix sum is within tolerance of the right answer: not reported.
  EXPECT_EQ(reduce().diagnose(c, bufs, with_sum(bufs, e.value[0] + 1.5 * e.tolerance[0]), e), std::nullopt);
}

}  // namespace
}  // namespace cudalab
