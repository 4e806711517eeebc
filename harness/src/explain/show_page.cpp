// `cudalab show`'s pictures (show.hpp): SVG figures built here, in one self-contained HTML page with
// a few lines of script (the phase control and the thread picker), or one SVG alone, or text.
#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "cudalab/report.hpp"
#include "cudalab/show.hpp"
#include "cudalab/verdict.hpp"

namespace cudalab {

namespace {

/// Widest figure, in pixels; cells shrink to fit, down to kMinCell.
constexpr double kFigureWidth = 760;
constexpr double kMaxCell = 22;
constexpr double kMinCell = 5;
/// At most this many readers listed in a cell's tooltip.
constexpr std::size_t kMaxListed = 8;
/// Blocks and threads listed in the counts tables.
constexpr std::size_t kMaxTableRows = 64;
/// The golden angle: neighbouring threads get far-apart hues.
constexpr double kGoldenAngle = 137.508;

std::array<unsigned, 3> unflatten(std::uint32_t linear, const std::array<unsigned, 3>& d) {
  return {linear % d[0], (linear / d[0]) % d[1], linear / (d[0] * d[1])};
}

/// "(x,y,z)", all three coordinates always: a thread's or block's place, not a launch's extent.
std::string xyz_text(const std::array<unsigned, 3>& v) { return fmt::format("({},{},{})", v[0], v[1], v[2]); }

std::string value_text(const ShownTarget& t, std::uint32_t bits) {
  if (!t.is_float) return std::to_string(static_cast<std::int32_t>(bits));
  const float v = std::bit_cast<float>(bits);
  return std::isnan(v) ? "NaN (never written)" : fmt::format("{:g}", v);
}

const char* kind_verb(protocol::TraceKind k) {
  switch (k) {
    case protocol::TraceKind::read:
      return "read";
    case protocol::TraceKind::write:
      return "wrote";
    case protocol::TraceKind::atomic:
      return "atomically updated";
  }
  return "touched";
}

/// The colour of a thread: its hue from its place in the grid.
std::string thread_color(const ShownLaunch& l, const ShownAccess& a) {
  const std::uint64_t threads = std::uint64_t{l.block[0]} * l.block[1] * l.block[2];
  const double hue = std::fmod(static_cast<double>(a.block * threads + a.thread) * kGoldenAngle, 360.0);
  return fmt::format("hsl({:.0f},62%,{}%)", hue, 48 + static_cast<int>(a.block % 3) * 8);
}

std::string who(const ShownLaunch& l, const ShownAccess& a) {
  return fmt::format("thread {} of block {}", xyz_text(unflatten(a.thread, l.block)),
                     xyz_text(unflatten(a.block, l.grid)));
}

std::string source_at(const ShowResult& r, int line) {
  if (line <= 0 || static_cast<std::size_t>(line) > r.source_lines.size())
    return line > 0 ? fmt::format("line {}", line) : "";
  std::string code = r.source_lines[static_cast<std::size_t>(line) - 1];
  code.erase(0, code.find_first_not_of(" \t"));
  return fmt::format("line {}: {}", line, code);
}

/// One access in a tooltip: short, since a cell lists several (the page lists the lines' code once).
std::string access_line(const ShownLaunch& l, const ShownTarget& t, const ShownAccess& a) {
  return fmt::format("thread {} block {}: {} {} at line {}, phase {}{}", xyz_text(unflatten(a.thread, l.block)),
                     xyz_text(unflatten(a.block, l.grid)), kind_verb(a.kind), value_text(t, a.bits), a.line,
                     a.phase + 1, a.finding ? " (a finding)" : "");
}

std::string element_name(const ShownTarget& t, std::size_t e) {
  return t.rows > 1 ? fmt::format("{}[{}][{}]", t.name, e / t.cols, e % t.cols) : fmt::format("{}[{}]", t.name, e);
}

/// What one cell shows in one phase (or, with phase < 0, after the launch): its last writer, its
/// readers, and every thread that touched it (for the picker).
struct CellView {
  const ShownAccess* writer = nullptr;
  std::vector<const ShownAccess*> readers;
  bool finding = false;
};

CellView view_of(const std::vector<ShownAccess>& accesses, int phase) {
  CellView v;
  for (const auto& a : accesses) {
    if (phase >= 0 && a.phase != static_cast<std::uint32_t>(phase)) continue;
    if (a.kind == protocol::TraceKind::read) {
      v.readers.push_back(&a);
    } else {
      v.writer = &a;
    }
    v.finding = v.finding || a.finding;
  }
  return v;
}

double cell_size(const ShownTarget& t) {
  return std::clamp(kFigureWidth / static_cast<double>(std::max<std::size_t>(t.cols, 1)), kMinCell, kMaxCell);
}

/// One target's cells in one phase (or after the launch) as an SVG group.
void draw_cells(std::ostream& out, const ShownLaunch& l, const ShownTarget& t, int phase, bool final_view, bool plain) {
  const double cell = cell_size(t);
  out << fmt::format("<g class=\"{}\"{}>", final_view ? "final" : fmt::format("phase phase-{}", phase),
                     final_view ? "" : " style=\"display:none\"");
  for (std::size_t e = 0; e < t.elements.size(); ++e) {
    const CellView v = view_of(t.elements[e], final_view ? -1 : phase);
    if (v.writer == nullptr && v.readers.empty()) continue;
    const double x = static_cast<double>(e % t.cols) * cell;
    const double y = static_cast<double>(e / t.cols) * cell;
    std::set<std::string> threads;
    std::string title = element_name(t, e);
    if (v.writer != nullptr) {
      threads.insert(fmt::format("{}:{}", v.writer->block, v.writer->thread));
      title += "\n" + access_line(l, t, *v.writer);
    }
    std::size_t listed = 0;
    for (const auto* a : v.readers) {
      threads.insert(fmt::format("{}:{}", a->block, a->thread));
      if (listed++ < kMaxListed) title += "\n" + access_line(l, t, *a);
    }
    if (v.readers.size() > kMaxListed) title += fmt::format("\n… and {} more reads", v.readers.size() - kMaxListed);
    std::string ids;
    for (const auto& id : threads) ids += (ids.empty() ? "" : " ") + id;
    if (plain) {
      out << "<g>";
    } else {
      out << fmt::format("<g class=\"cell{}\" data-t=\"{}\"><title>{}</title>", v.finding ? " finding" : "", ids,
                         xml_escape(title));
    }
    if (v.writer != nullptr) {
      out << fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}"/>)", x, y, cell, cell,
                         thread_color(l, *v.writer));
    }
    if (!v.readers.empty()) {
      const double inset = cell * 0.3;
      out << fmt::format(R"(<rect class="read" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}"/>)",
                         x + inset, y + inset, cell - 2 * inset, cell - 2 * inset, thread_color(l, *v.readers.front()));
    }
    if (v.finding) {
      out << fmt::format(R"(<rect class="mark" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}"/>)", x + 1, y + 1,
                         cell - 2, cell - 2);
    }
    out << "</g>";
  }
  out << "</g>";
}

/// One target's figure: the grid, the phases' groups, the final view, what lies outside it.
void draw_target(std::ostream& out, const ShownLaunch& l, const ShownTarget& t, bool phases, bool plain = false) {
  const double cell = cell_size(t);
  const std::size_t outside_rows = t.outside.empty() ? 0 : 1;
  const double width = static_cast<double>(t.cols) * cell;
  const double height = static_cast<double>(t.rows + outside_rows) * cell + (outside_rows != 0 ? cell / 2 : 0);
  out << fmt::format(
      R"(<svg class="grid" xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" viewBox="0 0 {:.1f} {:.1f}">)",
      width + 2, height + 2, width + 2, height + 2);
  out << "<g transform=\"translate(1,1)\">";
  // Every element, as never touched; an output's never-written elements hatched (after the launch).
  std::set<std::size_t> written;
  for (std::size_t e = 0; e < t.elements.size(); ++e) {
    if (std::ranges::any_of(t.elements[e], [](const ShownAccess& a) { return a.kind != protocol::TraceKind::read; })) {
      written.insert(e);
    }
  }
  out << fmt::format(R"(<rect class="bg" width="{:.1f}" height="{:.1f}"/>)", width, static_cast<double>(t.rows) * cell);
  for (std::size_t e = 0; e < t.elements.size() && t.output; ++e) {
    if (written.contains(e)) continue;
    out << fmt::format(
        R"(<rect class="unwritten" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}"><title>{} is never written by this launch</title></rect>)",
        static_cast<double>(e % t.cols) * cell, static_cast<double>(e / t.cols) * cell, cell, cell,
        xml_escape(element_name(t, e)));
  }
  if (phases) {
    for (std::uint32_t p = 0; p < l.phases; ++p) draw_cells(out, l, t, static_cast<int>(p), false, plain);
  }
  draw_cells(out, l, t, -1, true, plain);
  // Accesses outside the target, in a row under it, in order.
  if (!t.outside.empty()) {
    const double y = static_cast<double>(t.rows) * cell + cell / 2;
    std::size_t shown = 0;
    for (const auto& [element, a] : t.outside) {
      if (shown >= t.cols) break;
      const std::string where =
          element < 0 ? fmt::format("{} element{} before the start of {}", -element, element == -1 ? "" : "s", t.name)
                      : fmt::format("{}[{}], past its last element ({})", t.name, element, t.elements.size() - 1);
      out << fmt::format(
          R"(<g class="cell outside" data-t="{}:{}"><title>{}&#10;{}</title><rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}"/></g>)",
          a.block, a.thread, xml_escape("out of bounds: " + where), xml_escape(access_line(l, t, a)),
          static_cast<double>(shown) * cell, y, cell, cell, thread_color(l, a));
      ++shown;
    }
  }
  out << "</g></svg>";
}

/// "split by 2 __syncthreads (line 17 each time)", "split by the __syncthreads on lines 20 and 27".
std::string barrier_text(const ShownLaunch& l) {
  if (l.barrier_lines.empty()) return "no __syncthreads";
  std::vector<int> lines = l.barrier_lines;
  std::ranges::sort(lines);
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  std::string list;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == lines.size() ? " and " : ", ") + std::to_string(lines[i]);
  }
  return fmt::format("split by {} __syncthreads{} (line{} {})", l.barrier_lines.size(),
                     l.barrier_lines.size() == 1 ? "" : " passed", lines.size() == 1 ? "" : "s", list);
}

std::string target_caption(const ShownTarget& t) {
  std::string shape = t.rows > 1 ? fmt::format("{}×{}", t.rows, t.cols) : fmt::format("{}", t.elements.size());
  std::string what = t.shared            ? "shared array, one block's"
                     : !t.harness_buffer ? "device memory solve allocated"
                     : t.output          ? "output"
                                         : "input";
  std::string outside = t.outside.empty() ? "" : fmt::format(", {} accesses out of bounds", t.outside.size());
  return fmt::format("{} ({}, {}{})", t.name, shape, what, outside);
}

/// Warp 0's instruction: its 32 lanes above, below them the 32 banks (shared memory) or the distinct
/// 32-byte sectors they reach, in address order (global memory), a line from each lane to its own.
void draw_warp(std::ostream& out, const WarpAccessPicture& w) {
  constexpr double kLane = 14;
  constexpr double kHeight = 70;
  constexpr double kRow = 32 * kLane;
  std::vector<std::int64_t> units;  // the boxes of the lower row, in order
  if (w.shared) {
    for (std::int64_t bank = 0; bank < 32; ++bank) units.push_back(bank);
  } else {
    for (const auto u : w.lane_unit) {
      if (u >= 0) units.push_back(u);
    }
    std::ranges::sort(units);
    units.erase(std::unique(units.begin(), units.end()), units.end());
  }
  if (units.empty()) return;
  const double unit_width = kRow / static_cast<double>(std::max<std::size_t>(units.size(), 4));
  out << fmt::format(R"(<svg class="warp" xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}">)",
                     kRow + 2, kHeight);
  for (std::size_t lane = 0; lane < w.lane_unit.size(); ++lane) {
    const double x = static_cast<double>(lane) * kLane + 1;
    out << fmt::format(
        R"(<rect class="lane" x="{:.1f}" y="2" width="{:.1f}" height="10"><title>lane {}</title></rect>)", x, kLane - 2,
        lane);
    const std::int64_t u = w.lane_unit[lane];
    if (u < 0) continue;
    const auto at = static_cast<double>(std::ranges::lower_bound(units, u) - units.begin());
    out << fmt::format(R"(<line x1="{:.1f}" y1="12" x2="{:.1f}" y2="52"/>)", x + (kLane - 2) / 2,
                       at * unit_width + unit_width / 2 + 1);
  }
  for (std::size_t k = 0; k < units.size(); ++k) {
    out << fmt::format(R"(<rect class="unit" x="{:.1f}" y="52" width="{:.1f}" height="12"><title>{} {}</title></rect>)",
                       static_cast<double>(k) * unit_width + 1, std::max(unit_width - 2, 1.0),
                       w.shared ? "bank" : "sector", units[k]);
  }
  out << "</svg>";
}

std::string warp_caption(const WarpAccessPicture& w) {
  const std::string verb = w.write ? "stores to" : "loads from";
  if (w.shared) {
    return fmt::format("line {}: warp 0 {} shared {}: {} wavefront{} (ideal {}){}", w.line, verb, w.target, w.units,
                       w.units == 1 ? "" : "s", w.ideal,
                       w.units > w.ideal ? fmt::format(": a {}-way bank conflict", w.units) : ": no bank conflict");
  }
  const std::string judged = w.units <= w.ideal ? "coalesced"
                             : w.units <= 2 * w.ideal
                                 ? "nearly coalesced"
                                 : fmt::format("uncoalesced: {:.1f} times the sectors it needs",
                                               static_cast<double>(w.units) / static_cast<double>(w.ideal));
  return fmt::format("line {}: warp 0 {} {}: {} sector{} of 32 bytes (ideal {}): {}", w.line, verb, w.target, w.units,
                     w.units == 1 ? "" : "s", w.ideal, judged);
}

constexpr const char* kStyle = R"css(
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1f2328;max-width:1100px}
h1{font-size:22px}h2{font-size:18px;margin-top:28px}h3{font-size:15px;margin:16px 0 6px}
code,pre{font-family:ui-monospace,monospace;font-size:13px}
.verdict{display:inline-block;padding:2px 10px;border-radius:10px;color:#fff;font-weight:600}
.findings li{margin:6px 0}.fix{color:#57606a}
svg.grid .bg{fill:#f3f4f6;stroke:#d0d7de;stroke-width:.5}
svg.grid .unwritten{fill:url(#hatch);stroke:#cf222e;stroke-width:.4}
svg.grid .read{stroke:#1f2328;stroke-width:.6}
svg.grid .mark{fill:none;stroke:#cf222e;stroke-width:2.5}
svg.grid .outside rect{stroke:#cf222e;stroke-width:2;stroke-dasharray:2 1}
svg.grid .cell.dim{opacity:.12}
svg.warp .lane{fill:#8c959f}svg.warp .unit{fill:#d0d7de;stroke:#8c959f}svg.warp line{stroke:#0969da;stroke-width:1}
.controls{margin:8px 0;display:flex;gap:16px;align-items:center;flex-wrap:wrap}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #d0d7de;padding:2px 8px;text-align:right}
.legend span{display:inline-block;width:12px;height:12px;vertical-align:middle;margin:0 4px 0 12px}
)css";

constexpr const char* kScript = R"js(
document.querySelectorAll('section.launch').forEach(function (launch) {
  var phase = launch.querySelector('input.phase');
  var label = launch.querySelector('span.phase-label');
  var pick = launch.querySelector('input.thread');
  function showPhase() {
    var k = phase ? +phase.value : 0;
    launch.querySelectorAll('g.phase').forEach(function (g) { g.style.display = 'none'; });
    launch.querySelectorAll('g.final').forEach(function (g) { g.style.display = k === 0 ? '' : 'none'; });
    if (k > 0) launch.querySelectorAll('g.phase-' + (k - 1)).forEach(function (g) { g.style.display = ''; });
    if (label) label.textContent = k === 0 ? 'after the launch' : 'phase ' + k + ' of ' + phase.max;
  }
  function showThread() {
    var id = pick ? pick.value.trim() : '';
    launch.querySelectorAll('g.cell').forEach(function (c) {
      var mine = id === '' || (' ' + c.getAttribute('data-t') + ' ').indexOf(' ' + id + ' ') >= 0;
      c.classList.toggle('dim', !mine);
    });
  }
  if (phase) phase.addEventListener('input', showPhase);
  if (pick) pick.addEventListener('input', showThread);
  launch.querySelectorAll('g.cell').forEach(function (c) {
    c.addEventListener('click', function () {
      if (!pick) return;
      pick.value = pick.value === c.getAttribute('data-t').split(' ')[0] ? '' : c.getAttribute('data-t').split(' ')[0];
      showThread();
    });
  });
  showPhase();
});
)js";

constexpr const char* kHatch =
    R"svg(<svg width="0" height="0" style="position:absolute"><defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff5f5"/><line x1="0" y1="0" x2="0" y2="6" stroke="#cf222e" stroke-width="1.5"/></pattern></defs></svg>)svg";

void write_counts(std::ostream& out, const ShowResult& r, const ShownLaunch& l) {
  static constexpr const char* kHeads =
      "<tr><th>{}</th><th>global reads</th><th>global writes</th><th>shared reads</th><th>shared writes</th></tr>";
  const auto row = [&](const std::string& name, const std::array<std::size_t, 4>& c) {
    out << fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", name, c[0], c[1], c[2],
                       c[3]);
  };
  std::array<std::size_t, 4> total{};
  for (const auto& b : l.block_counts) {
    for (std::size_t i = 0; i < 4; ++i) total[i] += b[i];
  }
  const std::size_t threads = l.thread_counts.size() * l.block_counts.size();
  out << fmt::format(
      "<p>Global memory, every thread of this launch: {} reads and {} writes of elements; the exercise needs at least "
      "{:.0f} in all (each input element read once, each output written once){}.</p>",
      total[0], total[1], r.minimum_global_elements,
      threads == 0 ? "" : fmt::format(", {:.2f} per thread", r.minimum_global_elements / static_cast<double>(threads)));
  out << "<details><summary>Counts per block</summary><table>" << fmt::format(kHeads, "block");
  for (std::size_t b = 0; b < l.block_counts.size() && b < kMaxTableRows; ++b) {
    row(xyz_text(unflatten(static_cast<std::uint32_t>(b), l.grid)), l.block_counts[b]);
  }
  out << "</table></details>";
  out << fmt::format("<details><summary>Counts per thread of block {}</summary><table>",
                     xyz_text(unflatten(r.block, l.grid)))
      << fmt::format(kHeads, "thread");
  for (std::size_t t = 0; t < l.thread_counts.size() && t < kMaxTableRows; ++t) {
    row(xyz_text(unflatten(static_cast<std::uint32_t>(t), l.block)), l.thread_counts[t]);
  }
  out << "</table></details>";
}

}  // namespace

std::string show_page_html(const ShowResult& r) {
  std::ostringstream out;
  const VerdictTraits& v = traits_of(r.verdict);
  const std::string id = r.task != nullptr ? r.task->info().id : "";
  out << "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>cudalab show " << xml_escape(id)
      << "</title><style>" << kStyle << "</style></head><body>" << kHatch;
  out << fmt::format("<h1>{}: {}</h1>", xml_escape(id), xml_escape(r.source.filename().string()));
  out << fmt::format(
      "<p><span class=\"verdict\" style=\"background:{}\">{}</span> at {} — {}</p>", v.color, v.title,
      xml_escape(r.c.label()),
      xml_escape(r.verdict == Verdict::passed || r.message.empty() ? "every output right, no finding" : r.message));
  if (!r.findings.empty()) {
    out << "<h2>Findings</h2><ol class=\"findings\">";
    for (const auto& f : r.findings) {
      out << fmt::format("<li><b>{}</b>{}: {}<br><span class=\"fix\">fix: {}</span></li>", verdict_title(f.verdict),
                         f.line > 0 ? fmt::format(" (line {})", f.line) : "", xml_escape(f.text), xml_escape(f.fix));
    }
    out << "</ol><p>Their accesses are outlined in red on the figures below.</p>";
  }
  // The code of every line an access names, once (the tooltips give line numbers only).
  std::set<int> lines;
  for (const auto& l : r.launches) {
    for (const auto& t : l.targets) {
      for (const auto& e : t.elements) {
        for (const auto& a : e) lines.insert(a.line);
      }
      for (const auto& [element, a] : t.outside) lines.insert(a.line);
    }
  }
  for (const auto& f : r.findings) lines.insert(f.line);
  lines.erase(0);
  if (!lines.empty()) {
    out << "<h2>The lines that access memory</h2><pre class=\"code\">";
    for (const int line : lines) out << xml_escape(source_at(r, line)) << "\n";
    out << "</pre>";
  }
  if (r.truncated) out << "<p><b>The trace is cut:</b> later accesses were not recorded.</p>";
  if (!r.ran()) out << "<p>No kernel ran: nothing to draw.</p>";
  out << "<p class=\"legend\">Each cell is one element. Its colour: the thread that wrote it<span "
         "style=\"background:hsl(200,62%,48%)\"></span>; a square inside: the first thread that read it; "
         "<span style=\"background:#fff5f5;border:1px solid #cf222e\"></span>an output element never written; a red "
         "outline: an access a finding names. Hover over a cell for its threads, lines and values; click one to "
         "see only its thread's cells.</p>";
  for (std::size_t li = 0; li < r.launches.size(); ++li) {
    const ShownLaunch& l = r.launches[li];
    out << "<section class=\"launch\">";
    out << fmt::format("<h2>Launch {}: <code>{}&lt;&lt;&lt;{}, {}&gt;&gt;&gt;</code></h2>", li + 1,
                       xml_escape(l.kernel), xyz_text(l.grid), xyz_text(l.block));
    out << fmt::format("<p>{} phase{}, {}; shared arrays shown for block {}.</p>", l.phases, l.phases == 1 ? "" : "s",
                       xml_escape(barrier_text(l)), xyz_text(unflatten(r.block, l.grid)));
    out << "<div class=\"controls\">";
    if (l.phases > 1) {
      out << fmt::format(
          "<label>phase <input class=\"phase\" type=\"range\" min=\"0\" max=\"{}\" value=\"0\"></label> <span "
          "class=\"phase-label\"></span>",
          l.phases);
    }
    out << "<label>thread <input class=\"thread\" type=\"text\" size=\"8\" placeholder=\"block:thread\"></label></div>";
    for (const auto& t : l.targets) {
      out << fmt::format("<h3>{}</h3>", xml_escape(target_caption(t)));
      draw_target(out, l, t, l.phases > 1);
    }
    if (!l.warps.empty()) {
      out << fmt::format("<h3 id=\"warps-{}\">Warp 0 of block {}: how memory sees each load and store</h3>", li + 1,
                         xyz_text(unflatten(r.block, l.grid)));
      for (const auto& w : l.warps) {
        out << "<p>" << xml_escape(warp_caption(w)) << "</p>";
        draw_warp(out, w);
      }
    }
    write_counts(out, r, l);
    out << "</section>";
  }
  out << fmt::format("<p>Drawn by <code>{}</code>.</p>", xml_escape(r.command));
  out << "<script>" << kScript << "</script></body></html>\n";
  return out.str();
}

std::string show_figure_svg(const ShowResult& r) {
  std::ostringstream out;
  if (r.launches.empty()) return {};
  const ShownLaunch& l = r.launches.front();
  constexpr double kCharWidth = 7;  // of the 12-pixel sans-serif captions, about
  constexpr double kGap = 24;
  constexpr double kTop = 42;  // the heading's line and the captions' line above the grids
  // The global buffers side by side, each in its own nested <svg>.
  std::ostringstream body;
  double x = 0;
  double height = 0;
  for (const auto& t : l.targets) {
    if (t.shared) continue;
    std::ostringstream figure;
    draw_target(figure, l, t, false, true);
    const double cell = cell_size(t);
    const double w = static_cast<double>(t.cols) * cell + 2;
    const double h = static_cast<double>(t.rows + (t.outside.empty() ? 0 : 1)) * cell + 2;
    const std::string caption = target_caption(t);
    body << fmt::format(
                R"(<text x="{:.1f}" y="34">{}</text><svg x="{:.1f}" y="{:.0f}" width="{:.1f}" height="{:.1f}">)", x,
                xml_escape(caption), x, kTop, w, h)
         << figure.str() << "</svg>";
    x += std::max(w, kCharWidth * static_cast<double>(caption.size())) + kGap;
    height = std::max(height, h + kTop);
  }
  const std::string heading = fmt::format(
      "{} at {}: {}<<<{}, {}>>>, each element coloured by the thread that wrote it, a square inside "
      "by the first that read it",
      r.task != nullptr ? r.task->info().id : "", r.c.label(), l.kernel, xyz_text(l.grid), xyz_text(l.block));
  const double width = std::max(x, kCharWidth * static_cast<double>(heading.size()));
  out << fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" font-family="sans-serif" font-size="12">)",
      width, height + 4);
  out << R"(<style>.bg{fill:#f3f4f6;stroke:#d0d7de;stroke-width:.5}.unwritten{fill:#fff5f5;stroke:#cf222e;stroke-width:.4}.read{stroke:#1f2328;stroke-width:.6}.mark{fill:none;stroke:#cf222e;stroke-width:2.5}</style>)";
  out << R"(<rect width="100%" height="100%" fill="#ffffff"/>)";
  out << fmt::format(R"(<text x="0" y="14" font-weight="bold">{}</text>)", xml_escape(heading));
  out << body.str() << "</svg>\n";
  return out.str();
}

void write_show_text(std::ostream& out, const ShowResult& r, const ReportStyle& style, std::size_t max_cols) {
  (void)style;
  const std::string id = r.task != nullptr ? r.task->info().id : "";
  // The findings say the rest; without one, the run's own line.
  const bool plain = r.verdict == Verdict::passed || r.message.empty() || !r.findings.empty();
  out << fmt::format("{} at {}: {}{}\n", id, r.c.label(), verdict_title(r.verdict), plain ? "" : " — " + r.message);
  for (const auto& f : r.findings) {
    out << fmt::format("  {}{}: {}\n    fix: {}\n", verdict_title(f.verdict),
                       f.line > 0 ? fmt::format(" (line {})", f.line) : "", f.text, f.fix);
  }
  for (std::size_t li = 0; li < r.launches.size(); ++li) {
    const ShownLaunch& l = r.launches[li];
    out << fmt::format("\nlaunch {}: {}<<<{}, {}>>>, {} phase{}, {}\n", li + 1, l.kernel, xyz_text(l.grid),
                       xyz_text(l.block), l.phases, l.phases == 1 ? "" : "s", barrier_text(l));
    const std::size_t threads = std::size_t{l.block[0]} * l.block[1] * l.block[2];
    const int width = static_cast<int>(std::to_string(l.grid[0] * l.grid[1] * l.grid[2] * threads).size()) + 2;
    for (const auto& t : l.targets) {
      out << fmt::format("  {}\n", target_caption(t));
      if (t.cols > max_cols) {
        out << fmt::format("    ({} columns: wider than --text draws; the HTML page shows it)\n", t.cols);
        continue;
      }
      for (std::uint32_t p = 0; p < l.phases; ++p) {
        // Per element: the writer's thread, numbered across the grid (block × threads + thread);
        // "7r": read only, by thread 7 first; "·" untouched in this phase.
        bool any = false;
        std::ostringstream grid;
        for (std::size_t row = 0; row < t.rows; ++row) {
          grid << "    ";
          for (std::size_t col = 0; col < t.cols; ++col) {
            const std::size_t e = row * t.cols + col;
            if (e >= t.elements.size()) break;
            const CellView v = view_of(t.elements[e], static_cast<int>(p));
            std::string cell = "·";
            if (v.writer != nullptr) {
              cell = std::to_string(std::uint64_t{v.writer->block} * threads + v.writer->thread);
              any = true;
            } else if (!v.readers.empty()) {
              cell =
                  std::to_string(std::uint64_t{v.readers.front()->block} * threads + v.readers.front()->thread) + "r";
              any = true;
            }
            if (v.finding) cell += "!";
            grid << fmt::format("{:>{}}", cell, width + 1);
          }
          grid << "\n";
        }
        if (!any) continue;
        out << fmt::format(
                   "    phase {} of {}: the thread that wrote each element (7r: read only, by thread 7 first; !: a "
                   "finding)\n",
                   p + 1, l.phases)
            << grid.str();
      }
      std::size_t listed = 0;
      for (const auto& [element, a] : t.outside) {
        if (listed++ == kMaxListed) {
          out << fmt::format("    … and {} more accesses out of bounds (the page lists them)\n",
                             t.outside.size() - kMaxListed);
          break;
        }
        out << fmt::format("    out of bounds: {} {} element {} of {}\n", who(l, a), kind_verb(a.kind), element,
                           t.name);
      }
    }
    for (const auto& w : l.warps) out << "  " << warp_caption(w) << "\n";
    std::array<std::size_t, 4> total{};
    for (const auto& b : l.block_counts) {
      for (std::size_t i = 0; i < 4; ++i) total[i] += b[i];
    }
    out << fmt::format(
        "  global memory: {} reads, {} writes (the exercise needs at least {:.0f}); shared: {} reads, {} writes\n",
        total[0], total[1], r.minimum_global_elements, total[2], total[3]);
  }
}

}  // namespace cudalab
