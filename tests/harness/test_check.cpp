// The checker on crafted outputs: what counts as wrong, what is reported, and which hint fires.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

#include "cudalab/detail/parallel.hpp"
#include "cudalab/judge.hpp"

namespace cudalab {
namespace {

Expected expect_values(std::vector<double> values, double tol) {
  Expected e;
  e.value = std::move(values);
  e.tolerance.assign(e.value.size(), tol);
  return e;
}

Buffer float_output(const std::vector<double>& values, int rows = 0, int cols = 0) {
  Buffer b = Buffer::make("c", DType::f32, Role::output, values.size());
  for (std::size_t i = 0; i < values.size(); ++i) b.f32()[i] = static_cast<float>(values[i]);
  b.rows = rows;
  b.cols = cols;
  return b;
}

std::vector<double> ramp(std::size_t n) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 1.0 + 0.5 * static_cast<double>(i);
  return v;
}

bool has_hint(const OutputComparison& c, const std::string& text) {
  for (const auto& h : c.hints) {
    if (h.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(Check, CorrectOutputPasses) {
  auto v = ramp(100);
  auto cmp = compare_output(float_output(v), expect_values(v, 0), nullptr, false);
  EXPECT_TRUE(cmp.ok());
  EXPECT_TRUE(cmp.hints.empty());
}

TEST(Check, ToleranceEdgeIsInclusiveAndOneStepBeyondFails) {
  // 0.25 is exact in float; the tolerance 0.25 admits it and 0.2499 does not.
  auto exact = expect_values({1.0}, 0.25);
  EXPECT_TRUE(compare_output(float_output({1.25}), exact, nullptr, false).ok());
  auto tight = expect_values({1.0}, 0.2499);
  EXPECT_FALSE(compare_output(float_output({1.25}), tight, nullptr, false).ok());
}

TEST(Check, NaNAndInfNeverPass) {
  auto e = expect_values({1.0, 2.0, 3.0}, 1e30);
  auto cmp = compare_output(float_output({1.0, NAN, INFINITY}), e, nullptr, false);
  EXPECT_EQ(cmp.wrong, 2u);
  EXPECT_EQ(cmp.nonfinite, 2u);
  EXPECT_TRUE(has_hint(cmp, "NaN or infinite"));
}

TEST(Check, UnwrittenTailGetsTheGridHint) {
  auto v = ramp(300);
  Buffer out = float_output(v);
  poison(out);
  for (std::size_t i = 0; i < 256; ++i) out.f32()[i] = static_cast<float>(v[i]);
  auto cmp = compare_output(out, expect_values(v, 0), nullptr, false);
  EXPECT_EQ(cmp.wrong, 44u);
  EXPECT_EQ(cmp.untouched, 44u);
  ASSERT_FALSE(cmp.first.empty());
  EXPECT_EQ(cmp.first.front().index, 256u);
  EXPECT_TRUE(cmp.first.front().untouched);
  EXPECT_TRUE(has_hint(cmp, "every element from index 256 on is wrong"));
  EXPECT_TRUE(has_hint(cmp, "does your grid cover all n elements?"));
  auto lines = describe_mismatches(cmp, out);
  EXPECT_NE(lines.front().find("c[256]: expected 129, got the poison NaN (never written)"), std::string::npos)
      << lines.front();
}

TEST(Check, OffByOneShiftIsWrongEverywhereButNotAGridProblem) {
  auto v = ramp(64);
  std::vector<double> shifted(v.begin() + 1, v.end());
  shifted.push_back(0);
  auto cmp = compare_output(float_output(shifted), expect_values(v, 1e-6), nullptr, false);
  EXPECT_EQ(cmp.wrong, 64u);
  EXPECT_FALSE(has_hint(cmp, "grid"));
}

TEST(Check, NothingWrittenOnHostExerciseAsksAboutTheCopyBack) {
  Buffer out = float_output(ramp(10));
  poison(out);
  auto cmp = compare_output(out, expect_values(ramp(10), 0), nullptr, true);
  EXPECT_EQ(cmp.untouched, 10u);
  EXPECT_TRUE(has_hint(cmp, "no element of c was written"));
  EXPECT_TRUE(has_hint(cmp, "copied back"));
}

TEST(Check, InPlaceBufferLeftUnchangedCountsAsUntouched) {
  Buffer before = Buffer::make("data", DType::i32, Role::inout, 4);
  for (int i = 0; i < 4; ++i) before.i32()[static_cast<std::size_t>(i)] = i * 10;
  Buffer after = before;
  after.i32()[0] = 1;  // only the first element was incremented
  auto cmp = compare_output(after, expect_values({1, 11, 21, 31}, 0), &before, true);
  EXPECT_EQ(cmp.wrong, 3u);
  EXPECT_EQ(cmp.untouched, 3u);
  EXPECT_TRUE(has_hint(cmp, "every element from index 1 on is wrong"));
}

TEST(Check, MissingRowsOfAMatrixGetTheRowHint) {
  const int rows = 20, cols = 8;
  auto v = ramp(rows * cols);
  Buffer out = float_output(v, rows, cols);
  for (std::size_t i = 16 * cols; i < v.size(); ++i) out.f32()[i] = 0;
  auto cmp = compare_output(out, expect_values(v, 1e-6), nullptr, false);
  EXPECT_TRUE(has_hint(cmp, "every row from 16 on is wrong")) << (cmp.hints.empty() ? "" : cmp.hints[0]);
  EXPECT_TRUE(has_hint(cmp, "does your grid cover all M rows?"));
  auto lines = describe_mismatches(cmp, out);
  EXPECT_EQ(lines.front().rfind("c[16][0]", 0), 0u) << lines.front();
}

TEST(Check, MissingColumnsOfAMatrixGetTheColumnHint) {
  const int rows = 8, cols = 33;
  auto v = ramp(rows * cols);
  Buffer out = float_output(v, rows, cols);
  for (int r = 0; r < rows; ++r) out.f32()[static_cast<std::size_t>(r * cols + 32)] = -1;
  auto cmp = compare_output(out, expect_values(v, 1e-6), nullptr, false);
  EXPECT_TRUE(has_hint(cmp, "every column from 32 on is wrong"));
  EXPECT_TRUE(has_hint(cmp, "does your grid cover all N columns?"));
}

TEST(Check, CommonScaleFactorIsNamed) {
  auto v = ramp(50);
  std::vector<double> scaled;
  for (double x : v) scaled.push_back(x * 2.5);
  auto cmp = compare_output(float_output(scaled), expect_values(v, 1e-6), nullptr, false);
  EXPECT_TRUE(has_hint(cmp, "off by the same factor 2.5"));
}

TEST(Check, AllZeroOutputIsNamedAsSuchNotAsAScaleFactor) {
  auto cmp = compare_output(float_output(std::vector<double>(8, 0.0)), expect_values(ramp(8), 1e-6), nullptr, false);
  EXPECT_TRUE(has_hint(cmp, "every element of c is 0"));
  EXPECT_FALSE(has_hint(cmp, "same factor"));
}

TEST(Check, PoisonIsRecognisedAndDistinctFromRealValues) {
  Buffer f = Buffer::make("y", DType::f32, Role::output, 3);
  poison(f);
  EXPECT_TRUE(is_poison(f, 0));
  f.f32()[1] = NAN;  // an ordinary NaN that a kernel wrote is not the poison
  EXPECT_FALSE(is_poison(f, 1));
  Buffer i = Buffer::make("d", DType::i32, Role::output, 2);
  poison(i);
  EXPECT_TRUE(is_poison(i, 1));
  i.i32()[1] = 0;
  EXPECT_FALSE(is_poison(i, 1));
}

// Large buffers are copied and compared in chunks on several threads: every chunk, the last and
// partial one included, lands where it belongs, and a change in any chunk is seen.
TEST(Check, ParallelCopyAndCompareCoverEveryChunk) {
  const std::size_t bytes = 2 * kCopyChunkBytes * kCopyThreads + 12345;  // more chunks than threads, a partial last
  std::vector<std::byte> from(bytes);
  for (std::size_t i = 0; i < bytes; ++i) from[i] = static_cast<std::byte>((i * 2654435761u) >> 13);
  std::vector<std::byte> to(bytes);
  parallel_copy(to.data(), from.data(), bytes);
  EXPECT_TRUE(to == from);
  EXPECT_TRUE(parallel_equal(to.data(), from.data(), bytes));
  for (const std::size_t at : {std::size_t{0}, kCopyChunkBytes + 7, bytes - 1}) {
    to[at] ^= std::byte{1};
    EXPECT_FALSE(parallel_equal(to.data(), from.data(), bytes)) << "a change at byte " << at;
    to[at] ^= std::byte{1};
  }
  std::vector<std::atomic<int>> seen(37);
  for_each_chunk(seen.size(), [&](std::size_t k) { ++seen[k]; });
  EXPECT_TRUE(std::ranges::all_of(seen, [](const auto& n) { return n == 1; })) << "each chunk once, on all cores";
}

TEST(Check, ModifiedInputsAreNamed) {
  std::vector<Buffer> original = {Buffer::make("a", DType::f32, Role::input, 4),
                                  Buffer::make("c", DType::f32, Role::output, 4)};
  auto after = original;
  const std::vector<const std::byte*> now = {after[0].bytes.data(), after[1].bytes.data()};
  after[1].f32()[0] = 5;  // outputs may change
  EXPECT_TRUE(modified_inputs(original, now).empty());
  after[0].f32()[3] = 1;
  EXPECT_EQ(modified_inputs(original, now), std::vector<std::string>{"a"});
  EXPECT_EQ(modified_inputs(original, {nullptr, nullptr}), std::vector<std::string>{"a"}) << "unknown: changed";
}

Case matmul_case(int m, int n, int k) { return Case{{{"M", m}, {"N", n}, {"K", k}}}; }

TEST(Check, SizePatternFindsTheMisalignedDimension) {
  std::vector<CaseOutcome> outcomes;
  for (auto [m, n, k] : std::vector<std::tuple<int, int, int>>{
           {16, 16, 16}, {32, 16, 17}, {16, 48, 33}, {64, 64, 64}, {48, 32, 40}, {17, 17, 32}}) {
    outcomes.push_back({matmul_case(m, n, k), k % 16 == 0});
  }
  auto hint = size_pattern_hint(outcomes);
  ASSERT_TRUE(hint.has_value());
  EXPECT_NE(hint->find("fails exactly when K is not a multiple of 16"), std::string::npos) << *hint;
}

TEST(Check, SizePatternFindsAGrowthLimit) {
  std::vector<CaseOutcome> outcomes;
  for (int n : {1, 31, 256, 1000, 65537, 1 << 20}) outcomes.push_back({Case{{{"n", n}}}, n <= 1000});
  auto hint = size_pattern_hint(outcomes);
  ASSERT_TRUE(hint.has_value());
  EXPECT_NE(hint->find("passes up to n=1000 and fails from n=65537 on"), std::string::npos) << *hint;
}

TEST(Check, SizePatternIsSilentWhenEverythingFailsOrPasses) {
  std::vector<CaseOutcome> outcomes{{Case{{{"n", 3}}}, false}, {Case{{{"n", 4}}}, false}};
  EXPECT_FALSE(size_pattern_hint(outcomes).has_value());
  outcomes[0].passed = outcomes[1].passed = true;
  EXPECT_FALSE(size_pattern_hint(outcomes).has_value());
}

TEST(Check, VerdictNamesAreStable) {
  EXPECT_STREQ(verdict_name(Verdict::wrong_output), "wrong_output");
  EXPECT_STREQ(verdict_name(Verdict::device_leak), "device_leak");
  EXPECT_STREQ(verdict_title(Verdict::not_implemented), "not implemented");
}

}  // namespace
}  // namespace cudalab
