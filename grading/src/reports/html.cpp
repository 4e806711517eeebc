// The instructor's class report: one self-contained HTML page. Inline CSS and SVG drawn here, no
// script, nothing fetched (a Content-Security-Policy says so to the browser as well), so the file
// can be mailed or opened from a gradebook folder as it is.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "cudalab/grading/reports.hpp"
#include "cudalab/judge.hpp"
#include "reports_common.hpp"

namespace cudalab::grading {

using namespace reports_detail;

namespace {

constexpr double kPlotWidth = 1000;  // SVG user units; the page scales the plots to its column
constexpr double kPlotLeft = 64;
constexpr double kPlotRight = 24;
constexpr std::size_t kExampleChars = 220;  // of an example failure message; the rest is in its tooltip

constexpr const char* kStyle = R"css(
:root { --ink:#1d2430; --muted:#5f6b7a; --line:#dfe3e8; --soft:#f5f7f9; --accent:#2f5d9e;
        --pass:#2e8b57; --part:#d49a1c; --fail:#c8423b; --none:#b7bec7; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff;
       font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 28px 32px 56px; }
h1 { font-size: 28px; margin: 0 0 4px; letter-spacing: -0.01em; }
h2 { font-size: 20px; margin: 40px 0 6px; padding-bottom: 6px; border-bottom: 2px solid var(--ink); }
h3 { font-size: 16px; margin: 24px 0 2px; }
p { margin: 6px 0; }
.meta, .caption, .muted { color: var(--muted); }
.caption { font-size: 13.5px; margin: 2px 0 8px; }
.num, td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
nav { margin: 10px 0 0; font-size: 14px; }
nav a { color: var(--accent); text-decoration: none; margin-right: 16px; }
.banner { margin: 14px 0 0; padding: 10px 14px; border-radius: 6px; border-left: 5px solid; }
.banner.ok { background: #eef6f1; border-color: var(--pass); }
.banner.warn { background: #fdf6e7; border-color: var(--part); }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(190px, 1fr)); gap: 12px; margin: 20px 0 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; }
.card .big { font-size: 26px; font-weight: 650; font-variant-numeric: tabular-nums; }
.card .label { color: var(--muted); font-size: 13px; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th { text-align: left; font-weight: 600; color: var(--muted); font-size: 12.5px; text-transform: uppercase;
     letter-spacing: 0.03em; border-bottom: 1px solid var(--ink); padding: 6px 8px; background: #fff; }
td { padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
.ex td { padding: 10px 8px; }
.ex .name { font-weight: 600; white-space: nowrap; }
.mix { display: flex; height: 12px; border-radius: 3px; overflow: hidden; min-width: 140px; margin-top: 4px; }
.mix span { display: block; height: 100%; }
.legend { font-size: 12.5px; color: var(--muted); margin: 6px 0 0; }
.legend i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin: 0 4px 0 10px;
            vertical-align: -1px; }
.legend i:first-child { margin-left: 0; }
.meanbar { height: 6px; background: var(--soft); border-radius: 3px; margin-top: 5px; min-width: 80px; }
.meanbar span { display: block; height: 100%; background: var(--accent); border-radius: 3px; }
.failure b { color: var(--fail); }
.example { color: var(--muted); font-size: 13px; margin-top: 2px; overflow-wrap: anywhere; }
.example code { font-size: 12.5px; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace; }
figure { margin: 10px 0 18px; }
svg { display: block; width: 100%; height: auto; font-family: inherit; }
svg text { fill: var(--ink); font-size: 13px; }
svg .tick { fill: var(--muted); font-size: 12px; }
svg .halo { paint-order: stroke; stroke: #fff; stroke-width: 4px; stroke-linejoin: round; }
svg .axis { stroke: #8a94a1; stroke-width: 1; }
svg .grid { stroke: #eceff2; stroke-width: 1; }
.students { font-size: 13.5px; }
.students thead th { position: sticky; top: 0; z-index: 1; }
.students td { padding: 4px 8px; }
.students tbody tr:nth-child(even) td { background: #fafbfc; }
.students th.exname { text-transform: none; letter-spacing: 0; font-size: 13px; }
.students td.cell { text-align: right; font-variant-numeric: tabular-nums; }
.students td.failed { background: #fbeeed !important; }
.students td.failed small { color: var(--fail) !important; }
.students td.missing { color: var(--none); }
.students td.cell small { display: block; color: var(--muted); font-size: 11.5px; line-height: 1.2; white-space: nowrap; }
.students td.total { font-weight: 650; text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.totalbar { display: inline-block; width: 70px; height: 6px; background: var(--soft); border-radius: 3px;
            margin-left: 8px; vertical-align: middle; }
.totalbar span { display: block; height: 100%; background: var(--accent); border-radius: 3px; }
ul.notes { padding-left: 20px; }
footer { margin-top: 40px; color: var(--muted); font-size: 12.5px; }
@media print { .students thead th { position: static; } h2 { break-after: avoid; } figure { break-inside: avoid; } }
)css";

// Verdict colours, from the one verdict table; a missing submission is the palest grey.
std::string verdict_color(const std::string& verdict) {
  if (const auto v = verdict_from_name(verdict)) return traits_of(*v).color;
  return verdict == "not submitted" ? "#dfe3e8" : "#718096";
}

// Categorical colours for exercises (Tableau-like, distinguishable in print and for most colour vision).
std::string series_color(std::size_t i) {
  static const std::vector<std::string> kSeries = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                                   "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return kSeries[i % kSeries.size()];
}

std::string f1(double v) { return fmt::format("{:.1f}", v); }

// Three significant digits without trailing zeros: axis labels read 1, 2.5, 10k rather than 1.00.
std::string compact(double v) {
  std::string s = three_digits(v);
  if (s.find('.') != std::string::npos && s.find('e') == std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string tick_text(double v) { return std::abs(v) >= 1e4 ? compact(v / 1e3) + "k" : compact(v); }

// 1, 2 or 5 times a power of ten, near `rough`.
double nice_step(double rough) {
  const double p = std::pow(10.0, std::floor(std::log10(rough)));
  const double m = rough / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

// A horizontal axis, linear or logarithmic, mapping values to SVG x.
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double x0 = kPlotLeft, x1 = kPlotWidth - kPlotRight;

  [[nodiscard]] double x(double v) const {
    const double t =
        log ? (std::log(std::max(v, lo)) - std::log(lo)) / (std::log(hi) - std::log(lo)) : (v - lo) / (hi - lo);
    return x0 + std::clamp(t, 0.0, 1.0) * (x1 - x0);
  }
  [[nodiscard]] std::vector<double> ticks() const {
    std::vector<double> out;
    if (!log) {
      // Counted, not accumulated: a sum of steps drifts off 0.1-like values.
      const double step = nice_step((hi - lo) / 6);
      const auto first = static_cast<long>(std::ceil(lo / step));
      for (long i = first; static_cast<double>(i) * step <= hi * (1 + 1e-9); ++i)
        out.push_back(static_cast<double>(i) * step);
      return out;
    }
    const bool sparse = std::log10(hi / lo) > 2.5;  // many decades: powers of ten only
    for (int e = static_cast<int>(std::floor(std::log10(lo))); std::pow(10.0, e) <= hi; ++e) {
      for (double m : {1.0, 2.0, 5.0}) {
        const double v = m * std::pow(10.0, e);
        if (sparse && m != 1.0) continue;
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push_back(v);
      }
    }
    return out;
  }
};

std::string svg_open(double height, const std::string& label) {
  return fmt::format(R"(<svg viewBox="0 0 {} {}" role="img" aria-label="{}">)", kPlotWidth, f1(height),
                     html_escape(label)) +
         "\n";
}

std::string text(double x, double y, const std::string& s, const std::string& anchor = "start",
                 const std::string& cls = "") {
  return fmt::format(R"(<text x="{}" y="{}" text-anchor="{}"{}>{}</text>)", f1(x), f1(y), anchor,
                     cls.empty() ? "" : " class=\"" + cls + "\"", s) +
         "\n";
}

std::string line(double x1, double y1, double x2, double y2, const std::string& cls_or_style) {
  const bool is_class = cls_or_style.find(':') == std::string::npos;
  return fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" {}="{}"/>)", f1(x1), f1(y1), f1(x2), f1(y2),
                     is_class ? "class" : "style", cls_or_style) +
         "\n";
}

// A vertical count axis (left), with grid lines, from 0 to `max_count`.
std::string count_axis(int max_count, double top, double bottom, const std::string& title) {
  std::string out;
  const int step = std::max(1, static_cast<int>(nice_step(std::max(1.0, max_count / 4.0))));
  for (int c = 0; c <= max_count; c += step) {
    const double y = bottom - (bottom - top) * c / std::max(1, max_count);
    out += line(kPlotLeft, y, kPlotWidth - kPlotRight, y, "grid");
    out += text(kPlotLeft - 8, y + 4, std::to_string(c), "end", "tick");
  }
  out += fmt::format(R"~(<text transform="translate(16 {}) rotate(-90)" text-anchor="middle" class="tick">{}</text>)~",
                     f1((top + bottom) / 2), title) +
         "\n";
  return out;
}

struct Rect {
  double x, y, w, h;
  std::string fill, title;
};
std::string rect(const Rect& r) {
  return fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}" rx="2"><title>{}</title></rect>)", f1(r.x),
                     f1(r.y), f1(std::max(0.0, r.w)), f1(std::max(0.0, r.h)), r.fill, r.title) +
         "\n";
}

// ---- The score distribution -------------------------------------------------------------------

std::string score_histogram(const ClassResults& results) {
  constexpr int kBins = 10;
  constexpr double kTop = 44, kBottom = 246, kHeight = 290;  // the row above kTop is the median's label
  const double max_total = results.max_total();
  std::vector<std::vector<std::string>> bins(kBins);
  std::vector<double> percents;
  for (const auto& s : results.students) {
    const double pct = max_total > 0 ? 100.0 * results.total(s) / max_total : 0;
    percents.push_back(pct);
    bins[std::clamp(static_cast<int>(pct / 10.0), 0, kBins - 1)].push_back(s);  // 100 % joins 90–100
  }
  int most = 1;
  for (const auto& b : bins) most = std::max(most, static_cast<int>(b.size()));
  const Axis axis{0, 100, false};
  std::string out = svg_open(kHeight, "histogram of the students' totals");
  out += count_axis(most, kTop, kBottom, "students");
  const double bw = (axis.x1 - axis.x0) / kBins;
  for (int i = 0; i < kBins; ++i) {
    const int n = static_cast<int>(bins[i].size());
    if (n > 0) {
      const double h = (kBottom - kTop) * n / most;
      std::string who;
      constexpr std::size_t kNamesInTooltip = 12;
      for (std::size_t k = 0; k < bins[i].size() && k < kNamesInTooltip; ++k) who += (k ? ", " : "") + bins[i][k];
      if (bins[i].size() > kNamesInTooltip) who += fmt::format(" and {} more", bins[i].size() - kNamesInTooltip);
      out +=
          rect({axis.x0 + i * bw + 3, kBottom - h, bw - 6, h, "#4e79a7",
                html_escape(fmt::format("{}–{} %: {} student{}: {}", i * 10, i * 10 + 10, n, n == 1 ? "" : "s", who))});
      out += text(axis.x0 + (i + 0.5) * bw, kBottom - h - 6, std::to_string(n), "middle", "halo");
    }
    out += text(axis.x0 + (i + 0.5) * bw, kBottom + 18, fmt::format("{}–{}", i * 10, i * 10 + 10), "middle", "tick");
  }
  out += line(axis.x0, kBottom, axis.x1, kBottom, "axis");
  out += text((axis.x0 + axis.x1) / 2, kBottom + 38, "total, % of the maximum", "middle", "tick");
  if (!percents.empty()) {
    const double med = median(percents);
    const double x = axis.x(med);
    out += line(x, kTop - 30, x, kBottom, "stroke:#1d2430;stroke-width:1.5;stroke-dasharray:5 4");
    out +=
        text(x + (med > 80 ? -6 : 6), kTop - 22, fmt::format("median {} %", compact(med)), med > 80 ? "end" : "start");
  }
  return out + "</svg>\n";
}

// ---- Per exercise: results and failures ------------------------------------------------------

std::string exercise_table(const ClassResults& results, std::map<std::string, int>& legend) {
  std::string out =
      "<table class=\"ex\"><thead><tr><th>exercise</th><th class=\"num\">submitted</th><th class=\"num\">passed</th>"
      "<th class=\"num\">full marks</th><th class=\"num\">mean points</th><th>results</th>"
      "<th>most common failure</th></tr></thead><tbody>\n";
  for (const auto& e : results.exercises) {
    const ExerciseStats s = exercise_stats(results, e);
    const int students = std::max(1, s.students);
    std::string mix;
    // Passed first, then failures by count, then the missing: the eye reads the green share.
    std::vector<std::pair<std::string, int>> parts(s.verdicts.begin(), s.verdicts.end());
    std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) {
      if ((a.first == "passed") != (b.first == "passed")) return a.first == "passed";
      return a.second > b.second;
    });
    if (s.students > s.submitted) parts.emplace_back("not submitted", s.students - s.submitted);
    for (const auto& [verdict, n] : parts) {
      legend[verdict] += n;
      mix += fmt::format(R"(<span style="width:{:.3f}%;background:{}" title="{}: {}"></span>)", 100.0 * n / students,
                         verdict_color(verdict), html_escape(verdict_words(verdict)), n);
    }
    std::string failure = "<span class=\"muted\">none</span>";
    if (!s.common_failure.empty()) {
      std::string example = one_line(s.example_message);
      const std::string full = example;
      if (example.size() > kExampleChars) {
        example.resize(kExampleChars);
        while (!example.empty() && (static_cast<unsigned char>(example.back()) & 0xC0) == 0x80) example.pop_back();
        if (!example.empty()) example.pop_back();  // the lead byte of a cut sequence, or one character
        example += "…";
      }
      failure = fmt::format(
          R"(<div class="failure"><b>{}</b> &times; {}</div><div class="example" title="{}">e.g. {}: <code>{}</code></div>)",
          html_escape(verdict_words(s.common_failure)), s.common_failure_count, html_escape(full),
          html_escape(s.example_student), html_escape(example));
    }
    const double mean_pct = s.max > 0 ? 100.0 * s.mean / s.max : 0;
    out += fmt::format(
        "<tr><td class=\"name\">{}</td><td class=\"num\">{} / {}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{} / {}<div class=\"meanbar\"><span style=\"width:{:.1f}%\"></span></div></td>"
        "<td><div class=\"mix\">{}</div></td><td>{}</td></tr>\n",
        html_escape(e), s.submitted, s.students, s.passed, s.full, points(s.mean), points(s.max), mean_pct, mix,
        failure);
  }
  out += "</tbody></table>\n";
  return out;
}

std::string verdict_legend(const std::map<std::string, int>& used) {
  std::string out = "<p class=\"legend\">";
  std::vector<std::string> order = {"passed"};
  for (const auto& [v, n] : used) {
    if (v != "passed" && v != "not submitted") order.push_back(v);
  }
  order.emplace_back("not submitted");
  for (const auto& v : order) {
    if (!used.contains(v)) continue;
    out += fmt::format(R"(<i style="background:{}"></i>{})", verdict_color(v), html_escape(verdict_words(v)));
  }
  return out + "</p>\n";
}

// ---- Speed ------------------------------------------------------------------------------------

struct Timed {
  std::string student;
  Timing t;
};

std::vector<Timed> timed_attempts(const ClassResults& results, const std::string& exercise) {
  std::vector<Timed> out;
  for (const auto& s : results.students) {
    const Attempt* a = results.find(s, exercise);
    if (a != nullptr && a->timing && a->timing->throughput > 0) out.push_back({s, *a->timing});
  }
  return out;
}

// Each student's throughput as a dot (a Wilkinson dot plot: dots stack where values coincide, so
// one student and two hundred both read well), the reference solution's and the device's peak as
// vertical lines, the region past the peak shaded: the roofline's ceiling for this exercise.
std::string throughput_plot(const std::string& exercise, const std::vector<Timed>& timed) {
  constexpr double kMaxStack = 150;  // px: past this a crowded column is cut and labelled with its count
  std::vector<double> refs, peaks;
  double lo = timed.front().t.throughput, hi = lo;
  for (const auto& x : timed) {
    lo = std::min(lo, x.t.throughput);
    hi = std::max(hi, x.t.throughput);
    if (auto r = reference_throughput(x.t)) refs.push_back(*r);
    if (auto p = device_peak(x.t)) peaks.push_back(*p);
  }
  // 0 when unknown (plain doubles: GCC misreads optionals here as maybe uninitialized).
  const double ref = refs.empty() ? 0 : median(refs);
  const double peak = peaks.empty() ? 0 : median(peaks);
  if (ref > 0) {
    hi = std::max(hi, ref);
    lo = std::min(lo, ref);
  }
  if (peak > 0) hi = std::max(hi, peak);
  // A log axis when the class spans more than a factor of 30: a naive kernel and a tuned one both
  // stay readable; otherwise linear from 0, which reads as "how much of the peak".
  Axis axis;
  axis.log = hi / lo > 30;
  if (axis.log) {
    axis.lo = lo / 1.6;
    axis.hi = hi * 1.15;
  } else {
    axis.lo = 0;
    axis.hi = hi * 1.08;
  }

  // Stack the dots in columns one dot wide. Smaller dots for a crowded class: narrower columns
  // spread the stacks; where many students share one value the column is cut at kMaxStack.
  struct Dot {
    double x;
    int level;
    const Timed* who;
  };
  std::vector<const Timed*> order;
  for (const auto& x : timed) order.push_back(&x);
  std::sort(order.begin(), order.end(),
            [](const Timed* a, const Timed* b) { return a->t.throughput < b->t.throughput; });
  double dot = 0;
  std::vector<Dot> dots;
  std::map<int, int> height;
  int tallest = 1;
  // Sizes to try; when none fits (many students share one value), the largest, cut.
  for (const double d : {11.0, 9.0, 7.0, 11.0}) {
    dot = d;
    dots.clear();
    height.clear();
    tallest = 1;
    for (const Timed* x : order) {
      const int col = static_cast<int>((axis.x(x->t.throughput) - axis.x0) / dot);
      const int level = height[col]++;
      tallest = std::max(tallest, level + 1);
      dots.push_back({axis.x0 + (col + 0.5) * dot, level, x});
    }
    if (tallest * dot <= kMaxStack) break;
  }
  const int max_levels = static_cast<int>(kMaxStack / dot);
  const double top = 62;  // two rows of labels above the plot, each at the top of its line
  const double bottom = top + std::max(70.0, std::min(tallest, max_levels) * dot + 14);
  const double total_height = bottom + 44;
  std::string out = svg_open(total_height, exercise + ": throughput of each student");
  const std::string& unit = timed.front().t.unit;

  if (peak > 0) {
    const double px = axis.x(peak);
    out += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="#eef0f3"/>)", f1(px), f1(top - 8),
                       f1(axis.x1 - px), f1(bottom - top + 8)) +
           "\n";
  }
  for (double v : axis.ticks()) {
    const double x = axis.x(v);
    out += line(x, top - 8, x, bottom, "grid");
    out += text(x, bottom + 18, tick_text(v), "middle", "tick");
  }
  out += line(axis.x0, bottom, axis.x1, bottom, "axis");
  out += text((axis.x0 + axis.x1) / 2, bottom + 38,
              html_escape(unit) + (axis.log ? " (log scale)" : "") + ", higher is better", "middle", "tick");
  for (const auto& d : dots) {
    if (d.level >= max_levels) continue;  // counted in the column's label below
    const auto x = speedup(d.who->t);
    const bool fast = x && *x >= 0.95;  // within 5 % of the reference counts as matching it
    out +=
        fmt::format(
            R"(<circle cx="{}" cy="{}" r="{}" fill="{}" fill-opacity="0.85" stroke="#fff" stroke-width="1"><title>{}</title></circle>)",
            f1(d.x), f1(bottom - (d.level + 0.5) * dot - 1), f1(dot / 2 - 0.5), fast ? "#2e8b57" : "#4e79a7",
            html_escape(fmt::format("{}: {}, {} ({} % of peak){}", d.who->student,
                                    throughput_text(d.who->t.throughput, unit), duration_text(d.who->t.median_s),
                                    three_digits(d.who->t.percent_of_peak),
                                    x ? fmt::format(", {}× the reference", three_digits(*x)) : ""))) +
        "\n";
  }
  for (const auto& [col, n] : height) {
    if (n <= max_levels) continue;
    out += text(axis.x0 + (col + 0.5) * dot, bottom - max_levels * dot - 4, fmt::format("{} students", n), "middle",
                "tick halo");
  }
  // Each line carries its label like a flag, on its left: the device peak on the upper row, the
  // reference on the lower one, so that neither label crosses the other's line.
  const double row1 = top - 40, row2 = top - 22;
  if (peak > 0) {
    const double x = axis.x(peak);
    out += line(x, row1 - 12, x, bottom, "stroke:#c8423b;stroke-width:2.5");
    out += text(x - 6, row1, "device peak " + throughput_text(peak, html_escape(unit)), "end", "halo");
  }
  if (ref > 0) {
    const double x = axis.x(ref);
    out += line(x, row2 - 12, x, bottom, "stroke:#1d2430;stroke-width:2;stroke-dasharray:6 4");
    const bool right = x < axis.x0 + 190;  // no room on the left
    out += text(x + (right ? 6 : -6), row2, "reference " + throughput_text(ref, html_escape(unit)),
                right ? "start" : "end", "halo");
  }
  return out + "</svg>\n";
}

std::string speedup_histogram(const ClassResults& results) {
  // Half-octave bins on a log2 axis: 1× (the reference) is a bin edge; 2× faster and 2× slower look alike.
  struct Entry {
    std::size_t exercise;
    double speedup;
    std::string student;
  };
  std::vector<Entry> entries;
  for (std::size_t i = 0; i < results.exercises.size(); ++i) {
    for (const auto& x : timed_attempts(results, results.exercises[i])) {
      if (auto s = speedup(x.t)) entries.push_back({i, *s, x.student});
    }
  }
  if (entries.empty()) return "";
  int kmin = -4, kmax = 2;  // at least 1/4× to 2×
  for (const auto& e : entries) {
    const int k = static_cast<int>(std::floor(2 * std::log2(e.speedup)));
    kmin = std::min(kmin, k);
    kmax = std::max(kmax, k + 1);
  }
  const int bins = kmax - kmin;
  std::vector<std::vector<std::vector<std::string>>> counts(
      bins, std::vector<std::vector<std::string>>(results.exercises.size()));
  for (const auto& e : entries) {
    const int k = static_cast<int>(std::floor(2 * std::log2(e.speedup))) - kmin;
    counts[k][e.exercise].push_back(e.student);
  }
  int most = 1;
  for (const auto& b : counts) {
    int n = 0;
    for (const auto& per : b) n += static_cast<int>(per.size());
    most = std::max(most, n);
  }
  constexpr double kTop = 50, kBottom = 250, kHeight = 296;
  const Axis axis{std::pow(2.0, kmin / 2.0), std::pow(2.0, kmax / 2.0), true};
  std::string out = svg_open(kHeight, "histogram of the speedups over the reference solution");
  // The legend: one swatch per exercise that has timings.
  double lx = kPlotLeft;
  for (std::size_t i = 0; i < results.exercises.size(); ++i) {
    bool any = false;
    for (const auto& b : counts) any = any || !b[i].empty();
    if (!any) continue;
    out +=
        fmt::format(R"(<rect x="{}" y="8" width="12" height="12" rx="2" fill="{}"/>)", f1(lx), series_color(i)) + "\n";
    out += text(lx + 17, 19, html_escape(results.exercises[i]));
    lx += 30 + 8.0 * static_cast<double>(results.exercises[i].size());
  }
  out += count_axis(most, kTop, kBottom, "attempts");
  const double bw = (axis.x1 - axis.x0) / bins;
  for (int b = 0; b < bins; ++b) {
    double y = kBottom;
    for (std::size_t i = 0; i < results.exercises.size(); ++i) {
      const auto& who = counts[b][i];
      if (who.empty()) continue;
      const double h = (kBottom - kTop) * static_cast<double>(who.size()) / most;
      std::string names;
      constexpr std::size_t kNamesInTooltip = 12;
      for (std::size_t k = 0; k < who.size() && k < kNamesInTooltip; ++k) names += (k ? ", " : "") + who[k];
      if (who.size() > kNamesInTooltip) names += fmt::format(" and {} more", who.size() - kNamesInTooltip);
      out += rect({axis.x0 + b * bw + 2, y - h, bw - 4, h, series_color(i),
                   html_escape(fmt::format("{}: {} attempt{} at {}–{}×: {}", results.exercises[i], who.size(),
                                           who.size() == 1 ? "" : "s", three_digits(std::pow(2.0, (kmin + b) / 2.0)),
                                           three_digits(std::pow(2.0, (kmin + b + 1) / 2.0)), names))});
      y -= h;
    }
  }
  for (int k = kmin; k <= kmax; ++k) {
    if (k % 2 != 0) continue;  // label whole octaves
    const double v = std::pow(2.0, k / 2.0);
    out += text(axis.x(v), kBottom + 18, compact(v) + "×", "middle", "tick");
  }
  out += line(axis.x0, kBottom, axis.x1, kBottom, "axis");
  const double x1 = axis.x(1.0);
  out += line(x1, kTop - 16, x1, kBottom, "stroke:#1d2430;stroke-width:2;stroke-dasharray:6 4");
  out += text(x1 + 6, kTop - 6, "as fast as the reference", "start", "halo");
  out += text((axis.x0 + axis.x1) / 2, kBottom + 40,
              "speedup over the reference solution (log scale): right of 1× is faster", "middle", "tick");
  return out + "</svg>\n";
}

// Why speed was not graded: "checked on the CPU simulator".
std::string speed_reason(const ClassResults& results) {
  constexpr std::string_view kPrefix = "speed not graded: ";
  std::string line = speed_line(results);
  return line.starts_with(kPrefix) ? line.substr(kPrefix.size()) : line;
}

std::string speed_section(const ClassResults& results) {
  std::string out = "<section id=\"speed\"><h2>Speed</h2>\n";
  if (!results.speed_graded) {
    out += "<p class=\"banner warn\"><b>Speed was not graded</b>: " + html_escape(speed_reason(results)) +
           ", so there are no timings to plot. Grade on a GPU to see each student's throughput against the "
           "reference solution and the device's peak.</p>\n</section>\n";
    return out;
  }
  out +=
      "<p class=\"caption\">Each dot is one student's median throughput at the timed size (hover for the "
      "name and time). <span style=\"color:#2e8b57\">&#9679;</span> at least as fast as the reference solution "
      "(within 5 %), <span style=\"color:#4e79a7\">&#9679;</span> slower. Dashed: the reference solution, timed in "
      "the same runs. Red: the device's peak for what bounds this exercise (memory bandwidth or FP32), the "
      "roofline's ceiling; nothing gets past it.</p>\n";
  for (const auto& e : results.exercises) {
    const auto timed = timed_attempts(results, e);
    out += "<h3>" + html_escape(e) + "</h3>\n";
    if (timed.empty()) {
      out += "<p class=\"muted\">No timed solution: speed is measured only once every check passes.</p>\n";
      continue;
    }
    std::vector<double> pct, su;
    for (const auto& x : timed) {
      pct.push_back(x.t.percent_of_peak);
      if (auto s = speedup(x.t)) su.push_back(*s);
    }
    out += fmt::format("<p class=\"caption\">{} timed at {}; median {} % of peak", timed.size(),
                       html_escape(timed.front().t.label), three_digits(median(pct)));
    if (!su.empty()) {
      const auto faster = std::count_if(su.begin(), su.end(), [](double s) { return s >= 0.95; });
      out += fmt::format(", median speedup {}×; {} of {} at least as fast as the reference", three_digits(median(su)),
                         faster, su.size());
    }
    out += ".</p>\n<figure>" + throughput_plot(e, timed) + "</figure>\n";
  }
  const std::string hist = speedup_histogram(results);
  if (!hist.empty()) {
    out +=
        "<h3>Speedup over the reference solution</h3>\n<p class=\"caption\">Every timed attempt, stacked by "
        "exercise: the reference solution's median time over the student's.</p>\n<figure>" +
        hist + "</figure>\n";
  }
  return out + "</section>\n";
}

// ---- The class table ----------------------------------------------------------------------------

std::string class_table(const ClassResults& results) {
  std::string out = "<table class=\"students\"><thead><tr><th>student</th>";
  for (const auto& e : results.exercises) {
    out += fmt::format("<th class=\"num exname\">{}<br>/ {}</th>", html_escape(e), points(exercise_max(results, e)));
  }
  out += fmt::format("<th class=\"num\">total / {}</th></tr></thead><tbody>\n", points(results.max_total()));
  const double max_total = results.max_total();
  for (const auto& s : results.students) {
    out += "<tr><td>" + html_escape(s) + "</td>";
    for (const auto& e : results.exercises) {
      const Attempt* a = results.find(s, e);
      if (a == nullptr) {
        out += "<td class=\"cell missing\" title=\"not submitted\">—<small>not submitted</small></td>";
        continue;
      }
      const std::string cls = passed(*a) ? "passed" : "failed";
      std::string sub;
      if (!passed(*a)) {
        sub = verdict_words(a->verdict);
      } else if (a->timing) {
        if (auto x = speedup(*a->timing)) sub = three_digits(*x) + "× ref";
      }
      std::string title = verdict_words(a->verdict) + ": " + one_line(a->message);
      if (a->timing) title += "; " + duration_text(a->timing->median_s);
      out += fmt::format("<td class=\"cell {}\" title=\"{}\">{}<small>{}</small></td>", cls, html_escape(title),
                         points(a->score.total), sub.empty() ? "&nbsp;" : html_escape(sub));
    }
    const double total = results.total(s);
    out += fmt::format(
        "<td class=\"total\">{}<span class=\"totalbar\"><span style=\"width:{:.1f}%\"></span></span></td></tr>\n",
        points(total), max_total > 0 ? std::clamp(100.0 * total / max_total, 0.0, 100.0) : 0.0);
  }
  return out + "</tbody></table>\n";
}

std::string cards(const ClassResults& results) {
  std::vector<double> totals;
  int complete = 0, missing = 0;
  for (const auto& s : results.students) {
    totals.push_back(results.total(s));
    bool all = true;
    for (const auto& e : results.exercises) {
      const Attempt* a = results.find(s, e);
      if (a == nullptr) ++missing;
      all = all && a != nullptr && passed(*a);
    }
    complete += all ? 1 : 0;
  }
  const double mean =
      totals.empty() ? 0 : std::accumulate(totals.begin(), totals.end(), 0.0) / static_cast<double>(totals.size());
  const std::string max = points(results.max_total());
  auto card = [](const std::string& big, const std::string& label) {
    return fmt::format("<div class=\"card\"><div class=\"big\">{}</div><div class=\"label\">{}</div></div>", big,
                       label);
  };
  return "<div class=\"cards\">" + card(points(mean, 1) + " <span class=\"muted\">/ " + max + "</span>", "class mean") +
         card(totals.empty() ? "–" : points(median(totals), 1) + " <span class=\"muted\">/ " + max + "</span>",
              "class median") +
         card(fmt::format("{} <span class=\"muted\">of {}</span>", complete, results.students.size()),
              "passed every exercise") +
         card(std::to_string(missing), missing == 1 ? "exercise not submitted" : "exercises not submitted") +
         "</div>\n";
}

}  // namespace

std::string class_report_html(const ClassResults& results) {
  std::string out = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>cudalab class report</title>
<style>)";
  out += kStyle;
  out += "</style></head>\n<body><main>\n<header><h1>Class report</h1>\n";
  std::string meta = fmt::format("{} student{} · {} exercise{} · {} points", results.students.size(),
                                 results.students.size() == 1 ? "" : "s", results.exercises.size(),
                                 results.exercises.size() == 1 ? "" : "s", points(results.max_total()));
  if (!results.graded_at.empty()) meta += " · graded " + html_escape(results.graded_at);
  if (!results.cudalab_version.empty()) meta += " · cudalab " + html_escape(results.cudalab_version);
  out += "<p class=\"meta\">" + meta + "</p>\n";
  out += results.speed_graded
             ? "<p class=\"banner ok\">Speed graded on <b>" +
                   html_escape(results.device.empty() ? "the GPU" : results.device) + "</b>.</p>\n"
             : "<p class=\"banner warn\"><b>Speed not graded</b>: " + html_escape(speed_reason(results)) +
                   ". Points are for correctness only.</p>\n";
  out +=
      "<nav><a href=\"#scores\">Scores</a><a href=\"#exercises\">Exercises</a><a href=\"#speed\">Speed</a>"
      "<a href=\"#students\">Students</a></nav></header>\n";
  out += cards(results);

  out +=
      "<section id=\"scores\"><h2>Score distribution</h2>\n<p class=\"caption\">Students by total, in steps of "
      "10 % of the maximum (full marks count in the last bar).</p>\n<figure>" +
      score_histogram(results) + "</figure></section>\n";

  std::map<std::string, int> legend;
  const std::string table = exercise_table(results, legend);
  out +=
      "<section id=\"exercises\"><h2>Exercises</h2>\n<p class=\"caption\">Mean points over the whole class (an "
      "exercise not submitted counts 0). The bar shows every student's result; the most common failure comes "
      "with one student's message as an example.</p>\n" +
      table + verdict_legend(legend) + "</section>\n";

  out += speed_section(results);

  out +=
      "<section id=\"students\"><h2>Students</h2>\n<p class=\"caption\">Points per exercise; under them the "
      "verdict of a failed attempt (tinted) or, when timed, the speedup over the reference solution. Hover a cell "
      "for the message.</p>\n" +
      class_table(results) + "</section>\n";

  std::string notes;
  for (const auto& s : results.students) {
    const auto it = results.student_notes.find(s);
    if (it == results.student_notes.end()) continue;
    for (const auto& n : it->second) notes += "<li><b>" + html_escape(s) + "</b>: " + html_escape(n) + "</li>\n";
  }
  if (!notes.empty())
    out += "<section id=\"notes\"><h2>Notes on submissions</h2><ul class=\"notes\">\n" + notes + "</ul></section>\n";

  out += "<footer>Written by cudalab";
  if (!results.cudalab_version.empty()) out += " " + html_escape(results.cudalab_version);
  out += ".</footer>\n</main></body></html>\n";
  return out;
}

}  // namespace cudalab::grading
