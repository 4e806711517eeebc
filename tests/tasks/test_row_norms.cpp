// 08_row_norms: the reference against long-double norms; float32 row norms in every order pass;
// each known mistake gets its hint, and a right answer none.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>

#include "task_testing.hpp"

namespace cudalab {
namespace {

const Task& row_norms() { return task_testing::task("08_row_norms"); }

/// A warp-per-row kernel in float32: lane l sums the squares of columns l, l + 32, ... of its row
/// (columns ≥ `columns` skipped), lanes that `lane_kept` refuses are left out of the shuffle tree,
/// and the sum is stored with or without its square root.
std::vector<float> warp_per_row(std::span<const float> A, std::size_t M, std::size_t N,
                                const std::function<bool(std::size_t)>& lane_kept = {}, bool take_sqrt = true,
                                std::size_t columns = SIZE_MAX) {
  std::vector<float> out(M);
  for (std::size_t r = 0; r < M; ++r) {
    std::array<float, 32> lanes{};
    for (std::size_t col = 0; col < std::min(N, columns); ++col) lanes[col % 32] += A[r * N + col] * A[r * N + col];
    std::vector<float> kept;
    for (std::size_t l = 0; l < 32; ++l) {
      if (!lane_kept || lane_kept(l)) kept.push_back(lanes[l]);
    }
    const float s = task_testing::sum_pairwise(kept);
    out[r] = take_sqrt ? std::sqrt(s) : s;
  }
  return out;
}

Buffer as_output(const std::vector<Buffer>& bufs, std::span<const float> values) {
  Buffer out = bufs[1];
  std::copy(values.begin(), values.end(), out.f32().begin());
  return out;
}

std::optional<std::string> row_norms_hint(const Case& c, const std::vector<Buffer>& bufs,
                                          std::span<const float> values) {
  const Expected e = row_norms().reference(c, bufs).at(0);
  return row_norms().diagnose(c, bufs, as_output(bufs, values), e);
}

TEST(RowNorms, ReferenceMatchesLongDoubleNorms) {
  for (const Case& c : task_testing::checked_cases(row_norms())) {
    const auto bufs = task_testing::buffers(row_norms(), c);
    const Expected e = row_norms().reference(c, bufs).at(0);
    EXPECT_EQ(e.buffer, 1u);
    const std::size_t M = c.dim("M"), N = c.dim("N");
    ASSERT_EQ(e.value.size(), M);
    const auto A = bufs[0].f32();
    const double u = 0x1p-24;
    for (std::size_t r = 0; r < M; ++r) {
      long double s = 0;
      for (std::size_t col = 0; col < N; ++col) s += static_cast<long double>(A[r * N + col]) * A[r * N + col];
      const double norm = std::sqrt(static_cast<double>(s));
      ASSERT_NEAR(e.value[r], norm, 1e-13 * norm) << c.label() << " row " << r;
      const double want = norm * u * (4 * std::sqrt(static_cast<double>(N)) + 4) + 0x1p-126;
      ASSERT_NEAR(e.tolerance[r], want, 1e-9 * want) << c.label() << " row " << r;
    }
  }
}

TEST(RowNorms, Float32NormsInEveryOrderPass) {
  for (const Case& c : task_testing::checked_cases(row_norms())) {
    const auto bufs = task_testing::buffers(row_norms(), c);
    const Expected e = row_norms().reference(c, bufs).at(0);
    const std::size_t M = c.dim("M"), N = c.dim("N");
    const auto A = bufs[0].f32();
    std::map<std::string, std::vector<float>> by_order;
    for (std::size_t r = 0; r < M; ++r) {
      std::vector<float> squares(N);
      for (std::size_t col = 0; col < N; ++col) squares[col] = A[r * N + col] * A[r * N + col];
      for (const auto& [order, sum] : task_testing::sums_in_every_order(squares)) {
        auto& norms = by_order[order];
        norms.push_back(std::sqrt(sum));
        // s · rsqrtf(s), rsqrtf off by its worst case of 2 ulp.
        const float inv = std::nextafter(std::nextafter(1.0f / std::sqrt(sum), INFINITY), INFINITY);
        by_order[order + " rsqrt"].push_back(sum * inv);
      }
    }
    for (const auto& [order, norms] : by_order) {
      EXPECT_EQ(task_testing::mismatches(e, norms), 0u) << c.label() << " " << order;
    }
    EXPECT_EQ(task_testing::mismatches(e, warp_per_row(A, M, N)), 0u) << c.label() << " warp per row";
  }
}

TEST(RowNorms, MistakesFail) {
  for (const Case& c : task_testing::checked_cases(row_norms())) {
    const auto bufs = task_testing::buffers(row_norms(), c);
    const Expected e = row_norms().reference(c, bufs).at(0);
    const std::size_t M = c.dim("M"), N = c.dim("N");
    auto norms = warp_per_row(bufs[0].f32(), M, N);
    std::size_t at = 0;
    while (e.value[at] < 0.5) ++at;
    norms[at] *= 1.001f;  // one row 0.1% off
    EXPECT_EQ(task_testing::mismatches(e, norms), 1u) << c.label();
    std::vector<double> shifted(e.value);
    shifted[at] += 10 * e.tolerance[at];
    EXPECT_EQ(task_testing::mismatches(e, shifted), 1u) << c.label();
    if (N > 1 && N <= 4097) {  // a row without its last column (a bound c < N - 1)
      EXPECT_GT(task_testing::mismatches(e, warp_per_row(bufs[0].f32(), M, N, {}, true, N - 1)), 0u) << c.label();
    }
  }
}

TEST(RowNorms, HintWhenTheSquareRootIsMissing) {
  for (const char* label : {"M=2 N=1", "M=33 N=33", "M=3 N=4097", "M=100003 N=3"}) {
    const Case c = task_testing::case_labelled(row_norms(), label);
    const auto bufs = task_testing::buffers(row_norms(), c);
    const auto hint = row_norms_hint(c, bufs, warp_per_row(bufs[0].f32(), c.dim("M"), c.dim("N"), {}, false));
    ASSERT_TRUE(hint) << label;
    EXPECT_NE(hint->find("norms² — forgot the square root"), std::string::npos) << *hint;
  }
}

TEST(RowNorms, HintWhenOnlyTheFirstColumnsAreRead) {
  for (const auto& [label, width] : {std::pair{"M=3 N=33", 32}, {"M=1023 N=1025", 32}, {"M=3 N=4097", 256}}) {
    const Case c = task_testing::case_labelled(row_norms(), label);
    const auto bufs = task_testing::buffers(row_norms(), c);
    const auto hint = row_norms_hint(c, bufs, warp_per_row(bufs[0].f32(), c.dim("M"), c.dim("N"), {}, true, width));
    ASSERT_TRUE(hint) << label;
    EXPECT_NE(hint->find("only the first " + std::to_string(width) + " columns"), std::string::npos) << *hint;
  }
}

TEST(RowNorms, HintWhenTheShuffleTreeMissesLanes) {
  const Case c = task_testing::case_labelled(row_norms(), "M=255 N=257");
  const auto bufs = task_testing::buffers(row_norms(), c);
  const std::size_t M = c.dim("M"), N = c.dim("N");
  auto hint = row_norms_hint(c, bufs, warp_per_row(bufs[0].f32(), M, N, [](std::size_t l) { return l % 2 == 0; }));
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("stopped before offset 1"), std::string::npos) << *hint;
  hint = row_norms_hint(c, bufs, warp_per_row(bufs[0].f32(), M, N, [](std::size_t l) { return l < 16; }));
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("lanes 0 to 15"), std::string::npos) << *hint;
}

TEST(RowNorms, HintWhenOnlyTheFirstRowsAreWritten) {
  for (const auto& [label, rows] : {std::pair{"M=1000 N=3", 8}, {"M=100003 N=3", 16384}}) {
    const Case c = task_testing::case_labelled(row_norms(), label);
    const auto bufs = task_testing::buffers(row_norms(), c);
    auto norms = warp_per_row(bufs[0].f32(), c.dim("M"), c.dim("N"));
    std::fill(norms.begin() + rows, norms.end(), std::numeric_limits<float>::quiet_NaN());
    const auto hint = row_norms_hint(c, bufs, norms);
    ASSERT_TRUE(hint) << label;
    EXPECT_NE(hint->find("only the first " + std::to_string(rows) + " rows"), std::string::npos) << *hint;
    EXPECT_NE(hint->find(rows <= 1024 ? "one block's worth" : "the grid covers"), std::string::npos) << *hint;
  }
}

TEST(RowNorms, NoHintForARightOrUnrelatedAnswer) {
  for (const Case& c : task_testing::checked_cases(row_norms())) {
    const auto bufs = task_testing::buffers(row_norms(), c);
    const auto right = warp_per_row(bufs[0].f32(), c.dim("M"), c.dim("N"));
    EXPECT_EQ(row_norms_hint(c, bufs, right), std::nullopt) << c.label();
    std::vector<float> scaled(right);
    for (float& v : scaled) v *= 1.5f;
    EXPECT_EQ(row_norms_hint(c, bufs, scaled), std::nullopt) << c.label();
  }
}

}  // namespace
}  // namespace cudalab
