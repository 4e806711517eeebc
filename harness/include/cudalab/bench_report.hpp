// Writers for benchmark results: one model (BenchResults), written as a table for terminals, JSON,
// CSV or a GitHub Markdown table for docs/performance.md. Columns: docs/bench-output.md.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudalab/timing.hpp"

namespace cudalab {

/// The machine the numbers were taken on, as the reports name it.
struct DeviceInfo {
  std::string name;          ///< "NVIDIA H100 80GB HBM3"
  std::string driver;        ///< "550.54.15"
  std::string cuda_version;  ///< "12.4"
  std::string clocks;        ///< clock and throttle state, "SM 1980 MHz, no throttling"; empty if unknown
};

/// Everything one `cudalab bench` run measured.
struct BenchResults {
  DeviceInfo device;                      ///< where it ran
  std::string date;                       ///< when it ran, ISO 8601 ("2025-06-01" or with the time)
  std::string command;                    ///< the command line, for reproducing it
  SamplingPolicy policy;                  ///< the sampling policy the submissions were timed with
  std::vector<Measurement> measurements;  ///< every exercise's BenchOutcome::measurements, in order
};

/// Names of every baseline in `results`, each once, in order of first appearance: the speedup
/// columns of the table, CSV and Markdown.
std::vector<std::string> baseline_names(const BenchResults& results);

/// Aligned columns for a terminal: exercise, size, samples, median, ±95 % of the median, spread,
/// throughput (GB/s or GFLOP/s, whichever is nearer its peak), percent of that peak, then the
/// speedup over each baseline, the baseline named in the header. A header line names the device;
/// notes below flag measurements that stopped before the noise target or had outliers.
void write_bench_table(std::ostream& out, const BenchResults& results);

/// The results as JSON (schema: docs/bench-output.md). Absent, NaN and infinite values are null.
nlohmann::json bench_report_json(const BenchResults& results);

/// One CSV row per measurement, RFC 4180 (quoted where needed, CRLF line ends), full precision,
/// empty cells for absent values (columns: docs/bench-output.md).
void write_bench_csv(std::ostream& out, const BenchResults& results);

/// A line naming device, driver, CUDA version, date and command, then a GitHub table with the
/// terminal table's columns, ready to paste into docs/performance.md.
void write_bench_markdown(std::ostream& out, const BenchResults& results);

/// `field` as one RFC 4180 CSV field: quoted when it holds a comma, a quote, CR or LF, with
/// quotes doubled.
std::string csv_field(std::string_view field);

}  // namespace cudalab
