#include "cudalab/grading/similarity.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "cudalab/files.hpp"
#include "cudalab/paths.hpp"
#include "cudalab/process.hpp"
#include "reports/reports_common.hpp"

namespace cudalab::grading {

namespace fs = std::filesystem;
using reports_detail::html_escape;

namespace {

/// A file's text, or empty where it cannot be read (a report is still written).
std::string read_text(const fs::path& file) {
  try {
    return read_file(file);
  } catch (const std::runtime_error&) {
    return "";
  }
}

std::string trimmed(const std::string& line) {
  const auto first = line.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
}

/// `text` without the lines the skeleton has too (compared without indentation): what everyone
/// was given is nobody's resemblance.
std::string without_skeleton(const std::string& text, const std::set<std::string>& skeleton) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line)) {
    if (!skeleton.contains(trimmed(line))) out += line + '\n';
  }
  return out;
}

std::set<std::string> lines_of(const fs::path& file) {
  std::set<std::string> lines;
  std::istringstream in(read_text(file));
  for (std::string line; std::getline(in, line);) {
    if (const std::string t = trimmed(line); !t.empty()) lines.insert(t);
  }
  return lines;
}

/// Removes a folder tree when it goes out of scope.
struct TempTree {
  fs::path path;
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

int median(std::vector<int> values) {
  if (values.empty()) return 0;
  std::ranges::sort(values);
  return values[values.size() / 2];
}

/// The pairs of one exercise's files (`names[i]` is `copies[i]`'s student), from sim_c++'s
/// percentages: "<file> consists for <n> % of <file> material", both ways (-a -e).
std::vector<SimilarPair> compare(const fs::path& tester, const std::string& exercise,
                                 const std::vector<std::string>& names, const std::vector<fs::path>& originals,
                                 const std::vector<fs::path>& copies, const fs::path& work, std::string& failure) {
  const fs::path output = work / (exercise + ".sim.txt");
  ProcessOptions opts;
  opts.argv = {tester.string(), "-p", "-a", "-e", "-T", "-t", "1", "-o", output.string()};
  for (const auto& c : copies) opts.argv.push_back(c.string());
  opts.timeout = std::chrono::minutes(10);
  const ProcessResult r = run_process(opts);
  if (!r.ok()) {
    failure = fmt::format("{} failed on {}: {}", tester.filename().string(), exercise,
                          r.output.substr(0, r.output.find('\n')));
    return {};
  }
  std::map<std::string, std::size_t> index;  // the copy's path as the tester prints it
  for (std::size_t i = 0; i < copies.size(); ++i) index[copies[i].string()] = i;
  std::map<std::pair<std::size_t, std::size_t>, SimilarPair> pairs;
  static const std::regex line_re(R"(^(.+) consists for (\d+) % of (.+) material$)");
  std::istringstream in(read_text(output));
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, line_re)) continue;
    const auto from = index.find(m[1].str());
    const auto in_file = index.find(m[3].str());
    if (from == index.end() || in_file == index.end() || from->second == in_file->second) continue;
    const std::size_t a = std::min(from->second, in_file->second);
    const std::size_t b = std::max(from->second, in_file->second);
    SimilarPair& p = pairs[{a, b}];
    p.exercise = exercise;
    p.student_a = names[a];
    p.student_b = names[b];
    p.file_a = originals[a];
    p.file_b = originals[b];
    (from->second == a ? p.a_in_b : p.b_in_a) = std::stoi(m[2].str());
  }
  std::vector<SimilarPair> out;
  for (auto& [key, p] : pairs) out.push_back(std::move(p));
  // Every pair of the exercise counts towards its median, those the tester found nothing in at 0.
  std::vector<int> all(copies.size() * (copies.size() - 1) / 2, 0);
  for (std::size_t i = 0; i < out.size(); ++i) all[i] = out[i].percent();
  const int typical = median(all);
  for (auto& p : out) p.flagged = p.percent() >= kFlagPercent && p.percent() >= typical + kFlagAboveMedian;
  // Most alike first; between equals, the pair alike both ways first.
  std::ranges::sort(out, [](const SimilarPair& x, const SimilarPair& y) {
    return std::pair(x.percent(), std::min(x.a_in_b, x.b_in_a)) > std::pair(y.percent(), std::min(y.a_in_b, y.b_in_a));
  });
  return out;
}

}  // namespace

SimilarityReport find_similar(const SubmittedFiles& files,
                              const std::function<fs::path(const std::string&)>& skeleton_of) {
  SimilarityReport report;
  const fs::path tester = find_on_path("sim_c++");
  if (tester.empty()) {
    report.note =
        "not compared: the similarity tester is not installed (Debian's similarity-tester: apt-get install "
        "similarity-tester)";
    return report;
  }
  report.tool = "sim_c++ -p -a -e (Dick Grune's similarity tester), the skeleton's lines taken out";
  const TempTree work{fs::temp_directory_path() / fmt::format("cudalab-similarity-{}", getpid())};
  for (const auto& [exercise, by_student] : files) {
    if (by_student.size() < 2) continue;
    const std::set<std::string> skeleton = lines_of(skeleton_of(exercise));
    std::vector<std::string> names;
    std::vector<fs::path> originals, copies;
    const fs::path dir = work.path / exercise;
    fs::create_directories(dir);
    for (const auto& [student, file] : by_student) {
      // Numbered, not named: a student's name is no file name the tester must parse back.
      const fs::path copy = dir / fmt::format("{}.cu", copies.size());
      std::ofstream(copy, std::ios::binary) << without_skeleton(read_text(file), skeleton);
      names.push_back(student);
      originals.push_back(file);
      copies.push_back(copy);
    }
    std::string failure;
    auto pairs = compare(tester, exercise, names, originals, copies, work.path, failure);
    if (!failure.empty()) report.note += (report.note.empty() ? "" : "; ") + failure;
    report.pairs.insert(report.pairs.end(), pairs.begin(), pairs.end());
  }
  return report;
}

std::string similarity_csv(const SimilarityReport& report) {
  const auto field = [](const std::string& raw) {
    if (raw.find_first_of(",\"\n") == std::string::npos) return raw;
    std::string out = "\"";
    for (char c : raw) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  };
  std::string out = "exercise,student_a,student_b,percent_of_a_in_b,percent_of_b_in_a,flagged\n";
  for (const auto& p : report.pairs) {
    out += fmt::format("{},{},{},{},{},{}\n", field(p.exercise), field(p.student_a), field(p.student_b), p.a_in_b,
                       p.b_in_a, p.flagged ? "yes" : "no");
  }
  return out;
}

std::string similarity_html(const SimilarityReport& report) {
  std::string out = R"(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Similar submissions</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin-bottom: 1.5em; }
td, th { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; }
tr.flagged td { background: #fde2e2; }
.pair { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1em; margin-bottom: 2em; }
pre { background: #f6f8fa; border: 1px solid #ddd; padding: 0.6em; overflow-x: auto; font-size: 12px; margin: 0; }
h3 { margin-bottom: 0.3em; }
.note { color: #555; }
</style></head><body>
<h1>Similar submissions</h1>
)";
  out += fmt::format(
      "<p class=\"note\">For the instructor: a pair is flagged when at least {} % of one file is in the other and "
      "that is {} points above the median pair of its exercise. Alike is not copied: read both files. Compared with "
      "{}.</p>\n",
      kFlagPercent, kFlagAboveMedian, html_escape(report.tool.empty() ? "nothing" : report.tool));
  if (!report.note.empty()) out += "<p class=\"note\">" + html_escape(report.note) + "</p>\n";
  std::string exercise;
  constexpr std::size_t kRowsPerExercise = 10;
  std::size_t rows = 0;
  for (const auto& p : report.pairs) {
    if (p.exercise != exercise) {
      if (!exercise.empty()) out += "</table>\n";
      exercise = p.exercise;
      rows = 0;
      out += fmt::format(
          "<h2>{}</h2>\n<table><tr><th>students</th><th>of the first in the second</th><th>of the "
          "second in the first</th><th></th></tr>\n",
          html_escape(exercise));
    }
    if (++rows > kRowsPerExercise && !p.flagged) continue;
    out += fmt::format("<tr{}><td>{} and {}</td><td>{} %</td><td>{} %</td><td>{}</td></tr>\n",
                       p.flagged ? " class=\"flagged\"" : "", html_escape(p.student_a), html_escape(p.student_b),
                       p.a_in_b, p.b_in_a, p.flagged ? "flagged" : "");
  }
  if (!exercise.empty()) out += "</table>\n";
  if (report.pairs.empty() && report.note.empty()) out += "<p>No two submissions share a run of code.</p>\n";
  for (const auto& p : report.pairs) {
    if (!p.flagged) continue;
    out += fmt::format("<h3>{}: {} and {} ({} % and {} %)</h3>\n<div class=\"pair\">", html_escape(p.exercise),
                       html_escape(p.student_a), html_escape(p.student_b), p.a_in_b, p.b_in_a);
    for (const auto& [who, file] : {std::pair{p.student_a, p.file_a}, std::pair{p.student_b, p.file_b}}) {
      out += fmt::format("<div><strong>{}</strong><pre>{}</pre></div>", html_escape(who), html_escape(read_text(file)));
    }
    out += "</div>\n";
  }
  out += "</body></html>\n";
  return out;
}

}  // namespace cudalab::grading
