// 13_median_filter: out[y][x] = the median of the 3×3 window around (y, x), borders clamped, with
// device pointers; each thread sorts its window in a private (local) array.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <utility>

#include "../task_support.hpp"

namespace cudalab::tasks {
namespace {

/// Value of the salt and the pepper pixels of the impulse noise: far outside the image's range, so
/// that a mean (or a window that lets one through) shows at once.
constexpr float kSalt = 8.0f;
constexpr float kPepper = -8.0f;

/// An H×W image case (H rows, W columns, row-major).
Case image_case(std::int64_t H, std::int64_t W, bool large = false) { return Case{{{"H", H}, {"W", W}}, large}; }

/// The 9 values of the window around (y, x), row by row (dy = −1, 0, 1, and within a row dx = −1,
/// 0, 1), with rows clamped to [0, H − 1] and columns to [0, W − 1].
std::array<float, 9> window(std::span<const float> image, std::int64_t H, std::int64_t W, std::int64_t y,
                            std::int64_t x) {
  std::array<float, 9> w{};
  int k = 0;
  for (std::int64_t dy = -1; dy <= 1; ++dy) {
    const std::int64_t yy = std::clamp(y + dy, std::int64_t{0}, H - 1);
    for (std::int64_t dx = -1; dx <= 1; ++dx) w[k++] = image[yy * W + std::clamp(x + dx, std::int64_t{0}, W - 1)];
  }
  return w;
}

/// The median of 9 with min and max only, no branches: sort each row of the window (3 compare-and-
/// swap steps each), then the median is the middle of (largest of the row minima, median of the row
/// middles, smallest of the row maxima). Exact: it returns one of the 9 values.
inline float median9(float a0, float a1, float a2, float b0, float b1, float b2, float c0, float c1, float c2) {
  auto sort3 = [](float& x, float& y, float& z) {
    const float lo = std::min(x, y), hi = std::max(x, y);
    const float top = std::max(hi, z), m = std::min(hi, z);
    x = std::min(lo, m), y = std::max(lo, m), z = top;
  };
  auto med3 = [](float x, float y, float z) { return std::max(std::min(x, y), std::min(std::max(x, y), z)); };
  sort3(a0, a1, a2);
  sort3(b0, b1, b2);
  sort3(c0, c1, c2);
  return med3(std::max(std::max(a0, b0), c0), med3(a1, b1, c1), std::min(std::min(a2, b2), c2));
}

class MedianFilterTask final : public Task {
 public:
  MedianFilterTask() {
    info_.number = 13;
    info_.id = "13_median_filter";
    info_.name = "median_filter";
    info_.summary = "3×3 median filter with clamped borders, a sorted window per thread";
    info_.teaches = "per-thread local arrays; image borders";
    info_.pointers = PointerKind::device;
    info_.signature.params = {
        {Param::Kind::buffer, "image", DType::f32, true},
        {Param::Kind::buffer, "out", DType::f32, false},
        {Param::Kind::scalar_int, "H", DType::i32, false},
        {Param::Kind::scalar_int, "W", DType::i32, false},
    };
  }

  [[nodiscard]] const TaskInfo& info() const override { return info_; }

  // Single pixels, a row, a column, 2×2 and 3×3 (every pixel a border pixel), shapes at 16, 32 and
  // 64 (block and tile edges) ±1, tall and wide images, one large: 8192×8193 on the GPU, about a
  // million pixels on the simulator.
  [[nodiscard]] std::vector<Case> cases(const CaseOptions& options) const override {
    std::vector<Case> out;
    for (const auto& [H, W] : std::initializer_list<std::pair<std::int64_t, std::int64_t>>{
             {1, 1},   {1, 2},    {2, 1},    {2, 2},     {3, 3},     {3, 5},      {1, 100}, {100, 1},
             {15, 17}, {16, 16},  {17, 33},  {31, 32},   {32, 31},   {33, 33},    {63, 65}, {65, 63},
             {64, 48}, {1000, 3}, {3, 1000}, {255, 257}, {257, 255}, {1023, 1025}}) {
      out.push_back(image_case(H, W));
    }
    out.push_back(options.simulator ? image_case(1027, 1021, true) : image_case(8192, 8193, true));
    return out;
  }

  // A ramp with a little noise, on every other case quantised to 5 levels (many equal values in a
  // window: the median must handle ties), then impulse noise: 1 pixel in 10 is salt (+8) or pepper
  // (−8). The impulses are what a median filter removes and a mean smears: the outputs of the
  // usual mistakes differ from the median at most pixels.
  [[nodiscard]] std::vector<Buffer> make_buffers(const Case& c, Rng& rng) const override {
    const std::size_t H = dim_size(c, "H"), W = dim_size(c, "W");
    Buffer image = Buffer::make("image", DType::f32, Role::input, H * W);
    image.rows = static_cast<int>(H);  // its shape, for `cudalab show`'s pictures
    image.cols = static_cast<int>(W);
    auto px = image.f32();
    std::vector<float> noise(H * W), impulse(H * W);
    fill_uniform(noise, 0.0f, 0.125f, rng);
    fill_uniform(impulse, 0.0f, 1.0f, rng);
    const bool quantised = (H + W) % 2 == 0;
    for (std::size_t y = 0; y < H; ++y) {
      for (std::size_t x = 0; x < W; ++x) {
        const std::size_t i = y * W + x;
        float v = static_cast<float>((3 * x + 5 * y) % 64) / 64.0f + noise[i];  // in [0, 1.125)
        if (quantised) v = std::floor(v * 4.0f) / 4.0f;                         // 0, 0.25, ..., 1
        if (impulse[i] < 0.05f) v = kPepper;
        if (impulse[i] > 0.95f) v = kSalt;
        px[i] = v;
      }
    }
    ensure_not_all_zero(px, 0.5f);
    Buffer out = Buffer::make("out", DType::f32, Role::output, H * W);
    out.rows = static_cast<int>(H);
    out.cols = static_cast<int>(W);
    return {std::move(image), std::move(out)};
  }

  // The median of 9 floats is one of them, whatever the order of comparisons: exact (tolerance 0, left empty).
  [[nodiscard]] std::vector<Expected> reference(const Case& c, const std::vector<Buffer>& inputs) const override {
    const auto H = static_cast<std::int64_t>(c.dim("H")), W = static_cast<std::int64_t>(c.dim("W"));
    const auto image = inputs.at(0).f32();
    Expected e;
    e.buffer = 1;
    e.value.resize(static_cast<std::size_t>(H * W));
#pragma omp parallel for schedule(static)
    for (std::int64_t y = 0; y < H; ++y) {
      for (std::int64_t x = 0; x < W; ++x) {
        auto w = window(image, H, W, y, x);
        std::nth_element(w.begin(), w.begin() + 4, w.end());
        e.value[y * W + x] = static_cast<double>(w[4]);
      }
    }
    return {std::move(e)};
  }

  // The image read once and out written once (neighbours come from caches); about 30 min/max
  // operations per pixel for a median of 9, counted as flops.
  [[nodiscard]] Cost cost(const Case& c) const override {
    const auto pixels = static_cast<double>(c.dim("H")) * static_cast<double>(c.dim("W"));
    return {8.0 * pixels, 30.0 * pixels};
  }

  // OpenMP over rows; within a row the interior pixels are a branch-free min/max network that the
  // compiler vectorises (minps/maxps), the two border columns a clamped gather.
  void cpu_solve(const Case& c, std::vector<Buffer>& buffers, int threads) const override {
    const auto H = static_cast<std::int64_t>(c.dim("H")), W = static_cast<std::int64_t>(c.dim("W"));
    const auto image = buffers.at(0).f32();
    const float* img = image.data();
    float* out = buffers.at(1).f32().data();
#pragma omp parallel for num_threads(cpu_threads(threads)) schedule(static)
    for (std::int64_t y = 0; y < H; ++y) {
      const float* up = img + std::max<std::int64_t>(y - 1, 0) * W;
      const float* mid = img + y * W;
      const float* down = img + std::min<std::int64_t>(y + 1, H - 1) * W;
      float* row = out + y * W;
#pragma omp simd
      for (std::int64_t x = 1; x < W - 1; ++x) {
        row[x] =
            median9(up[x - 1], up[x], up[x + 1], mid[x - 1], mid[x], mid[x + 1], down[x - 1], down[x], down[x + 1]);
      }
      for (const std::int64_t x : {std::int64_t{0}, W - 1}) {
        const auto w = window(image, H, W, y, x);
        row[x] = median9(w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8]);
      }
    }
  }

  [[nodiscard]] std::string cpu_solve_name() const override { return cpu_loop_name("min/max median network"); }

  [[nodiscard]] std::optional<std::string> diagnose(const Case& c, const std::vector<Buffer>& inputs,
                                                    const Buffer& actual, const Expected& expected) const override {
    const auto H = static_cast<std::int64_t>(c.dim("H")), W = static_cast<std::int64_t>(c.dim("W"));
    const auto image = inputs.at(0).f32();
    const auto out = actual.f32();
    const auto count = static_cast<std::size_t>(H * W);
    if (out.size() != count || image.size() != count || expected.value.size() != count) return std::nullopt;
    auto right = [&](std::int64_t i) { return static_cast<double>(out[i]) == expected.value[i]; };

    // Whether out[y][x] matches f(out[y][x], window) at every pixel, with at least 2 pixels where
    // the median is different: on a tiny image with many equal values a single wrong pixel could
    // match a mistake by chance.
    auto everywhere = [&](auto&& f) {
      std::size_t telling = 0;
      for (std::int64_t y = 0; y < H; ++y) {
        for (std::int64_t x = 0; x < W; ++x) {
          if (!f(out[y * W + x], window(image, H, W, y, x))) return false;
          telling += right(y * W + x) ? 0 : 1;
        }
      }
      return telling >= 2;
    };

    if (everywhere([](float o, const std::array<float, 9>& w) { return o == w[4]; })) {
      return std::string(
          "out equals image: every pixel was copied (the centre of its window), not filtered: sort the 9 values "
          "of the window and take the middle one");
    }
    // The k-th smallest of the 9 instead of the 5th.
    for (const int k : {3, 5, 0, 8, 2, 6, 1, 7}) {
      if (everywhere([&](float o, std::array<float, 9> w) {
            std::nth_element(w.begin(), w.begin() + k, w.end());
            return o == w[k];
          })) {
        return "out is value number " + std::to_string(k + 1) + " of the 9 window values in sorted order (window[" +
               std::to_string(k) +
               "] after sorting), not the median: the median of 9 is the 5th, window[4]; check the index you take "
               "and the bounds of your sort loops";
      }
    }
    // The middle of 8 window values: one position left out of the window or of the sort.
    static constexpr std::array<const char*, 9> kPlace = {
        "top-left", "top", "top-right", "left", "centre", "right", "bottom-left", "bottom", "bottom-right"};
    for (int left_out = 8; left_out >= 0; --left_out) {
      for (const int k : {4, 3}) {
        if (everywhere([&](float o, const std::array<float, 9>& w) {
              std::array<float, 8> eight{};
              for (int i = 0, j = 0; i < 9; ++i) {
                if (i != left_out) eight[j++] = w[i];
              }
              std::nth_element(eight.begin(), eight.begin() + k, eight.end());
              return o == eight[k];
            })) {
          return std::string("out is the ") + (k == 4 ? "upper" : "lower") +
                 " middle of 8 of the 9 window values, the " + kPlace[left_out] +
                 " neighbour left out: the window is 3×3 = 9 values (dy and dx from −1 to 1 inclusive) and all 9 "
                 "must be sorted (loop bounds < 9, not < 8) before taking window[4]";
        }
      }
    }
    // The mean: 9 additions and a division in float32, within 16 roundings of the window's magnitude.
    if (everywhere([](float o, const std::array<float, 9>& w) {
          double sum = 0, magnitude = 0;
          for (const float v : w) sum += v, magnitude += std::abs(v);
          return std::abs(static_cast<double>(o) - sum / 9.0) <= 16.0 * kUnitRoundoff * magnitude / 9.0 + kTinyFloat;
        })) {
      return std::string(
          "out is the mean of each 3×3 window, not its median: a mean smears an outlier (the ±8 impulse pixels) over "
          "its neighbours, the median drops it. Sort the 9 values and take the middle one, window[4]");
    }
    // Wrong only on the border, where the window reaches past the image: on opposite sides (the
    // first and the last row, or column; a grid that stops short leaves only the last ones), at 2
    // pixels or more, and never unwritten. Only where the image has an interior (H, W ≥ 3), which
    // must be right: in a smaller one every pixel is a border pixel.
    if (H >= 3 && W >= 3) {
      bool border_only = true;
      std::size_t wrong = 0;
      bool top = false, bottom = false, left = false, right_side = false;
      for (std::int64_t y = 0; y < H && border_only; ++y) {
        for (std::int64_t x = 0; x < W; ++x) {
          const std::int64_t i = y * W + x;
          if (right(i)) continue;
          ++wrong;
          top = top || y == 0, bottom = bottom || y == H - 1, left = left || x == 0,
          right_side = right_side || x == W - 1;
          if (!(top || bottom || left || right_side) || !std::isfinite(out[i]) ||
              !(y == 0 || y == H - 1 || x == 0 || x == W - 1)) {
            border_only = false;
            break;
          }
        }
      }
      if (border_only && wrong >= 2 && ((top && bottom) || (left && right_side))) {
        return std::string(
            "only pixels on the image's border are wrong: there the 3×3 window reaches past the image. Clamp each "
            "neighbour's row to [0, H − 1] and its column to [0, W − 1] (the border pixel is repeated); reading "
            "outside the image is out of bounds (check --sanitize names the line)");
      }
    }
    // Right in the top-left R×C pixels and never written elsewhere (the harness's NaN is still
    // there), where R follows W and C follows H rounded up to a block: the grid was sized with x
    // across the W columns, but the kernel took its row from x (x and y swapped).
    {
      std::int64_t R = 0, C = 0;  // the right rectangle: right until the first wrong pixel
      while (R < H && right(R * W)) ++R;
      while (C < W && right(C)) ++C;
      bool rectangle = R > 0 && C > 0 && (R < H || C < W);
      for (std::int64_t y = 0; y < H && rectangle; ++y) {
        for (std::int64_t x = 0; x < W; ++x) {
          const bool inside = y < R && x < C;
          if (right(y * W + x) != inside || (!inside && !std::isnan(out[y * W + x]))) {
            rectangle = false;
            break;
          }
        }
      }
      auto rounded_up_to_a_block = [](std::int64_t covered, std::int64_t dim, std::int64_t other) {
        for (std::int64_t b = 8; b <= 1024; b *= 2) {  // a block's x or y extent
          if (covered == std::min(dim, (other + b - 1) / b * b)) return true;
        }
        return false;
      };
      if (rectangle && H != W && rounded_up_to_a_block(R, H, W) && rounded_up_to_a_block(C, W, H)) {
        return "only the top-left " + std::to_string(R) + "×" + std::to_string(C) +
               " pixels were written, an extent that follows the other dimension: x and y are swapped. The x index "
               "(blockIdx.x * blockDim.x + threadIdx.x) is the column, up to W; the y index is the row, up to H";
      }
    }
    return std::nullopt;
  }

 private:
  TaskInfo info_;
};

CUDALAB_REGISTER_TASK(MedianFilterTask);

}  // namespace
}  // namespace cudalab::tasks
