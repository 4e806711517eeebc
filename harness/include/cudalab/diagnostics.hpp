// A check's results as findings placed in the student's own file, in the two forms that editors
// and CI read: `file:line:col: error: …` lines (GCC's form, which editors' and CI's problem matchers
// know) and a SARIF 2.1.0 log (GitHub code scanning and other SARIF viewers).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudalab/exercise_check.hpp"

namespace cudalab {

/// How much a diagnostic weighs, as GCC and SARIF name it.
enum class Severity { error, warning, note };

/// One thing to show at a place of a source file.
struct SourceDiagnostic {
  std::string file;  ///< the file as the student names it: relative to the working folder where inside it
  int line = 1;      ///< 1-based
  int column = 1;    ///< 1-based
  Severity severity = Severity::error;  ///< error: a failure; warning: a compiler warning; note: a fix or a hint
  std::string rule;                     ///< the verdict's name ("race", "wrong_output"), or "compiler"
  std::string message;                  ///< one line
};

/// The diagnostics of one exercise's check: the compiler's messages where they are; each finding at
/// its line, with its fix as a note; a failure without a line (a wrong output, a broken
/// requirement) at the line that defines `solve`, with its hints as notes, at the first size that
/// failed so. Later cases add only what earlier ones did not say. Empty for a check that passed without compiler
/// warnings.
std::vector<SourceDiagnostic> source_diagnostics(const ExerciseResult& result);

/// "kernel.cu:41:5: error: race at n=1000: … [race]", GCC's form.
std::string gcc_line(const SourceDiagnostic& diagnostic);

/// The SARIF 2.1.0 log of `results`: one run of the tool "cudalab", a rule per verdict it reports,
/// a result per diagnostic (relative paths stay relative to the working folder, as code scanning
/// wants them).
nlohmann::json sarif_log(const std::vector<ExerciseResult>& results);

/// Whether this process runs in a CI job (the CI variable that GitHub Actions, GitLab CI and most
/// others set), where `check` adds the GCC-form lines after its report.
bool in_ci();

}  // namespace cudalab
