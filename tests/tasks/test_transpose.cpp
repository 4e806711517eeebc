// 09_transpose: the reference is Aᵀ exactly; the CPU baseline matches it; the hints name the
// misplaced tile, the copy and B indexed as M×N, and stay quiet otherwise.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "task_testing.hpp"

namespace cudalab {
namespace {

const Task& transpose() { return task_testing::task("09_transpose"); }

struct Shape {
  std::int64_t M, N;
};

Shape shape(const Case& c) { return {c.dim("M"), c.dim("N")}; }

/// Aᵀ, element by element.
std::vector<float> transposed(std::span<const float> A, Shape s) {
  std::vector<float> B(A.size());
  for (std::int64_t r = 0; r < s.M; ++r) {
    for (std::int64_t c = 0; c < s.N; ++c) B[c * s.M + r] = A[r * s.N + c];
  }
  return B;
}

/// What a tiled kernel writes when it computes each tile's place in B without swapping blockIdx.x
/// and blockIdx.y: B's tile (i, j) is A's tile (i, j) transposed within itself; elements whose
/// tile element lies outside A are left NaN.
std::vector<float> unswapped_tiles(std::span<const float> A, Shape s, std::int64_t T) {
  std::vector<float> B(A.size(), std::numeric_limits<float>::quiet_NaN());
  for (std::int64_t R = 0; R < s.N; ++R) {
    for (std::int64_t C = 0; C < s.M; ++C) {
      const std::int64_t r = (R / T) * T + C % T, c = (C / T) * T + R % T;
      if (r < s.M && c < s.N) B[R * s.M + C] = A[r * s.N + c];
    }
  }
  return B;
}

std::optional<std::string> hint_for(const Case& c, const std::vector<Buffer>& bufs, const std::vector<float>& out) {
  const Expected e = transpose().reference(c, bufs).at(0);
  Buffer actual = bufs[1];
  std::copy(out.begin(), out.end(), actual.f32().begin());
  return transpose().diagnose(c, bufs, actual, e);
}

bool contains(const std::optional<std::string>& hint, const std::string& text) {
  return hint && hint->find(text) != std::string::npos;
}

TEST(Transpose, ReferenceIsTheTransposeExactly) {
  for (const Case& c : task_testing::small_cases(transpose())) {
    const auto bufs = task_testing::buffers(transpose(), c);
    const Expected e = transpose().reference(c, bufs).at(0);
    EXPECT_EQ(e.buffer, 1u);
    const auto [M, N] = shape(c);
    const auto A = bufs[0].f32();
    ASSERT_EQ(e.value.size(), A.size());
    for (std::int64_t r = 0; r < M; ++r) {
      for (std::int64_t col = 0; col < N; ++col) {
        ASSERT_EQ(e.value[col * M + r], static_cast<double>(A[r * N + col])) << c.label();
      }
    }
    for (std::size_t i = 0; i < e.value.size(); ++i) ASSERT_EQ(e.tolerance_at(i), 0.0);
    // B is N×M for the report's [row][column] indices.
    EXPECT_EQ(bufs[1].rows, N);
    EXPECT_EQ(bufs[1].cols, M);
  }
}

TEST(Transpose, InputsAreDistinctAndNotZero) {
  const Case c = task_testing::case_labelled(transpose(), "M=64 N=48");
  const auto bufs = task_testing::buffers(transpose(), c);
  std::vector<float> a(bufs[0].f32().begin(), bufs[0].f32().end());
  std::ranges::sort(a);
  EXPECT_EQ(std::ranges::adjacent_find(a), a.end()) << "every element must tell where it came from";
  EXPECT_NE(a.front(), a.back());
}

TEST(Transpose, ExactTransposePassesAndOneMovedElementFails) {
  for (const Case& c : task_testing::small_cases(transpose())) {
    const auto bufs = task_testing::buffers(transpose(), c);
    const Expected e = transpose().reference(c, bufs).at(0);
    auto B = transposed(bufs[0].f32(), shape(c));
    EXPECT_EQ(task_testing::mismatches(e, B), 0u) << c.label();
    if (B.size() < 2) continue;
    std::swap(B.front(), B.back());
    EXPECT_EQ(task_testing::mismatches(e, B), 2u) << c.label();
    std::swap(B.front(), B.back());
    B[B.size() / 2] = std::nextafter(B[B.size() / 2], INFINITY);  // one ulp off: not a transpose
    EXPECT_EQ(task_testing::mismatches(e, B), 1u) << c.label();
  }
}

TEST(Transpose, CpuSolveIsTheTranspose) {
  auto cases = task_testing::small_cases(transpose());
  cases.push_back(transpose().cases(CaseOptions{true}).back());
  for (const Case& c : cases) {
    for (const int threads : {1, 2}) {
      auto bufs = task_testing::buffers(transpose(), c);
      const Expected e = transpose().reference(c, bufs).at(0);
      for (float& v : bufs[1].f32()) v = std::numeric_limits<float>::quiet_NaN();
      transpose().cpu_solve(c, bufs, threads);
      EXPECT_EQ(task_testing::mismatches(e, bufs[1].f32()), 0u) << c.label() << " on " << threads << " threads";
    }
  }
}

TEST(Transpose, CostIsACopy) {
  const Case c = task_testing::case_labelled(transpose(), "M=255 N=257");
  EXPECT_EQ(transpose().cost(c).bytes, 8.0 * 255 * 257);
  EXPECT_EQ(transpose().cost(c).flops, 0.0);
}

TEST(Transpose, HintWhenCopied) {
  const Case c = task_testing::case_labelled(transpose(), "M=17 N=33");
  const auto bufs = task_testing::buffers(transpose(), c);
  const std::vector<float> copy(bufs[0].f32().begin(), bufs[0].f32().end());
  EXPECT_TRUE(contains(hint_for(c, bufs, copy), "the matrix was copied, not transposed"));
}

TEST(Transpose, HintWhenBIsIndexedAsMByN) {
  for (const char* label : {"M=3 N=5", "M=32 N=31", "M=257 N=255", "M=1000 N=3"}) {
    const Case c = task_testing::case_labelled(transpose(), label);
    const auto bufs = task_testing::buffers(transpose(), c);
    const auto [M, N] = shape(c);
    const auto A = bufs[0].f32();
    // A kernel that bounds and indexes B as M×N (`if (c < M && r < N) B[c * N + r]`): B[c * N + r]
    // = A[r][c] where A has that element, garbage (NaN) where its tile element was never loaded.
    std::vector<float> out(A.size(), std::numeric_limits<float>::quiet_NaN());
    for (std::int64_t col = 0; col < M; ++col) {
      for (std::int64_t r = 0; r < N; ++r) {
        if (r < M && col < N) out[col * N + r] = A[r * N + col];
      }
    }
    EXPECT_TRUE(contains(hint_for(c, bufs, out), "B is indexed as if it were M×N")) << label;
  }
}

TEST(Transpose, HintWhenTilesAreNotMirrored) {
  for (const std::int64_t T : {16, 32}) {
    for (const char* label : {"M=33 N=33", "M=64 N=48", "M=255 N=257", "M=17 N=33"}) {
      const Case c = task_testing::case_labelled(transpose(), label);
      const auto bufs = task_testing::buffers(transpose(), c);
      if (T == 32 && std::string(label) == "M=17 N=33") continue;  // one tile column: below
      const auto hint = hint_for(c, bufs, unswapped_tiles(bufs[0].f32(), shape(c), T));
      EXPECT_TRUE(contains(hint, "Swap blockIdx.x and blockIdx.y")) << label << " T=" << T;
      EXPECT_TRUE(contains(hint, std::to_string(T) + "×" + std::to_string(T))) << label << " T=" << T << ": " << *hint;
    }
  }
  // Where B has tiles on one side of the diagonal only, a grid one tile short (the last tile row
  // never written) leaves the same output: the swap is not claimed there.
  for (const auto& [T, label] : std::vector<std::pair<std::int64_t, const char*>>{
           {16, "M=1 N=100"}, {16, "M=100 N=1"}, {32, "M=1 N=100"}, {32, "M=100 N=1"}, {32, "M=17 N=33"}}) {
    const Case c = task_testing::case_labelled(transpose(), label);
    const auto bufs = task_testing::buffers(transpose(), c);
    EXPECT_FALSE(contains(hint_for(c, bufs, unswapped_tiles(bufs[0].f32(), shape(c), T)), "Swap blockIdx"))
        << label << " T=" << T;
  }
}

TEST(Transpose, HintWhenTilesAreNotTransposedWithin) {
  const Case c = task_testing::case_labelled(transpose(), "M=64 N=48");
  const auto bufs = task_testing::buffers(transpose(), c);
  const auto [M, N] = shape(c);
  const auto A = bufs[0].f32();
  constexpr std::int64_t kTile = 32;
  // The right tile of B, holding the tile of A as it was.
  std::vector<float> out(A.size(), std::numeric_limits<float>::quiet_NaN());
  for (std::int64_t R = 0; R < N; ++R) {
    for (std::int64_t C = 0; C < M; ++C) {
      const std::int64_t r = (C / kTile) * kTile + R % kTile, col = (R / kTile) * kTile + C % kTile;
      if (r < M && col < N) out[R * M + C] = A[r * N + col];
    }
  }
  EXPECT_TRUE(contains(hint_for(c, bufs, out), "holds its elements untransposed"));
}

TEST(Transpose, NoHintWhenNothingMatches) {
  const Case c = task_testing::case_labelled(transpose(), "M=64 N=48");
  const auto bufs = task_testing::buffers(transpose(), c);
  auto out = transposed(bufs[0].f32(), shape(c));
  for (float& v : out) v *= 2.0f;
  EXPECT_EQ(hint_for(c, bufs, out), std::nullopt);
  out.assign(out.size(), std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(hint_for(c, bufs, out), std::nullopt);
  // Right except one element: no pattern to name.
  out = transposed(bufs[0].f32(), shape(c));
  out[100] = 0.0f;
  EXPECT_EQ(hint_for(c, bufs, out), std::nullopt);
}

}  // namespace
}  // namespace cudalab
