#include "cudalab/diagnostics.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

namespace cudalab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// `path` as the student names it: relative to the working folder where it lies inside it.
std::string shown_path(const fs::path& path) {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (!ec && path.is_absolute()) {
    const fs::path relative = path.lexically_relative(cwd);
    if (!relative.empty() && *relative.begin() != "..") return relative.generic_string();
  }
  return path.generic_string();
}

/// One line: newlines and tabs become spaces (a diagnostic is one line in both forms).
std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

/// The line that defines `solve` in `source` (where a failure without a line of its own is shown),
/// or 1.
int solve_line(const fs::path& source) {
  std::ifstream in(source);
  static const std::regex definition(R"(\bvoid\s+solve\s*\()");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (std::regex_search(line, definition)) return number;
  }
  return 1;
}

/// The compiler's messages that name a place: "file:line[:col]: error|warning|note: text" (GCC,
/// and nvcc's once gcc_style_locations has rewritten them).
std::vector<SourceDiagnostic> compiler_messages(const std::string& output) {
  static const std::regex message(R"(^(.+?):(\d+):(?:(\d+):)? (fatal error|error|warning|note|remark): (.*)$)");
  std::vector<SourceDiagnostic> out;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, message)) continue;
    SourceDiagnostic d;
    d.file = shown_path(m[1].str());
    d.line = std::max(1, std::atoi(m[2].str().c_str()));
    d.column = m[3].matched ? std::max(1, std::atoi(m[3].str().c_str())) : 1;
    const std::string kind = m[4].str();
    d.severity = kind == "warning"                    ? Severity::warning
                 : kind == "note" || kind == "remark" ? Severity::note
                                                      : Severity::error;
    d.rule = "compiler";
    d.message = one_line(m[5].str());
    out.push_back(std::move(d));
  }
  return out;
}

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::error:
      return "error";
    case Severity::warning:
      return "warning";
    case Severity::note:
      return "note";
  }
  return "error";
}

/// "exercises/03_matmul/kernel.cu" as a URI reference: the characters a URI reserves, escaped.
std::string uri_of(const std::string& path) {
  std::string out = path.starts_with('/') ? "file://" : "";
  for (const unsigned char c : path) {
    if (std::isalnum(c) ||
        std::string_view("-._~/!$&'()*+,;=:@").find(static_cast<char>(c)) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

}  // namespace

std::vector<SourceDiagnostic> source_diagnostics(const ExerciseResult& result) {
  std::vector<SourceDiagnostic> out;
  const std::string file = shown_path(result.source);
  // Alike at the source's level (place, weight and words) is said once, whichever case said it.
  std::set<std::tuple<std::string, int, Severity, std::string>> said;
  const auto add = [&](SourceDiagnostic d) {
    d.message = one_line(std::move(d.message));
    if (d.message.empty() || !said.emplace(d.file, d.line, d.severity, d.message).second) return;
    out.push_back(std::move(d));
  };
  for (SourceDiagnostic& d : compiler_messages(result.compile.diagnostics)) add(std::move(d));
  if (!result.compile.ok) {
    // A compile error with no place the compiler named (a missing tool, a link error).
    if (std::ranges::none_of(out, [](const SourceDiagnostic& d) { return d.severity == Severity::error; })) {
      add({file, 1, 1, Severity::error, verdict_name(Verdict::compile_error), "the file does not compile"});
    }
    return out;
  }
  const int solve_at = solve_line(result.source);
  std::set<Verdict> unplaced_shown;                    // a failure without a line: its first size says it
  std::set<std::pair<int, std::string>> placed_lines;  // (line, rule) already shown
  for (const CaseResult& c : result.cases) {
    if (c.verdict == Verdict::passed || c.verdict == Verdict::skipped) continue;
    const std::string rule = verdict_name(c.verdict);
    if (!c.placed.empty()) {
      for (const PlacedFinding& f : c.placed) {
        const int line = f.line > 0 ? f.line : solve_at;
        if (!placed_lines.emplace(line, verdict_name(f.verdict)).second) continue;
        add({file, line, 1, Severity::error, verdict_name(f.verdict),
             fmt::format("{} at {}: {}", verdict_title(f.verdict), c.c.label(), f.text)});
        add({file, line, 1, Severity::note, verdict_name(f.verdict), f.fix});
      }
      continue;
    }
    // The same failure at the next size says nothing new here.
    if (!unplaced_shown.insert(c.verdict).second) continue;
    add({file, solve_at, 1, Severity::error, rule, c.message});
    for (const std::string& hint : c.hints) add({file, solve_at, 1, Severity::note, rule, hint});
  }
  for (const std::string& hint : result.hints) {
    add({file, solve_at, 1, Severity::note, verdict_name(result.verdict), hint});
  }
  return out;
}

std::string gcc_line(const SourceDiagnostic& d) {
  return fmt::format("{}:{}:{}: {}: {} [{}]", d.file, d.line, d.column, severity_name(d.severity), d.message, d.rule);
}

json sarif_log(const std::vector<ExerciseResult>& results) {
  json rules = json::array();
  std::map<std::string, std::size_t> rule_index;
  json found = json::array();
  for (const ExerciseResult& r : results) {
    for (const SourceDiagnostic& d : source_diagnostics(r)) {
      auto [at, added] = rule_index.try_emplace(d.rule, rule_index.size());
      if (added) {
        const std::optional<Verdict> verdict = verdict_from_name(d.rule);
        const std::string title = verdict ? verdict_title(*verdict) : "the compiler's message";
        rules.push_back({{"id", d.rule}, {"name", d.rule}, {"shortDescription", {{"text", title}}}});
      }
      found.push_back(
          {{"ruleId", d.rule},
           {"ruleIndex", at->second},
           {"level", severity_name(d.severity)},
           {"message", {{"text", fmt::format("{}: {}", r.task->info().id, d.message)}}},
           {"locations", json::array({{{"physicalLocation",
                                        {{"artifactLocation", {{"uri", uri_of(d.file)}}},
                                         {"region", {{"startLine", d.line}, {"startColumn", d.column}}}}}}})}});
    }
  }
  json driver = {{"name", "cudalab"}, {"version", CUDALAB_VERSION}, {"rules", rules}};
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", json::array({{{"tool", {{"driver", driver}}}, {"results", found}}})}};
}

bool in_ci() {
  const char* ci = std::getenv("CI");
  if (ci == nullptr) return false;
  const std::string_view value(ci);
  return !value.empty() && value != "0" && value != "false";
}

}  // namespace cudalab
