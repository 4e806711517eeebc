// One student's feedback as Markdown.
#include <algorithm>

#include <fmt/format.h>

#include "cudalab/grading/reports.hpp"
#include "reports_common.hpp"

namespace cudalab::grading {

using namespace reports_detail;

namespace {

// Inline text from the harness or the student's program: one line, Markdown's active characters
// escaped (brackets and underscores stay: "C[0][0]" and "n_elements" are common and harmless).
std::string md(std::string_view text) {
  std::string out;
  for (char c : one_line(text)) {
    if (c == '\\' || c == '`' || c == '*' || c == '<' || c == '>' || c == '|') out += '\\';
    out += c;
  }
  return out;
}

// A fenced block that `lines` cannot close: the fence is longer than any run of backticks in them.
std::string code_block(const std::vector<std::string>& lines, const std::string& indent) {
  std::size_t longest = 0;
  for (const auto& l : lines) {
    std::size_t run = 0;
    for (char c : l) {
      run = c == '`' ? run + 1 : 0;
      longest = std::max(longest, run);
    }
  }
  const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  std::string out = indent + fence + "\n";
  for (const auto& l : lines) out += indent + printable(l) + "\n";
  return out + indent + fence + "\n";
}

std::string result_cell(const Attempt* a) {
  if (a == nullptr) return "not submitted";
  return (passed(*a) ? "✓ " : "✗ ") + verdict_words(a->verdict);
}

void write_failures(std::string& out, const Attempt& a) {
  const auto failing = std::count_if(a.checks.begin(), a.checks.end(),
                                     [](const CheckRow& c) { return c.verdict != "passed" && c.verdict != "skipped"; });
  out += fmt::format("**What failed:** {}", md(a.message));
  if (!a.checks.empty()) out += fmt::format(" ({} of {} checks failed)", failing, a.checks.size());
  out += "\n\n";
  std::size_t shown = 0;
  std::vector<std::string> more;
  for (const auto& c : a.checks) {
    if (c.verdict == "passed" || c.verdict == "skipped") continue;
    if (shown++ >= kFailingChecksShown) {
      more.push_back(md(c.label));
      continue;
    }
    out += fmt::format("- **{}**: {} ({})\n", md(c.label), md(c.message), verdict_words(c.verdict));
    if (!c.details.empty()) {
      std::vector<std::string> first(c.details.begin(),
                                     c.details.begin() + static_cast<long>(std::min(c.details.size(), kDetailsShown)));
      if (c.details.size() > kDetailsShown)
        first.push_back(fmt::format("… {} more lines", c.details.size() - kDetailsShown));
      out += "\n" + code_block(first, "  ") + "\n";
    }
  }
  if (!more.empty()) {
    std::string labels;
    for (const auto& l : more) labels += (labels.empty() ? "" : ", ") + l;
    out += fmt::format("- and {} more failing check{}: {}\n", more.size(), more.size() == 1 ? "" : "s", labels);
  }
  if (shown > 0) out += "\n";
}

void write_hints(std::string& out, const Attempt& a) {
  if (a.hints.empty()) return;
  out += "**Hints**\n\n";
  for (const auto& h : a.hints) out += "- " + md(h) + "\n";
  out += "\n";
}

void write_points(std::string& out, const Attempt& a, double max) {
  const Score& s = a.score;
  out += fmt::format("**Points:** correctness {} + performance {}", points(s.correctness), points(s.performance));
  if (s.penalties > 0) out += " − penalties " + points(s.penalties);
  if (s.late > 0) out += " − late " + points(s.late);
  out += fmt::format(" = **{} of {}**\n\n", points(s.total), points(max));
  for (const auto& n : s.notes) out += "- " + md(n) + "\n";
  if (!s.notes.empty()) out += "\n";
}

void write_speed(std::string& out, const ClassResults& results, const std::string& student, const Attempt& a) {
  if (!a.timing) {
    if (passed(a)) out += "**Speed:** not graded for this attempt (" + speed_line(results) + ").\n\n";
    return;
  }
  const Timing& t = *a.timing;
  out += fmt::format("**Speed** at {}:\n\n", md(t.label));
  out += "| | median time | throughput | % of peak | vs reference |\n| --- | ---: | ---: | ---: | ---: |\n";
  const auto x = speedup(t);
  out += fmt::format("| your solution | {} | {} | {} % | {} |\n", duration_text(t.median_s),
                     throughput_text(t.throughput, md(t.unit)), three_digits(t.percent_of_peak),
                     x ? three_digits(*x) + "×" : "–");
  if (const auto ref = reference_throughput(t)) {
    out += fmt::format("| reference solution | {} | {} | {} % | 1× |\n", duration_text(t.reference_s),
                       throughput_text(*ref, md(t.unit)), three_digits(t.percent_of_peak * *ref / t.throughput));
  }
  out += "\n";
  if (const std::string ratio = paired_ratio_text(t); !ratio.empty()) out += "Your time: " + md(ratio) + ".\n\n";
  if (const auto st = time_standing(results, student, a.exercise)) {
    const ExerciseStats s = exercise_stats(results, a.exercise);
    out +=
        fmt::format("**In the class:** your time ranks {} of {} timed solutions (1 is the fastest)", st->rank, st->of);
    if (st->of > 1 && st->rank < st->of) {
      int slower = 0;
      for (const auto& other : results.students) {
        const Attempt* o = results.find(other, a.exercise);
        if (o != nullptr && o->timing && o->timing->median_s > t.median_s) ++slower;
      }
      out += fmt::format(", faster than {:.0f} % of the others", 100.0 * slower / (st->of - 1));
    }
    if (s.median_time_s) out += "; the class's median time is " + duration_text(*s.median_time_s);
    out += ".\n\n";
  }
}

}  // namespace

std::string student_feedback_markdown(const ClassResults& results, const std::string& student) {
  std::string out = fmt::format("# cudalab feedback: {}\n\n", md(student));
  const Standing st = score_standing(results, student);
  out += fmt::format("**{} / {} points**", points(results.total(student)), points(results.max_total()));
  if (st.of > 1) out += fmt::format(": rank {} of {} in the class", st.rank, st.of);
  out += ".\n\n";
  std::string graded = "Graded";
  if (!results.graded_at.empty()) graded += " " + md(results.graded_at);
  if (!results.cudalab_version.empty()) graded += " with cudalab " + md(results.cudalab_version);
  out += graded + "; " + speed_line(results) + ".\n\n";

  if (const auto it = results.student_notes.find(student); it != results.student_notes.end() && !it->second.empty()) {
    out += "## About your submission\n\n";
    for (const auto& n : it->second) out += "- " + md(n) + "\n";
    out += "\n";
  }

  out += "## Overview\n\n| exercise | result | points | class mean |\n| --- | --- | ---: | ---: |\n";
  for (const auto& e : results.exercises) {
    const Attempt* a = results.find(student, e);
    const ExerciseStats s = exercise_stats(results, e);
    out += fmt::format("| {} | {} | {} / {} | {} |\n", md(e), result_cell(a), points(a ? a->score.total : 0),
                       points(s.max), points(s.mean));
  }
  out += "\n";

  for (const auto& e : results.exercises) {
    const Attempt* a = results.find(student, e);
    const double max = exercise_max(results, e);
    out += fmt::format("## {}: {}\n\n", md(e), result_cell(a));
    if (a == nullptr) {
      out += fmt::format("Not found in your submission: 0 of {} points.\n\n", points(max));
      continue;
    }
    if (passed(*a)) {
      out += fmt::format("All {} checks passed.\n\n", a->checks.size());
    } else {
      write_failures(out, *a);
    }
    write_hints(out, *a);
    write_points(out, *a, max);
    write_speed(out, results, student, *a);
  }
  return out;
}

}  // namespace cudalab::grading
