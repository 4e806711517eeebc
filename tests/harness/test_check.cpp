// The checker on crafted outputs: what counts as wrong, what is reported, and which hint fires.
#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "cudalab/exercise_check.hpp"
#include "cudalab/judge.hpp"
#include "cudalab/parallel.hpp"

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

TEST(VerdictTable, EveryVerdictHasEveryTraitAndRoundTripsThroughItsName) {
  const auto& table = verdict_table();
  ASSERT_FALSE(table.empty());
  std::set<std::string> names;
  std::set<std::string> titles;
  // Every enumerator up to the last row's has a row of its own, in order; one past it has none.
  for (std::size_t i = 0; i < table.size(); ++i) {
    const auto v = static_cast<Verdict>(i);
    const VerdictTraits& row = traits_of(v);
    EXPECT_EQ(row.verdict, v) << i;
    const std::string name = row.name;
    EXPECT_TRUE(!name.empty() && std::ranges::all_of(name, [](char c) { return std::islower(c) || c == '_'; }))
        << "snake_case: " << name;
    EXPECT_TRUE(names.insert(name).second) << "two verdicts named " << name;
    EXPECT_TRUE(titles.insert(row.title).second) << "two verdicts say " << row.title;
    EXPECT_EQ(verdict_from_name(name), v) << name;
    EXPECT_EQ(std::string(verdict_name(v)), name);
    EXPECT_EQ(std::string(verdict_title(v)), row.title);
    const std::string color = row.color;
    EXPECT_TRUE(color.size() == 7 && color[0] == '#' &&
                std::all_of(color.begin() + 1, color.end(), [](char c) { return std::isxdigit(c) != 0; }))
        << name << ": " << color;
    EXPECT_EQ(stops_check(v), row.stops_check) << name;
    // Only a run that is nobody's fault passes or is skipped; a passed run's output is right.
    EXPECT_EQ(row.fault == Fault::none, v == Verdict::passed || v == Verdict::skipped) << name;
    if (v == Verdict::passed) {
      EXPECT_TRUE(row.output_right);
    }
  }
  EXPECT_EQ(table.back().verdict, Verdict::timing_mismatch) << "a verdict after timing_mismatch needs its row";
  EXPECT_EQ(verdict_from_name("wrong output"), std::nullopt) << "a title is not a name";
  EXPECT_EQ(verdict_from_name(""), std::nullopt);
  EXPECT_EQ(traits_of(Verdict::runner_error).fault, Fault::harness);
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

// The comparison reads elements through their type: int outputs, their poison, and an in-place
// buffer left as it was are judged as float ones are; expected values of another length are refused.
TEST(Check, IntOutputsAndInPlaceBuffersAreJudgedThroughTheirType) {
  Buffer ints = Buffer::make("hist", DType::i32, Role::output, 4);
  poison(ints);
  ints.i32()[0] = 7;
  ints.i32()[1] = 8;  // wrong: 9 expected
  Expected e;
  e.value = {7, 9, 3, 4};
  e.tolerance.assign(4, 0.0);
  auto cmp = compare_output(ints, e, nullptr, false);
  EXPECT_EQ(cmp.wrong, 3U);
  EXPECT_EQ(cmp.untouched, 2U) << "elements 2 and 3 still hold the int poison";

  Buffer was = Buffer::make("x", DType::f32, Role::inout, 3);
  was.f32()[0] = 1.0f, was.f32()[1] = 2.0f, was.f32()[2] = 3.0f;
  Buffer now = was;
  now.f32()[0] = 2.0f;  // written and right; elements 1 and 2 left as they were
  Expected doubled;
  doubled.value = {2.0, 4.0, 3.0};  // element 2 happens to be right as it was
  doubled.tolerance.assign(3, 0.0);
  cmp = compare_output(now, doubled, &was, false);
  EXPECT_EQ(cmp.wrong, 1U);
  EXPECT_EQ(cmp.untouched, 1U) << "element 1 was never written; element 2 is right";

  Expected exact;  // no tolerances: every element exactly
  exact.value = {2.0, 2.0, 3.0};
  EXPECT_TRUE(compare_output(now, exact, nullptr, false).ok());
  now.f32()[2] = std::nextafter(3.0f, 4.0f);
  EXPECT_EQ(compare_output(now, exact, nullptr, false).wrong, 1U) << "one ulp off an exact value";

  Expected shorter;
  shorter.value = {2.0, 4.0};
  shorter.tolerance.assign(2, 0.0);
  EXPECT_THROW((void)compare_output(now, shorter, &was, false), std::logic_error);
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

// ---- what the launch records say about a grid hint --------------------------------------------

protocol::Records launched(std::array<unsigned, 3> grid, std::array<unsigned, 3> block) {
  protocol::Records r;
  protocol::Launch l;
  l.kernel = "k";
  l.grid = grid;
  l.block = block;
  r.launches.push_back(l);
  return r;
}

TaskInfo pointers(PointerKind kind) {
  TaskInfo info;
  info.pointers = kind;
  return info;
}

std::string joined(const std::vector<std::string>& hints) {
  std::string out;
  for (const auto& h : hints) out += h + "\n";
  return out;
}

// 01_increment with cudaMemcpy(d, data, n, ...): n bytes are the first n/4 ints, the rest came back
// unchanged, and the launch had a thread for each of the n elements.
TEST(Check, ACoveringLaunchTurnsTheSuffixFromAQuarterIntoTheBytesHint) {
  const std::size_t n = 255;
  Buffer before = Buffer::make("data", DType::i32, Role::inout, n);
  Buffer after = before;
  std::vector<double> want(n);
  for (std::size_t i = 0; i < n; ++i) {
    before.i32()[i] = after.i32()[i] = static_cast<std::int32_t>(i);
    want[i] = static_cast<double>(i) + 1;
    if (i < n / 4) after.i32()[i] += 1;
  }
  const Case c{{{"n", static_cast<std::int64_t>(n)}}};
  auto cmp = compare_output(after, expect_values(want, 0), &before, true);
  ASSERT_TRUE(cmp.grid_pattern.has_value());
  EXPECT_EQ(cmp.grid_pattern->from, n / 4);
  ASSERT_TRUE(has_hint(cmp, "does your grid cover all n elements?")) << "without records the grid hint stays";

  const auto covering = launched({1, 1, 1}, {256, 1, 1});
  EXPECT_TRUE(launches_cover(after, c, covering, true));
  auto hints = hints_with_launches(cmp, after, c, pointers(PointerKind::host), covering, true);
  EXPECT_NE(joined(hints).find("cudaMemcpy counts bytes, not elements — pass n * sizeof(int)"), std::string::npos)
      << joined(hints);
  EXPECT_EQ(joined(hints).find("does your grid cover"), std::string::npos) << joined(hints);

  // Launches that were not traced prove nothing: the grid hint stays.
  EXPECT_FALSE(launches_cover(after, c, covering, false));
  hints = hints_with_launches(cmp, after, c, pointers(PointerKind::host), covering, false);
  EXPECT_NE(joined(hints).find("does your grid cover all n elements?"), std::string::npos);
  // A grid of 128 threads for 255 elements is short: the grid hint stays.
  const auto short_grid = launched({1, 1, 1}, {128, 1, 1});
  EXPECT_FALSE(launches_cover(after, c, short_grid, true));
  hints = hints_with_launches(cmp, after, c, pointers(PointerKind::host), short_grid, true);
  EXPECT_NE(joined(hints).find("does your grid cover all n elements?"), std::string::npos);
}

// The split element: n = 2 bytes copied are half of element 0, which came back right.
TEST(Check, TheBytesHintAlsoFitsASuffixAfterTheSplitElement) {
  Buffer before = Buffer::make("data", DType::i32, Role::inout, 3);
  Buffer after = before;
  after.i32()[0] = 1;
  auto cmp = compare_output(after, expect_values({1, 1, 1}, 0), &before, true);
  ASSERT_TRUE(cmp.grid_pattern.has_value());
  const Case c{{{"n", 3}}};
  auto hints = hints_with_launches(cmp, after, c, pointers(PointerKind::host), launched({1, 1, 1}, {256, 1, 1}), true);
  EXPECT_NE(joined(hints).find("sizeof(int)"), std::string::npos) << joined(hints);
}

TEST(Check, ACoveringLaunchOfADeviceExerciseAsksAboutTheIndexNotTheGrid) {
  auto v = ramp(100);
  Buffer out = float_output(v);
  for (std::size_t i = 60; i < v.size(); ++i) out.f32()[i] = -1;
  const Case c{{{"n", 100}}};
  auto cmp = compare_output(out, expect_values(v, 1e-6), nullptr, false);
  auto hints = hints_with_launches(cmp, out, c, pointers(PointerKind::device), launched({4, 1, 1}, {32, 1, 1}), true);
  EXPECT_EQ(joined(hints).find("grid cover"), std::string::npos) << joined(hints);
  EXPECT_NE(joined(hints).find("though the launch ran a thread for every element"), std::string::npos);
  EXPECT_EQ(joined(hints).find("sizeof"), std::string::npos) << "no copies in a device-pointer exercise";
}

TEST(Check, TwoDimensionalCoverageFollowsXColumnsYRows) {
  const Case c{{{"M", 64}, {"N", 48}, {"K", 8}}};
  Buffer out = float_output(ramp(64 * 48), 64, 48);
  EXPECT_TRUE(launches_cover(out, c, launched({3, 4, 1}, {16, 16, 1}), true));
  // x over rows and y over columns: the same thread count, but rows 48 to 63 have no thread.
  EXPECT_FALSE(launches_cover(out, c, launched({4, 3, 1}, {16, 16, 1}), true));
  // A flat launch of enough threads indexes the matrix row-major.
  EXPECT_TRUE(launches_cover(out, c, launched({12, 1, 1}, {256, 1, 1}), true));
  EXPECT_FALSE(launches_cover(out, c, launched({11, 1, 1}, {256, 1, 1}), true));
  // One launch must cover it: two short ones do not add up.
  auto two = launched({3, 2, 1}, {16, 16, 1});
  two.launches.push_back(two.launches.front());
  EXPECT_FALSE(launches_cover(out, c, two, true));
}

// 09_transpose: B is N×M. A launch over A (x: N columns of A, y: M rows) covers B too.
TEST(Check, ATransposedOutputMayBeCoveredByALaunchOverTheInput) {
  const Case c{{{"M", 64}, {"N", 48}}};
  Buffer b = float_output(ramp(48 * 64), 48, 64);
  EXPECT_TRUE(launches_cover(b, c, launched({2, 2, 1}, {32, 32, 1}), true)) << "x 64 ≥ 64 columns, y 64 ≥ 48 rows";
  EXPECT_TRUE(launches_cover(b, c, launched({2, 2, 1}, {24, 32, 1}), true)) << "over A: x 48 = N, y 64 = M";
  EXPECT_FALSE(launches_cover(b, c, launched({1, 2, 1}, {32, 32, 1}), true));
}

// Hints name the output's own dimensions: B of 09_transpose has N rows, not M.
TEST(Check, RowAndColumnHintsNameTheCasesDimension) {
  const Case c{{{"M", 64}, {"N", 48}}};
  auto v = ramp(48 * 64);
  Buffer b = float_output(v, 48, 64);
  b.name = "B";
  for (std::size_t i = 32 * 64; i < v.size(); ++i) b.f32()[i] = -1;
  auto cmp = compare_output(b, expect_values(v, 1e-6), nullptr, false);
  ASSERT_TRUE(cmp.grid_pattern.has_value());
  EXPECT_EQ(cmp.grid_pattern->kind, GridPattern::Kind::rows);
  auto hints = hints_with_launches(cmp, b, c, pointers(PointerKind::device), launched({2, 1, 1}, {32, 32, 1}), true);
  EXPECT_NE(joined(hints).find("does your grid cover all N rows?"), std::string::npos) << joined(hints);
  EXPECT_EQ(joined(hints).find("M rows"), std::string::npos) << joined(hints);
  // With a grid that reaches every row, the row index is what to check, and B's row length is M.
  hints = hints_with_launches(cmp, b, c, pointers(PointerKind::device), launched({2, 2, 1}, {32, 32, 1}), true);
  EXPECT_EQ(joined(hints).find("grid cover"), std::string::npos) << joined(hints);
  EXPECT_NE(joined(hints).find("row r starts at r * M"), std::string::npos) << joined(hints);
  // 03_matmul's C is M×N: its rows are M.
  const Case mm{{{"M", 40}, {"N", 8}, {"K", 3}}};
  auto w = ramp(40 * 8);
  Buffer cm = float_output(w, 40, 8);
  for (std::size_t i = 16 * 8; i < w.size(); ++i) cm.f32()[i] = -1;
  auto cmp2 = compare_output(cm, expect_values(w, 1e-6), nullptr, false);
  hints = hints_with_launches(cmp2, cm, mm, pointers(PointerKind::device), launched({1, 1, 1}, {16, 16, 1}), true);
  EXPECT_NE(joined(hints).find("does your grid cover all M rows?"), std::string::npos) << joined(hints);
}

TEST(Check, OtherHintsPassThroughUnchanged) {
  auto v = ramp(50);
  std::vector<double> scaled;
  for (double x : v) scaled.push_back(x * 2.5);
  Buffer out = float_output(scaled);
  auto cmp = compare_output(out, expect_values(v, 1e-6), nullptr, false);
  EXPECT_FALSE(cmp.grid_pattern.has_value());
  const Case c{{{"n", 50}}};
  EXPECT_EQ(hints_with_launches(cmp, out, c, pointers(PointerKind::device), launched({1, 1, 1}, {64, 1, 1}), true),
            cmp.hints);
}

// 03_matmul with the B tile indexed by A's k: only M=N=K=1 passes, though every grid was right.
TEST(Check, SizePatternDoesNotBlameACoveringGrid) {
  std::vector<CaseOutcome> outcomes;
  for (auto [m, n, k] : std::vector<std::tuple<int, int, int>>{{1, 1, 1}, {1, 1, 64}, {16, 16, 16}, {33, 31, 65}}) {
    outcomes.push_back({matmul_case(m, n, k), m * n * k == 1, true});
  }
  auto hint = size_pattern_hint(outcomes);
  ASSERT_TRUE(hint.has_value());
  EXPECT_NE(hint->find("passes up to M=1 N=1 K=1"), std::string::npos) << *hint;
  EXPECT_EQ(hint->find("does your grid"), std::string::npos) << *hint;
  EXPECT_NE(hint->find("the grid covered the output at every size"), std::string::npos) << *hint;
  // One failing case whose grid fell short: the grid is a suspect again.
  outcomes.back().covered = false;
  hint = size_pattern_hint(outcomes);
  ASSERT_TRUE(hint.has_value());
  EXPECT_NE(hint->find("does your grid (or loop) grow"), std::string::npos) << *hint;
}

// The shapes 03_matmul checks: exactly one of M, N, K off a multiple of 32 in three of them.
std::vector<std::tuple<int, int, int>> matmul_shapes() {
  return {{1, 1, 1},    {1, 1, 64},    {1, 33, 17},   {31, 1, 33},     {64, 64, 1},     {16, 16, 16},   {17, 17, 17},
          {15, 33, 31}, {32, 32, 32},  {33, 32, 32},  {32, 33, 32},    {32, 32, 33},    {64, 64, 64},   {33, 31, 65},
          {64, 48, 80}, {100, 1, 100}, {1, 100, 100}, {255, 257, 129}, {256, 256, 256}, {192, 160, 176}};
}

TEST(Check, SizePatternNamesTheOneDimensionOffTheTile) {
  for (const char* dim : {"M", "N", "K"}) {
    std::vector<CaseOutcome> outcomes;
    for (auto [m, n, k] : matmul_shapes()) {
      const Case c = matmul_case(m, n, k);
      outcomes.push_back({c, c.dim(dim) % 32 == 0});
    }
    auto hint = size_pattern_hint(outcomes);
    ASSERT_TRUE(hint.has_value()) << dim;
    EXPECT_NE(hint->find(std::string("fails exactly when ") + dim + " is not a multiple of 32"), std::string::npos)
        << *hint;
    EXPECT_NE(hint->find("right only on multiples of 32"), std::string::npos) << *hint;
  }
}

TEST(Check, SizePatternSaysRightOnlyOnMultiplesWhenAnyDimensionBreaksIt) {
  std::vector<CaseOutcome> outcomes;
  for (auto [m, n, k] : matmul_shapes()) {
    outcomes.push_back({matmul_case(m, n, k), m % 32 == 0 && n % 32 == 0 && k % 32 == 0});
  }
  auto hint = size_pattern_hint(outcomes);
  ASSERT_TRUE(hint.has_value());
  EXPECT_NE(hint->find("right only on multiples of 32: fails whenever one of M, N and K is not a multiple of 32"),
            std::string::npos)
      << *hint;
}

TEST(Check, VerdictNamesAreStable) {
  EXPECT_STREQ(verdict_name(Verdict::wrong_output), "wrong_output");
  EXPECT_STREQ(verdict_name(Verdict::device_leak), "device_leak");
  EXPECT_STREQ(verdict_title(Verdict::not_implemented), "not implemented");
}

}  // namespace
}  // namespace cudalab
