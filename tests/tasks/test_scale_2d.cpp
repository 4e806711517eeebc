// 06_scale_2d: the reference scales each row by its own factor; float32 kernels pass; the 2D
// launch is required; the hints for swapped indices and a row stride of M.
#include <bit>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "task_testing.hpp"

namespace cudalab {
namespace {

const Task& scale_2d() { return task_testing::task("06_scale_2d"); }

/// What a kernel computes: B[r][c] = s[index(r, c)] * A[at(r, c)], in float32, NaN where unwritten.
template <typename Factor, typename At>
std::vector<float> scaled(const std::vector<Buffer>& bufs, std::size_t M, std::size_t N, Factor factor, At at) {
  const auto A = bufs[0].f32();
  const auto s = bufs[1].f32();
  std::vector<float> B(M * N, NAN);
  for (std::size_t r = 0; r < M; ++r) {
    for (std::size_t c = 0; c < N; ++c) {
      const std::size_t where = at(r, c);
      if (where < M * N) B[where] = s[factor(r, c)] * A[where];
    }
  }
  return B;
}

TEST(Scale2d, ReferenceScalesEachRowAndAFloat32KernelPasses) {
  EXPECT_TRUE(scale_2d().info().requires_2d_launch);
  for (const Case& c : task_testing::small_cases(scale_2d())) {
    const std::size_t M = c.dim("M"), N = c.dim("N");
    const auto bufs = task_testing::buffers(scale_2d(), c);
    ASSERT_EQ(bufs[2].rows, static_cast<int>(M));
    ASSERT_EQ(bufs[2].cols, static_cast<int>(N));
    const Expected e = scale_2d().reference(c, bufs).at(0);
    EXPECT_EQ(e.buffer, 2u);
    const auto right = scaled(
        bufs, M, N, [](auto r, auto) { return r; }, [N](auto r, auto col) { return r * N + col; });
    EXPECT_EQ(task_testing::mismatches(e, right), 0u) << c.label();
    for (std::size_t r = 0; r < M; ++r) {
      EXPECT_EQ(e.value[r * N], static_cast<double>(bufs[1].f32()[r]) * bufs[0].f32()[r * N]) << c.label();
    }
  }
}

TEST(Scale2d, HintsNameTheSwapTheRowStrideAndACopy) {
  const Case c = task_testing::case_labelled(scale_2d(), "M=100 N=1");
  const auto bufs = task_testing::buffers(scale_2d(), c);
  const Expected e = scale_2d().reference(c, bufs).at(0);
  const std::size_t M = 100, N = 1;

  const auto by_column = scaled(
      bufs, M, N, [](auto, auto col) { return col; }, [N](auto r, auto col) { return r * N + col; });
  ASSERT_GT(task_testing::mismatches(e, by_column), 0u);
  EXPECT_NE(scale_2d()
                .diagnose(c, bufs, task_testing::output_buffer("B", by_column), e)
                .value_or("")
                .find("instead of s[row]"),
            std::string::npos);

  const Case tall = task_testing::case_labelled(scale_2d(), "M=257 N=255");
  const auto tall_bufs = task_testing::buffers(scale_2d(), tall);
  const Expected tall_e = scale_2d().reference(tall, tall_bufs).at(0);
  const auto m_apart = scaled(
      tall_bufs, 257, 255, [](auto r, auto) { return r; }, [](auto r, auto col) { return r * 257 + col; });
  ASSERT_GT(task_testing::mismatches(tall_e, m_apart), 0u);
  EXPECT_NE(scale_2d()
                .diagnose(tall, tall_bufs, task_testing::output_buffer("B", m_apart), tall_e)
                .value_or("")
                .find("row r starts at r * N"),
            std::string::npos);

  std::vector<float> copy(bufs[0].f32().begin(), bufs[0].f32().end());
  EXPECT_NE(scale_2d().diagnose(c, bufs, task_testing::output_buffer("B", copy), e).value_or("").find("B equals A"),
            std::string::npos);

  const auto right = scaled(
      bufs, M, N, [](auto r, auto) { return r; }, [N](auto r, auto col) { return r * N + col; });
  EXPECT_FALSE(scale_2d().diagnose(c, bufs, task_testing::output_buffer("B", right), e).has_value());
}

// The harness's poison: what an element never written holds.
float poison() { return std::bit_cast<float>(0x7FA0DEADu); }

// A wide matrix with rows M apart: rows overlap (the later row's thread wins, as on the simulator)
// and B's tail is never written, the pattern of a short grid; the diagnosis names the stride.
TEST(Scale2d, AWideMatrixWithRowsMApartGetsTheRowStrideHint) {
  for (const char* label : {"M=3 N=5", "M=17 N=33", "M=3 N=1000", "M=255 N=257"}) {
    const Case c = task_testing::case_labelled(scale_2d(), label);
    const std::size_t M = c.dim("M"), N = c.dim("N");
    const auto bufs = task_testing::buffers(scale_2d(), c);
    const Expected e = scale_2d().reference(c, bufs).at(0);
    const auto A = bufs[0].f32();
    const auto s = bufs[1].f32();
    std::vector<float> B(M * N, poison());
    for (std::size_t r = 0; r < M; ++r) {
      for (std::size_t col = 0; col < N; ++col) B[r * M + col] = s[r] * A[r * M + col];
    }
    ASSERT_GT(task_testing::mismatches(e, B), 0u) << label;
    EXPECT_NE(
        scale_2d().diagnose(c, bufs, task_testing::output_buffer("B", B), e).value_or("").find("row r starts at r * N"),
        std::string::npos)
        << label;
  }
}

// s[col] where N > M: the columns from M on read past s; the hint names the index, not the grid.
TEST(Scale2d, AFactorIndexedByTheColumnPastSIsNamed) {
  for (const char* label : {"M=1 N=2", "M=3 N=5", "M=17 N=33"}) {
    const Case c = task_testing::case_labelled(scale_2d(), label);
    const std::size_t M = c.dim("M"), N = c.dim("N");
    const auto bufs = task_testing::buffers(scale_2d(), c);
    const Expected e = scale_2d().reference(c, bufs).at(0);
    const auto A = bufs[0].f32();
    const auto s = bufs[1].f32();
    std::vector<float> B(M * N);
    for (std::size_t r = 0; r < M; ++r) {
      for (std::size_t col = 0; col < N; ++col) {
        const float factor = col < M ? s[col] : 0.0f;  // past s: whatever lies there
        B[r * N + col] = factor * A[r * N + col];
      }
    }
    const auto hint = scale_2d().diagnose(c, bufs, task_testing::output_buffer("B", B), e).value_or("");
    EXPECT_NE(hint.find("s is indexed by the column"), std::string::npos) << label << ": " << hint;
    EXPECT_NE(hint.find("every column from " + std::to_string(M) + " on is wrong"), std::string::npos) << hint;
  }
  // Columns from M on never written (a bound of col < M): not the factor's index.
  const Case c = task_testing::case_labelled(scale_2d(), "M=3 N=5");
  const auto bufs = task_testing::buffers(scale_2d(), c);
  const Expected e = scale_2d().reference(c, bufs).at(0);
  const auto right = scaled(
      bufs, 3, 5, [](auto r, auto) { return r; }, [](auto r, auto col) { return r * 5 + col; });
  std::vector<float> cut = right;
  for (std::size_t r = 0; r < 3; ++r) {
    for (std::size_t col = 3; col < 5; ++col) cut[r * 5 + col] = poison();
  }
  EXPECT_EQ(
      scale_2d().diagnose(c, bufs, task_testing::output_buffer("B", cut), e).value_or("").find("indexed by the column"),
      std::string::npos);
}

}  // namespace
}  // namespace cudalab
