#include "cudalab/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace cudalab {

double bandwidth_peak_gbs(const Peaks& peaks) {
  if (!peaks.host_link) return peaks.bandwidth_gbs;
  return peaks.host_duplex_gbs > 0 ? peaks.host_duplex_gbs : 2 * peaks.host_link_gbs;
}

const char* bandwidth_peak_name(const Peaks& peaks) { return peaks.host_link ? "host link" : "memory"; }

double compute_peak_gflops(const Peaks& peaks) { return peaks.tf32 ? peaks.tf32_gflops : peaks.fp32_gflops; }

const char* compute_peak_name(const Peaks& peaks) { return peaks.tf32 ? "TF32 tensor" : "FP32"; }

Throughput compute_throughput(const Cost& cost, double seconds, const Peaks& peaks) {
  Throughput t;
  t.bandwidth_peak = bandwidth_peak_name(peaks);
  t.compute_peak = compute_peak_name(peaks);
  if (!(seconds > 0) || !std::isfinite(seconds)) return t;
  if (cost.bytes > 0) t.gbs = cost.bytes / seconds / 1e9;
  if (cost.flops > 0) t.gflops = cost.flops / seconds / 1e9;
  if (const double peak = bandwidth_peak_gbs(peaks); t.gbs && peak > 0) t.percent_bandwidth = 100 * *t.gbs / peak;
  if (const double peak = compute_peak_gflops(peaks); t.gflops && peak > 0) t.percent_compute = 100 * *t.gflops / peak;
  if (t.percent_bandwidth && t.percent_compute) {
    t.compute_bound = *t.percent_compute > *t.percent_bandwidth;
  } else if (t.gflops) {
    // No machine balance to compare with: 10 flops per byte is compute-heavy on any current GPU.
    t.compute_bound = !t.gbs || cost.flops / cost.bytes > 10;
  }
  return t;
}

double speedup(double baseline_s, double seconds) { return baseline_s / seconds; }

std::optional<double> Measurement::speedup_over(const std::string& name) const {
  for (const auto& b : baselines) {
    if (b.name == name) return speedup(b.median_s, summary.median);
  }
  return std::nullopt;
}

Measurement make_measurement(std::string exercise, Case c, std::string backend, Cost cost, Summary summary, Peaks peaks,
                             std::vector<Baseline> baselines) {
  Measurement m;
  m.exercise = std::move(exercise);
  m.c = std::move(c);
  m.backend = std::move(backend);
  m.cost = cost;
  m.summary = summary;
  m.peaks = std::move(peaks);
  m.throughput = compute_throughput(m.cost, m.summary.median, m.peaks);
  m.baselines = std::move(baselines);
  return m;
}

}  // namespace cudalab
