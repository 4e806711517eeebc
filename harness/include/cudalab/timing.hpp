// The one timer's host-side results: throughput from a task's cost model, speedups and the
// measurement a bench reports. The sampler and its statistics are in sampling.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cudalab/sampling.hpp"
#include "cudalab/task.hpp"

namespace cudalab {

// ---------------------------------------------------------------------------------------------
// Throughput and speedup.

/// The device's peaks that percentages are taken against; 0 when unknown. `tf32` and `host_link`
/// say which of them apply to one measurement (exercise_bench sets them per row).
struct Peaks {
  double bandwidth_gbs = 0;  ///< GB/s (1e9 bytes/s), e.g. a measured device-to-device copy
  double fp32_gflops = 0;    ///< GFLOP/s of FP32 FMA on the CUDA cores
  std::string source;        ///< where the numbers come from: "measured d2d copy; spec FP32"
  /// GB/s of a page-locked copy across the host link, the faster direction (measured); 0: unknown.
  double host_link_gbs = 0;
  /// GB/s, both directions together, of two page-locked copies across the host link at once, one
  /// each way on its own stream (measured); 0: unknown.
  double host_duplex_gbs = 0;
  /// GFLOP/s of dense TF32 on the tensor cores (per SM and clock from NVIDIA's specifications);
  /// 0 where the device has none (before compute capability 8.0) or is not known.
  double tf32_gflops = 0;
  /// The measurement ran at TF32 precision: its flops are held to the tensor cores' peak.
  bool tf32 = false;
  /// The measurement's time includes copies across the host link (the end-to-end row of a
  /// host-pointer exercise): its bytes are held to the link, both directions at once.
  bool host_link = false;
};

/// The bandwidth a measurement's bytes are held to: the host link both ways at once
/// (host_duplex_gbs, or 2 × host_link_gbs where the duplex is not known) when Peaks::host_link,
/// else the device memory's copy bandwidth. 0 when unknown.
double bandwidth_peak_gbs(const Peaks& peaks);
/// How the reports name that peak: "memory" or "host link".
const char* bandwidth_peak_name(const Peaks& peaks);
/// The arithmetic peak a measurement's flops are held to: TF32 tensor cores when Peaks::tf32 (0
/// when the device has none known), else FP32.
double compute_peak_gflops(const Peaks& peaks);
/// How the reports name that peak: "FP32" or "TF32 tensor".
const char* compute_peak_name(const Peaks& peaks);

/// Rates from a cost model and a time. Absent where the cost or the peak is 0.
struct Throughput {
  std::optional<double> gbs;                ///< bytes / time / 1e9
  std::optional<double> gflops;             ///< flops / time / 1e9
  std::optional<double> percent_bandwidth;  ///< gbs as a percentage of bandwidth_peak_gbs()
  std::optional<double> percent_compute;    ///< gflops as a percentage of compute_peak_gflops()
  std::string bandwidth_peak;               ///< bandwidth_peak_name(): "memory" or "host link"
  std::string compute_peak;                 ///< compute_peak_name(): "FP32" or "TF32 tensor"
  /// The rate the table shows: the one nearer its peak (the roofline's bound); without peaks,
  /// GFLOP/s when the cost does more than 10 flops per byte.
  bool compute_bound = false;
};

/// Throughput of `cost` done in `seconds` (> 0; otherwise every rate is absent).
Throughput compute_throughput(const Cost& cost, double seconds, const Peaks& peaks);

/// How many times faster than `baseline_s` a run of `seconds` is: baseline_s / seconds.
double speedup(double baseline_s, double seconds);

/// Another implementation timed in the same run: "cpu 1 thread", "cpu 16 threads", "cuBLAS".
struct Baseline {
  std::string name;     ///< as the reports label it: "cpu 1 thread"
  double median_s = 0;  ///< its median time per run, in seconds
};

/// One measured (exercise, size, backend) with everything the reports show.
struct Measurement {
  std::string exercise;             ///< "03_matmul", or an anchor's name in bench/
  Case c;                           ///< the size; c.label() is the report's size column
  std::string backend;              ///< "gpu"
  Cost cost;                        ///< Task::cost() at this size: the throughput's numerator
  Summary summary;                  ///< the sampler's statistics of the timed runs
  Peaks peaks;                      ///< the device's peaks, for the percentages
  Throughput throughput;            ///< compute_throughput(cost, summary.median, peaks)
  std::vector<Baseline> baselines;  ///< other implementations timed at the same size (speedup_over())
  /// For host-pointer exercises, where the median is end to end (copies included): the median of
  /// the summed kernel time per call, from the launch records.
  std::optional<double> kernel_median_s;
  std::vector<std::string> notes;  ///< what else the run showed: unnecessary copies, the launches

  /// speedup(b.median_s, summary.median) for the baseline named `name`; nothing if absent.
  [[nodiscard]] std::optional<double> speedup_over(const std::string& name) const;
};

/// A Measurement with its throughput filled in from the rest.
Measurement make_measurement(std::string exercise, Case c, std::string backend, Cost cost, Summary summary, Peaks peaks,
                             std::vector<Baseline> baselines = {});

}  // namespace cudalab
