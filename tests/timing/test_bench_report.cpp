// Every report format written, then read back with an independent parser, with the same numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudalab/bench_report.hpp"

namespace cudalab {
namespace {

using nlohmann::json;

const std::string ONE = "cpu 1 thread";
const std::string ALL = "cpu, 16 threads";          // a comma: CSV must quote it
const std::string BLAS = "OpenBLAS \"all cores\"";  // quotes: CSV must double them
const std::string PIPE = "thrust | cub";            // a pipe: Markdown must escape it

Summary settled(std::vector<double> samples, StopReason stop) {
  Summary s = summarize(samples);
  s.stop = stop;
  s.minimums_met = true;
  s.warmup_runs = 3;
  s.wall_s = 1.5;
  return s;
}

BenchResults sample_results() {
  BenchResults r;
  r.device = {"NVIDIA H100 80GB HBM3", "550.54.15", "12.4", "SM 1980 MHz, not throttled"};
  r.date = "2025-06-01";
  r.command = "cudalab bench --all --solution";
  const Peaks peaks{3000, 60000, "measured d2d copy; spec FP32"};

  std::vector<double> add_times;
  for (int i = 0; i < 40; ++i) add_times.push_back(0.4567e-3 * (1 + 0.0001 * (i % 7)));
  r.measurements.push_back(make_measurement("02_vector_add", Case{{{"n", 100'000'000}}, true}, "gpu", Cost{1.2e9, 1e8},
                                            settled(add_times, StopReason::noise_target_met), peaks,
                                            {{ONE, 0.0523}, {ALL, 0.0121}}));

  std::vector<double> mm_times{5.01e-3, 5.2e-3, 4.9e-3, 5.05e-3, 5.3e-3, 4.95e-3, 5.1e-3, 9e-3, 5.0e-3, 5.15e-3};
  const double n = 4096;
  Summary mm = settled(mm_times, StopReason::time_cap);
  r.measurements.push_back(make_measurement("03_matmul", Case{{{"M", 4096}, {"N", 4096}, {"K", 4096}}, true}, "gpu",
                                            Cost{3 * n * n * 4, 2 * n * n * n}, mm, peaks,
                                            {{ONE, 1.75}, {BLAS, 0.0812}}));

  r.measurements.push_back(make_measurement("05_reduce", Case{{{"n", 1 << 20}}, true}, "gpu", Cost{4.0 * (1 << 20), 0},
                                            settled({2e-6, 2.1e-6, 2.2e-6, 2.05e-6}, StopReason::max_samples), Peaks{},
                                            {{PIPE, 1.0e-6}}));
  return r;
}

// ------------------------------------------------------------------------------------------
// JSON

TEST(BenchJson, ParsesBackWithTheSameNumbers) {
  const BenchResults r = sample_results();
  const json doc = json::parse(bench_report_json(r).dump(2));
  EXPECT_EQ(doc["report"], "bench");
  EXPECT_EQ(doc["device"]["name"], r.device.name);
  EXPECT_EQ(doc["device"]["driver"], "550.54.15");
  EXPECT_EQ(doc["device"]["cuda"], "12.4");
  EXPECT_EQ(doc["device"]["clocks"], r.device.clocks);
  EXPECT_EQ(doc["command"], r.command);
  EXPECT_EQ(doc["policy"]["noise_target"].get<double>(), r.policy.noise_target);
  EXPECT_EQ(doc["policy"]["min_samples"].get<std::size_t>(), r.policy.min_samples);
  ASSERT_EQ(doc["measurements"].size(), 3U);

  for (std::size_t i = 0; i < r.measurements.size(); ++i) {
    const Measurement& m = r.measurements[i];
    const json& j = doc["measurements"][i];
    SCOPED_TRACE(m.exercise);
    EXPECT_EQ(j["exercise"], m.exercise);
    EXPECT_EQ(j["label"], m.c.label());
    EXPECT_EQ(j["backend"], "gpu");
    EXPECT_EQ(j["large"], true);
    for (const auto& d : m.c.dims) EXPECT_EQ(j["size"][d.name].get<std::int64_t>(), d.value);
    EXPECT_EQ(j["cost"]["bytes"].get<double>(), m.cost.bytes);
    EXPECT_EQ(j["cost"]["flops"].get<double>(), m.cost.flops);
    const json& t = j["time"];
    EXPECT_EQ(t["n"].get<std::size_t>(), m.summary.n);
    EXPECT_EQ(t["warmup_runs"].get<std::size_t>(), 3U);
    EXPECT_EQ(t["median_s"].get<double>(), m.summary.median);  // exact: JSON keeps full precision
    EXPECT_EQ(t["min_s"].get<double>(), m.summary.min);
    EXPECT_EQ(t["max_s"].get<double>(), m.summary.max);
    EXPECT_EQ(t["mean_s"].get<double>(), m.summary.mean);
    EXPECT_EQ(t["p25_s"].get<double>(), m.summary.p25);
    EXPECT_EQ(t["p75_s"].get<double>(), m.summary.p75);
    EXPECT_EQ(t["spread"].get<double>(), m.summary.spread);
    EXPECT_EQ(t["outliers"].get<std::size_t>(), m.summary.outliers);
    EXPECT_EQ(t["stop"], stop_reason_name(m.summary.stop));
    EXPECT_EQ(t["total_s"].get<double>(), m.summary.total_s);
    ASSERT_EQ(j["baselines"].size(), m.baselines.size());
    for (std::size_t b = 0; b < m.baselines.size(); ++b) {
      EXPECT_EQ(j["baselines"][b]["name"], m.baselines[b].name);
      EXPECT_EQ(j["baselines"][b]["median_s"].get<double>(), m.baselines[b].median_s);
      EXPECT_EQ(j["baselines"][b]["speedup"].get<double>(), *m.speedup_over(m.baselines[b].name));
    }
  }
  const json& add = doc["measurements"][0];
  EXPECT_EQ(add["time"]["median_noise"].get<double>(), r.measurements[0].summary.median_noise);
  EXPECT_EQ(add["throughput"]["gb_per_s"].get<double>(), *r.measurements[0].throughput.gbs);
  EXPECT_EQ(add["throughput"]["percent_of_peak_bandwidth"].get<double>(),
            *r.measurements[0].throughput.percent_bandwidth);
  EXPECT_EQ(add["throughput"]["bound"], "memory");
  EXPECT_EQ(add["peaks"]["bandwidth_gb_per_s"].get<double>(), 3000);
  const json& mm = doc["measurements"][1];
  EXPECT_EQ(mm["throughput"]["bound"], "compute");
  EXPECT_EQ(mm["throughput"]["gflop_per_s"].get<double>(), *r.measurements[1].throughput.gflops);
  EXPECT_EQ(mm["time"]["outliers"], 1);  // the 9 ms sample
  EXPECT_EQ(mm["time"]["stop"], "time_cap");
  const json& reduce = doc["measurements"][2];
  EXPECT_TRUE(reduce["time"]["median_noise"].is_null());  // 4 samples: unbounded, not a number
  EXPECT_TRUE(reduce["throughput"]["gflop_per_s"].is_null());
  EXPECT_TRUE(reduce["throughput"]["percent_of_peak_bandwidth"].is_null());
  EXPECT_TRUE(reduce["peaks"]["bandwidth_gb_per_s"].is_null());
}

// ------------------------------------------------------------------------------------------
// CSV

/// RFC 4180 reader: quoted fields may hold commas, doubled quotes and line breaks; records end
/// with CRLF (a bare LF is accepted too, and counted, so the test can insist on CRLF).
std::vector<std::vector<std::string>> parse_csv(const std::string& text, int* bare_lf = nullptr) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c != '"') {
        field += c;
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
    } else if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
        ++i;
      } else if (c == '\n' && bare_lf) {
        ++*bare_lf;
      }
      row.push_back(std::move(field));
      field.clear();
      rows.push_back(std::move(row));
      row.clear();
    } else {
      field += c;
    }
  }
  EXPECT_FALSE(quoted) << "unterminated quote";
  if (!field.empty() || !row.empty()) {
    row.push_back(std::move(field));
    rows.push_back(std::move(row));
  }
  return rows;
}

TEST(BenchCsv, ParsesBackWithTheSameNumbers) {
  const BenchResults r = sample_results();
  std::ostringstream out;
  write_bench_csv(out, r);
  const std::string text = out.str();
  int bare_lf = 0;
  const auto rows = parse_csv(text, &bare_lf);
  EXPECT_EQ(bare_lf, 0);
  ASSERT_EQ(rows.size(), 4U);  // header and three measurements

  // The awkward baseline names are quoted as RFC 4180 says, and read back intact.
  EXPECT_NE(text.find("\"cpu, 16 threads median_s\""), std::string::npos);
  EXPECT_NE(text.find("\"speedup vs OpenBLAS \"\"all cores\"\"\""), std::string::npos);
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < rows[0].size(); ++i) col[rows[0][i]] = i;
  for (const auto& name : {"exercise", "label", "median_s", "spread", "gb_per_s", "gflop_per_s",
                           "percent_of_peak_bandwidth", "stop", "device", "speedup vs cpu 1 thread"}) {
    ASSERT_TRUE(col.count(name)) << name;
  }
  ASSERT_TRUE(col.count("speedup vs " + ALL));
  ASSERT_TRUE(col.count(BLAS + " median_s"));
  ASSERT_TRUE(col.count("speedup vs " + PIPE));

  for (std::size_t i = 0; i < r.measurements.size(); ++i) {
    const Measurement& m = r.measurements[i];
    const auto& row = rows[i + 1];
    SCOPED_TRACE(m.exercise);
    ASSERT_EQ(row.size(), rows[0].size());
    auto num = [&](const std::string& name) { return std::stod(row[col.at(name)]); };
    EXPECT_EQ(row[col["exercise"]], m.exercise);
    EXPECT_EQ(row[col["label"]], m.c.label());
    EXPECT_EQ(row[col["device"]], r.device.name);
    EXPECT_EQ(row[col["stop"]], stop_reason_name(m.summary.stop));
    EXPECT_EQ(num("median_s"), m.summary.median);  // exact: shortest round-trip text
    EXPECT_EQ(num("p75_s"), m.summary.p75);
    EXPECT_EQ(num("spread"), m.summary.spread);
    EXPECT_EQ(num("bytes"), m.cost.bytes);
    EXPECT_EQ(num("gb_per_s"), *m.throughput.gbs);
    for (const auto& b : baseline_names(r)) {
      const auto x = m.speedup_over(b);
      if (x) {
        EXPECT_EQ(num("speedup vs " + b), *x) << b;
      } else {
        EXPECT_EQ(row[col.at("speedup vs " + b)], "") << b;
        EXPECT_EQ(row[col.at(b + " median_s")], "") << b;
      }
    }
  }
  EXPECT_EQ(std::stod(rows[2][col["gflop_per_s"]]), *r.measurements[1].throughput.gflops);
  EXPECT_EQ(rows[3][col["gflop_per_s"]], "");                // no flops
  EXPECT_EQ(rows[3][col["percent_of_peak_bandwidth"]], "");  // no peak
  EXPECT_EQ(rows[3][col["median_noise"]], "");               // unbounded
}

TEST(BenchCsv, FieldQuoting) {
  EXPECT_EQ(csv_field("plain text"), "plain text");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("cr\r"), "\"cr\r\"");
  EXPECT_EQ(csv_field(""), "");
}

// ------------------------------------------------------------------------------------------
// Markdown and the terminal table

/// Splits a Markdown table row on unescaped pipes and trims each cell; "\|" reads as "|".
std::vector<std::string> markdown_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < line.size(); ++i) {  // past the leading pipe
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (line[i] == '|') {
      const auto b = cell.find_first_not_of(' ');
      const auto e = cell.find_last_not_of(' ');
      cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// "1.234 ms" → 0.001234.
double parse_time(const std::string& cell) {
  const auto space = cell.find(' ');
  const std::string unit = cell.substr(space + 1);
  const double scale = unit == "s" ? 1 : unit == "ms" ? 1e-3 : unit == "µs" ? 1e-6 : unit == "ns" ? 1e-9 : NAN;
  return std::stod(cell.substr(0, space)) * scale;
}

/// Leading number of "52.13×", "800.1 GB/s", "26.67% memory".
double leading_number(const std::string& cell) { return std::stod(cell); }

void expect_close(double actual, double expected, double relative, const std::string& what) {
  EXPECT_NEAR(actual, expected, std::fabs(expected) * relative) << what;
}

TEST(BenchMarkdown, ParsesBackWithTheSameNumbers) {
  const BenchResults r = sample_results();
  std::ostringstream out;
  write_bench_markdown(out, r);
  const auto lines = lines_of(out.str());
  ASSERT_FALSE(lines.empty());
  for (const auto& part :
       {"NVIDIA H100 80GB HBM3", "driver 550.54.15", "CUDA 12.4", "2025-06-01", "`cudalab bench --all --solution`"}) {
    EXPECT_NE(lines[0].find(part), std::string::npos) << part;
  }
  std::vector<std::vector<std::string>> table;
  for (const auto& line : lines) {
    if (line.starts_with("|")) table.push_back(markdown_cells(line));
  }
  ASSERT_EQ(table.size(), 5U);  // header, alignment row, three measurements
  const std::vector<std::string> header{"exercise",  "size",      "n",          "median",
                                        "±95%",      "spread",    "throughput", "% of peak",
                                        "vs " + ONE, "vs " + ALL, "vs " + BLAS, "vs " + PIPE};
  EXPECT_EQ(table[0], header);
  EXPECT_EQ(table[1][0], "---");
  EXPECT_EQ(table[1][3], "---:");  // numbers right-aligned
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < header.size(); ++i) col[header[i]] = i;

  for (std::size_t i = 0; i < r.measurements.size(); ++i) {
    const Measurement& m = r.measurements[i];
    const auto& row = table[i + 2];
    SCOPED_TRACE(m.exercise);
    ASSERT_EQ(row.size(), header.size());
    EXPECT_EQ(row[col["exercise"]], m.exercise);
    EXPECT_EQ(row[col["size"]], m.c.label());
    EXPECT_EQ(std::stoul(row[col["n"]]), m.summary.n);
    // Four significant digits: within half a unit of the fourth digit.
    expect_close(parse_time(row[col["median"]]), m.summary.median, 5e-4, "median");
    expect_close(leading_number(row[col["spread"]]), 100 * m.summary.spread, 5e-3, "spread");
    for (const auto& b : baseline_names(r)) {
      const auto x = m.speedup_over(b);
      if (x) {
        EXPECT_TRUE(row[col["vs " + b]].ends_with("×"));
        expect_close(leading_number(row[col["vs " + b]]), *x, 5e-3, b);
      } else {
        EXPECT_EQ(row[col["vs " + b]], "-") << b;
      }
    }
  }
  const auto& add = table[2];
  EXPECT_TRUE(add[col["throughput"]].ends_with(" GB/s"));
  expect_close(leading_number(add[col["throughput"]]), *r.measurements[0].throughput.gbs, 5e-4, "GB/s");
  EXPECT_TRUE(add[col["% of peak"]].ends_with("% memory"));
  expect_close(leading_number(add[col["% of peak"]]), *r.measurements[0].throughput.percent_bandwidth, 5e-3, "%bw");
  const auto& mm = table[3];
  EXPECT_TRUE(mm[col["throughput"]].ends_with(" GFLOP/s"));
  expect_close(leading_number(mm[col["throughput"]]), *r.measurements[1].throughput.gflops, 5e-4, "GFLOP/s");
  EXPECT_TRUE(mm[col["% of peak"]].ends_with("% FP32"));
  EXPECT_TRUE(mm[col["±95%"]].ends_with("†"));  // stopped at the time cap
  EXPECT_FALSE(add[col["±95%"]].ends_with("†"));
  EXPECT_EQ(table[4][col["% of peak"]], "-");  // no peaks known for it
  EXPECT_EQ(table[4][col["±95%"]], "-†");      // 4 samples: no interval, stopped at max_samples
}

/// Code points of a UTF-8 line: one terminal column each for the characters used here.
std::vector<std::string> columns_of(const std::string& line) {
  std::vector<std::string> out;
  for (char c : line) {
    if ((static_cast<unsigned char>(c) & 0xC0) == 0x80)
      out.back() += c;
    else
      out.emplace_back(1, c);
  }
  return out;
}

TEST(BenchTable, ColumnsAlignAndNotesExplainUnsettledResults) {
  const BenchResults r = sample_results();
  std::ostringstream out;
  write_bench_table(out, r);
  const auto lines = lines_of(out.str());
  ASSERT_GE(lines.size(), 6U);
  EXPECT_EQ(lines[0], "NVIDIA H100 80GB HBM3 · driver 550.54.15 · CUDA 12.4 · 2025-06-01");
  EXPECT_EQ(lines[1], "clocks: SM 1980 MHz, not throttled");
  const auto header = columns_of(lines[2]);
  const std::string header_text = lines[2];
  ASSERT_TRUE(header_text.starts_with("exercise"));

  // Right-aligned columns end where their header ends, on every row.
  for (const std::string& name : std::vector<std::string>{"median", "throughput", "vs " + ONE, "vs " + PIPE}) {
    const auto bytes = header_text.find(name);
    ASSERT_NE(bytes, std::string::npos) << name;
    const std::size_t end = columns_of(header_text.substr(0, bytes + name.size())).size();
    for (int row = 3; row < 6; ++row) {
      const auto cols = columns_of(lines[row]);
      ASSERT_GE(cols.size(), end) << name << " row " << row;
      EXPECT_NE(cols[end - 1], " ") << name << ": " << lines[row];
      if (cols.size() > end) {
        EXPECT_EQ(cols[end], " ") << name << ": " << lines[row];
      }
    }
  }
  EXPECT_EQ(columns_of(lines[3]).size(), header.size());  // the last column is right-aligned too
  EXPECT_NE(lines[3].find("02_vector_add"), std::string::npos);
  EXPECT_NE(lines[3].find("GB/s"), std::string::npos);
  EXPECT_NE(lines[4].find("GFLOP/s"), std::string::npos);

  const std::string text = out.str();
  EXPECT_NE(text.find("† 03_matmul M=4096 N=4096 K=4096: stopped at the time cap after 10 samples"), std::string::npos)
      << text;
  EXPECT_NE(text.find("† 05_reduce n=1048576: stopped at the sample limit"), std::string::npos) << text;
  EXPECT_NE(text.find("03_matmul M=4096 N=4096 K=4096: 1 of 10 samples slower than median + 3·IQR"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("02_vector_add n=100000000:"), std::string::npos) << "a settled result needs no note";
}

}  // namespace
}  // namespace cudalab
