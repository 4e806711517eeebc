#include "cudalab/bench_report.hpp"

#include "cudalab/protocol.hpp"
#include "cudalab/text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

#include <fmt/format.h>

namespace cudalab {

using nlohmann::json;

namespace {

std::string format_speedup(double x) { return fmt::format("{:.{}f}×", x, x >= 100 ? 0 : x >= 10 ? 1 : 2); }

/// Columns a terminal shows one character wide: UTF-8 code points ("µ", "×", "±" included).
std::size_t display_width(std::string_view s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; }));
}

std::string pad(const std::string& s, std::size_t width, bool right) {
  const std::string fill(width - std::min(width, display_width(s)), ' ');
  return right ? fill + s : s + fill;
}

bool finite(double v) { return std::isfinite(v); }

/// The throughput the human-readable formats show, and the percentage of its peak.
std::pair<std::string, std::string> rate_cells(const Throughput& t) {
  if (t.compute_bound && t.gflops) {
    return {format_significant(*t.gflops) + " GFLOP/s",
            t.percent_compute ? format_percent(*t.percent_compute) + " " + t.compute_peak : "-"};
  }
  if (t.gbs) {
    return {format_significant(*t.gbs) + " GB/s",
            t.percent_bandwidth ? format_percent(*t.percent_bandwidth) + " " + t.bandwidth_peak : "-"};
  }
  return {"-", "-"};
}

/// The table and the Markdown writer share these cells; only the framing differs.
struct Grid {
  std::vector<std::string> header;
  std::vector<bool> right;  ///< numeric columns, right-aligned
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;
};

Grid make_grid(const BenchResults& results) {
  const auto baselines = baseline_names(results);
  bool several_backends = false;
  for (const auto& m : results.measurements) {
    several_backends = several_backends || m.backend != results.measurements.front().backend;
  }

  Grid g;
  auto column = [&g](std::string name, bool right) {
    g.header.push_back(std::move(name));
    g.right.push_back(right);
  };
  column("exercise", false);
  column("size", false);
  if (several_backends) column("backend", false);
  for (const char* name : {"n", "median", "±95%", "spread", "throughput", "% of peak"}) column(name, true);
  for (const auto& b : baselines) column("vs " + b, true);

  for (const auto& m : results.measurements) {
    const Summary& s = m.summary;
    const bool settled = s.stop == StopReason::noise_target_met;
    std::vector<std::string> row{m.exercise, m.c.label()};
    if (several_backends) row.push_back(m.backend);
    row.push_back(fmt::format("{}", s.n));
    row.push_back(format_seconds(s.median));
    row.push_back((finite(s.median_noise) ? format_percent(100 * s.median_noise) : "-") + (settled ? "" : "†"));
    row.push_back(finite(s.spread) ? format_percent(100 * s.spread) : "-");
    auto [rate, percent] = rate_cells(m.throughput);
    row.push_back(std::move(rate));
    row.push_back(std::move(percent));
    for (const auto& b : baselines) {
      const auto x = m.speedup_over(b);
      row.push_back(x && finite(*x) ? format_speedup(*x) : "-");
    }
    g.rows.push_back(std::move(row));

    const std::string what = fmt::format("{} {}", m.exercise, m.c.label());
    if (!settled) {
      const std::string known = finite(s.median_noise)
                                    ? fmt::format("the median is known to ±{}", format_percent(100 * s.median_noise))
                                    : "too few samples to bound the median";
      const char* why = s.stop == StopReason::time_cap      ? "stopped at the time cap"
                        : s.stop == StopReason::max_samples ? "stopped at the sample limit"
                                                            : "not finished";
      g.notes.push_back(fmt::format("† {}: {} after {} samples in {:.1f} s; {}, the target is ±{}", what, why, s.n,
                                    s.wall_s, known, format_percent(100 * results.policy.noise_target)));
    }
    if (!s.minimums_met && s.stop != StopReason::running) {
      g.notes.push_back(fmt::format("{}: below the minimum of {} samples and {} s measured", what,
                                    results.policy.min_samples, results.policy.min_time_s));
    }
    if (m.kernel_median_s) {
      g.notes.push_back(
          fmt::format("{}: timed around solve (launches, copies and host work in it included); the "
                      "kernels alone take {} per call",
                      what, format_seconds(*m.kernel_median_s)));
    }
    for (const auto& note : m.notes) g.notes.push_back(fmt::format("{}: {}", what, note));
    if (s.outliers > 0) {
      g.notes.push_back(fmt::format("{}: {} of {} samples slower than median + 3·IQR (kept; the median discounts them)",
                                    what, s.outliers, s.n));
    }
  }
  return g;
}

std::string device_line(const BenchResults& r) {
  std::vector<std::string> parts;
  parts.push_back(r.device.name.empty() ? "unknown device" : r.device.name);
  if (!r.device.driver.empty()) parts.push_back("driver " + r.device.driver);
  if (!r.device.cuda_version.empty()) parts.push_back("CUDA " + r.device.cuda_version);
  if (!r.date.empty()) parts.push_back(r.date);
  return fmt::format("{}", fmt::join(parts, " · "));
}

/// NaN and ±inf have no JSON spelling; they and absent values become null.
json number(double v) { return finite(v) ? json(v) : json(nullptr); }
json number(const std::optional<double>& v) { return v ? number(*v) : json(nullptr); }

/// Shortest text that reads back as the same double; empty for NaN, ±inf and absent.
std::string csv_number(double v) { return finite(v) ? fmt::format("{}", v) : ""; }
std::string csv_number(const std::optional<double>& v) { return v ? csv_number(*v) : ""; }

const char* bound_name(const Throughput& t) {
  if (!t.gbs && !t.gflops) return nullptr;
  return t.compute_bound ? "compute" : "memory";
}

std::string markdown_cell(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += '\\';
    out += ch;
  }
  return out;
}

}  // namespace

std::string csv_field(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (char ch : field) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + '"';
}

std::vector<std::string> baseline_names(const BenchResults& results) {
  std::vector<std::string> names;
  for (const auto& m : results.measurements) {
    for (const auto& b : m.baselines) {
      if (std::find(names.begin(), names.end(), b.name) == names.end()) names.push_back(b.name);
    }
  }
  return names;
}

void write_bench_table(std::ostream& out, const BenchResults& results) {
  out << device_line(results) << '\n';
  if (!results.device.clocks.empty()) out << "clocks: " << results.device.clocks << '\n';
  const Grid g = make_grid(results);
  std::vector<std::size_t> width(g.header.size());
  for (std::size_t i = 0; i < g.header.size(); ++i) {
    width[i] = display_width(g.header[i]);
    for (const auto& row : g.rows) width[i] = std::max(width[i], display_width(row[i]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (std::size_t i = 0; i < cells.size(); ++i) text += (i ? "  " : "") + pad(cells[i], width[i], g.right[i]);
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << '\n';
  };
  line(g.header);
  for (const auto& row : g.rows) line(row);
  for (const auto& note : g.notes) out << note << '\n';
}

json bench_report_json(const BenchResults& results) {
  const auto& p = results.policy;
  json doc = {
      {"tool", "cudalab"},
      {"version", CUDALAB_VERSION},
      {"report", "bench"},
      {"device",
       {{"name", results.device.name},
        {"driver", results.device.driver},
        {"cuda", results.device.cuda_version},
        {"clocks", results.device.clocks}}},
      {"date", results.date},
      {"command", results.command},
      {"policy", p},
  };
  json measurements = json::array();
  for (const auto& m : results.measurements) {
    const Summary& s = m.summary;
    const Throughput& t = m.throughput;
    json size = json::object();
    for (const auto& d : m.c.dims) size[d.name] = d.value;
    json baselines = json::array();
    for (const auto& b : m.baselines) {
      baselines.push_back(
          {{"name", b.name}, {"median_s", number(b.median_s)}, {"speedup", number(m.speedup_over(b.name))}});
    }
    const char* bound = bound_name(t);
    measurements.push_back({
        {"exercise", m.exercise},
        {"size", size},
        {"label", m.c.label()},
        {"large", m.c.large},
        {"backend", m.backend},
        {"cost", {{"bytes", m.cost.bytes}, {"flops", m.cost.flops}}},
        {"time",
         {{"n", s.n},
          {"warmup_runs", s.warmup_runs},
          {"median_s", number(s.median)},
          {"min_s", number(s.min)},
          {"max_s", number(s.max)},
          {"mean_s", number(s.mean)},
          {"p25_s", number(s.p25)},
          {"p75_s", number(s.p75)},
          {"spread", number(s.spread)},
          {"median_noise", number(s.median_noise)},
          {"outliers", s.outliers},
          {"stop", stop_reason_name(s.stop)},
          {"minimums_met", s.minimums_met},
          {"total_s", number(s.total_s)},
          {"wall_s", number(s.wall_s)}}},
        {"throughput",
         {{"gb_per_s", number(t.gbs)},
          {"gflop_per_s", number(t.gflops)},
          {"percent_of_peak_bandwidth", number(t.percent_bandwidth)},
          {"percent_of_peak_compute", number(t.percent_compute)},
          {"bandwidth_peak", t.bandwidth_peak},
          {"compute_peak", t.compute_peak},
          {"bound", bound ? json(bound) : json(nullptr)}}},
        {"peaks",
         {{"bandwidth_gb_per_s", m.peaks.bandwidth_gbs > 0 ? json(m.peaks.bandwidth_gbs) : json(nullptr)},
          {"fp32_gflop_per_s", m.peaks.fp32_gflops > 0 ? json(m.peaks.fp32_gflops) : json(nullptr)},
          {"tf32_tensor_gflop_per_s", m.peaks.tf32_gflops > 0 ? json(m.peaks.tf32_gflops) : json(nullptr)},
          {"host_link_gb_per_s", m.peaks.host_link_gbs > 0 ? json(m.peaks.host_link_gbs) : json(nullptr)},
          {"host_duplex_gb_per_s", m.peaks.host_duplex_gbs > 0 ? json(m.peaks.host_duplex_gbs) : json(nullptr)},
          {"source", m.peaks.source}}},
        {"baselines", baselines},
        {"kernel_median_s", m.kernel_median_s ? json(*m.kernel_median_s) : json(nullptr)},
        {"notes", m.notes},
    });
  }
  doc["measurements"] = std::move(measurements);
  return doc;
}

void write_bench_csv(std::ostream& out, const BenchResults& results) {
  const auto baselines = baseline_names(results);
  // Grouped as docs/bench-output.md lists them.
  // clang-format off
  std::vector<std::string> header{
      "exercise", "label", "backend",
      "n", "warmup_runs", "median_s", "min_s", "max_s", "mean_s", "p25_s", "p75_s",
      "spread", "median_noise", "outliers", "stop", "minimums_met", "total_s", "wall_s",
      "bytes", "flops", "gb_per_s", "gflop_per_s", "percent_of_peak_bandwidth", "percent_of_peak_compute",
      "bandwidth_peak", "compute_peak", "bound",
      "peak_bandwidth_gb_per_s", "peak_fp32_gflop_per_s", "peak_tf32_tensor_gflop_per_s", "peak_host_link_gb_per_s",
      "peak_host_duplex_gb_per_s",
      "device", "driver", "cuda", "date"};
  // clang-format on
  for (const auto& b : baselines) {
    header.push_back(b + " median_s");
    header.push_back("speedup vs " + b);
  }
  auto write_row = [&out](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) out << (i ? "," : "") << csv_field(cells[i]);
    out << "\r\n";
  };
  write_row(header);
  for (const auto& m : results.measurements) {
    const Summary& s = m.summary;
    const Throughput& t = m.throughput;
    const char* bound = bound_name(t);
    std::vector<std::string> row{
        m.exercise,
        m.c.label(),
        m.backend,
        fmt::format("{}", s.n),
        fmt::format("{}", s.warmup_runs),
        csv_number(s.median),
        csv_number(s.min),
        csv_number(s.max),
        csv_number(s.mean),
        csv_number(s.p25),
        csv_number(s.p75),
        csv_number(s.spread),
        csv_number(s.median_noise),
        fmt::format("{}", s.outliers),
        stop_reason_name(s.stop),
        s.minimums_met ? "true" : "false",
        csv_number(s.total_s),
        csv_number(s.wall_s),
        csv_number(m.cost.bytes),
        csv_number(m.cost.flops),
        csv_number(t.gbs),
        csv_number(t.gflops),
        csv_number(t.percent_bandwidth),
        csv_number(t.percent_compute),
        t.bandwidth_peak,
        t.compute_peak,
        bound ? bound : "",
        m.peaks.bandwidth_gbs > 0 ? csv_number(m.peaks.bandwidth_gbs) : "",
        m.peaks.fp32_gflops > 0 ? csv_number(m.peaks.fp32_gflops) : "",
        m.peaks.tf32_gflops > 0 ? csv_number(m.peaks.tf32_gflops) : "",
        m.peaks.host_link_gbs > 0 ? csv_number(m.peaks.host_link_gbs) : "",
        m.peaks.host_duplex_gbs > 0 ? csv_number(m.peaks.host_duplex_gbs) : "",
        results.device.name,
        results.device.driver,
        results.device.cuda_version,
        results.date,
    };
    for (const auto& b : baselines) {
      const auto it =
          std::find_if(m.baselines.begin(), m.baselines.end(), [&](const Baseline& x) { return x.name == b; });
      row.push_back(it == m.baselines.end() ? "" : csv_number(it->median_s));
      row.push_back(csv_number(m.speedup_over(b)));
    }
    write_row(row);
  }
}

void write_bench_markdown(std::ostream& out, const BenchResults& results) {
  out << "Device: " << markdown_cell(device_line(results));
  if (!results.command.empty()) out << " · `" << results.command << '`';
  out << "\n\n";
  if (!results.device.clocks.empty()) out << "Clocks: " << markdown_cell(results.device.clocks) << "\n\n";
  const Grid g = make_grid(results);
  auto line = [&out](const std::vector<std::string>& cells) {
    out << '|';
    for (const auto& c : cells) out << ' ' << markdown_cell(c) << " |";
    out << '\n';
  };
  line(g.header);
  out << '|';
  for (bool right : g.right) out << (right ? " ---: |" : " --- |");
  out << '\n';
  for (const auto& row : g.rows) line(row);
  if (!g.notes.empty()) {
    out << '\n';
    for (const auto& note : g.notes) out << markdown_cell(note) << "  \n";
  }
}

}  // namespace cudalab
