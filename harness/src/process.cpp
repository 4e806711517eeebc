#include "cudalab/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cudalab {

namespace {

using Clock = std::chrono::steady_clock;

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
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
  int out_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  std::vector<char*> argv;
  for (const auto& a : options.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  const auto start = Clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    result.error = std::string("fork: ") + std::strerror(errno);
    close(out_pipe[0]);
    close(out_pipe[1]);
    for (int fd : options.close_after_spawn) close(fd);
    return result;
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    setpgid(0, 0);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out_pipe[1], 1);
    dup2(out_pipe[1], 2);
    for (const auto& [from, to] : options.inherit) {
      if (from == to) {
        int flags = fcntl(from, F_GETFD);
        fcntl(from, F_SETFD, flags & ~FD_CLOEXEC);
      } else {
        dup2(from, to);
      }
    }
    execv(argv[0], argv.data());
    const char msg[] = "cudalab: cannot start the program\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(127);
  }
  setpgid(pid, pid);  // also here: whichever runs first
  close(out_pipe[1]);
  for (int fd : options.close_after_spawn) close(fd);

  int out_fd = out_pipe[0];
  int res_fd = options.result_fd;
  bool killed_for_time = false;
  bool killed_for_output = false;
  const auto deadline = start + options.timeout;
  char buf[65536];
  while (out_fd >= 0 || res_fd >= 0) {
    const auto now = Clock::now();
    if (now >= deadline) {
      killed_for_time = true;
      break;
    }
    const int wait_ms =
        static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count()) + 1;
    pollfd fds[2];
    int nfds = 0;
    if (out_fd >= 0) fds[nfds++] = {out_fd, POLLIN, 0};
    if (res_fd >= 0) fds[nfds++] = {res_fd, POLLIN, 0};
    int ready = poll(fds, static_cast<nfds_t>(nfds), wait_ms);
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < nfds; ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        if (fds[i].fd == out_fd)
          close_fd(out_fd);
        else
          res_fd = -1;
        continue;
      }
      if (fds[i].fd == out_fd) {
        result.output_bytes += static_cast<std::size_t>(n);
        if (result.output.size() < options.kept_output_bytes) {
          result.output.append(buf, std::min<std::size_t>(static_cast<std::size_t>(n),
                                                          options.kept_output_bytes - result.output.size()));
        }
        if (result.output_bytes > options.max_output_bytes) killed_for_output = true;
      } else {
        result.result.append(buf, static_cast<std::size_t>(n));
      }
    }
    if (killed_for_output) break;
  }
  if (killed_for_time || killed_for_output) kill(-pid, SIGKILL);
  close_fd(out_fd);

  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // Leave nothing of the child behind (it may have forked).
  kill(-pid, SIGKILL);
  result.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (killed_for_time) {
    result.status = ProcessResult::Status::timed_out;
  } else if (killed_for_output) {
    result.status = ProcessResult::Status::output_flood;
  } else if (WIFSIGNALED(status)) {
    result.status = ProcessResult::Status::signaled;
    result.signal = WTERMSIG(status);
  } else {
    result.status = ProcessResult::Status::exited;
    result.exit_code = WEXITSTATUS(status);
  }
  return result;
}

}  // namespace cudalab
