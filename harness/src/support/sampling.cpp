#include "cudalab/sampling.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace cudalab {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Largest count at which the median's confidence ranks come from the exact binomial; above it
/// the normal approximation is within one rank and costs O(1).
constexpr std::size_t kExactRanksUpTo = 1000;
/// Each tail of the 95 % interval, and the matching standard normal quantile.
constexpr double kTail = 0.025;
constexpr double kZ975 = 1.959963984540054;

std::vector<double> sorted_copy(std::span<const double> values) {
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  return v;
}

/// Spread relative to the median, with the conventions of the header for a zero median.
double relative(double width, double median) {
  if (width == 0) return 0;
  return median > 0 ? width / median : kInf;
}

}  // namespace

double quantile_sorted(std::span<const double> sorted, double p) {
  if (sorted.empty()) throw std::invalid_argument("quantile of no values");
  if (!(p >= 0 && p <= 1)) throw std::invalid_argument(fmt::format("quantile {} is outside [0, 1]", p));
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto below = static_cast<std::size_t>(std::floor(h));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (h - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

double quantile(std::span<const double> values, double p) { return quantile_sorted(sorted_copy(values), p); }

double median(std::span<const double> values) { return quantile(values, 0.5); }

double relative_iqr(std::span<const double> values) {
  const auto v = sorted_copy(values);
  return relative(quantile_sorted(v, 0.75) - quantile_sorted(v, 0.25), quantile_sorted(v, 0.5));
}

std::optional<RankInterval> median_ci_ranks(std::size_t n) {
  if (n < 6) return std::nullopt;  // P(Bin(n, ½) = 0) = 2^-n > 2.5 %: not even [min, max] is wide enough
  const auto nd = static_cast<double>(n);
  std::size_t j = 0;
  if (n <= kExactRanksUpTo) {
    // Walk the binomial CDF, pmf(k+1) = pmf(k)·(n−k)/(k+1), in log space so that 2^-n never
    // underflows: j is the last k whose CDF is still within the tail.
    double log_pmf = -nd * std::log(2.0);
    double cdf = std::exp(log_pmf);
    for (std::size_t k = 0;; ++k) {
      log_pmf += std::log((nd - static_cast<double>(k)) / static_cast<double>(k + 1));
      const double next = cdf + std::exp(log_pmf);
      if (next > kTail) break;
      cdf = next;
      j = k + 1;
    }
  } else {
    j = static_cast<std::size_t>(std::floor(nd / 2 - 0.5 - kZ975 * std::sqrt(nd) / 2));
  }
  return RankInterval{j, n - 1 - j};
}

double median_ci_relative(std::span<const double> sorted) {
  const auto ranks = median_ci_ranks(sorted.size());
  if (!ranks) return kInf;
  return relative((sorted[ranks->hi] - sorted[ranks->lo]) / 2, quantile_sorted(sorted, 0.5));
}

double steady_clock_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void SamplingPolicy::validate() const {
  auto fail = [](const std::string& why) { throw std::invalid_argument("sampling policy: " + why); };
  if (min_samples < 1) fail("min_samples must be at least 1");
  if (max_samples < min_samples) fail(fmt::format("max_samples {} < min_samples {}", max_samples, min_samples));
  if (!(min_time_s >= 0) || !std::isfinite(min_time_s)) fail("min_time_s must be finite and ≥ 0");
  if (!(noise_target >= 0)) fail("noise_target must be ≥ 0");
  if (!(time_cap_s > 0) || !std::isfinite(time_cap_s)) fail("time_cap_s must be finite and > 0");
}

const char* stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::running:
      return "running";
    case StopReason::noise_target_met:
      return "noise_target_met";
    case StopReason::time_cap:
      return "time_cap";
    case StopReason::max_samples:
      return "max_samples";
  }
  return "?";
}

Summary summarize(std::span<const double> samples) {
  Summary s;
  s.n = samples.size();
  if (samples.empty()) {
    s.median = s.min = s.max = s.mean = s.p25 = s.p75 = s.spread = s.median_noise = kNaN;
    return s;
  }
  const auto v = sorted_copy(samples);
  s.total_s = std::accumulate(v.begin(), v.end(), 0.0);
  s.median = quantile_sorted(v, 0.5);
  s.min = v.front();
  s.max = v.back();
  s.mean = s.total_s / static_cast<double>(v.size());
  s.p25 = quantile_sorted(v, 0.25);
  s.p75 = quantile_sorted(v, 0.75);
  s.spread = relative(s.p75 - s.p25, s.median);
  s.median_noise = median_ci_relative(v);
  const double fence = s.median + 3 * (s.p75 - s.p25);
  s.outliers = static_cast<std::size_t>(v.end() - std::upper_bound(v.begin(), v.end(), fence));
  return s;
}

Sampler::Sampler(SamplingPolicy policy, Clock clock) : policy_(policy), clock_(std::move(clock)) {
  policy_.validate();
  if (!clock_) throw std::invalid_argument("sampler: no clock");
  start_ = last_add_ = clock_();
}

bool Sampler::warming_up() const { return warmups_done_ < policy_.warmup_runs && !warmup_cut_; }

bool Sampler::minimums_met() const { return samples_.size() >= policy_.min_samples && total_ >= policy_.min_time_s; }

bool Sampler::noise_target_met() const { return median_ci_relative(sorted_copy(samples_)) <= policy_.noise_target; }

bool Sampler::want_more() {
  if (stop_ != StopReason::running) return false;
  const bool capped = clock_() - start_ >= policy_.time_cap_s;
  if (warming_up()) {
    if (warmups_done_ == 0 || !capped) return true;
    warmup_cut_ = true;
  }
  const std::size_t n = samples_.size();
  if (n == 0) return true;  // whatever the cap, a measurement has at least one sample
  // Sorting on every sample would cost O(n log n) each; checking on a geometric schedule keeps
  // the total near-linear. A cap about to stop the run gets one last exact check.
  if (minimums_met() && (n >= next_check_ || n >= policy_.max_samples || capped)) {
    next_check_ = n + std::max<std::size_t>(1, n / 64);
    if (noise_target_met()) {
      stop_ = StopReason::noise_target_met;
      return false;
    }
  }
  if (n >= policy_.max_samples) {
    stop_ = StopReason::max_samples;
    return false;
  }
  if (capped) {
    stop_ = StopReason::time_cap;
    return false;
  }
  return true;
}

void Sampler::add(double seconds) {
  if (stop_ != StopReason::running) throw std::logic_error("sampler: add() after it stopped");
  if (!std::isfinite(seconds) || seconds < 0) throw std::invalid_argument(fmt::format("sampler: bad time {}", seconds));
  last_add_ = clock_();
  if (warming_up()) {
    ++warmups_done_;
    return;
  }
  samples_.push_back(seconds);
  total_ += seconds;
}

Summary Sampler::summary() const {
  Summary s = summarize(samples_);
  s.warmup_runs = warmups_done_;
  s.stop = stop_;
  s.minimums_met = minimums_met();
  s.wall_s = last_add_ - start_;
  return s;
}

}  // namespace cudalab
