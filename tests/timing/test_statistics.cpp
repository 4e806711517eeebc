// Quantiles, the median's confidence ranks and the summary, on data whose answers are known.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "cudalab/sampling.hpp"

namespace cudalab {
namespace {

TEST(Quantile, OddCountInterpolatesLinearly) {
  const std::vector<double> v{5, 1, 3, 2, 4};  // unsorted on purpose
  EXPECT_DOUBLE_EQ(median(v), 3);
  EXPECT_DOUBLE_EQ(quantile(v, 0.25), 2);
  EXPECT_DOUBLE_EQ(quantile(v, 0.75), 4);
  EXPECT_DOUBLE_EQ(quantile(v, 0.10), 1.4);  // h = 0.4: 1 + 0.4·(2 − 1)
  EXPECT_DOUBLE_EQ(quantile(v, 0), 1);
  EXPECT_DOUBLE_EQ(quantile(v, 1), 5);
}

TEST(Quantile, EvenCountMatchesNumpyDefault) {
  const std::vector<double> v{4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(median(v), 2.5);
  EXPECT_DOUBLE_EQ(quantile(v, 0.25), 1.75);  // numpy.percentile([1,2,3,4], 25)
  EXPECT_DOUBLE_EQ(quantile(v, 0.75), 3.25);
  EXPECT_DOUBLE_EQ(relative_iqr(v), (3.25 - 1.75) / 2.5);
}

TEST(Quantile, SingleValueAndBadArguments) {
  const std::vector<double> one{7};
  EXPECT_DOUBLE_EQ(quantile(one, 0.3), 7);
  EXPECT_THROW(quantile(std::vector<double>{}, 0.5), std::invalid_argument);
  EXPECT_THROW(quantile(one, -0.1), std::invalid_argument);
  EXPECT_THROW(quantile(one, 1.5), std::invalid_argument);
  EXPECT_THROW(quantile(one, std::nan("")), std::invalid_argument);
}

TEST(RelativeIqr, ZeroForEqualSamples) {
  EXPECT_EQ(relative_iqr(std::vector<double>{2, 2, 2, 2}), 0);
  EXPECT_TRUE(std::isinf(relative_iqr(std::vector<double>{0, 0, 0, 1, 5})));  // median 0, IQR 1
}

TEST(MedianConfidence, RanksMatchTheExactBinomialTable) {
  // Published distribution-free 95 % intervals for the median (1-based ranks): n=6: 1..6,
  // n=10: 2..9, n=20: 6..15, n=100: 40..61.
  EXPECT_FALSE(median_ci_ranks(5).has_value());
  struct Expect {
    std::size_t n, lo, hi;
  };
  for (const auto& e : {Expect{6, 0, 5}, Expect{10, 1, 8}, Expect{20, 5, 14}, Expect{100, 39, 60},
                        Expect{1000, 468, 531}, Expect{2000, 955, 1044}, Expect{10000, 4901, 5098}}) {
    const auto r = median_ci_ranks(e.n);
    ASSERT_TRUE(r.has_value()) << e.n;
    EXPECT_EQ(r->lo, e.lo) << "n=" << e.n;
    EXPECT_EQ(r->hi, e.hi) << "n=" << e.n;
  }
  // Past the exact range the normal approximation may be one rank wider, never narrower.
  EXPECT_EQ(median_ci_ranks(1001)->lo, 468U);  // exact: 469
}

TEST(MedianConfidence, RelativeHalfWidth) {
  const std::vector<double> v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};  // ranks 1..8: values 2 and 9
  EXPECT_DOUBLE_EQ(median_ci_relative(v), (9.0 - 2.0) / 2 / 5.5);
  EXPECT_TRUE(std::isinf(median_ci_relative(std::vector<double>{1, 2, 3, 4, 5})));
  EXPECT_EQ(median_ci_relative(std::vector<double>(8, 3.0)), 0);
}

TEST(Summarize, StatisticsOfKnownSamples) {
  const std::vector<double> v{4, 8, 2, 6};
  const Summary s = summarize(v);
  EXPECT_EQ(s.n, 4U);
  EXPECT_DOUBLE_EQ(s.median, 5);
  EXPECT_DOUBLE_EQ(s.min, 2);
  EXPECT_DOUBLE_EQ(s.max, 8);
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_DOUBLE_EQ(s.total_s, 20);
  EXPECT_DOUBLE_EQ(s.p25, 3.5);
  EXPECT_DOUBLE_EQ(s.p75, 6.5);
  EXPECT_DOUBLE_EQ(s.spread, 3.0 / 5);
  EXPECT_TRUE(std::isinf(s.median_noise));  // 4 samples cannot bound the median at 95 %
  EXPECT_EQ(s.outliers, 0U);
  EXPECT_EQ(s.stop, StopReason::running);
}

TEST(Summarize, OutliersAreAboveMedianPlusThreeIqrAndDoNotMoveTheMedian) {
  // 1..20, 45, 100: median 11.5, p25 6.25, p75 16.75, IQR 10.5, fence 11.5 + 31.5 = 43. 45 lies
  // above it (it would not above p75 + 3·IQR = 48.25), 20 below.
  std::vector<double> v;
  for (int i = 1; i <= 20; ++i) v.push_back(i);
  v.push_back(45);
  v.push_back(100);
  const Summary s = summarize(v);
  EXPECT_DOUBLE_EQ(s.median, 11.5);
  EXPECT_DOUBLE_EQ(s.p25, 6.25);
  EXPECT_DOUBLE_EQ(s.p75, 16.75);
  EXPECT_EQ(s.outliers, 2U);
  EXPECT_DOUBLE_EQ(s.max, 100);  // kept in the data
  v.back() = 1e6;                // however slow the outlier, the median stays
  EXPECT_DOUBLE_EQ(summarize(v).median, 11.5);
}

TEST(Summarize, NoSamples) {
  const Summary s = summarize(std::vector<double>{});
  EXPECT_EQ(s.n, 0U);
  EXPECT_TRUE(std::isnan(s.median));
  EXPECT_EQ(s.outliers, 0U);
}

}  // namespace
}  // namespace cudalab
