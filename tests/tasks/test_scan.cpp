// 11_scan: the reference is the running sum, exact and in int32; the hints name an exclusive
// scan, blocks that restart, blocks that add their own total, and wrong offsets.
#include <gtest/gtest.h>

#include <climits>

#include "task_testing.hpp"

namespace cudalab {
namespace {

const Task& scan() { return task_testing::task("11_scan"); }

Case make(std::int64_t n) { return Case{{{"n", n}}, false}; }

/// An int32 buffer holding `f(i)` for every element.
template <typename F>
Buffer output(const std::vector<Buffer>& bufs, F f) {
  Buffer out = bufs[1];
  for (std::size_t i = 0; i < out.count(); ++i) out.i32()[i] = static_cast<std::int32_t>(f(i));
  return out;
}

/// The inclusive scan of x[lo, hi) into out, starting from `start`.
std::int64_t scan_range(std::span<const std::int32_t> x, std::size_t lo, std::size_t hi, std::int64_t start,
                        std::vector<std::int64_t>& out) {
  for (std::size_t i = lo; i < hi; ++i) out[i] = start += x[i];
  return start;
}

TEST(Scan, ReferenceIsTheRunningSum) {
  auto cases = task_testing::small_cases(scan());
  cases.push_back(scan().cases(CaseOptions{true}).back());
  for (const Case& c : cases) {
    const auto bufs = task_testing::buffers(scan(), c);
    const Expected e = scan().reference(c, bufs).at(0);
    EXPECT_EQ(e.buffer, 1u);
    const auto x = bufs[0].i32();
    ASSERT_EQ(e.value.size(), x.size());
    // Backwards from the total: y[i] = total - (x[i+1] + ... + x[n-1]).
    std::int64_t total = 0;
    for (const std::int32_t v : x) total += v;
    std::int64_t after = 0;
    for (std::size_t i = x.size(); i-- > 0;) {
      ASSERT_EQ(e.value[i], static_cast<double>(total - after)) << c.label() << " i=" << i;
      ASSERT_EQ(e.tolerance_at(i), 0.0);
      after += x[i];
    }
  }
}

TEST(Scan, NoSumLeavesInt32EvenAtTheLargestSize) {
  const Case large = scan().cases(CaseOptions{false}).back();
  const auto bufs = task_testing::buffers(scan(), make(100003));
  for (const std::int32_t v : bufs[0].i32()) {
    ASSERT_GE(v, -6);
    ASSERT_LE(v, 10);
  }
  EXPECT_LE(10 * large.dim("n"), INT_MAX);
}

TEST(Scan, CpuBaselinePassesOnOneAndTwoThreads) {
  for (const std::int64_t n : {1, 2, 33, 4097, 100003}) {
    const Case c = make(n);
    const auto inputs = task_testing::buffers(scan(), c, 5);
    const Expected e = scan().reference(c, inputs).at(0);
    for (const int threads : {1, 2, 3}) {
      auto bufs = inputs;
      std::fill(bufs[1].i32().begin(), bufs[1].i32().end(), 0x7EADBEEF);
      scan().cpu_solve(c, bufs, threads);
      EXPECT_EQ(bufs[0].bytes, inputs[0].bytes);
      std::vector<double> wide(bufs[1].count());
      for (std::size_t i = 0; i < wide.size(); ++i) wide[i] = bufs[1].value(i);
      EXPECT_EQ(task_testing::mismatches(e, wide), 0u) << c.label() << " threads=" << threads;
    }
  }
}

TEST(Scan, OneElementOffFails) {
  const Case c = make(1025);
  const auto bufs = task_testing::buffers(scan(), c);
  const Expected e = scan().reference(c, bufs).at(0);
  std::vector<double> wide(e.value);
  EXPECT_EQ(task_testing::mismatches(e, wide), 0u);
  wide[700] += 1;
  EXPECT_EQ(task_testing::mismatches(e, wide), 1u);
}

TEST(Scan, HintForAnExclusiveScan) {
  for (const std::int64_t n : {1, 257, 65537}) {
    const Case c = make(n);
    const auto bufs = task_testing::buffers(scan(), c);
    const Expected e = scan().reference(c, bufs).at(0);
    const auto x = bufs[0].i32();
    const auto hint = scan().diagnose(c, bufs, output(bufs, [&](std::size_t i) { return e.value[i] - x[i]; }), e);
    ASSERT_TRUE(hint) << n;
    EXPECT_NE(hint->find("y[i] is the sum before x[i]"), std::string::npos) << *hint;
  }
}

TEST(Scan, HintWhenEachBlockRestarts) {
  for (const std::size_t block : {256u, 1024u, 4096u}) {
    const Case c = make(100003);
    const auto bufs = task_testing::buffers(scan(), c);
    const Expected e = scan().reference(c, bufs).at(0);
    const auto x = bufs[0].i32();
    std::vector<std::int64_t> y(x.size());
    for (std::size_t lo = 0; lo < x.size(); lo += block) scan_range(x, lo, std::min(x.size(), lo + block), 0, y);
    const auto hint = scan().diagnose(c, bufs, output(bufs, [&](std::size_t i) { return y[i]; }), e);
    ASSERT_TRUE(hint) << block;
    EXPECT_NE(hint->find("each block of " + std::to_string(block) + " elements restarts at 0"), std::string::npos)
        << *hint;
  }
}

TEST(Scan, HintWhenEachBlockAddsItsOwnTotal) {
  const Case c = make(4097);
  const auto bufs = task_testing::buffers(scan(), c);
  const Expected e = scan().reference(c, bufs).at(0);
  const auto x = bufs[0].i32();
  std::vector<std::int64_t> y(x.size());
  std::int64_t before = 0;
  for (std::size_t lo = 0; lo < x.size(); lo += 512) {
    const std::size_t hi = std::min(x.size(), lo + 512);
    const std::int64_t own = scan_range(x, lo, hi, 0, y);
    if (lo > 0) {
      for (std::size_t i = lo; i < hi; ++i) y[i] += before + own;  // sums[k] instead of sums[k - 1]
    }
    before += own;
  }
  const auto hint = scan().diagnose(c, bufs, output(bufs, [&](std::size_t i) { return y[i]; }), e);
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("each block of 512 elements adds its own total"), std::string::npos) << *hint;
}

TEST(Scan, HintWhenTheOffsetsAreWrong) {
  const Case c = make(65537);
  const auto bufs = task_testing::buffers(scan(), c);
  const Expected e = scan().reference(c, bufs).at(0);
  // Block k adds only the total of block k - 1 (not of all blocks before it).
  const auto x = bufs[0].i32();
  std::vector<std::int64_t> y(x.size());
  std::int64_t previous = 0;
  for (std::size_t lo = 0; lo < x.size(); lo += 256) {
    previous = scan_range(x, lo, std::min(x.size(), lo + 256), previous, y) - previous;
  }
  const auto hint = scan().diagnose(c, bufs, output(bufs, [&](std::size_t i) { return y[i]; }), e);
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("within each block of 256 elements y is right up to one constant"), std::string::npos) << *hint;
}

TEST(Scan, NoHintForACorrectOrUnrelatedOutput) {
  for (const Case& c : task_testing::small_cases(scan())) {
    const auto bufs = task_testing::buffers(scan(), c);
    const Expected e = scan().reference(c, bufs).at(0);
    EXPECT_EQ(scan().diagnose(c, bufs, output(bufs, [&](std::size_t i) { return e.value[i]; }), e), std::nullopt)
        << c.label();
  }
  const Case c = make(4097);
  const auto bufs = task_testing::buffers(scan(), c);
  const Expected e = scan().reference(c, bufs).at(0);
  // Every element off by its index: no block structure.
  const Buffer off = output(bufs, [&](std::size_t i) { return e.value[i] + static_cast<double>(i % 7); });
  EXPECT_EQ(scan().diagnose(c, bufs, off, e), std::nullopt);
}

TEST(Scan, CostIsOneReadAndOneWrite) {
  EXPECT_EQ(scan().cost(make(1000)).bytes, 8000.0);
  EXPECT_EQ(scan().cost(make(1000)).flops, 0.0);
}

}  // namespace
}  // namespace cudalab
