#include "cudalab/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)  // linux/close_range.h, Linux 5.11
#endif

namespace cudalab {

namespace {

using SteadyClock = std::chrono::steady_clock;

// ---- Process groups of the running children, for the fatal-signal handlers ----
// A fixed table of lock-free atomics: the handler may run at any point, in any thread.

constexpr std::size_t kMaxChildren = 64;
std::atomic<pid_t> g_child_groups[kMaxChildren];  // 0: a free slot
static_assert(std::atomic<pid_t>::is_always_lock_free, "the signal handler needs lock-free atomics");

constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP};

int register_group(pid_t group) {
  for (std::size_t i = 0; i < kMaxChildren; ++i) {
    pid_t free_slot = 0;
    if (g_child_groups[i].compare_exchange_strong(free_slot, group)) return static_cast<int>(i);
  }
  return -1;  // table full: this child still dies with the parent (PR_SET_PDEATHSIG), its descendants may not
}

void unregister_group(int slot) {
  if (slot >= 0) g_child_groups[slot].store(0);
}

void kill_children_and_reraise(int sig) {
  for (auto& slot : g_child_groups) {
    const pid_t group = slot.load();
    if (group > 0) kill(-group, SIGKILL);
  }
  // The default action (terminate) takes over once the handler returns and the signal is unblocked.
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(sig, &default_action, nullptr);
  raise(sig);
}

// Once per process, and only where nobody chose a disposition: a program with its own handlers or
// ignored signals keeps them.
void install_signal_handlers() {
  static const bool installed = [] {
    for (int sig : kForwardedSignals) {
      struct sigaction current {};
      if (sigaction(sig, nullptr, &current) != 0) continue;
      if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;
      struct sigaction action {};
      action.sa_handler = kill_children_and_reraise;
      sigemptyset(&action.sa_mask);
      for (int other : kForwardedSignals) sigaddset(&action.sa_mask, other);  // one handler at a time
      action.sa_flags = SA_RESTART;
      sigaction(sig, &action, nullptr);
    }
    return true;
  }();
  (void)installed;
}

int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

/// Owns the child from fork to reaping. Whichever way run_process leaves, the child's group is
/// killed and the child reaped. Killing by group id is safe only until the reaping: till then the
/// child, a zombie at worst, keeps its pid (which is the group id) from being reused.
class ChildGuard {
 public:
  explicit ChildGuard(pid_t pid) : pid_(pid), slot_(register_group(pid)) {}
  ChildGuard(const ChildGuard&) = delete;
  ChildGuard& operator=(const ChildGuard&) = delete;
  ~ChildGuard() { (void)reap(); }

  [[nodiscard]] pid_t pid() const { return pid_; }

  /// SIGKILLs the group, and the child apart in case it left the group.
  void kill_all() const {
    if (reaped_) return;
    kill(-pid_, SIGKILL);
    kill(pid_, SIGKILL);
  }

  /// Without a pidfd: whether the child has ended, leaving it unreaped.
  [[nodiscard]] bool has_ended() const {
    siginfo_t info{};
    return waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0;
  }

  /// Kills what is left of the group, waits for the child, and returns its wait status.
  int reap() {
    if (reaped_) return status_;
    kill_all();
    unregister_group(slot_);
    while (waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    return status_;
  }

 private:
  pid_t pid_;
  int slot_;
  bool reaped_ = false;
  int status_ = 0;
};

/// The fds the caller hands over (close_after_spawn): closed once, at the latest on the way out.
class HandedOverFds {
 public:
  explicit HandedOverFds(const std::vector<int>& fds) : fds_(fds) {}
  HandedOverFds(const HandedOverFds&) = delete;
  HandedOverFds& operator=(const HandedOverFds&) = delete;
  ~HandedOverFds() { close_all(); }
  void close_all() {
    if (closed_) return;
    for (int fd : fds_) close(fd);
    closed_ = true;
  }

 private:
  const std::vector<int>& fds_;
  bool closed_ = false;
};

// What the child writes on the error pipe when it cannot exec.
struct SpawnReport {
  enum Stage : int { fds, exec, working_dir, limits };
  int stage;
  int error;
};

// The fallback of close_range: the highest fd number worth trying.
constexpr rlim_t kMaxFdScanned = 65536;

/// One limit as the child sets it, prepared before fork: never above the current hard limit,
/// which only a privileged process could raise (the child would then fail for nothing).
struct PreparedLimit {
  int resource;
  rlimit value;
};

std::vector<PreparedLimit> prepare_limits(const ResourceLimits& limits) {
  std::vector<PreparedLimit> out;
  const auto add = [&](int resource, const std::optional<std::uint64_t>& soft, std::uint64_t extra_hard) {
    if (!soft) return;
    rlimit current{};
    if (getrlimit(resource, &current) != 0) current = {RLIM_INFINITY, RLIM_INFINITY};
    const auto capped = [&](std::uint64_t v) {
      const auto value = static_cast<rlim_t>(std::min<std::uint64_t>(v, RLIM_INFINITY - 1));
      return current.rlim_max == RLIM_INFINITY ? value : std::min(value, current.rlim_max);
    };
    out.push_back({resource, {capped(*soft), capped(*soft + extra_hard)}});
  };
  add(RLIMIT_CPU, limits.cpu_seconds, 1);  // SIGXCPU at the soft limit, SIGKILL a second later
  add(RLIMIT_AS, limits.address_space_bytes, 0);
  add(RLIMIT_DATA, limits.data_bytes, 0);
  add(RLIMIT_FSIZE, limits.file_size_bytes, 0);
  add(RLIMIT_NOFILE, limits.open_files, 0);
  add(RLIMIT_NPROC, limits.processes, 0);
  return out;
}

// In the child: every fd from 3 up closes at exec except the inherited targets. Async-signal-safe.
void close_other_fds_at_exec(const std::vector<std::pair<int, int>>& inherit) {
  if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    rlimit open_files{};
    const rlim_t top = getrlimit(RLIMIT_NOFILE, &open_files) == 0 && open_files.rlim_cur != RLIM_INFINITY
                           ? std::min(open_files.rlim_cur, kMaxFdScanned)
                           : kMaxFdScanned;
    for (rlim_t fd = 3; fd < top; ++fd) (void)fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  }
  for (const auto& target : inherit) (void)fcntl(target.second, F_SETFD, 0);
}

// Reads until `size` bytes or EOF; returns how many arrived.
std::size_t read_full(int fd, void* data, std::size_t size) {
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = read(fd, static_cast<char*>(data) + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  return got;
}

}  // namespace

std::string describe_signal(int sig) {
  const char* name = sigabbrev_np(sig);
  const char* text = sigdescr_np(sig);
  std::string out = name != nullptr ? std::string("SIG") + name : "signal " + std::to_string(sig);
  if (text != nullptr) out += std::string(" (") + text + ")";
  return out;
}

ProcessResult run_process(const ProcessOptions& options) {
  ProcessResult result;
  HandedOverFds handed_over(options.close_after_spawn);
  const auto start = SteadyClock::now();
  const auto fail = [&](const std::string& what, int error) {
    result.status = ProcessResult::Status::spawn_failed;
    result.error = what + ": " + std::strerror(error);
    return result;
  };
  if (options.argv.empty()) return fail("nothing to run", EINVAL);

  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) return fail("pipe", errno);
  Fd out_read(ends[0]);
  Fd out_write(ends[1]);
  // Close-on-exec: the child writes its errno here only if execv fails; EOF means it ran.
  if (pipe2(ends, O_CLOEXEC) != 0) return fail("pipe", errno);
  Fd report_read(ends[0]);
  Fd report_write(ends[1]);

  // Everything the child needs is prepared here: it must not allocate between fork and exec.
  std::vector<char*> argv;
  for (const auto& a : options.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int free_from = 3;  // the child parks its fds at or above this, clear of every target number
  for (const auto& [from, to] : options.inherit) free_from = std::max(free_from, to + 1);
  std::vector<int> parked(options.inherit.size(), -1);
  std::vector<char*> envp;
  if (options.environment) {
    for (const auto& e : *options.environment) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
  }
  const std::vector<PreparedLimit> limits = prepare_limits(options.limits);
  const char* working_dir = options.working_dir.empty() ? nullptr : options.working_dir.c_str();
  const int niceness = options.niceness == 0 ? 0 : getpriority(PRIO_PROCESS, 0) + options.niceness;
  const pid_t parent = getpid();

  install_signal_handlers();
  // All signals blocked across fork: the child must not run a handler of ours on its copy of the
  // table, and the parent registers the child before any handler can run.
  sigset_t all_signals;
  sigset_t old_mask;
  sigfillset(&all_signals);
  pthread_sigmask(SIG_BLOCK, &all_signals, &old_mask);
  const pid_t pid = fork();
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec (the parent may have other threads).
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent died before prctl could take effect
    for (int sig : kForwardedSignals) {
      struct sigaction current {};
      if (sigaction(sig, nullptr, &current) == 0 && current.sa_handler == kill_children_and_reraise) {
        current.sa_handler = SIG_DFL;
        sigaction(sig, &current, nullptr);
      }
    }
    sigset_t no_signals;
    sigemptyset(&no_signals);
    sigprocmask(SIG_SETMASK, &no_signals, nullptr);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    // Park every source above all target numbers first, so that no dup2 below overwrites a source
    // not yet in place (the error pipe included). Parked copies are close-on-exec.
    const int report_fd = fcntl(report_write.get(), F_DUPFD_CLOEXEC, free_from);
    const int output_fd = fcntl(out_write.get(), F_DUPFD_CLOEXEC, free_from);
    bool ok = report_fd >= 0 && output_fd >= 0;
    for (std::size_t i = 0; i < parked.size(); ++i) {
      parked[i] = fcntl(options.inherit[i].first, F_DUPFD_CLOEXEC, free_from);
      ok = ok && parked[i] >= 0;
    }
    const int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    ok = ok && devnull >= 0 && (devnull == 0 ? fcntl(0, F_SETFD, 0) == 0 : dup2(devnull, 0) == 0);
    ok = ok && dup2(output_fd, 1) == 1 && dup2(output_fd, 2) == 2;
    for (std::size_t i = 0; ok && i < parked.size(); ++i) {
      ok = dup2(parked[i], options.inherit[i].second) == options.inherit[i].second;
    }
    SpawnReport::Stage stage = SpawnReport::fds;
    if (ok) {
      close_other_fds_at_exec(options.inherit);
      stage = SpawnReport::working_dir;
      ok = working_dir == nullptr || chdir(working_dir) == 0;
    }
    if (ok) stage = SpawnReport::limits;
    for (std::size_t i = 0; ok && i < limits.size(); ++i) ok = setrlimit(limits[i].resource, &limits[i].value) == 0;
    if (ok && niceness != 0) ok = setpriority(PRIO_PROCESS, 0, niceness) == 0;
    if (ok) {
      stage = SpawnReport::exec;
      if (envp.empty()) {
        execv(argv[0], argv.data());
      } else {
        execve(argv[0], argv.data(), envp.data());
      }
    }
    const SpawnReport report{stage, errno};
    (void)!write(report_fd, &report, sizeof report);
    _exit(127);
  }
  const int fork_error = errno;
  std::optional<ChildGuard> child;
  if (pid > 0) {
    setpgid(pid, pid);  // also here, whichever runs first: the group exists before any kill(-pid)
    child.emplace(pid);
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  out_write.reset();
  report_write.reset();
  handed_over.close_all();
  if (pid < 0) return fail("fork", fork_error);

  const auto finish = [&](ProcessResult::Status status) {
    result.status = status;
    result.wall_ms = std::chrono::duration<double, std::milli>(SteadyClock::now() - start).count();
    return result;
  };
  SpawnReport report{};
  if (read_full(report_read.get(), &report, sizeof report) == sizeof report) {
    child->reap();
    switch (report.stage) {
      case SpawnReport::exec:
        result.error = "cannot execute " + options.argv[0];
        break;
      case SpawnReport::working_dir:
        result.error = "cannot enter the working directory " + options.working_dir + " for " + options.argv[0];
        break;
      case SpawnReport::limits:
        result.error = "cannot set the resource limits of " + options.argv[0];
        break;
      default:
        result.error = "cannot set up the descriptors of " + options.argv[0];
        break;
    }
    result.error += std::string(": ") + std::strerror(report.error);
    return finish(ProcessResult::Status::spawn_failed);
  }
  report_read.reset();

  // Watch the child's end too, not only its pipes: it may close them and carry on.
  Fd pidfd(open_pidfd(pid));
  int out_fd = out_read.get();
  int res_fd = options.result_fd;
  bool ended = false;        // the child has ended (it is a zombie now, not yet reaped)
  bool flood = false;        // more output than max_output_bytes
  bool poll_failed = false;  // no way left to wait within the deadline: the child is killed
  char buf[65536];
  auto last_line = start;  // when the last newline arrived on result_fd
  int gate_fd = options.at_gate ? options.gate_fd : -1;
  SteadyClock::duration at_gate{};  // not counted against the deadlines
  // The child is at the gate: let the caller act (take the GPU), then let the child on.
  const auto open_gate = [&] {
    char ready = 0;
    const ssize_t n = read(gate_fd, &ready, 1);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n != 1) {  // EOF: the child left, at the gate or without reaching it
      gate_fd = -1;
      return;
    }
    const auto gate_start = SteadyClock::now();
    const char go = options.at_gate(gate_fd);
    const auto waited = SteadyClock::now() - gate_start;
    at_gate += waited;
    last_line += waited;
    result.gate_ms = std::chrono::duration<double, std::milli>(at_gate).count();
    // No SIGPIPE if the child has gone; it may come back to the gate (rounds).
    if (send(gate_fd, &go, 1, MSG_NOSIGNAL) == 1) {
      result.gate_opened = true;
    } else {
      gate_fd = -1;
    }
  };
  // Waits up to timeout_ms for the pipes (and watch_fd, the pidfd) and reads what they have.
  // Returns false when there was nothing to read.
  const auto pump = [&](int timeout_ms, int watch_fd) {
    pollfd fds[4];
    nfds_t count = 0;
    if (out_fd >= 0) fds[count++] = {out_fd, POLLIN, 0};
    if (res_fd >= 0) fds[count++] = {res_fd, POLLIN, 0};
    if (watch_fd >= 0) fds[count++] = {watch_fd, POLLIN, 0};
    if (gate_fd >= 0 && !ended) fds[count++] = {gate_fd, POLLIN, 0};
    const int ready = poll(fds, count, timeout_ms);
    if (ready < 0 && errno == EINTR) return true;  // go round again
    if (ready < 0) {
      result.error = std::string("poll: ") + std::strerror(errno);
      poll_failed = true;
      child->kill_all();
      return false;
    }
    if (ready == 0) return false;
    for (nfds_t i = 0; i < count; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == watch_fd) {
        ended = true;
        continue;
      }
      if (fds[i].fd == gate_fd) {
        open_gate();
        continue;
      }
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      const bool is_output = fds[i].fd == out_fd;
      if (n <= 0) {  // EOF or a broken pipe: nothing more from this one
        (is_output ? out_fd : res_fd) = -1;
        continue;
      }
      const auto bytes = static_cast<std::size_t>(n);
      if (is_output) {
        result.output_bytes += bytes;
        if (result.output.size() < options.kept_output_bytes) {
          result.output.append(buf, std::min(bytes, options.kept_output_bytes - result.output.size()));
        }
        if (result.output_bytes > options.max_output_bytes) flood = true;
      } else {
        const std::size_t room = options.max_result_bytes - result.result.size();
        result.result.append(buf, std::min(bytes, room));
        if (const auto lines = std::count(buf, buf + std::min(bytes, room), '\n'); lines > 0) {
          last_line = SteadyClock::now();
          for (long i = 0; i < lines && options.on_result_line; ++i) options.on_result_line();
        }
        if (bytes > room) {  // no need to read on, and no reason to let the child run on
          result.result_overflow = true;
          res_fd = -1;
          child->kill_all();
        }
      }
    }
    return true;
  };

  bool timed_out = false;
  while (!ended && !flood && !poll_failed) {
    const auto now = SteadyClock::now();
    auto deadline = start + at_gate + options.timeout;
    if (options.result_line_timeout) deadline = std::min(deadline, last_line + *options.result_line_timeout);
    if (now >= deadline) {
      timed_out = true;
      break;
    }
    long long wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1;
    wait_ms = std::min(wait_ms, pidfd.get() >= 0 ? 60'000LL : 10LL);  // no pidfd: look now and then
    pump(static_cast<int>(wait_ms), pidfd.get());
    if (pidfd.get() < 0 && !ended) ended = child->has_ended();
  }
  const int status = child->reap();  // the group dies here, before anything else is read
  // What the child wrote before its end is still in the pipes: read it without waiting. The caps
  // and a short bound stop a writer that escaped the group.
  if (ended) {
    const auto drain_until = SteadyClock::now() + std::chrono::seconds(1);
    while (!flood && !poll_failed && (out_fd >= 0 || res_fd >= 0) && SteadyClock::now() < drain_until && pump(0, -1)) {
    }
  }
  if (timed_out) return finish(ProcessResult::Status::timed_out);
  if (flood) return finish(ProcessResult::Status::output_flood);
  if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    return finish(ProcessResult::Status::signaled);
  }
  result.exit_code = WEXITSTATUS(status);
  return finish(ProcessResult::Status::exited);
}

}  // namespace cudalab
