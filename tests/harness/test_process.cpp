// The parent survives whatever the child does: each misbehaviour becomes a status.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "cudalab/process.hpp"

namespace cudalab {
namespace {

// A call that must come back (the child killed at its timeout, or not waited for) is only asked to
// come back at all: a kill that never happened leaves a child that sleeps or spins for ever, far
// past this bound, while a loaded 2-core machine delays a kill by a second or more (ms).
constexpr long kReturned = 30000;

using namespace std::chrono_literals;

std::string temp_path(const std::string& name) {
  return testing::TempDir() + "cudalab-process-" + std::to_string(getpid()) + "-" + name;
}

// A zombie still answers kill(pid, 0), and whoever inherits an orphan may be slow to reap it.
bool alive(pid_t pid) {
  if (kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto paren = text.rfind(')');
  if (paren == std::string::npos || paren + 2 >= text.size()) return false;  // gone meanwhile
  const char state = text[paren + 2];
  return state != 'Z' && state != 'X';
}

bool gone_within(pid_t pid, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (alive(pid)) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

// The pids a child mode wrote to `path` (it renames the file into place whole), or none in time.
std::vector<pid_t> wait_for_pids(const std::string& path, std::size_t count) {
  const auto until = std::chrono::steady_clock::now() + 3s;
  while (std::chrono::steady_clock::now() < until) {
    std::ifstream in(path);
    std::vector<pid_t> pids;
    for (pid_t p = 0; in >> p;) pids.push_back(p);
    if (pids.size() >= count) return pids;
    std::this_thread::sleep_for(10ms);
  }
  return {};
}

// Kills whatever a test left running, should it fail half-way.
struct Leftovers {
  std::vector<pid_t> pids;
  std::string file;
  ~Leftovers() {
    for (pid_t p : pids) {
      if (p > 0 && alive(p)) kill(p, SIGKILL);
    }
    if (!file.empty()) unlink(file.c_str());
  }
};

ProcessResult run_child(const std::string& mode, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  ProcessOptions opts;
  opts.argv = {CUDALAB_TEST_CHILD, mode};
  opts.timeout = timeout;
  opts.max_output_bytes = 256 << 10;
  return run_process(opts);
}

TEST(Process, CrashBecomesSignalStatus) {
  auto r = run_child("crash");
  EXPECT_EQ(r.status, ProcessResult::Status::signaled);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_NE(describe_signal(r.signal).find("SIGSEGV"), std::string::npos);
}

// The default check's plain run yields the CPU to its checked run: a child started with a niceness
// runs that much nicer than its parent (coreutils' `nice` prints its own niceness).
TEST(Process, AChildCanBeStartedNicer) {
  ProcessOptions opts;
  opts.argv = {"/usr/bin/nice"};
  opts.niceness = 5;
  const ProcessResult r = run_process(opts);
  ASSERT_TRUE(r.ok()) << r.error << r.output;
  errno = 0;
  const int parent = getpriority(PRIO_PROCESS, 0);
  ASSERT_EQ(errno, 0);
  EXPECT_EQ(std::stoi(r.output), std::min(parent + 5, 19));
  opts.niceness = 0;
  EXPECT_EQ(std::stoi(run_process(opts).output), parent);
}

TEST(Process, HangIsKilledAtTheTimeout) {
  auto r = run_child("hang", std::chrono::milliseconds(300));
  EXPECT_EQ(r.status, ProcessResult::Status::timed_out);
  EXPECT_GE(r.wall_ms, 290);
  EXPECT_LT(r.wall_ms, kReturned);
}

TEST(Process, FloodIsStoppedAndOnlyTheStartKept) {
  auto r = run_child("flood");
  EXPECT_EQ(r.status, ProcessResult::Status::output_flood);
  EXPECT_GT(r.output_bytes, 256u << 10);
  EXPECT_LE(r.output.size(), 16u << 10);
  EXPECT_EQ(r.output.rfind("spam", 0), 0u);
}

TEST(Process, ExitCodeAndResultPipeAreCollected) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  ProcessOptions opts;
  opts.argv = {CUDALAB_TEST_CHILD, "result", "{\"status\":\"ok\"}"};
  opts.inherit = {{fds[1], 4}};
  opts.result_fd = fds[0];
  opts.close_after_spawn = {fds[1]};
  auto r = run_process(opts);
  close(fds[0]);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.result, "{\"status\":\"ok\"}");
  EXPECT_FALSE(r.result_overflow);
  EXPECT_EQ(r.output, "hello from the child\n");
}

// The gate (ProcessOptions::gate_fd): the child waits there for the parent, whose time at the
// gate is not the child's. A runner waits there while the grader waits for its GPU.
struct Gate {
  int parent = -1;
  int child = -1;
  Gate() {
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) == 0) {
      parent = ends[0];
      child = ends[1];
    }
  }
  ~Gate() { close(parent); }
  ProcessOptions options(const std::string& mode, std::chrono::milliseconds timeout, std::function<char(int)> at_gate) {
    ProcessOptions opts;
    opts.argv = {CUDALAB_TEST_CHILD, mode};
    opts.timeout = timeout;
    opts.inherit = {{child, 6}};
    opts.close_after_spawn = {child};
    opts.gate_fd = parent;
    opts.at_gate = std::move(at_gate);
    return opts;
  }
};

TEST(Process, TheTimeAtTheGateIsNotCountedAgainstTheChild) {
  Gate gate;
  ASSERT_GE(gate.parent, 0);
  int calls = 0;
  const auto r = run_process(gate.options("gate", 300ms, [&](int) {
    ++calls;
    std::this_thread::sleep_for(600ms);  // twice the child's timeout
    return 'g';
  }));
  EXPECT_EQ(r.status, ProcessResult::Status::exited) << r.error;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "let on with g\n");
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(r.gate_opened);
  EXPECT_GE(r.gate_ms, 590);
  EXPECT_GE(r.wall_ms, r.gate_ms);
}

TEST(Process, AChildStillTimesOutAfterTheGate) {
  Gate gate;
  ASSERT_GE(gate.parent, 0);
  const auto r = run_process(gate.options("gate-then-hang", 300ms, [](int) {
    std::this_thread::sleep_for(400ms);
    return 'g';
  }));
  EXPECT_EQ(r.status, ProcessResult::Status::timed_out);
  EXPECT_TRUE(r.gate_opened);
  EXPECT_GE(r.wall_ms, 690);  // the 300 ms of its own, after the 400 at the gate
  EXPECT_LT(r.wall_ms, kReturned);
}

TEST(Process, AChildThatEndsBeforeTheGateNeverOpensIt) {
  Gate gate;
  ASSERT_GE(gate.parent, 0);
  bool called = false;
  const auto r = run_process(gate.options("exit3", 5s, [&](int) {
    called = true;
    return 'g';
  }));
  EXPECT_EQ(r.status, ProcessResult::Status::exited);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(called);
  EXPECT_FALSE(r.gate_opened);
  EXPECT_EQ(r.gate_ms, 0);
}

// Paired timing comes back to the gate after each round, with the round's figure, and is told
// whether to go on ('g') or finish ('f').
TEST(Process, AChildMayComeBackToTheGateAndReadsEachAnswer) {
  Gate gate;
  ASSERT_GE(gate.parent, 0);
  std::vector<int> sent;
  const auto r = run_process(gate.options("gate-rounds", 5s, [&](int fd) {
    int round = 0;  // the first visit sends nothing along
    if (!sent.empty() && read(fd, &round, sizeof round) != sizeof round) round = -1;
    sent.push_back(round);
    return sent.size() < 3 ? 'g' : 'f';
  }));
  EXPECT_EQ(r.status, ProcessResult::Status::exited) << r.error;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "ggf\n");
  EXPECT_EQ(sent, (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(r.gate_opened);
}

TEST(Process, NonZeroExitIsReported) {
  auto r = run_child("exit3");
  EXPECT_EQ(r.status, ProcessResult::Status::exited);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.ok());
}

TEST(Process, MissingProgramFailsCleanly) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  ProcessOptions opts;
  opts.argv = {"/nonexistent/program"};
  opts.inherit = {{fds[1], 4}};
  opts.close_after_spawn = {fds[1]};
  auto r = run_process(opts);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status, ProcessResult::Status::spawn_failed);
  EXPECT_EQ(r.error, "cannot execute /nonexistent/program: No such file or directory");
  EXPECT_EQ(r.output, "");
  // The handed-over write end is closed here and was never kept by a child: the read end is at EOF.
  pollfd p{fds[0], POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 1000), 1);
  EXPECT_NE(p.revents & POLLHUP, 0);
  close(fds[0]);
}

TEST(Process, NonExecutableFileIsReportedAsSuch) {
  const std::string path = temp_path("not-executable.sh");
  std::ofstream(path) << "#!/bin/sh\nexit 0\n";
  ASSERT_EQ(chmod(path.c_str(), 0644), 0);
  ProcessOptions opts;
  opts.argv = {path};
  auto r = run_process(opts);
  unlink(path.c_str());
  EXPECT_EQ(r.status, ProcessResult::Status::spawn_failed);
  EXPECT_EQ(r.error, "cannot execute " + path + ": Permission denied");
}

TEST(Process, ChildClosingItsPipesAndSpinningStillTimesOut) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  ProcessOptions opts;
  opts.argv = {CUDALAB_TEST_CHILD, "close-and-spin"};
  opts.inherit = {{fds[1], 4}};
  opts.result_fd = fds[0];
  opts.close_after_spawn = {fds[1]};
  opts.timeout = 300ms;
  auto r = run_process(opts);
  close(fds[0]);
  EXPECT_EQ(r.status, ProcessResult::Status::timed_out);
  EXPECT_GE(r.wall_ms, 290);
  EXPECT_LT(r.wall_ms, kReturned);
}

TEST(Process, GrandchildIsKilledWhenTheChildExits) {
  Leftovers left;
  left.file = temp_path("grandchild.pid");
  ProcessOptions opts;
  opts.argv = {CUDALAB_TEST_CHILD, "grandchild", left.file};
  opts.timeout = 4s;
  auto r = run_process(opts);
  // The grandchild holds the output pipe open: no waiting for that pipe's EOF.
  EXPECT_TRUE(r.ok());
  EXPECT_LT(r.wall_ms, kReturned);
  const auto pids = wait_for_pids(left.file, 1);
  ASSERT_EQ(pids.size(), 1u);
  left.pids = pids;
  EXPECT_TRUE(gone_within(pids[0], 2s));
}

TEST(Process, ResultBeyondTheCapKillsTheChild) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  ProcessOptions opts;
  opts.argv = {CUDALAB_TEST_CHILD, "result-flood"};
  opts.inherit = {{fds[1], 4}};
  opts.result_fd = fds[0];
  opts.close_after_spawn = {fds[1]};
  opts.timeout = 4s;
  auto r = run_process(opts);
  close(fds[0]);
  EXPECT_TRUE(r.result_overflow);
  EXPECT_EQ(r.result.size(), std::size_t{1} << 20);
  EXPECT_EQ(r.result.find_first_not_of('r'), std::string::npos);
  // It could not have written all of its 2 MiB: it was killed, and that is what is reported.
  EXPECT_EQ(r.status, ProcessResult::Status::signaled);
  EXPECT_EQ(r.signal, SIGKILL);
}

TEST(Process, OutputLeftInThePipeAtExitIsCollected) {
  // All it wrote before exiting is collected, even through a pipe enlarged past one read's worth.
  ProcessOptions opts;
  opts.argv = {CUDALAB_TEST_CHILD, "pipe-burst"};
  opts.timeout = 4s;
  opts.max_output_bytes = 1 << 20;
  opts.kept_output_bytes = 1 << 20;
  auto r = run_process(opts);
  EXPECT_TRUE(r.ok()) << r.output.substr(0, 200);
  EXPECT_EQ(r.output_bytes, std::size_t{512} << 10);
  EXPECT_EQ(r.output, std::string(std::size_t{512} << 10, 'o'));
}

TEST(Process, InheritedFdsLandWhereAskedWhateverTheirNumbers) {
  // The result pipe's write end sits at a number that another fd is to take in the child: placing
  // that one first must not overwrite it.
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  const int high = fcntl(fds[1], F_DUPFD_CLOEXEC, 40);
  ASSERT_GE(high, 40);
  const int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(devnull, 0);
  ProcessOptions opts;
  opts.argv = {CUDALAB_TEST_CHILD, "result", "arrived"};
  opts.inherit = {{devnull, high}, {high, 4}};
  opts.result_fd = fds[0];
  opts.close_after_spawn = {fds[1], high};
  auto r = run_process(opts);
  close(fds[0]);
  close(devnull);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.result, "arrived");
}

/// A private folder for one test, removed with everything in it.
struct TempDir {
  std::string path;
  TempDir() {
    std::string pattern = temp_path("dir-XXXXXX");
    path = mkdtemp(pattern.data()) != nullptr ? pattern : "";
  }
  ~TempDir() {
    if (!path.empty()) std::filesystem::remove_all(path);
  }
};

std::map<std::string, std::pair<long long, long long>> parse_limits(const std::string& output) {
  std::map<std::string, std::pair<long long, long long>> limits;
  std::istringstream in(output);
  std::string name;
  long long soft = 0;
  long long hard = 0;
  while (in >> name >> soft >> hard) limits[name] = {soft, hard};
  return limits;
}

TEST(Process, ResourceLimitsApplyToTheChildOnly) {
  ProcessOptions opts;
  opts.argv = {CUDALAB_TEST_CHILD, "limits"};
  opts.limits.cpu_seconds = 7;
  opts.limits.file_size_bytes = 1 << 20;
  opts.limits.open_files = 64;
  opts.limits.address_space_bytes = std::uint64_t{8} << 30;
  opts.limits.data_bytes = std::uint64_t{4} << 30;
  auto r = run_process(opts);
  ASSERT_TRUE(r.ok()) << r.error << r.output;
  auto limits = parse_limits(r.output);
  EXPECT_EQ(limits["cpu"], std::make_pair(7LL, 8LL)) << "SIGXCPU first, SIGKILL a second later";
  EXPECT_EQ(limits["fsize"].first, 1 << 20);
  EXPECT_EQ(limits["nofile"].first, 64);
  EXPECT_EQ(limits["as"].first, 8LL << 30);
  EXPECT_EQ(limits["data"].first, 4LL << 30);
  rlimit own{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &own), 0);
  EXPECT_EQ(own.rlim_cur, RLIM_INFINITY) << "the parent keeps its own limits";
  // Unset limits stay as inherited.
  opts.limits = {};
  limits = parse_limits(run_process(opts).output);
  EXPECT_EQ(limits["fsize"].first, -1);
}

TEST(Process, FileSizeLimitEndsTheChildWithSigxfsz) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  ProcessOptions opts;
  opts.argv = {CUDALAB_TEST_CHILD, "big-file"};
  opts.working_dir = dir.path;
  opts.limits.file_size_bytes = 1 << 20;
  auto r = run_process(opts);
  EXPECT_EQ(r.status, ProcessResult::Status::signaled) << r.exit_code;
  EXPECT_EQ(r.signal, SIGXFSZ);
  EXPECT_EQ(std::filesystem::file_size(dir.path + "/big.bin"), std::uintmax_t{1} << 20);
}

TEST(Process, CpuLimitEndsTheChildWithSigxcpu) {
  ProcessOptions opts;
  opts.argv = {CUDALAB_TEST_CHILD, "close-and-spin"};
  opts.limits.cpu_seconds = 1;
  opts.timeout = 10s;
  auto r = run_process(opts);
  EXPECT_EQ(r.status, ProcessResult::Status::signaled);
  EXPECT_EQ(r.signal, SIGXCPU);
  EXPECT_LT(r.wall_ms, kReturned);
}

TEST(Process, EnvironmentIsReplacedWhenGiven) {
  ASSERT_EQ(setenv("CUDALAB_PROCESS_TEST_SECRET", "leaked", 1), 0);
  ProcessOptions opts;
  opts.argv = {CUDALAB_TEST_CHILD, "env"};
  opts.environment = std::vector<std::string>{"ONLY=this", "AND=that"};
  auto replaced = run_process(opts);
  opts.environment.reset();
  auto inherited = run_process(opts);
  unsetenv("CUDALAB_PROCESS_TEST_SECRET");
  ASSERT_TRUE(replaced.ok()) << replaced.error;
  EXPECT_EQ(replaced.output, "ONLY=this\nAND=that\n");
  EXPECT_NE(inherited.output.find("CUDALAB_PROCESS_TEST_SECRET=leaked"), std::string::npos);
  // An empty environment is an environment too.
  opts.environment = std::vector<std::string>{};
  EXPECT_EQ(run_process(opts).output, "");
}

TEST(Process, WorkingDirectoryIsTheChildsOwn) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  ProcessOptions opts;
  opts.argv = {CUDALAB_TEST_CHILD, "cwd"};
  opts.working_dir = dir.path;
  auto r = run_process(opts);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.output, std::filesystem::canonical(dir.path).string() + "\n");
  opts.working_dir = dir.path + "/missing";
  r = run_process(opts);
  EXPECT_EQ(r.status, ProcessResult::Status::spawn_failed);
  EXPECT_EQ(r.error, "cannot enter the working directory " + opts.working_dir +
                         " for " CUDALAB_TEST_CHILD ": No such file or directory");
}

TEST(Process, ParentFdsDoNotReachTheChild) {
  // Opened without O_CLOEXEC, as a library or a careless caller might: still closed at exec.
  const std::string path = temp_path("gradebook");
  std::ofstream(path) << "secret";
  const int leaked = open(path.c_str(), O_RDONLY);
  ASSERT_GE(leaked, 0);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);  // no O_CLOEXEC either
  ProcessOptions opts;
  opts.argv = {CUDALAB_TEST_CHILD, "fds"};
  opts.inherit = {{fds[1], 4}};
  auto r = run_process(opts);
  close(leaked);
  close(fds[0]);
  close(fds[1]);
  unlink(path.c_str());
  ASSERT_TRUE(r.ok()) << r.error;
  std::vector<int> seen;
  std::istringstream in(r.output);
  for (int fd = 0; in >> fd;) seen.push_back(fd);
  std::ranges::sort(seen);
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 4}))
      << "only stdio and the inherited fd; the parent had " << leaked << " and " << fds[0] << " open";
}

void ignore_signal(int) {}

TEST(Process, SignalsToTheParentDoNotDisturbTheWait) {
  // A handler without SA_RESTART and a 1 ms timer: poll, read and waitpid get EINTR all along.
  struct sigaction action {};
  struct sigaction old_action {};
  action.sa_handler = ignore_signal;
  sigemptyset(&action.sa_mask);
  ASSERT_EQ(sigaction(SIGALRM, &action, &old_action), 0);
  itimerval every_ms{{0, 1000}, {0, 1000}};
  ASSERT_EQ(setitimer(ITIMER_REAL, &every_ms, nullptr), 0);
  auto napped = run_child("nap");
  auto hung = run_child("hang", 200ms);
  itimerval off{};
  setitimer(ITIMER_REAL, &off, nullptr);
  sigaction(SIGALRM, &old_action, nullptr);
  EXPECT_TRUE(napped.ok());
  EXPECT_EQ(napped.output, "rested\n");
  EXPECT_EQ(hung.status, ProcessResult::Status::timed_out);
  EXPECT_LT(hung.wall_ms, kReturned);
}

// A process of its own that runs `argv` through run_process, to be killed in the middle.
pid_t start_intermediate(const std::vector<std::string>& argv) {
  const pid_t pid = fork();
  if (pid == 0) {
    ProcessOptions opts;
    opts.argv = argv;
    opts.timeout = 4s;  // the fallback if the test goes wrong: well past its checks
    run_process(opts);
    _exit(0);
  }
  return pid;
}

TEST(Process, ChildDiesWhenTheParentIsKilled) {
  Leftovers left;
  left.file = temp_path("spin.pid");
  const pid_t intermediate = start_intermediate({CUDALAB_TEST_CHILD, "spin", left.file});
  ASSERT_GT(intermediate, 0);
  left.pids = {intermediate};
  const auto pids = wait_for_pids(left.file, 1);
  ASSERT_EQ(pids.size(), 1u);
  left.pids.push_back(pids[0]);
  ASSERT_TRUE(alive(pids[0]));
  // SIGKILL: no handler runs in the parent; PR_SET_PDEATHSIG is what stops the child.
  ASSERT_EQ(kill(intermediate, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(intermediate, &status, 0), intermediate);
  EXPECT_TRUE(gone_within(pids[0], 2s));
}

TEST(Process, TerminatingTheParentKillsTheChildsWholeGroup) {
  Leftovers left;
  left.file = temp_path("family.pid");
  const pid_t intermediate = start_intermediate({CUDALAB_TEST_CHILD, "spin-family", left.file});
  ASSERT_GT(intermediate, 0);
  left.pids = {intermediate};
  const auto pids = wait_for_pids(left.file, 2);
  ASSERT_EQ(pids.size(), 2u);
  left.pids.insert(left.pids.end(), pids.begin(), pids.end());
  ASSERT_TRUE(alive(pids[1]));
  // The grandchild has no parent-death signal: only the parent's SIGTERM handler can kill it.
  ASSERT_EQ(kill(intermediate, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(waitpid(intermediate, &status, 0), intermediate);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "the handler re-raises SIGTERM";
  EXPECT_TRUE(gone_within(pids[0], 2s));
  EXPECT_TRUE(gone_within(pids[1], 2s));
}

}  // namespace
}  // namespace cudalab
