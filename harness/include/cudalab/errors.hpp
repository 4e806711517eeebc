// The one family of errors that cudalab's commands report to a person: each is one line, and each
// carries the exit code its command ends with, so that `cudalab`, `cudalab-grading` and a CI job
// that reads the code agree on what went wrong and whose it is. A system call that fails throws
// std::system_error with its errno (the machine refused: exit 2, with the system's reason).
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace cudalab {

/// What a command's exit status says (docs/reports.md, "Exit codes").
enum class ExitCode : int {
  done = 0,      ///< the command did its work; for `check`, every check passed
  failed = 1,    ///< something was judged and failed: a verdict other than passed
  not_run = 2,   ///< a usage or set-up error stopped the command before anything was judged
  internal = 3,  ///< a bug in cudalab: the line says so and asks for a report
};

/// The base of the family: a message meant to be printed as one line, and the exit code.
class Error : public std::runtime_error {
 public:
  /// `message` is the whole line, without the program's name.
  Error(const std::string& message, ExitCode code) : std::runtime_error(message), code_(code) {}
  /// The exit code the command ends with when this error stops it.
  [[nodiscard]] ExitCode exit_code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

/// The command was asked for something it cannot do: an unknown exercise or size, options that do
/// not go together, an input file (rubric, gradebook, shard) that is not what it must be. Exit 2.
struct UsageError : Error {
  /// `message`: what was asked and, where there is one, the nearest thing that can be done.
  explicit UsageError(const std::string& message) : Error(message, ExitCode::not_run) {}
};

/// A set-up problem that no student code caused: no backend can run, a file of the installation
/// is missing, or the module cache, the compiler, the disk or the sandbox failed before the
/// submission's own code ran. `check` and `grade` stop with its message as one line and exit code
/// 2; nothing is recorded against a student.
struct SetupError : Error {
  /// `message`: what failed and, where the machine's owner can fix it, how.
  explicit SetupError(const std::string& message) : Error(message, ExitCode::not_run) {}
};

/// A promise broken inside cudalab itself (a reply or spec that its own other half should never
/// have produced, a state that cannot happen): exit 3, and the line asks for a report.
struct InternalError : Error {
  /// `message`: what was found broken.
  explicit InternalError(const std::string& message) : Error(message, ExitCode::internal) {}
};

/// The line to print and the exit code for an exception that reached a command's top.
struct ErrorReport {
  std::string line;  ///< without the program's name; ends without a newline
  ExitCode code;     ///< the command's exit code
};

/// What a command says for `error`: cudalab's own errors keep their line and code; an error of the
/// file system or the operating system, or memory running out, is the machine's (exit 2); anything
/// else is a bug in cudalab (exit 3, "please report").
ErrorReport report_error(const std::exception_ptr& error);

}  // namespace cudalab
