// Writers for check results: a table for people (colour on a terminal) and JSON for machines.
// One result model (ExerciseResult), several writers.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudalab/exercise_check.hpp"

namespace cudalab {

/// How the table is written.
struct ReportStyle {
  bool color = false;    ///< ANSI colours (want_color())
  bool verbose = false;  ///< every case, not only the failures
};

/// The `cudalab show` command that draws `result`'s first failure, where a picture of the threads'
/// accesses shows it (a wrong output, a bad access, a race); empty otherwise.
std::string show_command(const ExerciseResult& result);

/// The results table, then one block per failing exercise: what failed, where, and hints.
void write_check_report(std::ostream& out, const std::vector<ExerciseResult>& results, const ReportStyle& style);

/// The same results as JSON (schema: docs/json-output.md).
nlohmann::json check_report_json(const std::vector<ExerciseResult>& results, const std::string& backend_line,
                                 std::uint64_t seed);

/// The same results as JUnit XML for CI systems: one testsuite per exercise, one testcase per
/// checked size (a compile error is one failing testcase), skipped cases marked skipped.
void write_check_junit(std::ostream& out, const std::vector<ExerciseResult>& results);

/// Whether to colour output written to `fd`: a terminal, NO_COLOR unset, not TERM=dumb, not CI.
bool want_color(int fd);

/// Text for XML (JUnit): & < > " ' as entities, control characters other than \n \t \r as `?`.
std::string xml_escape(const std::string& text);

}  // namespace cudalab
