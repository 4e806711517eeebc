// The statistics behind every timing: order statistics of samples, and an adaptive sampler that
// decides when a measurement is good enough. Pure C++ that knows nothing of exercises, so that the
// wire protocol (protocol.hpp) can carry a SamplingPolicy without seeing the course's contract.
//
//   Sampler sampler(policy);                 // steady clock; tests pass a fake one
//   while (sampler.want_more()) sampler.add(time_one_run());
//   Summary s = sampler.summary();           // median, spread, how it stopped
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace cudalab {

// ---------------------------------------------------------------------------------------------
// Statistics on samples (seconds, but nothing here cares about the unit).

/// Quantile `p` in [0, 1] of ascending `sorted` values, interpolating linearly between the two
/// nearest ranks (Hyndman & Fan type 7, as R's default and numpy's): h = (n−1)·p.
/// Throws std::invalid_argument when `sorted` is empty or `p` is outside [0, 1].
double quantile_sorted(std::span<const double> sorted, double p);
/// Quantile `p` of `values` in any order (sorts a copy).
double quantile(std::span<const double> values, double p);
/// The median: the middle value, or the mean of the two middle ones for an even count.
double median(std::span<const double> values);

/// (p75 − p25) / median: how much the samples themselves vary, robust to a few slow ones.
/// 0 when every sample is equal; +inf when the median is 0 and the samples are not all 0.
double relative_iqr(std::span<const double> values);

/// 0-based ranks [lo, hi] of the order statistics that bound a distribution-free 95 % confidence
/// interval for the median of `n` samples: the widest j with P(Bin(n, ½) ≤ j) ≤ 2.5 %, giving
/// lo = j and hi = n−1−j (coverage ≥ 95 %). Exact binomial up to n = 1000, the normal
/// approximation with continuity correction above. Nothing for n < 6, where even [min, max]
/// covers less than 95 %.
struct RankInterval {
  std::size_t lo = 0;  ///< rank of the lower bound (j)
  std::size_t hi = 0;  ///< rank of the upper bound (n−1−j)
};
std::optional<RankInterval> median_ci_ranks(std::size_t n);

/// Half the width of that 95 % interval divided by the median: how well the median is known.
/// This is the sampler's noise measure. +inf for fewer than 6 samples; 0 when the bounding order
/// statistics are equal.
double median_ci_relative(std::span<const double> sorted);

// ---------------------------------------------------------------------------------------------
// The adaptive sampler.

/// Seconds from any fixed origin, never decreasing. The sampler only takes differences.
using Clock = std::function<double()>;

/// std::chrono::steady_clock in seconds.
double steady_clock_seconds();

/// When to stop measuring. Defaults suit a GPU kernel timed with CUDA events; a slow CPU baseline
/// wants fewer warm-ups (the time cap bounds it either way).
struct SamplingPolicy {
  std::size_t warmup_runs = 3;        ///< runs before measuring, discarded (module load, clocks ramping up)
  std::size_t min_samples = 10;       ///< fewest measured samples before the noise target may stop it
  double min_time_s = 0.25;           ///< least sum of measured sample times before it may stop on noise
  double noise_target = 0.005;        ///< stop once median_ci_relative() ≤ this (0.005: median known to ±0.5 %)
  double time_cap_s = 10;             ///< wall time from construction, warm-ups and per-sample overhead included
  std::size_t max_samples = 100'000;  ///< stop after this many measured samples, noise or not

  /// Throws std::invalid_argument for a policy that cannot work (min_samples > max_samples, ...).
  void validate() const;
};

/// Why a sampler stopped. `running` when the summary was taken before it had.
enum class StopReason { running, noise_target_met, time_cap, max_samples };

/// snake_case name used in JSON and CSV: "noise_target_met".
const char* stop_reason_name(StopReason r);

/// Statistics of the measured samples (warm-ups excluded). Times in seconds; the statistics are
/// NaN when there are no samples.
struct Summary {
  std::size_t n = 0;            ///< measured samples
  std::size_t warmup_runs = 0;  ///< warm-ups actually run
  double median = 0;            ///< the figure the reports show and compare
  double min = 0;               ///< fastest sample
  double max = 0;               ///< slowest sample
  double mean = 0;              ///< arithmetic mean, slow outliers included
  double p25 = 0;               ///< 25th percentile (quantile 0.25)
  double p75 = 0;               ///< 75th percentile (quantile 0.75)
  double spread = 0;            ///< relative_iqr(): how much the samples vary
  double median_noise = 0;      ///< median_ci_relative(): how well the median is known (the stopping rule)
  std::size_t outliers = 0;     ///< samples above median + 3·IQR; kept in the data, the median is robust to them
  StopReason stop = StopReason::running;  ///< why the sampler stopped
  bool minimums_met = false;              ///< n ≥ min_samples and total_s ≥ min_time_s (false: a cap came first)
  double total_s = 0;                     ///< sum of the measured samples
  double wall_s = 0;                      ///< clock time from the sampler's construction to its last add()
};

/// Statistics of `samples` alone (stop, minimums and wall time left at their defaults).
Summary summarize(std::span<const double> samples);

/// Decides, sample by sample, whether to measure again.
///
/// Stopping rule (checked by want_more(), first match wins):
///  1. warm-up: the first `warmup_runs` samples are discarded; warm-ups after the first are
///     skipped once the time cap has passed. At least one measured sample is always taken.
///  2. noise target met: n ≥ min_samples, the measured samples sum to ≥ min_time_s, and the 95 %
///     confidence interval of the median (distribution-free, from order statistics) has a
///     half-width ≤ noise_target × median.
///  3. max_samples reached.
///  4. time cap: the clock has advanced time_cap_s since construction. This is wall time, so it
///     also bounds short kernels whose per-sample overhead (L2 flush, fresh inputs, checks)
///     dwarfs the samples themselves, and slow ones that would never reach min_samples.
/// The noise rule is evaluated after every sample up to 64, then each time n has grown by n/64
/// (and always before a cap stops it), so the sampler's cost per sample stays O(log n) and a
/// long run stops at most ~1.6 % of its samples later than it could have.
class Sampler {
 public:
  /// Starts the time cap's clock now. Throws std::invalid_argument for an invalid `policy`
  /// (SamplingPolicy::validate()) or an empty `clock`.
  explicit Sampler(SamplingPolicy policy, Clock clock = steady_clock_seconds);

  /// Whether to run and add() another sample. Once false, stays false.
  bool want_more();
  /// Records one run's time in seconds (a warm-up while warming_up()). Throws
  /// std::invalid_argument for a negative or non-finite time, std::logic_error after the stop.
  void add(double seconds);
  /// Whether the next add() is a warm-up run.
  [[nodiscard]] bool warming_up() const;

  /// Statistics of the samples so far, with the stop reason (`running` before the stop), whether
  /// the minimums were met and the wall time up to the last add().
  [[nodiscard]] Summary summary() const;
  /// Measured samples in the order they were added.
  [[nodiscard]] const std::vector<double>& samples() const { return samples_; }
  /// The policy it was constructed with.
  [[nodiscard]] const SamplingPolicy& policy() const { return policy_; }
  /// Why it stopped; `running` while want_more() has not yet returned false.
  [[nodiscard]] StopReason stop_reason() const { return stop_; }

 private:
  [[nodiscard]] bool minimums_met() const;
  [[nodiscard]] bool noise_target_met() const;

  SamplingPolicy policy_;
  Clock clock_;
  double start_ = 0;
  double last_add_ = 0;
  std::size_t warmups_done_ = 0;
  bool warmup_cut_ = false;  ///< the time cap ended warm-up early
  std::vector<double> samples_;
  double total_ = 0;
  std::size_t next_check_ = 0;
  StopReason stop_ = StopReason::running;
};

}  // namespace cudalab
