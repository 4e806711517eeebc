// 09_transpose: B = Aᵀ for a row-major M×N matrix (device pointers), through shared-memory tiles so
// that both the reads of A and the writes of B are coalesced.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "../task_support.hpp"

namespace cudalab::tasks {
namespace {

/// Edge of the square tiles the CPU baseline moves at a time: a 32×32 block of floats is 4 KiB
/// read and 4 KiB written, well inside L1, and each of its 32 destination rows is 128 bytes long.
constexpr std::int64_t kCpuTile = 32;

class TransposeTask final : public Task {
 public:
  TransposeTask() {
    info_.number = 9;
    info_.id = "09_transpose";
    info_.name = "transpose";
    info_.summary = "B = Aᵀ through shared-memory tiles, coalesced on both sides";
    info_.teaches = "coalescing; shared-memory tiles; bank conflicts";
    info_.pointers = PointerKind::device;
    info_.requires_shared_memory = true;  // the exercise is the shared-memory tile
    info_.signature.params = {
        {Param::Kind::buffer, "A", DType::f32, true},
        {Param::Kind::buffer, "B", DType::f32, false},
        {Param::Kind::scalar_int, "M", DType::i32, false},
        {Param::Kind::scalar_int, "N", DType::i32, false},
    };
  }

  [[nodiscard]] const TaskInfo& info() const override { return info_; }

  // Beside the usual shapes, one of M, N off a multiple of 32 (33: off every power of two) with the
  // other a multiple, and a square multiple of the tile: a failure tied to one dimension names it.
  [[nodiscard]] std::vector<Case> cases(const CaseOptions& options) const override {
    return cases_2d(options, {{64, 33}, {33, 64}, {64, 64}});
  }

  [[nodiscard]] std::vector<Buffer> make_buffers(const Case& c, Rng& rng) const override {
    const std::size_t M = dim_size(c, "M"), N = dim_size(c, "N");
    Buffer A = Buffer::make("A", DType::f32, Role::input, M * N);
    A.rows = static_cast<int>(M);  // its shape, for `cudalab show`'s pictures
    A.cols = static_cast<int>(N);
    // Random floats are all different, so every element of B tells where it was read from: a
    // copy, a misplaced tile or a wrong row length each leave their own pattern (see diagnose).
    fill_uniform(A.f32(), -1.0f + 0.5f, 1.0f + 0.5f, rng);
    ensure_not_all_zero(A.f32(), 0.5f);
    Buffer B = Buffer::make("B", DType::f32, Role::output, M * N);
    B.rows = static_cast<int>(N);  // B is N×M
    B.cols = static_cast<int>(M);
    return {std::move(A), std::move(B)};
  }

  // B[c][r] = A[r][c]: a transpose moves floats without arithmetic, so every element must be
  // bit-for-bit the one of A (tolerance 0, left empty).
  [[nodiscard]] std::vector<Expected> reference(const Case& c, const std::vector<Buffer>& inputs) const override {
    const auto M = static_cast<std::int64_t>(c.dim("M")), N = static_cast<std::int64_t>(c.dim("N"));
    const auto A = inputs.at(0).f32();
    Expected e;
    e.buffer = 1;
    e.value.resize(static_cast<std::size_t>(M * N));
#pragma omp parallel for schedule(static)
    for (std::int64_t col = 0; col < N; ++col) {
      for (std::int64_t r = 0; r < M; ++r) e.value[col * M + r] = static_cast<double>(A[r * N + col]);
    }
    return {std::move(e)};
  }

  // A read once and B written once; no arithmetic. The bytes of a copy: the target is a copy's
  // bandwidth.
  [[nodiscard]] Cost cost(const Case& c) const override {
    const auto elements = static_cast<double>(c.dim("M")) * static_cast<double>(c.dim("N"));
    return {8.0 * elements, 0.0};
  }

  // Cache-blocked: a naive loop reads or writes one float per cache line (a stride of M or N
  // floats); moving kCpuTile×kCpuTile blocks keeps both the block's source lines and its
  // destination lines in L1 while they are used. Threads take whole rows of blocks.
  void cpu_solve(const Case& c, std::vector<Buffer>& buffers, int threads) const override {
    const auto M = static_cast<std::int64_t>(c.dim("M")), N = static_cast<std::int64_t>(c.dim("N"));
    const float* A = buffers.at(0).f32().data();
    float* B = buffers.at(1).f32().data();
#pragma omp parallel for num_threads(cpu_threads(threads)) schedule(static)
    for (std::int64_t r0 = 0; r0 < M; r0 += kCpuTile) {
      const std::int64_t r1 = std::min(r0 + kCpuTile, M);
      for (std::int64_t c0 = 0; c0 < N; c0 += kCpuTile) {
        const std::int64_t c1 = std::min(c0 + kCpuTile, N);
        for (std::int64_t col = c0; col < c1; ++col) {
#pragma omp simd
          for (std::int64_t r = r0; r < r1; ++r) B[col * M + r] = A[r * N + col];
        }
      }
    }
  }

  [[nodiscard]] std::string cpu_solve_name() const override { return cpu_loop_name("cache-blocked transpose"); }

  [[nodiscard]] std::optional<std::string> diagnose(const Case& c, const std::vector<Buffer>& inputs,
                                                    const Buffer& actual, const Expected& expected) const override {
    const auto M = static_cast<std::int64_t>(c.dim("M")), N = static_cast<std::int64_t>(c.dim("N"));
    const auto A = inputs.at(0).f32();
    const auto B = actual.f32();
    const auto count = static_cast<std::size_t>(M * N);
    if (B.size() != count || A.size() != count || expected.value.size() != count) return std::nullopt;

    // Whether every element of B (flat index i) holds A[source(i)] wherever the mistake puts an
    // element of A there (source(i) < 0 where it puts none, or garbage), with some of them at a
    // place where the transpose holds another element. The elements of A are distinct random
    // floats, so such a match does not happen by chance: the mistake explains what B shows.
    auto follows = [&](auto&& source) {
      std::size_t telling = 0;
      for (std::int64_t i = 0; i < M * N; ++i) {
        const std::int64_t s = source(i);
        if (s < 0) continue;
        if (B[i] != A[s]) return false;
        const std::int64_t row = i / M, col = i % M;  // B is N×M
        telling += s != col * N + row ? 1 : 0;
      }
      return telling > 0;
    };

    if (follows([](std::int64_t i) { return i; })) {
      return std::string(
          "B holds A's elements in A's own order (B[i] = A[i]): the matrix was copied, not transposed; "
          "B[c][r] must be A[r][c]");
    }
    // B[c * N + r] = A[r][c]: the right element, stored with rows of B taken to be N long.
    if (follows([&](std::int64_t i) { return i % N < M && i / N < N ? (i % N) * N + i / N : -1; })) {
      return "B is indexed as if it were M×N (B[c * N + r] = A[r][c]): B is N×M, its rows are M long, so A[r][c] "
             "goes to B[c * M + r], and B's row index c runs to N, its column index r to M";
    }
    for (const std::int64_t T : {32, 16, 64, 8}) {
      // The tile of A at tile row tr and tile column tc belongs at tile row tc and tile column tr of
      // B. Written at tile row tr, tile column tc of B instead, transposed within itself:
      const auto unswapped = [&](std::int64_t i) -> std::int64_t {
        const std::int64_t R = i / M, C = i % M;
        const std::int64_t r = (R / T) * T + C % T, col = (C / T) * T + R % T;
        return r < M && col < N ? r * N + col : -1;
      };
      if (follows(unswapped)) {
        return std::to_string(T) + "×" + std::to_string(T) +
               " tiles were transposed within themselves but written where they sat in A: the tile at tile row "
               "blockIdx.y, tile column blockIdx.x of A goes to tile row blockIdx.x, tile column blockIdx.y of B. "
               "Swap blockIdx.x and blockIdx.y when computing where the tile is written";
      }
      // Written at the right tile of B, but each tile's content as it sat in A (not transposed):
      const auto untransposed = [&](std::int64_t i) -> std::int64_t {
        const std::int64_t R = i / M, C = i % M;
        const std::int64_t r = (C / T) * T + R % T, col = (R / T) * T + C % T;
        return r < M && col < N ? r * N + col : -1;
      };
      if (follows(untransposed)) {
        return "each " + std::to_string(T) + "×" + std::to_string(T) +
               " tile of B is in the right place but holds its elements untransposed: when writing B, read the "
               "tile column-wise (tile[threadIdx.x][threadIdx.y]) after storing it row-wise";
      }
    }
    // Right exactly in B's tiles on the diagonal (tile row = tile column): the tiles are transposed
    // but land in the wrong place, or nowhere (a tile of A at the mirrored place sticks out of A).
    // Only with wrong tiles on both sides of the diagonal: where B has tiles on one side only, a
    // grid one tile short (the last tile row or column never written) leaves the same output.
    for (const std::int64_t T : {32, 16, 64, 8}) {
      bool pattern = true, above = false, below = false;
      for (std::int64_t i = 0; i < M * N && pattern; ++i) {
        const std::int64_t tile_row = (i / M) / T, tile_col = (i % M) / T;
        above = above || tile_row < tile_col;
        below = below || tile_row > tile_col;
        pattern = (tile_row == tile_col) == (static_cast<double>(B[i]) == expected.value[static_cast<std::size_t>(i)]);
      }
      if (pattern && above && below) {
        return "only B's " + std::to_string(T) + "×" + std::to_string(T) +
               " tiles on the diagonal (tile row = tile column) are right: a tile of A must go to the mirrored "
               "tile of B, the tile at tile row blockIdx.y, tile column blockIdx.x of A to tile row blockIdx.x, "
               "tile column blockIdx.y of B. Swap blockIdx.x and blockIdx.y when computing where the tile is "
               "written";
      }
    }
    return std::nullopt;
  }

 private:
  TaskInfo info_;
};

CUDALAB_REGISTER_TASK(TransposeTask);

}  // namespace
}  // namespace cudalab::tasks
