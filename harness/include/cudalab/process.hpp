// Running another program with limits: the compiler, and the runner that executes student code.
// A crash, a hang or a flood of output in the child becomes a status here; the parent carries on.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace cudalab {

/// What to run and under which limits.
struct ProcessOptions {
  std::vector<std::string> argv;             ///< argv[0] is the program's path
  std::vector<std::pair<int, int>> inherit;  ///< {parent fd, fd number in the child}
  int result_fd = -1;                        ///< parent end of a pipe whose content is collected apart from the output
  std::vector<int> close_after_spawn;        ///< parent fds meant for the child only (the write end of that pipe)
  std::chrono::milliseconds timeout{60'000};
  std::size_t max_output_bytes = 1 << 20;    ///< stdout+stderr beyond this: the child is killed
  std::size_t kept_output_bytes = 16 << 10;  ///< how much of the output is kept for the report
};

/// How the child ended and what it printed.
struct ProcessResult {
  enum class Status { exited, signaled, timed_out, output_flood, spawn_failed };
  Status status = Status::spawn_failed;
  int exit_code = -1;
  int signal = 0;
  std::string output;  ///< stdout and stderr interleaved, the first kept_output_bytes
  std::size_t output_bytes = 0;
  std::string result;  ///< what arrived on result_fd
  double wall_ms = 0;
  std::string error;  ///< why the spawn failed

  [[nodiscard]] bool ok() const { return status == Status::exited && exit_code == 0; }
};

/// Starts `options.argv[0]` in its own process group with stdin from /dev/null, collects its
/// output, and kills the whole group on timeout or output flood. Never throws for child failures.
ProcessResult run_process(const ProcessOptions& options);

/// "SIGSEGV (segmentation fault)" for a signal number.
std::string describe_signal(int signal);

}  // namespace cudalab
