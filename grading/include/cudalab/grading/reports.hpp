// The reports of a graded class, all written from one ClassResults (model.hpp): a terminal summary,
// grades as CSV, everything as JSON, JUnit XML, Gradescope's results.json, a feedback page per
// student and one self-contained HTML page for the instructor. `cudalab report GRADEBOOK` calls
// write_reports; so does `cudalab grade` at its end.
//
// Attempt::seed is secret (it would let a student reproduce the hidden inputs): no report writes it.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "cudalab/grading/model.hpp"

namespace cudalab::grading {

/// The instructor's terminal summary: a row per student (total / max, then each exercise's points),
/// per exercise the mean, how many got full marks and the most common failing verdict, and whether
/// speed was graded and on which device. `color` adds ANSI colours; without it the text has none.
void write_summary(std::ostream& out, const ClassResults& results, bool color);

/// Grades as RFC 4180 CSV (CRLF line ends): `student,<exercise>...,total,max`, a row per student; an
/// exercise that was not submitted is an empty cell.
void write_grades_csv(std::ostream& out, const ClassResults& results);

/// Everything, for tools: the class, per exercise its statistics, per student per exercise the
/// score parts, verdict, message, hints, checks and timing (null when not submitted). No seed.
nlohmann::json class_json(const ClassResults& results);

/// JUnit XML: a testsuite per student, a testcase per check (classname `student.exercise`, name the
/// check's label) with a failure element for each failing check; an attempt without checks (compile
/// error, wrong signature) and an exercise not submitted are one failing testcase each.
void write_junit(std::ostream& out, const ClassResults& results);

/// Gradescope's results.json for one student (https://gradescope-autograders.readthedocs.io/en/latest/specs/):
/// a test per exercise whose scores sum to `score`, and a leaderboard of the median times in
/// milliseconds (order "asc") of the exercises that were timed. An unknown student has every
/// exercise "not submitted".
nlohmann::json gradescope_results(const ClassResults& results, const std::string& student);

/// One student's feedback as Markdown: per exercise what failed and why (message, first details,
/// hints), the points and the rubric's notes, the speed table and where the student stands in the
/// class; the notes about the submission as a whole. No seed.
std::string student_feedback_markdown(const ClassResults& results, const std::string& student);

/// One self-contained HTML page for the instructor (inline CSS and SVG, nothing fetched): score
/// distribution, per exercise results and most common failure, throughput against the reference and
/// the device's peak, speedups over the reference, and the class table.
std::string class_report_html(const ClassResults& results);

/// Writes every report into `out_dir` (created): summary.txt, grades.csv, results.json, junit.xml,
/// gradescope/<student>/results.json, feedback/<student>.md and report.html. A student's name is
/// made safe as a file name (no `/`, `\`, `.` or `..`, no control characters; distinct names stay
/// distinct). Throws std::system_error naming the file that could not be written.
void write_reports(const ClassResults& results, const std::filesystem::path& out_dir);

}  // namespace cudalab::grading
