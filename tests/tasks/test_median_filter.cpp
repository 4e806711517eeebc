// 13_median_filter: the reference is the clamped 3×3 median exactly; the inputs have ties and
// impulses; the CPU baseline matches; the hints name the mean, the copy, a window of 8, unclamped
// borders and swapped x and y, and stay quiet otherwise.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "task_testing.hpp"

namespace cudalab {
namespace {

const Task& median() { return task_testing::task("13_median_filter"); }

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// The 9 window values of (y, x), clamped, gathered independently of the task's own helper.
std::vector<float> window_of(std::span<const float> img, std::int64_t H, std::int64_t W, std::int64_t y,
                             std::int64_t x) {
  std::vector<float> w;
  for (const std::int64_t yy : {y - 1, y, y + 1}) {
    for (const std::int64_t xx : {x - 1, x, x + 1}) {
      const std::int64_t cy = yy < 0 ? 0 : (yy >= H ? H - 1 : yy);
      const std::int64_t cx = xx < 0 ? 0 : (xx >= W ? W - 1 : xx);
      w.push_back(img[cy * W + cx]);
    }
  }
  return w;
}

/// f(window, y, x) at every pixel.
template <typename F>
std::vector<float> filtered(const Case& c, std::span<const float> img, F f) {
  const std::int64_t H = c.dim("H"), W = c.dim("W");
  std::vector<float> out(img.size());
  for (std::int64_t y = 0; y < H; ++y) {
    for (std::int64_t x = 0; x < W; ++x) out[y * W + x] = f(window_of(img, H, W, y, x), y, x);
  }
  return out;
}

float sorted_at(std::vector<float> w, std::size_t k) {
  std::ranges::sort(w);
  return w[k];
}

std::optional<std::string> median_hint(const Case& c, const std::vector<Buffer>& bufs, const std::vector<float>& out) {
  const Expected e = median().reference(c, bufs).at(0);
  Buffer actual = bufs[1];
  std::copy(out.begin(), out.end(), actual.f32().begin());
  return median().diagnose(c, bufs, actual, e);
}

bool contains(const std::optional<std::string>& hint, const std::string& text) {
  return hint && hint->find(text) != std::string::npos;
}

TEST(MedianFilter, ReferenceIsTheClampedMedianExactly) {
  for (const Case& c : task_testing::small_cases(median())) {
    const auto bufs = task_testing::buffers(median(), c);
    const Expected e = median().reference(c, bufs).at(0);
    EXPECT_EQ(e.buffer, 1u);
    const auto want = filtered(c, bufs[0].f32(), [](auto w, auto, auto) { return sorted_at(w, 4); });
    ASSERT_EQ(e.value.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(e.value[i], static_cast<double>(want[i])) << c.label();
    for (std::size_t i = 0; i < e.value.size(); ++i) ASSERT_EQ(e.tolerance_at(i), 0.0);
    EXPECT_EQ(bufs[1].rows, c.dim("H"));
    EXPECT_EQ(bufs[1].cols, c.dim("W"));
  }
}

TEST(MedianFilter, InputsHaveImpulsesTiesAndNoAllZeros) {
  const Case c = task_testing::case_labelled(median(), "H=64 W=48");  // H + W even: quantised
  const auto bufs = task_testing::buffers(median(), c);
  const auto img = bufs[0].f32();
  const auto salt = std::ranges::count(img, 8.0f), pepper = std::ranges::count(img, -8.0f);
  EXPECT_GT(salt, 64) << "about 5 % salt";
  EXPECT_GT(pepper, 64) << "about 5 % pepper";
  std::vector<float> levels(img.begin(), img.end());
  std::ranges::sort(levels);
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  EXPECT_LE(levels.size(), 7u) << "a small set of values: many ties";
  const Case smooth = task_testing::case_labelled(median(), "H=1000 W=3");  // H + W odd: not quantised
  const auto smooth_bufs = task_testing::buffers(median(), smooth);
  const auto other = smooth_bufs[0].f32();
  std::vector<float> many(other.begin(), other.end());
  std::ranges::sort(many);
  EXPECT_GT(std::unique(many.begin(), many.end()) - many.begin(), 1000);
  for (const Case& small : task_testing::small_cases(median())) {
    const auto small_bufs = task_testing::buffers(median(), small);
    EXPECT_TRUE(std::ranges::any_of(small_bufs[0].f32(), [](float v) { return v != 0.0f; })) << small.label();
  }
}

TEST(MedianFilter, MedianPassesAndNeighbouringRanksFail) {
  for (const Case& c : task_testing::small_cases(median())) {
    const auto bufs = task_testing::buffers(median(), c);
    const Expected e = median().reference(c, bufs).at(0);
    const auto img = bufs[0].f32();
    EXPECT_EQ(task_testing::mismatches(e, filtered(c, img, [](auto w, auto, auto) { return sorted_at(w, 4); })), 0u);
    if (c.dim("H") * c.dim("W") < 200) continue;  // enough pixels for a rank to differ somewhere
    EXPECT_GT(task_testing::mismatches(e, filtered(c, img, [](auto w, auto, auto) { return sorted_at(w, 3); })), 0u);
    EXPECT_GT(task_testing::mismatches(e, filtered(c, img, [](auto w, auto, auto) { return sorted_at(w, 5); })), 0u);
  }
}

TEST(MedianFilter, CpuSolveIsTheMedian) {
  auto cases = task_testing::small_cases(median());
  cases.push_back(median().cases(CaseOptions{true}).back());
  for (const Case& c : cases) {
    for (const int threads : {1, 2}) {
      auto bufs = task_testing::buffers(median(), c);
      const Expected e = median().reference(c, bufs).at(0);
      for (float& v : bufs[1].f32()) v = kNaN;
      median().cpu_solve(c, bufs, threads);
      EXPECT_EQ(task_testing::mismatches(e, bufs[1].f32()), 0u) << c.label() << " on " << threads << " threads";
    }
  }
}

TEST(MedianFilter, HintWhenTheImageIsCopied) {
  const Case c = task_testing::case_labelled(median(), "H=33 W=33");
  const auto bufs = task_testing::buffers(median(), c);
  const std::vector<float> copy(bufs[0].f32().begin(), bufs[0].f32().end());
  EXPECT_TRUE(contains(median_hint(c, bufs, copy), "out equals image"));
}

TEST(MedianFilter, HintWhenTheMeanIsTaken) {
  for (const char* label : {"H=3 W=5", "H=33 W=33", "H=255 W=257"}) {
    const Case c = task_testing::case_labelled(median(), label);
    const auto bufs = task_testing::buffers(median(), c);
    const auto mean = filtered(c, bufs[0].f32(), [](auto w, auto, auto) {
      float s = 0.0f;
      for (const float v : w) s += v;
      return s / 9.0f;
    });
    EXPECT_TRUE(contains(median_hint(c, bufs, mean), "the mean of each 3×3 window")) << label;
  }
}

TEST(MedianFilter, HintWhenAnotherRankIsTaken) {
  const Case c = task_testing::case_labelled(median(), "H=64 W=48");
  const auto bufs = task_testing::buffers(median(), c);
  const auto rank5 = filtered(c, bufs[0].f32(), [](auto w, auto, auto) { return sorted_at(w, 5); });
  EXPECT_TRUE(contains(median_hint(c, bufs, rank5), "value number 6 of the 9"));
}

TEST(MedianFilter, HintWhenOneNeighbourIsLeftOut) {
  for (const char* label : {"H=33 W=33", "H=63 W=65"}) {
    const Case c = task_testing::case_labelled(median(), label);
    const auto bufs = task_testing::buffers(median(), c);
    const auto eight = filtered(c, bufs[0].f32(), [](auto w, auto, auto) {
      w.pop_back();  // the bottom-right neighbour
      return sorted_at(w, 4);
    });
    const auto hint = median_hint(c, bufs, eight);
    EXPECT_TRUE(contains(hint, "upper middle of 8 of the 9 window values, the bottom-right")) << label;
  }
}

TEST(MedianFilter, HintWhenBordersAreNotClamped) {
  const Case c = task_testing::case_labelled(median(), "H=33 W=33");
  const auto bufs = task_testing::buffers(median(), c);
  const std::int64_t H = 33, W = 33;
  // Outside the image the window reads something else (here: 0.1).
  const auto unclamped = filtered(c, bufs[0].f32(), [&](auto w, std::int64_t y, std::int64_t x) {
    int k = 0;
    for (std::int64_t yy = y - 1; yy <= y + 1; ++yy) {
      for (std::int64_t xx = x - 1; xx <= x + 1; ++xx, ++k) {
        if (yy < 0 || yy >= H || xx < 0 || xx >= W) w[k] = 0.1f;
      }
    }
    return sorted_at(w, 4);
  });
  EXPECT_TRUE(contains(median_hint(c, bufs, unclamped), "only pixels on the image's border are wrong"));
  // The last row and column never written (a grid that stops short): not a border problem.
  auto short_grid = filtered(c, bufs[0].f32(), [](auto w, auto, auto) { return sorted_at(w, 4); });
  for (std::int64_t i = 0; i < H * W; ++i) {
    if (i / W == H - 1 || i % W == W - 1) short_grid[i] = kNaN;
  }
  EXPECT_FALSE(contains(median_hint(c, bufs, short_grid), "border"));
}

TEST(MedianFilter, HintWhenXAndYAreSwapped) {
  for (const char* label : {"H=1 W=100", "H=100 W=1", "H=17 W=33", "H=255 W=257"}) {
    const Case c = task_testing::case_labelled(median(), label);
    const auto bufs = task_testing::buffers(median(), c);
    const std::int64_t H = c.dim("H"), W = c.dim("W");
    // 16×16 blocks, a grid sized for x across W, the row taken from x.
    const std::int64_t rows = std::min(H, (W + 15) / 16 * 16), cols = std::min(W, (H + 15) / 16 * 16);
    auto out = filtered(c, bufs[0].f32(), [&](auto w, std::int64_t y, std::int64_t x) {
      return y < rows && x < cols ? sorted_at(w, 4) : kNaN;
    });
    EXPECT_TRUE(contains(median_hint(c, bufs, out), "x and y are swapped")) << label;
  }
}

TEST(MedianFilter, NoHintWhenNothingMatches) {
  const Case c = task_testing::case_labelled(median(), "H=64 W=48");
  const auto bufs = task_testing::buffers(median(), c);
  auto out = filtered(c, bufs[0].f32(), [](auto w, auto, auto) { return sorted_at(w, 4) * 2.0f + 1.0f; });
  EXPECT_EQ(median_hint(c, bufs, out), std::nullopt);
  out.assign(out.size(), kNaN);
  EXPECT_EQ(median_hint(c, bufs, out), std::nullopt);
  // One interior pixel wrong: no pattern to name.
  out = filtered(c, bufs[0].f32(), [](auto w, auto, auto) { return sorted_at(w, 4); });
  out[20 * 48 + 20] = 123.0f;
  EXPECT_EQ(median_hint(c, bufs, out), std::nullopt);
}

}  // namespace
}  // namespace cudalab
