// 10_histogram: bins[b] = the number of i with values[i] == b (device pointers); bins is an output
// the submission must zero.
#include <cstdint>
#include <initializer_list>
#include <span>
#include <utility>

#if defined(_OPENMP)
#include <omp.h>
#endif
#include <string>

#include "../task_support.hpp"

namespace cudalab::tasks {
namespace {

/// Whether a case's values crowd into one or two bins. Contention needs many values, so the
/// small sizes stay uniform; the large case is uniform too, the input the speed is quoted for.
bool is_skewed(const Case& c) {
  const std::int64_t n = c.dim("n");
  return !c.large && n > 1000 && n % 2 == 1 && c.dim("num_bins") > 1;
}

Case histogram_case(std::int64_t n, std::int64_t num_bins, bool large = false) {
  return Case{{{"n", n}, {"num_bins", num_bins}}, large};
}

class HistogramTask final : public Task {
 public:
  HistogramTask() {
    info_.number = 10;
    info_.id = "10_histogram";
    info_.name = "histogram";
    info_.summary = "bins[b] = how many values equal b: per-block histograms in shared memory";
    info_.teaches = "atomics; privatised per-block histograms";
    info_.pointers = PointerKind::device;
    info_.requires_shared_memory = true;  // the exercise is the private histogram
    info_.signature.params = {
        {Param::Kind::buffer, "values", DType::i32, true},
        {Param::Kind::buffer, "bins", DType::i32, false},
        {Param::Kind::scalar_int, "n", DType::i32, false},
        {Param::Kind::scalar_int, "num_bins", DType::i32, false},
    };
  }

  [[nodiscard]] const TaskInfo& info() const override { return info_; }

  // The 1D sizes with 256 bins; then one bin (every value lands on the same counter), bin counts
  // that are not multiples of a warp or a block, and bin counts larger than a block (a block
  // must zero and merge several bins per thread). The last small case is the widest histogram.
  [[nodiscard]] std::vector<Case> cases(const CaseOptions& options) const override {
    std::vector<Case> out;
    for (const Case& c : cases_1d(options)) {
      if (!c.large) out.push_back(histogram_case(c.dim("n"), 256));
    }
    for (const auto& [n, bins] : std::initializer_list<std::pair<std::int64_t, std::int64_t>>{
             {1000, 1}, {33, 7}, {100003, 7}, {4097, 33}, {1025, 1024}, {65537, 1024}, {257, 4096}, {100003, 4096}}) {
      out.push_back(histogram_case(n, bins));
    }
    out.push_back(histogram_case(options.simulator ? kLargeSim : kLargeGpu, 256, true));
    return out;
  }

  [[nodiscard]] std::vector<Buffer> make_buffers(const Case& c, Rng& rng) const override {
    const std::size_t n = dim_size(c, "n");
    const auto num_bins = static_cast<std::int32_t>(c.dim("num_bins"));
    Buffer values = Buffer::make("values", DType::i32, Role::input, n);
    if (is_skewed(c)) {
      // 60 % of the values in one hot bin, 30 % in a second, the rest uniform: thousands of
      // threads update the same two counters, which is where a global atomic per value stalls.
      const auto hot = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(num_bins));
      const auto warm = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(num_bins));
      for (std::int32_t& v : values.i32()) {
        const std::uint64_t r = rng();
        const std::uint64_t pick = r % 100;
        v = pick < 60   ? hot
            : pick < 90 ? warm
                        : static_cast<std::int32_t>((r / 100) % static_cast<std::uint64_t>(num_bins));
      }
    } else {
      fill_uniform_int(values.i32(), 0, num_bins - 1, rng);
    }
    // With one bin every value is 0 by contract; elsewhere a kernel must read the values.
    if (num_bins > 1) ensure_not_all_zero(values.i32(), std::int32_t{1});
    return {std::move(values), Buffer::make("bins", DType::i32, Role::output, dim_size(c, "num_bins"))};
  }

  // Counting is exact in int32 (n < 2^31): the tolerance is 0 (left empty).
  [[nodiscard]] std::vector<Expected> reference(const Case& c, const std::vector<Buffer>& inputs) const override {
    const std::size_t num_bins = dim_size(c, "num_bins");
    Expected e;
    e.buffer = 1;
    e.value.assign(num_bins, 0.0);
    for (const std::int32_t v : inputs.at(0).i32()) e.value.at(static_cast<std::size_t>(v)) += 1.0;
    return {std::move(e)};
  }

  // Each value read once, each bin written once; no floating-point work.
  [[nodiscard]] Cost cost(const Case& c) const override {
    return {4.0 * static_cast<double>(c.dim("n")) + 4.0 * static_cast<double>(c.dim("num_bins")), 0.0};
  }

  // Each thread counts its share of the values into private histograms, then the threads add
  // them up bin by bin. Four interleaved histograms per thread: consecutive equal values (a
  // skewed input) would otherwise wait for each other's increment of one counter.
  void cpu_solve(const Case& c, std::vector<Buffer>& buffers, int threads) const override {
    const auto n = static_cast<std::int64_t>(c.dim("n"));
    const auto num_bins = static_cast<std::int64_t>(c.dim("num_bins"));
    const std::int32_t* values = buffers.at(0).i32().data();
    std::int32_t* bins = buffers.at(1).i32().data();
    constexpr std::int64_t kCopies = 4;
    const int team = cpu_threads(threads);
    std::vector<std::int32_t> counts(static_cast<std::size_t>(team * kCopies * num_bins), 0);
#pragma omp parallel num_threads(team)
    {
#if defined(_OPENMP)
      const int t = omp_get_thread_num(), used = omp_get_num_threads();
#else
      const int t = 0, used = 1;
#endif
      std::int32_t* mine = counts.data() + t * kCopies * num_bins;
      const std::int64_t from = n * t / used, to = n * (t + 1) / used;
      std::int64_t i = from;
      for (; i + kCopies <= to; i += kCopies) {
        for (std::int64_t k = 0; k < kCopies; ++k) ++mine[k * num_bins + values[i + k]];
      }
      for (; i < to; ++i) ++mine[values[i]];
#pragma omp barrier
#pragma omp for schedule(static)
      for (std::int64_t b = 0; b < num_bins; ++b) {
        std::int32_t total = 0;
        for (std::int64_t k = 0; k < team * kCopies; ++k) total += counts[k * num_bins + b];
        bins[b] = total;
      }
    }
  }

  [[nodiscard]] std::string cpu_solve_name() const override {
    return cpu_threaded_name("per-thread histograms, 4 per thread");
  }

  /// Bins with more counts than values and none with fewer: where the extra lies says what was
  /// counted. Only counts left from an earlier call fit no pattern of this call's values, and
  /// that is said as one possibility, not as the finding (this call cannot see the earlier one).
  static std::string too_many(std::size_t n, std::size_t num_bins, std::span<const std::int32_t> got,
                              const Expected& expected) {
    std::int64_t extra = 0;
    std::size_t bins_over = 0, bin = 0;
    bool multiple = true;  // every bin is the same whole multiple k ≥ 2 of its count
    std::int64_t k = 0;
    for (std::size_t b = 0; b < num_bins; ++b) {
      const auto want = static_cast<std::int64_t>(expected.value[b]);
      const std::int64_t d = static_cast<std::int64_t>(got[b]) - want;
      if (d > 0) extra += d, ++bins_over, bin = b;
      if (want == 0) {
        multiple = multiple && d == 0;
      } else if (multiple) {
        const std::int64_t ratio = got[b] / want;
        multiple = got[b] % want == 0 && (k == 0 || ratio == k);
        k = ratio;
      }
    }
    const std::string total = std::to_string(extra);
    if (bins_over == 1) {
      const std::string b = std::to_string(bin);
      const auto nn = static_cast<std::int64_t>(n);
      if (extra % nn == 0) {
        const std::int64_t per = extra / nn;
        std::string why =
            bin == 0 && per == 3
                ? " That is how unpacking each 4-byte int as 4 byte-sized values goes (histogram256 reads packed "
                  "bytes): the 3 high bytes of every value are 0 here. The values are ints: count data[i] once each."
                : " Look for values that are not in the data: padding, a wider read unpacked into several values, "
                  "or elements past n.";
        return "bin " + b + " counts " + total + " too many, exactly " + std::to_string(per) + " for each of the " +
               std::to_string(n) + " values, and every other bin is right: every value brought " + std::to_string(per) +
               " extra count" + (per == 1 ? "" : "s") + " of " + b + " with it." + why;
      }
      return "bin " + b + " counts " + total + " too many and every other bin is right: something that is not one " +
             "of the n values was counted as " + b +
             " — padding, or elements past n (count only indices i < n), or counters that start at a value";
    }
    if (multiple && k >= 2) {
      return "every bin holds exactly " + std::to_string(k) + " times its count: each value was counted " +
             std::to_string(k) + " times — by several threads (an index that ignores blockIdx or the stride), or by " +
             "several launches adding into bins";
    }
    return "the bins count " + total + " more values than there are, and no bin too few: values were counted more " +
           "than once, or bins kept counts from before this call (an earlier call's, a __device__ array never " +
           "reset) — zero the counters at the start of every call, and count each value once";
  }

  [[nodiscard]] std::optional<std::string> diagnose(const Case& c, const std::vector<Buffer>& inputs,
                                                    const Buffer& actual, const Expected& expected) const override {
    const std::size_t n = dim_size(c, "n");
    const std::size_t num_bins = dim_size(c, "num_bins");
    const auto values = inputs.at(0).i32();
    const auto got = actual.i32();
    if (got.size() != num_bins || expected.value.size() != num_bins || values.size() != n) return std::nullopt;

    // The same offset in every bin: each bin started from something other than 0. Differences
    // are taken modulo 2^32, as the int32 counters wrap.
    auto wrapped_diff = [&](std::size_t b) {
      return static_cast<std::uint32_t>(got[b]) -
             static_cast<std::uint32_t>(static_cast<std::int64_t>(expected.value[b]));
    };
    bool constant = true;
    for (std::size_t b = 1; b < num_bins && constant; ++b) constant = wrapped_diff(b) == wrapped_diff(0);
    if (constant && wrapped_diff(0) == static_cast<std::uint32_t>(kPoisonI32)) {  // bins never zeroed
      return std::string(
          "every bin is its count plus 0x7EADBEEF, the garbage the harness filled bins with: bins is an output and "
          "starts with garbage, so zero it (cudaMemset(bins, 0, num_bins * sizeof(int))) before adding into it");
    }
    if (constant && wrapped_diff(0) != 0) {
      const auto offset = static_cast<std::int32_t>(wrapped_diff(0));
      return "every bin is off by the same amount, " + std::to_string(offset) +
             ": the counters did not start at 0. Zero bins before the blocks add into it, and zero each block's "
             "shared-memory histogram before counting into it (shared memory starts with whatever the previous "
             "block left)";
    }

    std::int64_t too_high = 0, too_low = 0, counted = 0;
    for (std::size_t b = 0; b < num_bins; ++b) {
      const std::int64_t d = static_cast<std::int64_t>(got[b]) - static_cast<std::int64_t>(expected.value[b]);
      too_high += d > 0 ? d : 0;
      too_low += d < 0 ? -d : 0;
      counted += got[b];
    }
    if (too_high > 0 && too_low == 0) return too_many(n, num_bins, got, expected);
    if (too_low == 0 || too_high > 0 || counted < 0) return std::nullopt;
    if (counted == 0) {
      return std::string(
          "every bin is 0: no value was counted. Did the kernel run, and does each block add its histogram to "
          "bins (atomicAdd(&bins[b], hist[b]))?");
    }
    // Too few everywhere: either a prefix of the values was counted (a grid that stops early
    // covers whole warps, so the prefix is a multiple of 32 long) or updates were lost.
    if (counted > 0 && counted % 32 == 0 && static_cast<std::size_t>(counted) < n) {
      std::vector<std::int64_t> prefix(num_bins, 0);
      for (std::size_t i = 0; i < static_cast<std::size_t>(counted); ++i) ++prefix[static_cast<std::size_t>(values[i])];
      bool is_prefix = true;
      for (std::size_t b = 0; b < num_bins && is_prefix; ++b) is_prefix = prefix[b] == got[b];
      if (is_prefix) {
        return "the bins count exactly the first " + std::to_string(counted) + " of the " + std::to_string(n) +
               " values: does your grid (or its grid-stride loop) cover all n values?";
      }
    }
    return "counts are too low: " + std::to_string(too_low) + " of the " + std::to_string(n) +
           " values are missing and no bin is too high — a lost update. Two threads that read a counter, add 1 "
           "and write it back at the same time count one value, not two: use atomicAdd for every update of a "
           "shared or global counter, and __syncthreads() between counting into the block's histogram and adding "
           "it to bins";
  }

 private:
  TaskInfo info_;
};

CUDALAB_REGISTER_TASK(HistogramTask);

}  // namespace
}  // namespace cudalab::tasks
