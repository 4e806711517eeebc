#include "cudalab/report.hpp"
#include "cudalab/text.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include <fmt/color.h>
#include <fmt/format.h>

namespace cudalab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxDetailedFailures = 3;  // more would push the hints off the screen

fmt::text_style verdict_style(Verdict v) {
  if (v == Verdict::passed) return fmt::fg(fmt::terminal_color::green) | fmt::emphasis::bold;
  if (v == Verdict::not_implemented || v == Verdict::skipped) return fmt::fg(fmt::terminal_color::yellow);
  return fmt::fg(fmt::terminal_color::red) | fmt::emphasis::bold;
}

/// A case with every side this long or longer draws as a picture (`cudalab show`), not a line.
constexpr std::int64_t kRoomySide = 8;

std::string display_path(const fs::path& p) {
  std::error_code ec;
  auto rel = fs::relative(p, fs::current_path(ec), ec);
  return (ec || rel.empty() || rel.string().starts_with("..")) ? p.string() : rel.string();
}

std::string checks_column(const ExerciseResult& r) {
  if (r.verdict == Verdict::compile_error) return "-";
  return fmt::format("{}/{}", r.passed_cases(), r.cases.size());
}

double total_solve_ms(const ExerciseResult& r) {
  double ms = 0;
  for (const auto& c : r.cases) ms += c.solve_ms;
  return ms;
}

/// One case's lines; a hint already in `shown` (an earlier size gave it) is not repeated.
void write_case(std::ostream& out, const CaseResult& c, const ReportStyle& style, std::set<std::string>& shown) {
  const bool ok = c.verdict == Verdict::passed;
  out << "  " << paint(style.color, verdict_style(c.verdict), ok ? "ok" : "✗") << ' ' << c.message
      << (ok ? fmt::format(" at {}", c.c.label()) : "") << '\n';
  for (const auto& d : c.details) out << "      " << d << '\n';
  for (const auto& h : c.hints) {
    if (!shown.insert(h).second) continue;
    out << "    " << paint(style.color, fmt::fg(fmt::terminal_color::cyan), "hint:") << ' ' << h << '\n';
  }
}

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 has no place for other control characters (compiler output may hold escapes).
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

void write_check_junit(std::ostream& out, const std::vector<ExerciseResult>& results) {
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"cudalab check\">\n";
  for (const auto& r : results) {
    const std::string suite = xml_escape(r.task->info().id);
    if (r.verdict == Verdict::compile_error) {
      out << fmt::format("  <testsuite name=\"{}\" tests=\"1\" failures=\"1\" skipped=\"0\">\n", suite)
          << fmt::format("    <testcase classname=\"{}\" name=\"compile\">\n", suite)
          << fmt::format("      <failure type=\"compile_error\" message=\"the file does not compile\">{}</failure>\n",
                         xml_escape(r.compile.diagnostics))
          << "    </testcase>\n  </testsuite>\n";
      continue;
    }
    std::size_t failures = 0, skipped = 0;
    for (const auto& c : r.cases) {
      skipped += c.verdict == Verdict::skipped ? 1 : 0;
      failures += (c.verdict != Verdict::passed && c.verdict != Verdict::skipped) ? 1 : 0;
    }
    out << fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n", suite, r.cases.size(),
                       failures, skipped);
    // Whether a pass is a full one (the checked run ran) or a fast one (`--fast`).
    out << fmt::format("    <properties><property name=\"full_check\" value=\"{}\"/></properties>\n",
                       r.full_check ? "true" : "false");
    for (const auto& c : r.cases) {
      out << fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6f}\"", suite, xml_escape(c.c.label()),
                         c.solve_ms / 1000.0);
      if (c.verdict == Verdict::passed) {
        out << "/>\n";
        continue;
      }
      out << ">\n";
      if (c.verdict == Verdict::skipped) {
        out << fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(c.message));
      } else {
        std::string body;
        for (const auto& d : c.details) body += d + "\n";
        for (const auto& h : c.hints) body += "hint: " + h + "\n";
        out << fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n", verdict_name(c.verdict),
                           xml_escape(c.message), xml_escape(body));
      }
      out << "    </testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
}

bool want_color(int fd) {
  if (std::getenv("NO_COLOR") != nullptr || std::getenv("CI") != nullptr) return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::strcmp(term, "dumb") == 0) return false;
  return isatty(fd) != 0;
}

void write_check_report(std::ostream& out, const std::vector<ExerciseResult>& results, const ReportStyle& style) {
  std::size_t id_width = 16;  // "13_median_filter"; longer names widen the column
  for (const auto& r : results) id_width = std::max(id_width, r.task->info().id.size());
  out << fmt::format("{:<{}} {:<22} {:>7} {:>10}\n", "exercise", id_width, "result", "checks", "solve time");
  for (const auto& r : results) {
    // A pass without the checked run says so: it has not looked for races or stray reads.
    const bool fast_pass = r.verdict == Verdict::passed && !r.full_check;
    const std::string title = fast_pass ? "passed (fast check)" : verdict_title(r.verdict);
    // Pad before painting: escape codes would upset the column widths.
    out << fmt::format("{:<{}} ", r.task->info().id, id_width)
        << paint(style.color, verdict_style(r.verdict), fmt::format("{:<22}", title))
        << fmt::format(" {:>7} {:>8.1f}ms\n", checks_column(r), total_solve_ms(r));
  }
  for (const auto& r : results) {
    if (r.checked_note.empty()) continue;
    out << fmt::format("{:<{}} ", r.task->info().id, id_width)
        << paint(style.color, fmt::fg(fmt::terminal_color::yellow), "note:") << ' ' << r.checked_note << '\n';
  }
  for (const auto& r : results) {
    const bool failed = r.verdict != Verdict::passed;
    if (!failed && !style.verbose) continue;
    out << '\n'
        << paint(style.color, fmt::emphasis::bold, r.task->info().id) << "  (" << display_path(r.source) << ")\n";
    if (r.verdict == Verdict::compile_error) {
      out << "  " << paint(style.color, verdict_style(r.verdict), "✗") << " the file does not compile:\n";
      out << r.compile.diagnostics;
      if (!r.compile.diagnostics.empty() && r.compile.diagnostics.back() != '\n') out << '\n';
      continue;
    }
    if (r.verdict == Verdict::not_implemented) {
      const CaseResult* f = r.first_failure();
      out << "  " << paint(style.color, verdict_style(r.verdict), "…") << ' ' << f->message << '\n'
          << "    edit " << display_path(r.source) << " and replace the TODOs; see exercises/" << r.task->info().id
          << "/README.md\n";
      continue;
    }
    std::vector<std::string> more;  // failing sizes beyond the first few, listed in one line
    std::size_t shown = 0;
    std::size_t failing = 0;
    std::set<std::string> hints_shown;
    std::map<std::string, std::size_t> hint_counts;  // how many failing sizes give each hint
    for (const auto& c : r.cases) {
      if (c.verdict == Verdict::skipped) continue;
      if (c.verdict != Verdict::passed) {
        ++failing;
        for (const auto& h : c.hints) ++hint_counts[h];
      }
      if (c.verdict == Verdict::passed && !style.verbose) continue;
      if (c.verdict != Verdict::passed && shown == kMaxDetailedFailures && !style.verbose) {
        more.push_back(c.c.label());
        continue;
      }
      shown += c.verdict == Verdict::passed ? 0 : 1;
      write_case(out, c, style, hints_shown);
    }
    if (!more.empty()) {
      std::string list;
      for (const auto& m : more) list += (list.empty() ? "" : ", ") + m;
      out << "  " << paint(style.color, verdict_style(r.verdict), "✗")
          << fmt::format(" also {} at {} more size{}: {} (-v shows each)\n",
                         r.verdict == Verdict::wrong_output ? "wrong" : "failing", more.size(),
                         more.size() == 1 ? "" : "s", list);
      // The smallest sizes can mislead (a 1-element copy of n bytes looks like a double increment):
      // the hint most of the hidden sizes give is worth a line of its own.
      const auto common = std::ranges::max_element(hint_counts, {}, [](const auto& kv) { return kv.second; });
      if (common != hint_counts.end() && !hints_shown.contains(common->first) && 2 * common->second >= failing) {
        out << "  " << paint(style.color, fmt::fg(fmt::terminal_color::cyan), "hint:")
            << fmt::format(" at {} of the {} failing sizes: {}\n", common->second, failing, common->first);
      }
    }
    for (const auto& h : r.hints) {
      if (!hints_shown.insert(h).second) continue;  // each hint once
      out << "  " << paint(style.color, fmt::fg(fmt::terminal_color::cyan), "hint:") << ' ' << h << '\n';
    }
    if (const std::string command = show_command(r); !command.empty()) {
      out << "  " << paint(style.color, fmt::fg(fmt::terminal_color::cyan), "see it:") << ' ' << command << '\n';
    }
  }
  for (const auto& r : results) {
    if (r.timeline.empty()) continue;
    out << '\n' << paint(style.color, fmt::emphasis::bold, r.task->info().id) << "  timeline\n";
    for (const auto& line : r.timeline) out << "  " << line << '\n';
  }
}

std::string show_command(const ExerciseResult& r) {
  // The smallest failing size with room for a picture (every side 8 or more), else the first.
  const CaseResult* f = r.first_failure();
  const auto roomy = [](const CaseResult& c) {
    return std::ranges::all_of(c.c.dims, [](const Dim& d) { return d.value >= kRoomySide; });
  };
  const auto work = [](const CaseResult& c) {
    double w = 1;
    for (const auto& d : c.c.dims) w *= static_cast<double>(d.value);
    return w;
  };
  for (const auto& c : r.cases) {
    if (c.verdict == Verdict::passed || c.verdict == Verdict::skipped || !roomy(c)) continue;
    if (f == nullptr || !roomy(*f) || work(c) < work(*f)) f = &c;
  }
  if (f == nullptr || r.task == nullptr || f->c.dims.empty()) return {};
  switch (f->verdict) {
    case Verdict::wrong_output:
    case Verdict::input_modified:
    case Verdict::out_of_bounds:
    case Verdict::data_race:
    case Verdict::uninitialized_read:
    case Verdict::barrier_error:
      break;
    default:
      return {};  // nothing a picture of the accesses shows
  }
  const std::string id = r.task->info().id;
  const fs::path usual = fs::path("exercises") / id / "kernel.cu";
  const std::string shown = display_path(r.source);
  const bool usual_file =
      shown == usual.string() || r.source.lexically_normal().string().ends_with("/" + usual.string());
  return fmt::format("cudalab show {} --size {}{}", id, f->c.dims.front().value, usual_file ? "" : " --file " + shown);
}

json check_report_json(const std::vector<ExerciseResult>& results, const std::string& backend_line,
                       std::uint64_t seed) {
  json exercises = json::array();
  for (const auto& r : results) {
    json cases = json::array();
    for (const auto& c : r.cases) {
      json dims = json::object();
      for (const auto& d : c.c.dims) dims[d.name] = d.value;
      cases.push_back({{"size", dims},
                       {"label", c.c.label()},
                       {"verdict", verdict_name(c.verdict)},
                       {"message", c.message},
                       {"details", c.details},
                       {"hints", c.hints},
                       {"solve_ms", c.solve_ms},
                       {"records", c.records}});
      if (!c.findings.empty()) {
        json findings = json::array();
        for (const auto& f : c.findings) {
          const auto access = [](const protocol::FindingAccess& a) {
            return json{
                {"block", a.block}, {"thread", a.thread}, {"write", a.write}, {"atomic", a.atomic}, {"line", a.line}};
          };
          json one{{"kind", protocol::finding_kind_name(f.kind)},
                   {"kernel", f.kernel},
                   {"memory", f.shared ? "shared" : "global"},
                   {"target", f.target},
                   {"where", f.where},
                   {"access", access(f.access)},
                   {"count", f.count}};
          if (f.other) one["other"] = access(*f.other);
          findings.push_back(std::move(one));
        }
        cases.back()["findings"] = std::move(findings);
      }
    }
    json e{{"exercise", r.task->info().id},
           {"source", r.source.string()},
           {"backend", backend_name(r.backend)},
           {"verdict", verdict_name(r.verdict)},
           {"passed", r.verdict == Verdict::passed},
           {"checks_passed", r.passed_cases()},
           {"checks", r.cases.size()},
           {"full_check", r.full_check},
           {"hints", r.hints},
           {"cases", cases}};
    if (!r.timeline.empty()) e["timeline"] = r.timeline;
    if (!r.checked_note.empty()) e["checked_note"] = r.checked_note;
    if (r.verdict == Verdict::compile_error) e["compiler_output"] = r.compile.diagnostics;
    e["compile_command"] = r.compile.command;
    exercises.push_back(std::move(e));
  }
  bool all = true;
  for (const auto& r : results) all = all && r.verdict == Verdict::passed;
  return json{{"tool", "cudalab"}, {"version", CUDALAB_VERSION}, {"backend", backend_line}, {"seed", seed},
              {"passed", all},     {"exercises", exercises}};
}

}  // namespace cudalab
