// What the report writers share: text cleaning and escaping, number formats, the class statistics
// (per exercise, ranks) that several reports show. Internal to grading/src/reports.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cudalab/grading/model.hpp"

namespace cudalab::grading::reports_detail {

/// A student's feedback (feedback.md, Gradescope's output) shows this many failing checks: the rest
/// usually repeat the first failure's story ...
inline constexpr std::size_t kFailingChecksShown = 3;
/// ... and this many detail lines of each.
inline constexpr std::size_t kDetailsShown = 4;

/// `text` as valid UTF-8: each invalid byte becomes U+FFFD (nlohmann::json throws on invalid UTF-8,
/// and a student's program output may hold anything).
std::string valid_utf8(std::string_view text);

/// `text` as valid UTF-8 without terminal escape sequences or control characters other than newline
/// and tab: what may go to a terminal, XML, HTML or Markdown.
std::string printable(std::string_view text);

/// `text` made a single line (newlines and tabs become spaces), printable.
std::string one_line(std::string_view text);

std::string xml_escape(std::string_view text);   ///< printable, then & < > " ' escaped
std::string html_escape(std::string_view text);  ///< the same escapes, for HTML text and attributes

/// Points with at most `decimals` decimals and no trailing zeros: 10, 8.5, 8.33.
std::string points(double value, int decimals = 2);

/// "wrong_output" → "wrong output"; "" → "unknown".
std::string verdict_words(const std::string& verdict);

/// A duration with three significant digits: 812 µs, 1.23 ms, 2.05 s.
std::string duration_text(double seconds);

/// A throughput with three significant digits and its unit: 812 GB/s, 14.2 GFLOP/s.
std::string throughput_text(double value, const std::string& unit);

/// A number with three significant digits and no exponent: 812, 14.2, 0.953.
std::string three_digits(double value);

/// reference_s / median_s, or nothing when either is unknown.
std::optional<double> speedup(const Timing& t);
/// "1.532× the reference solution's time (95 % interval 1.521–1.540), from 8 rounds …"; empty
/// for an attempt timed alone.
std::string paired_ratio_text(const Timing& t);
/// The reference solution's throughput (same work, its own time), or nothing when unknown.
std::optional<double> reference_throughput(const Timing& t);
/// The device's peak for this exercise's bound (bandwidth or FP32), from throughput and % of peak.
std::optional<double> device_peak(const Timing& t);

bool passed(const Attempt& a);
bool full_marks(const Attempt& a);

/// An exercise's weight: ClassResults::max_points, else an attempt's Score::max, else 0.
double exercise_max(const ClassResults& results, const std::string& exercise);

/// The class's view of one exercise.
struct ExerciseStats {
  std::string exercise;
  double max = 0;
  int students = 0;  ///< in the class
  int submitted = 0;
  int passed = 0;                       ///< verdict "passed"
  int full = 0;                         ///< full marks
  double mean = 0;                      ///< over the class, an exercise not submitted counting 0
  std::map<std::string, int> verdicts;  ///< of the submitted attempts
  std::string common_failure;           ///< the most common verdict other than "passed"; "" when none
  int common_failure_count = 0;
  std::string example_message;  ///< the first (by student) attempt with that verdict's message
  std::string example_student;
  int timed = 0;
  std::optional<double> median_speedup;  ///< over the timed attempts with a known reference
  std::optional<double> median_time_s;   ///< over the timed attempts
};

ExerciseStats exercise_stats(const ClassResults& results, const std::string& exercise);

/// A place in the class: 1-based competition rank (ties share the better place) among `of`.
struct Standing {
  int rank = 0;
  int of = 0;
};

/// By total points, higher first; every student of the class takes part.
Standing score_standing(const ClassResults& results, const std::string& student);
/// By median time on one exercise, lower first, among the timed attempts; nothing when not timed.
std::optional<Standing> time_standing(const ClassResults& results, const std::string& student,
                                      const std::string& exercise);

/// Whether speed was graded and where: "speed graded on NVIDIA H100 …" or
/// "speed not graded: checked on the CPU simulator".
std::string speed_line(const ClassResults& results);

/// The median of `values` (not empty).
double median(std::vector<double> values);

/// `name` as one path component: `/`, `\` and control characters become `_`; "", "." and ".." get a
/// leading `_`.
std::string safe_file_name(const std::string& name);

}  // namespace cudalab::grading::reports_detail
