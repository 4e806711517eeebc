// Running another program with limits: the compiler, and the runner that executes student code.
// A crash, a hang or a flood of output in the child becomes a status here; the parent carries on.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cudalab {

/// Closes its descriptor when it goes out of scope.
class Fd {
 public:
  Fd() = default;
  /// Takes ownership of `fd`.
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  /// The descriptor, or -1 when it holds none.
  [[nodiscard]] int get() const { return fd_; }
  /// Closes the descriptor it holds, if any, and holds `fd` instead.
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }
  /// Gives the descriptor up without closing it (to run_process, which closes what it is handed
  /// in ProcessOptions::close_after_spawn) and holds none.
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_ = -1;
};

/// Resource limits the child gets before exec (setrlimit); an empty one stays as inherited. Each
/// is set as soft and hard limit, except CPU time, whose hard limit is one second later: SIGXCPU
/// first, so that the parent can say why, SIGKILL if the child ignores it.
struct ResourceLimits {
  std::optional<std::uint64_t> cpu_seconds;          ///< RLIMIT_CPU: past it, SIGXCPU
  std::optional<std::uint64_t> address_space_bytes;  ///< RLIMIT_AS: allocations beyond it fail
  std::optional<std::uint64_t> data_bytes;           ///< RLIMIT_DATA: heap and data segments
  std::optional<std::uint64_t> file_size_bytes;      ///< RLIMIT_FSIZE: writing past it, SIGXFSZ
  std::optional<std::uint64_t> open_files;           ///< RLIMIT_NOFILE
  std::optional<std::uint64_t> processes;            ///< RLIMIT_NPROC: tasks of the user, threads included
};

/// What to run and under which limits.
struct ProcessOptions {
  std::vector<std::string> argv;             ///< argv[0] is the program's path
  std::vector<std::pair<int, int>> inherit;  ///< {parent fd, fd number in the child}
  int result_fd = -1;                        ///< parent end of a pipe whose content is collected apart from the output
  std::vector<int> close_after_spawn;        ///< parent fds meant for the child only (the write end of that pipe)
  /// Past it the child is killed (Status::timed_out); the time at the gate does not count.
  std::chrono::milliseconds timeout{60'000};
  /// When set, the child is also stopped once this long has passed since the last newline on
  /// result_fd (or since the start): a deadline per line of result, within `timeout` for all.
  std::optional<std::chrono::milliseconds> result_line_timeout;
  /// Called on the waiting thread for each newline that arrives on result_fd.
  std::function<void()> on_result_line;
  /// A gate the child stops at, both set or neither: the parent end of a socket (socketpair) on which the
  /// child sends one byte once it is ready. run_process then calls `at_gate` on the waiting thread
  /// (it may block: that time does not count against `timeout`; it may read more bytes the child
  /// sent with it) and sends the byte `at_gate` returns to let the child on. The child may come
  /// back to the gate (rounds), or end without reaching it; `at_gate` is then never called.
  int gate_fd = -1;
  std::function<char(int gate_fd)> at_gate;  ///< called each time the child reaches the gate (see gate_fd)
  std::size_t max_output_bytes = 1 << 20;    ///< stdout+stderr beyond this: the child is killed
  std::size_t kept_output_bytes = 16 << 10;  ///< how much of the output is kept for the report
  std::size_t max_result_bytes = 1 << 20;    ///< result_fd beyond this: the child is killed, result_overflow set
  ResourceLimits limits;                     ///< set in the child before exec

  /// When set, the child's whole environment ("NAME=value" each): nothing of the parent's leaks in.
  std::optional<std::vector<std::string>> environment;
  std::string working_dir;  ///< the child's working directory; empty: the parent's
  int niceness = 0;         ///< added to the child's nice value before exec (setpriority): > 0 yields the CPU
};

/// How the child ended and what it printed.
struct ProcessResult {
  /// How the child ended. `timed_out` and `output_flood` mean run_process killed it for that reason
  /// (whatever its wait status then was); `exited` and `signaled` are its own end as observed.
  enum class Status {
    exited,        ///< it exited: exit_code holds the code
    signaled,      ///< a signal ended it: signal holds the number (SIGKILL too, if result_overflow)
    timed_out,     ///< still running at the deadline: killed
    output_flood,  ///< printed more than max_output_bytes: killed
    spawn_failed,  ///< never ran: no pipe or process, or execv failed; error says why
  };
  Status status = Status::spawn_failed;  ///< how it ended
  int exit_code = -1;                    ///< the exit code, when status is exited; else -1
  int signal = 0;                        ///< the terminating signal, when status is signaled; else 0
  std::string output;                    ///< stdout and stderr interleaved, the first kept_output_bytes
  std::size_t output_bytes = 0;          ///< all the output read, kept or not
  std::string result;                    ///< what arrived on result_fd, the first max_result_bytes
  bool result_overflow = false;          ///< result_fd brought more than max_result_bytes: the child was killed
  double wall_ms = 0;                    ///< from the spawn to the reaping, the time at the gate included
  double gate_ms = 0;                    ///< time spent in `at_gate` (0 when the child never reached it)
  bool gate_opened = false;              ///< the child reached the gate and was let on

  /// Why the spawn failed ("cannot execute /path: No such file or directory"), or, with another
  /// status, an internal failure of the wait (poll) that made run_process kill the child.
  std::string error;

  /// It exited by itself with code 0.
  [[nodiscard]] bool ok() const { return status == Status::exited && exit_code == 0; }
};

/// Starts `options.argv[0]` in its own process group with stdin from /dev/null, collects its
/// output, and returns once the child has been reaped. Never throws for child failures.
///
/// Guarantees:
/// - The wait is bounded by `options.timeout` whatever the child does (closing its pipes and
///   spinning included): the child's exit is watched through a pidfd, not only its pipes' EOF.
/// - On every way out (normal exit, timeout, flood, result overflow, exec failure) the child's
///   whole process group gets SIGKILL before the child is reaped, so a grandchild it left behind
///   does not outlive the call. A descendant that moved itself to another group or session escapes.
/// - If the calling process dies, the child gets SIGKILL (PR_SET_PDEATHSIG; tied to the calling
///   thread, which run_process keeps busy until the end). On the first call, handlers are
///   installed for SIGINT, SIGTERM and SIGHUP where their disposition is still the default: they
///   SIGKILL the groups of all children running at that moment, then let the signal end the process
///   as it would have. Ctrl-C thus stops the children too, though each lives in a group of its own.
/// - `close_after_spawn` fds are closed on every way out, the spawn failed or not; `result_fd` is not.
/// - The child starts with an empty signal mask, fds 0-2 mapped (stdin /dev/null, stdout and
///   stderr to the output pipe), the `inherit` fds at their numbers, and no core dumps. Every
///   other fd of the parent is closed at exec (close_range with CLOSE_RANGE_CLOEXEC, or a loop
///   where the kernel lacks it), whether or not it was opened close-on-exec: nothing the parent
///   holds (a gradebook, another submission's file) reaches the child.
/// - `limits`, `environment` and `working_dir` apply to the child only; a working directory or
///   a limit that cannot be set is a spawn failure, like a failed exec.
ProcessResult run_process(const ProcessOptions& options);

/// "SIGSEGV (segmentation fault)" for a signal number.
std::string describe_signal(int signal);

}  // namespace cudalab
