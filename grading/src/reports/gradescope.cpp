// Gradescope's results.json (https://gradescope-autograders.readthedocs.io/en/latest/specs/).
#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "cudalab/grading/reports.hpp"
#include "reports_common.hpp"

namespace cudalab::grading {

using namespace reports_detail;
using nlohmann::json;

namespace {

std::string test_output(const Attempt* a, double max) {
  if (a == nullptr) return fmt::format("Not submitted: 0 / {} points.", points(max));
  std::string out;
  const auto failing = std::count_if(a->checks.begin(), a->checks.end(),
                                     [](const CheckRow& c) { return c.verdict != "passed" && c.verdict != "skipped"; });
  if (passed(*a)) {
    out += fmt::format("Passed all {} checks.\n", a->checks.size());
  } else {
    out += verdict_words(a->verdict) + ": " + one_line(a->message) + "\n";
    if (!a->checks.empty()) out += fmt::format("{} of {} checks failed.\n", failing, a->checks.size());
    std::size_t shown = 0;
    for (const auto& c : a->checks) {
      if (c.verdict == "passed" || c.verdict == "skipped" || shown++ >= kFailingChecksShown) continue;
      out += "  x " + one_line(c.label) + ": " + one_line(c.message) + "\n";
      for (std::size_t i = 0; i < c.details.size() && i < kDetailsShown; ++i)
        out += "      " + one_line(c.details[i]) + "\n";
    }
    for (const auto& h : a->hints) out += "hint: " + one_line(h) + "\n";
  }
  const Score& s = a->score;
  out += fmt::format("\nPoints: {} / {} (correctness {}, performance {}", points(s.total), points(max),
                     points(s.correctness), points(s.performance));
  if (s.penalties > 0) out += ", penalties -" + points(s.penalties);
  if (s.late > 0) out += ", late -" + points(s.late);
  out += ")\n";
  for (const auto& n : s.notes) out += "  - " + one_line(n) + "\n";
  if (a->timing) {
    const Timing& t = *a->timing;
    out +=
        fmt::format("\nSpeed at {}: median {}, {} ({}% of the device's peak)", one_line(t.label),
                    duration_text(t.median_s), throughput_text(t.throughput, t.unit), three_digits(t.percent_of_peak));
    if (const auto x = speedup(t)) {
      out += fmt::format(", {}x the reference solution's speed (its median {})", three_digits(*x),
                         duration_text(t.reference_s));
    }
    out += "\n";
    if (const std::string ratio = paired_ratio_text(t); !ratio.empty()) out += "Your time: " + ratio + "\n";
  } else if (passed(*a) && !a->speed_graded) {
    out += "\nSpeed not graded for this attempt.\n";
  }
  return out;
}

}  // namespace

json gradescope_results(const ClassResults& results, const std::string& student) {
  json tests = json::array();
  json leaderboard = json::array();
  double score = 0, execution_time = 0;
  for (std::size_t i = 0; i < results.exercises.size(); ++i) {
    const std::string& e = results.exercises[i];
    const Attempt* a = results.find(student, e);
    const double max = exercise_max(results, e);
    const double points_given = a == nullptr ? 0.0 : a->score.total;
    score += points_given;
    if (a != nullptr) execution_time += a->seconds;
    tests.push_back({{"name", valid_utf8(e)},
                     {"number", std::to_string(i + 1)},
                     {"score", points_given},
                     {"max_score", max},
                     {"status", a != nullptr && passed(*a) ? "passed" : "failed"},
                     {"output", test_output(a, max)},
                     {"output_format", "text"},
                     {"visibility", "visible"}});
    if (a != nullptr && a->timing && a->timing->median_s > 0) {
      leaderboard.push_back(
          {{"name", valid_utf8(e) + " median time (ms)"}, {"value", a->timing->median_s * 1e3}, {"order", "asc"}});
    }
  }

  std::string speed = speed_line(results);
  speed[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(speed[0])));
  std::string output = fmt::format("cudalab: {} / {} points. {}.\n", points(score), points(results.max_total()), speed);
  if (const auto it = results.student_notes.find(student); it != results.student_notes.end()) {
    for (const auto& n : it->second) output += "Note: " + one_line(n) + "\n";
  }
  json out = {{"score", score},
              {"execution_time", static_cast<long long>(std::lround(execution_time))},
              {"output", output},
              {"output_format", "text"},
              {"visibility", "visible"},
              {"tests", std::move(tests)},
              {"leaderboard", std::move(leaderboard)}};
  return out;
}

}  // namespace cudalab::grading
