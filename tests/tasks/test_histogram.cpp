// 10_histogram: the reference counts every value exactly; skewed cases crowd into two bins; the
// hints name a never-zeroed output, a constant offset, lost updates and a prefix.
#include <gtest/gtest.h>

#include <map>

#include "task_testing.hpp"

namespace cudalab {
namespace {

const Task& histogram() { return task_testing::task("10_histogram"); }

Case make(std::int64_t n, std::int64_t num_bins) { return Case{{{"n", n}, {"num_bins", num_bins}}, false}; }

/// The right answer as the int32 buffer a kernel would return.
Buffer counted(const std::vector<Buffer>& bufs, const Expected& e) {
  Buffer out = bufs[1];
  for (std::size_t b = 0; b < out.count(); ++b) out.i32()[b] = static_cast<std::int32_t>(e.value[b]);
  return out;
}

TEST(Histogram, ReferenceCountsEveryValue) {
  for (const Case& c : task_testing::small_cases(histogram())) {
    const auto bufs = task_testing::buffers(histogram(), c);
    const Expected e = histogram().reference(c, bufs).at(0);
    EXPECT_EQ(e.buffer, 1u);
    ASSERT_EQ(e.value.size(), static_cast<std::size_t>(c.dim("num_bins")));
    std::map<std::int32_t, double> counts;  // independent: a map, not an array
    for (const std::int32_t v : bufs[0].i32()) {
      ASSERT_GE(v, 0) << c.label();
      ASSERT_LT(v, c.dim("num_bins")) << c.label();
      counts[v] += 1;
    }
    double total = 0;
    for (std::size_t b = 0; b < e.value.size(); ++b) {
      EXPECT_EQ(e.value[b], counts.count(static_cast<std::int32_t>(b)) ? counts[static_cast<std::int32_t>(b)] : 0.0);
      EXPECT_EQ(e.tolerance_at(b), 0.0);
      total += e.value[b];
    }
    EXPECT_EQ(total, static_cast<double>(c.dim("n")));
  }
}

TEST(Histogram, CasesCoverManyBinCountsAndSkewedInputs) {
  std::map<std::int64_t, int> bin_counts;
  int skewed = 0;
  for (const Case& c : task_testing::small_cases(histogram())) {
    ++bin_counts[c.dim("num_bins")];
    const auto bufs = task_testing::buffers(histogram(), c);
    const Expected e = histogram().reference(c, bufs).at(0);
    const double top = *std::max_element(e.value.begin(), e.value.end());
    // Two bins hold about 90 % of a skewed input; a uniform one spreads out.
    std::vector<double> sorted = e.value;
    std::sort(sorted.rbegin(), sorted.rend());
    const double two = sorted[0] + (sorted.size() > 1 ? sorted[1] : 0.0);
    if (c.dim("num_bins") > 1 && c.dim("n") > 1000 && c.dim("n") % 2 == 1) {
      EXPECT_GT(two, 0.8 * static_cast<double>(c.dim("n"))) << c.label();
      ++skewed;
    } else if (c.dim("num_bins") >= 256 && c.dim("n") >= 4 * c.dim("num_bins")) {
      EXPECT_LT(top, 0.05 * static_cast<double>(c.dim("n"))) << c.label();
    }
  }
  EXPECT_GE(skewed, 5);
  for (const std::int64_t b : {1, 7, 33, 256, 1024, 4096}) EXPECT_GT(bin_counts[b], 0) << b;
  EXPECT_EQ(histogram().cases(CaseOptions{false}).back().dim("num_bins"), 256);
}

TEST(Histogram, AnyCorrectCountPassesAndOneCountOffFails) {
  for (const Case& c : task_testing::small_cases(histogram())) {
    const auto bufs = task_testing::buffers(histogram(), c);
    const Expected e = histogram().reference(c, bufs).at(0);
    Buffer out = counted(bufs, e);
    std::vector<double> wide(out.count());
    for (std::size_t b = 0; b < wide.size(); ++b) wide[b] = out.value(b);
    EXPECT_EQ(task_testing::mismatches(e, wide), 0u) << c.label();
    wide[static_cast<std::size_t>(bufs[0].i32()[0])] -= 1;  // one value lost
    EXPECT_EQ(task_testing::mismatches(e, wide), 1u) << c.label();
  }
}

TEST(Histogram, HintWhenBinsAreNeverZeroed) {
  const Case c = make(4097, 256);
  const auto bufs = task_testing::buffers(histogram(), c);
  const Expected e = histogram().reference(c, bufs).at(0);
  Buffer out = counted(bufs, e);
  for (auto& v : out.i32()) v = static_cast<std::int32_t>(static_cast<std::uint32_t>(v) + 0x7EADBEEFu);
  const auto hint = histogram().diagnose(c, bufs, out, e);
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("the garbage the harness filled bins with"), std::string::npos) << *hint;
}

TEST(Histogram, HintWhenEveryBinIsOffByTheSameAmount) {
  const Case c = make(65537, 1024);
  const auto bufs = task_testing::buffers(histogram(), c);
  const Expected e = histogram().reference(c, bufs).at(0);
  Buffer out = counted(bufs, e);
  for (auto& v : out.i32()) v -= 17;  // 17 blocks whose shared histogram started at -1
  const auto hint = histogram().diagnose(c, bufs, out, e);
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("every bin is off by the same amount, -17"), std::string::npos) << *hint;
}

TEST(Histogram, HintWhenUpdatesAreLost) {
  const Case c = make(65537, 256);
  const auto bufs = task_testing::buffers(histogram(), c);
  const Expected e = histogram().reference(c, bufs).at(0);
  Buffer out = counted(bufs, e);
  // Lose a few updates of the busiest bins, as colliding `++` do.
  for (std::size_t b = 0; b < out.count(); ++b) {
    if (out.i32()[b] > 100) out.i32()[b] -= out.i32()[b] / 10;
  }
  const auto hint = histogram().diagnose(c, bufs, out, e);
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("counts are too low"), std::string::npos) << *hint;
  EXPECT_NE(hint->find("atomicAdd"), std::string::npos) << *hint;
}

TEST(Histogram, HintWhenOnlyAPrefixIsCounted) {
  const Case c = make(100003, 256);
  const auto bufs = task_testing::buffers(histogram(), c);
  const Expected e = histogram().reference(c, bufs).at(0);
  Buffer out = bufs[1];
  std::fill(out.i32().begin(), out.i32().end(), 0);
  for (std::size_t i = 0; i < 65536; ++i) ++out.i32()[static_cast<std::size_t>(bufs[0].i32()[i])];
  const auto hint = histogram().diagnose(c, bufs, out, e);
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("exactly the first 65536 of the 100003 values"), std::string::npos) << *hint;
}

// histogram256's byte loop over ints: each value also brings its 3 zero high bytes to bin 0. The
// bins were zeroed, so "never zeroed" would point the wrong way.
TEST(Histogram, ExtraCountsInBinZeroThatAreAMultipleOfNAreNotBlamedOnZeroing) {
  const Case c = make(4097, 256);
  const auto bufs = task_testing::buffers(histogram(), c);
  const Expected e = histogram().reference(c, bufs).at(0);
  Buffer out = counted(bufs, e);
  out.i32()[0] += 3 * 4097;
  const auto hint = histogram().diagnose(c, bufs, out, e);
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("bin 0 counts 12291 too many, exactly 3 for each of the 4097 values"), std::string::npos)
      << *hint;
  EXPECT_NE(hint->find("3 high bytes"), std::string::npos) << *hint;
  EXPECT_EQ(hint->find("before this call"), std::string::npos) << *hint;
  // One bin with a few extra counts: something that is not a value, counted there.
  out = counted(bufs, e);
  out.i32()[5] += 7;
  const auto one_bin = histogram().diagnose(c, bufs, out, e);
  ASSERT_TRUE(one_bin);
  EXPECT_NE(one_bin->find("bin 5 counts 7 too many and every other bin is right"), std::string::npos) << *one_bin;
  // Every bin twice its count: each value counted twice.
  out = counted(bufs, e);
  for (auto& v : out.i32()) v *= 2;
  const auto twice = histogram().diagnose(c, bufs, out, e);
  ASSERT_TRUE(twice);
  EXPECT_NE(twice->find("exactly 2 times its count"), std::string::npos) << *twice;
}

TEST(Histogram, HintWhenLeftoversAddUp) {
  const Case c = make(1025, 33);
  const auto bufs = task_testing::buffers(histogram(), c);
  const Expected e = histogram().reference(c, bufs).at(0);
  Buffer out = counted(bufs, e);
  for (std::size_t b = 0; b < out.count(); ++b) out.i32()[b] += static_cast<std::int32_t>(b % 3);  // an earlier call's
  const auto hint = histogram().diagnose(c, bufs, out, e);
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("more values than there are"), std::string::npos) << *hint;
}

TEST(Histogram, NoHintForACorrectOrUnrelatedOutput) {
  for (const Case& c : task_testing::small_cases(histogram())) {
    const auto bufs = task_testing::buffers(histogram(), c);
    const Expected e = histogram().reference(c, bufs).at(0);
    EXPECT_EQ(histogram().diagnose(c, bufs, counted(bufs, e), e), std::nullopt) << c.label();
  }
  const Case c = make(4097, 33);
  const auto bufs = task_testing::buffers(histogram(), c);
  const Expected e = histogram().reference(c, bufs).at(0);
  Buffer out = counted(bufs, e);
  std::swap(out.i32()[0], out.i32()[1]);  // counts in the wrong bins: some too high, some too low
  if (out.i32()[0] != out.i32()[1]) {
    EXPECT_EQ(histogram().diagnose(c, bufs, out, e), std::nullopt);
  }
}

TEST(Histogram, CpuBaselinePassesOnOneAndTwoThreads) {
  for (const Case& c : {make(1, 256), make(33, 7), make(1000, 1), make(100003, 4096), make(65537, 256)}) {
    const auto inputs = task_testing::buffers(histogram(), c, 9);
    const Expected e = histogram().reference(c, inputs).at(0);
    for (const int threads : {1, 2}) {
      auto bufs = inputs;
      std::fill(bufs[1].i32().begin(), bufs[1].i32().end(), 0x7EADBEEF);
      histogram().cpu_solve(c, bufs, threads);
      EXPECT_EQ(bufs[0].bytes, inputs[0].bytes);
      std::vector<double> wide(bufs[1].count());
      for (std::size_t b = 0; b < wide.size(); ++b) wide[b] = bufs[1].value(b);
      EXPECT_EQ(task_testing::mismatches(e, wide), 0u) << c.label() << " threads=" << threads;
    }
  }
}

TEST(Histogram, CostIsTheValuesAndTheBins) {
  const Cost cost = histogram().cost(make(1000, 256));
  EXPECT_EQ(cost.bytes, 4.0 * 1000 + 4.0 * 256);
  EXPECT_EQ(cost.flops, 0.0);
}

}  // namespace
}  // namespace cudalab
