// 11_scan: y[i] = x[0] + ... + x[i], an inclusive prefix sum of int32 (device pointers).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "../task_support.hpp"

namespace cudalab::tasks {
namespace {

/// The block sizes a kernel's tile may have: warps, blocks, several elements per thread.
constexpr std::size_t kSmallestBlock = 32;
constexpr std::size_t kLargestBlock = std::size_t{1} << 14;

class ScanTask final : public Task {
 public:
  ScanTask() {
    info_.number = 11;
    info_.id = "11_scan";
    info_.name = "scan";
    info_.summary = "y[i] = x[0] + ... + x[i]: block scans joined by the sums of the blocks before";
    info_.teaches = "prefix sums: in-block trees, carries across blocks";
    info_.pointers = PointerKind::device;
    info_.in_place_steps = true;  // a race in a scan step is fixed by a barrier, not an atomic
    info_.signature.params = {
        {Param::Kind::buffer, "x", DType::i32, true},
        {Param::Kind::buffer, "y", DType::i32, false},
        {Param::Kind::scalar_int, "n", DType::i32, false},
    };
  }

  [[nodiscard]] const TaskInfo& info() const override { return info_; }

  [[nodiscard]] std::vector<Case> cases(const CaseOptions& options) const override { return cases_1d(options); }

  [[nodiscard]] std::vector<Buffer> make_buffers(const Case& c, Rng& rng) const override {
    const std::size_t n = dim_size(c, "n");
    Buffer x = Buffer::make("x", DType::i32, Role::input, n);
    // Small values with a drift (mean 2): the running sum climbs, so a block that restarts at 0
    // or an offset from the wrong blocks is far off, while no sum can leave int32
    // (|y| ≤ 10·n ≤ 6.8·10^8 at n = 2^26).
    fill_uniform_int(x.i32(), -6, 10, rng);
    ensure_not_all_zero(x.i32(), std::int32_t{3});
    return {std::move(x), Buffer::make("y", DType::i32, Role::output, n)};
  }

  // Integer sums that never overflow are exact in any order: the tolerance is 0 (left empty).
  [[nodiscard]] std::vector<Expected> reference(const Case& c, const std::vector<Buffer>& inputs) const override {
    const std::size_t n = dim_size(c, "n");
    const auto x = inputs.at(0).i32();
    Expected e;
    e.buffer = 1;
    e.value.resize(n);
    std::int64_t running = 0;
    for (std::size_t i = 0; i < n; ++i) e.value[i] = static_cast<double>(running += x[i]);
    return {std::move(e)};
  }

  // x read once, y written once; integer additions are not floating-point operations.
  [[nodiscard]] Cost cost(const Case& c) const override { return {8.0 * static_cast<double>(c.dim("n")), 0.0}; }

  // Two passes over per-thread chunks: each thread adds up its chunk, the chunk sums are scanned
  // (one per thread, sequentially), then each thread scans its chunk starting from the sum of
  // the chunks before it. Two reads of x, one write of y.
  void cpu_solve(const Case& c, std::vector<Buffer>& buffers, int threads) const override {
    const auto n = static_cast<std::int64_t>(c.dim("n"));
    const std::int32_t* x = buffers.at(0).i32().data();
    std::int32_t* y = buffers.at(1).i32().data();
    const int team = cpu_threads(threads);
    std::vector<std::int32_t> offsets(static_cast<std::size_t>(team) + 1, 0);
#pragma omp parallel num_threads(team)
    {
#if defined(_OPENMP)
      const int t = omp_get_thread_num(), used = omp_get_num_threads();
#else
      const int t = 0, used = 1;
#endif
      const std::int64_t from = n * t / used, to = n * (t + 1) / used;
      std::int32_t sum = 0;
#pragma omp simd reduction(+ : sum)
      for (std::int64_t i = from; i < to; ++i) sum += x[i];
      offsets[static_cast<std::size_t>(t) + 1] = sum;
#pragma omp barrier
#pragma omp single
      for (int k = 1; k <= used; ++k) offsets[static_cast<std::size_t>(k)] += offsets[static_cast<std::size_t>(k) - 1];
      std::int32_t running = offsets[static_cast<std::size_t>(t)];
      for (std::int64_t i = from; i < to; ++i) y[i] = running += x[i];
    }
  }

  [[nodiscard]] std::string cpu_solve_name() const override { return cpu_threaded_name("two-pass blocked scan"); }

  [[nodiscard]] std::optional<std::string> diagnose(const Case& c, const std::vector<Buffer>& inputs,
                                                    const Buffer& actual, const Expected& expected) const override {
    const std::size_t n = dim_size(c, "n");
    const auto x = inputs.at(0).i32();
    const auto y = actual.i32();
    if (y.size() != n || x.size() != n || expected.value.size() != n) return std::nullopt;
    auto ref = [&](std::size_t i) { return static_cast<std::int64_t>(expected.value[i]); };
    auto got = [&](std::size_t i) { return static_cast<std::int64_t>(y[i]); };

    bool exclusive = true;
    for (std::size_t i = 0; i < n && exclusive; ++i) exclusive = got(i) == ref(i) - x[i];
    if (exclusive) {
      return std::string(
          "y[i] is the sum before x[i] (an exclusive scan, y[0] = 0): this contract is inclusive, "
          "y[i] = x[0] + ... + x[i], so add x[i] to each element (or shift the result by one)");
    }

    // Block sizes B (powers of two) for which every block of B elements is right up to one
    // offset of its own: the in-block scan works and only the offsets between blocks are wrong.
    // A kernel's blocks of B elements are also blocks of B/2, so the largest such B is its own.
    std::size_t largest = kSmallestBlock;
    while (largest * 2 <= kLargestBlock && largest * 2 < n) largest *= 2;
    for (std::size_t block = largest; block >= kSmallestBlock && block < n; block /= 2) {
      bool per_block = true;
      bool restarts = true;   // the offset of block k is minus the sum of the blocks before it
      bool own_total = true;  // block k added its own total on top of the right offset
      bool any_wrong = false;
      for (std::size_t lo = 0; lo < n && per_block; lo += block) {
        const std::size_t hi = std::min(n, lo + block);
        const std::int64_t off = got(lo) - ref(lo);
        for (std::size_t i = lo + 1; i < hi && per_block; ++i) per_block = got(i) - ref(i) == off;
        const std::int64_t before = lo == 0 ? 0 : ref(lo - 1);
        const std::int64_t own = ref(hi - 1) - before;
        restarts = restarts && off == -before;
        own_total = own_total && (off == own || (lo == 0 && off == 0));  // block 0 may add nothing
        any_wrong = any_wrong || off != 0;
      }
      if (!per_block || !any_wrong) continue;
      const std::string b = std::to_string(block);
      if (restarts) {
        return "each block of " + b +
               " elements restarts at 0: y is right within each block, but block k "
               "must also add the sums of the blocks before it (scan the block totals, then add each block's "
               "offset, or look back at the blocks before)";
      }
      if (own_total) {
        return "each block of " + b +
               " elements adds its own total on top of the sums of the blocks before "
               "it: the offset of block k is the sum of blocks 0 to k - 1 (an exclusive scan of the block "
               "totals), not 0 to k";
      }
      return "within each block of " + b +
             " elements y is right up to one constant, but the offsets added to "
             "the blocks are wrong: block k must add exactly the sum of all elements of blocks 0 to k - 1";
    }

    // Wrong only at the first element of blocks (an off-by-one where a block starts).
    std::size_t wrong = 0, first_wrong = n;
    for (std::size_t i = 0; i < n; ++i) {
      if (got(i) != ref(i)) {
        ++wrong;
        first_wrong = std::min(first_wrong, i);
      }
    }
    if (wrong > 0 && first_wrong >= kSmallestBlock && first_wrong % kSmallestBlock == 0) {
      const std::size_t block = first_wrong;
      bool only_starts = true;
      for (std::size_t i = 0; i < n && only_starts; ++i) only_starts = (got(i) == ref(i)) || i % block == 0;
      if (only_starts) {
        return "only the first element of each block of " + std::to_string(block) +
               " elements is wrong: an off-by-one where a block starts (which element carries the offset, "
               "or where the block's own scan begins)";
      }
    }
    return std::nullopt;
  }

 private:
  TaskInfo info_;
};

CUDALAB_REGISTER_TASK(ScanTask);

}  // namespace
}  // namespace cudalab::tasks
