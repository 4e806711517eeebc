// The sandbox around the runner (cudalab/sandbox.hpp, harness/runner/sandbox.hpp), end to end:
// every hostile submission of tests/escapes/*.cu is stopped, the report names what was stopped,
// and the same process then checks the reference solution as usual. Each escape runs on every
// backend this build has (the GPU where one is visible); a protection that the kernel lacks skips
// the attacks that need it, saying why.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../support/toolchains.hpp"
#include "cudalab/exercise_check.hpp"
#include "cudalab/process.hpp"
#include "cudalab/protocol.hpp"
#include "cudalab/registry.hpp"
#include "cudalab/sandbox.hpp"
#include "cudalab/toolchain.hpp"

namespace cudalab {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const fs::path source_dir = CUDALAB_SOURCE_DIR;

/// One toolchain per backend for the whole run, or the reason it cannot run here.
const Toolchain* toolchain_for(Backend backend, std::string& why) {
  return testing_support::toolchain_of(backend, false, why);
}

#define REQUIRE_BACKEND(backend, var)                       \
  std::string why_##var;                                    \
  const Toolchain* var = toolchain_for(backend, why_##var); \
  if (var == nullptr) GTEST_SKIP() << backend_name(backend) << " backend unavailable: " << why_##var

/// Everything a report shows about a result.
std::string all_text(const ExerciseResult& r) {
  std::string text = r.compile.diagnostics;
  for (const auto& h : r.hints) text += "\n" + h;
  for (const auto& c : r.cases) {
    text += "\n" + c.message;
    for (const auto& d : c.details) text += "\n" + d;
    for (const auto& h : c.hints) text += "\n" + h;
  }
  return text;
}

CheckOptions escape_options() {
  CheckOptions o;
  o.seed = 20261123;
  o.timeout = 30s;
  o.only_sizes = {1000};
  o.max_output_bytes = 64 << 10;
  return o;
}

/// What an escape needs from the kernel, or why it cannot be checked here.
std::string missing_protection(const std::string& needs) {
  if (!sandbox_enabled()) return "CUDALAB_NO_SANDBOX is set";
  const SandboxSupport& s = sandbox_support();
  if (needs == "landlock" && s.landlock_abi == 0) return s.landlock_missing;
  if (needs == "seccomp" && !s.seccomp) return s.seccomp_missing;
  return {};
}

// ---- The test's own world, which the escapes aim at --------------------------------------------

/// Another student's submission, a stand-in gradebook, a TCP listener and a marker name, made once.
class World {
 public:
  static World& get() {
    static World world;
    return world;
  }
  [[nodiscard]] const fs::path& other_submission() const { return other_; }
  [[nodiscard]] const fs::path& gradebook() const { return gradebook_; }
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] const std::string& marker() const { return marker_; }

  /// Connections the listener took since the last call.
  int accepted() const {
    int n = 0;
    while (true) {
      const int c = accept(listener_, nullptr, nullptr);
      if (c < 0) break;
      close(c);
      ++n;
    }
    return n;
  }

  /// The placeholders of tests/escapes/README.md filled in.
  [[nodiscard]] std::string fill(std::string text) const {
    const std::pair<std::string, std::string> values[] = {{"@PROJECT@", project_.string()},
                                                          {"@OTHER_SUBMISSION@", other_.string()},
                                                          {"@GRADEBOOK@", gradebook_.string()},
                                                          {"@PORT@", std::to_string(port_)},
                                                          {"@MARKER@", marker_}};
    for (const auto& [key, value] : values) {
      for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) {
        text.replace(at, key.size(), value);
      }
    }
    return text;
  }

  World(const World&) = delete;
  World& operator=(const World&) = delete;

 private:
  World() {
    project_ = fs::canonical(source_dir);
    marker_ = fmt::format("cl-esc-{}", getpid());
    dir_ = fs::temp_directory_path() / fmt::format("cudalab-escapes-{}", getpid());
    fs::create_directories(dir_ / "alice");
    other_ = dir_ / "alice" / "kernel.cu";
    std::ofstream(other_) << "// alice's reduce, worth full marks\n";
    gradebook_ = dir_ / "gradebook.sqlite";
    std::ofstream(gradebook_) << "SQLite format 3 (stand-in): secret seed 1234\n";
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in at{};
    at.sin_family = AF_INET;
    at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof at;
    if (listener_ >= 0 && bind(listener_, reinterpret_cast<sockaddr*>(&at), sizeof at) == 0 &&
        listen(listener_, 16) == 0 && getsockname(listener_, reinterpret_cast<sockaddr*>(&at), &size) == 0) {
      port_ = ntohs(at.sin_port);
    }
    // What the runner must not see (reads_environment.cu): the project and a grader's secret.
    setenv("CUDALAB_ROOT", project_.c_str(), 1);
    setenv("CUDALAB_GRADER_SECRET", "do-not-leak", 1);
  }
  ~World() {
    if (listener_ >= 0) close(listener_);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  fs::path project_;
  fs::path dir_;
  fs::path other_;
  fs::path gradebook_;
  std::string marker_;
  int listener_ = -1;
  int port_ = 0;
};

/// Processes whose name is `name` (set with PR_SET_NAME), anywhere on the machine.
int processes_named(const std::string& name) {
  int n = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    std::ifstream comm(entry.path() / "comm");
    std::string line;
    if (std::getline(comm, line) && line == name.substr(0, 15)) ++n;
  }
  return n;
}

// ---- The corpus -----------------------------------------------------------------------------------

struct Escape {
  Backend backend;
  fs::path file;
  std::string verdict;
  std::vector<std::string> must_say;  // filled in
  std::vector<std::string> never_say;
  std::string needs;
};

void PrintTo(const Escape& e, std::ostream* os) { *os << backend_name(e.backend) << " " << e.file.filename().string(); }

std::vector<Escape> escapes() {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(source_dir / "tests" / "escapes", ec)) {
    if (entry.path().extension() == ".cu") files.push_back(entry.path());
  }
  std::ranges::sort(files);
  std::vector<Escape> out;
  for (Backend b : {Backend::sim, Backend::gpu}) {
    for (const auto& f : files) {
      Escape e{b, f, "", {}, {"ESCAPED"}, ""};
      std::ifstream in(f);
      std::string line;
      for (int i = 0; i < 12 && std::getline(in, line); ++i) {
        if (line.rfind("// expect: ", 0) == 0) {
          const std::string rest = line.substr(11);
          const auto bar = rest.find(" | ");
          if (bar == std::string::npos) continue;
          e.verdict = rest.substr(0, bar);
          e.must_say.push_back(rest.substr(bar + 3));
        } else if (line.rfind("// also: ", 0) == 0) {
          e.must_say.push_back(line.substr(9));
        } else if (line.rfind("// never: ", 0) == 0) {
          e.never_say.push_back(line.substr(10));
        } else if (line.rfind("// needs: ", 0) == 0) {
          e.needs = line.substr(10);
        }
      }
      out.push_back(e);
    }
  }
  return out;
}

std::string escape_name(const testing::TestParamInfo<Escape>& info) {
  std::string name = fmt::format("{}_{}", backend_name(info.param.backend), info.param.file.stem().string());
  for (char& c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
  }
  return name;
}

class Sandbox : public testing::TestWithParam<Escape> {};

TEST_P(Sandbox, AttackIsStoppedNamedAndTheNextCheckWorks) {
  const Escape& e = GetParam();
  ASSERT_FALSE(e.verdict.empty()) << e.file << ": a line `// expect: <verdict> | <text>` is missing";
  if (const std::string why = missing_protection(e.needs); !why.empty()) {
    GTEST_SKIP() << e.file.filename() << " needs " << e.needs << ": " << why;
  }
  REQUIRE_BACKEND(e.backend, toolchain);
  const World& world = World::get();
  // Written inside the project (the build tree), so that __FILE__ points into it.
  const fs::path written = fs::path(CUDALAB_BIN_DIR) / ".." / "escapes" / e.file.filename();
  fs::create_directories(written.parent_path());
  {
    std::ifstream in(e.file);
    std::stringstream text;
    text << in.rdbuf();
    std::ofstream(written) << world.fill(text.str());
  }
  const Task& task = *find_task("05_reduce");
  (void)world.accepted();  // whatever came before is not this attack's
  struct stat gradebook_before {};
  ASSERT_EQ(stat(world.gradebook().c_str(), &gradebook_before), 0);
  const auto r = check_exercise(task, *toolchain, written, escape_options());
  const std::string text = all_text(r);
  EXPECT_EQ(verdict_name(r.verdict), e.verdict) << text;
  for (const auto& must : e.must_say) {
    EXPECT_NE(text.find(world.fill(must)), std::string::npos)
        << "the report should say \"" << world.fill(must) << "\"; it says:\n"
        << text;
  }
  for (const auto& never : e.never_say) {
    EXPECT_EQ(text.find(world.fill(never)), std::string::npos)
        << "the report must not say \"" << never << "\"; it says:\n"
        << text;
  }
  // What no report can show: effects outside the runner.
  EXPECT_EQ(world.accepted(), 0) << "something connected to the listener";
  struct stat gradebook_after {};
  ASSERT_EQ(stat(world.gradebook().c_str(), &gradebook_after), 0);
  EXPECT_EQ(gradebook_after.st_mode, gradebook_before.st_mode) << "the gradebook's permissions changed";
  EXPECT_EQ(gradebook_after.st_uid, gradebook_before.st_uid) << "the gradebook's owner changed";
  EXPECT_EQ(gradebook_after.st_mtim.tv_sec, gradebook_before.st_mtim.tv_sec) << "the gradebook's times changed";
  EXPECT_FALSE(fs::exists("/tmp/" + world.marker() + ".txt"));
  EXPECT_FALSE(fs::exists(source_dir / ("escaped-" + world.marker() + ".txt")));
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(processes_named(world.marker()), 0) << "a process the submission started outlived the check";

  // The same process checks the next submission as usual.
  const fs::path solution = source_dir / "solutions" / "05_reduce" / "kernel.cu";
  if (fs::exists(solution)) {
    const auto good = check_exercise(task, *toolchain, solution, escape_options());
    EXPECT_EQ(good.verdict, Verdict::passed) << all_text(good);
  }
}

INSTANTIATE_TEST_SUITE_P(Escapes, Sandbox, testing::ValuesIn(escapes()), escape_name);

// ---- The box itself ----------------------------------------------------------------------------------

// The reference solutions, at one size each, make the sandbox block nothing: on a GPU this is the
// check that the driver and CUPTI find everything they read after the lockdown.
TEST(SandboxedSolutions, BlockNothing) {
  std::size_t checked = 0;
  for (Backend b : {Backend::sim, Backend::gpu}) {
    std::string why;
    const Toolchain* toolchain = toolchain_for(b, why);
    if (toolchain == nullptr) continue;  // the other backend, if any, is checked; none: skipped below
    for (const auto& t : all_tasks()) {
      const fs::path solution = source_dir / "solutions" / t->info().id / "kernel.cu";
      if (!fs::exists(solution)) continue;  // the students' export has none: skipped below
      ++checked;
      CheckOptions options = escape_options();
      const auto cases = select_cases(*t, b, CheckOptions{});
      options.only_sizes = {cases[cases.size() / 2].dims.front().value};
      const auto r = check_exercise(*t, *toolchain, solution, options);
      EXPECT_EQ(r.verdict, Verdict::passed) << backend_name(b) << " " << t->info().id << ": " << all_text(r);
      EXPECT_EQ(all_text(r).find("sandbox"), std::string::npos)
          << backend_name(b) << " " << t->info().id << ": " << all_text(r);
    }
  }
  if (checked == 0) GTEST_SKIP() << "no backend, or no reference solution (the students' export): nothing to run";
}

// A protection asked for that cannot be applied stops the runner before it loads anything: here
// the module to allow does not exist, so Landlock's rule for it cannot be made.
TEST(SandboxedRunner, RefusesToRunWhenALockCannotBeApplied) {
  if (const std::string why = missing_protection("landlock"); !why.empty()) GTEST_SKIP() << why;
  REQUIRE_BACKEND(Backend::sim, toolchain);
  const Task& task = *find_task("05_reduce");
  const Case c = select_cases(task, Backend::sim, escape_options()).front();
  const auto r = run_case(task, *toolchain, "/nonexistent/cudalab-module.so", c, 1, escape_options());
  EXPECT_EQ(r.verdict, Verdict::runner_error) << r.message;
  EXPECT_NE(r.message.find("cannot lock down: cannot open /nonexistent/cudalab-module.so for a Landlock rule"),
            std::string::npos)
      << r.message;
}

TEST(SandboxedRunner, NoSandboxSwitchTurnsEverythingOff) {
  REQUIRE_BACKEND(Backend::sim, toolchain);
  ASSERT_EQ(setenv("CUDALAB_NO_SANDBOX", "1", 1), 0);
  EXPECT_FALSE(sandbox_enabled());
  EXPECT_EQ(describe_sandbox(Backend::sim, 20s).rfind("sandbox: off", 0), 0u);
  RunnerSandbox box(SandboxOptions{Backend::sim, 20s, "/m.so", ""});
  EXPECT_FALSE(box.spec().enabled);
  EXPECT_TRUE(box.working_dir().empty());
  ProcessOptions opts;
  box.apply(opts);
  EXPECT_FALSE(opts.environment.has_value());
  unsetenv("CUDALAB_NO_SANDBOX");
  EXPECT_TRUE(sandbox_enabled());
}

TEST(SandboxedRunner, BoxPreparesLimitsEnvironmentAndAFolderItRemoves) {
  if (!sandbox_enabled()) GTEST_SKIP() << "CUDALAB_NO_SANDBOX is set";
  setenv("CUDALAB_ROOT", source_dir.c_str(), 1);
  fs::path folder;
  {
    RunnerSandbox box(SandboxOptions{Backend::gpu, 20s, source_dir / "some-module.so", "GPU-1234"});
    folder = box.working_dir();
    ASSERT_TRUE(fs::is_directory(folder));
    EXPECT_TRUE(fs::is_empty(folder));
    ProcessOptions opts;
    box.apply(opts);
    EXPECT_EQ(opts.working_dir, folder.string());
    ASSERT_TRUE(opts.environment.has_value());
    const auto& env = *opts.environment;
    const auto has = [&](const std::string& v) { return std::ranges::find(env, v) != env.end(); };
    EXPECT_TRUE(has("HOME=" + folder.string()));
    EXPECT_TRUE(has("TMPDIR=" + folder.string()));
    EXPECT_TRUE(has("CUDA_VISIBLE_DEVICES=GPU-1234"));
    EXPECT_TRUE(has("LANG=C.UTF-8"));
    EXPECT_FALSE(std::ranges::any_of(env, [](const std::string& v) { return v.starts_with("GLIBC_TUNABLES="); }))
        << "a GPU runner's host memory (timed copies) is left as the system has it";
    for (const auto& v : env) {
      EXPECT_TRUE(v.rfind("CUDALAB_", 0) != 0 || v.rfind("CUDALAB_SIM_THREADS=", 0) == 0) << v;
    }
    EXPECT_EQ(opts.limits.file_size_bytes, kSandboxFileSizeBytes);
    EXPECT_FALSE(opts.limits.address_space_bytes.has_value()) << "the GPU driver needs its ~14 GB of address space";
    EXPECT_TRUE(opts.limits.cpu_seconds.has_value());
    EXPECT_TRUE(opts.limits.processes.has_value());
    const protocol::Sandbox spec = box.spec();
    EXPECT_TRUE(spec.enabled);
    EXPECT_EQ(spec.work_dir, folder.string());
    EXPECT_EQ(spec.read_files, std::vector<std::string>{(fs::canonical(source_dir) / "some-module.so").string()});
    EXPECT_NE(std::ranges::find(spec.protected_dirs, fs::canonical(source_dir).string()), spec.protected_dirs.end());
    EXPECT_EQ(box.explain_signal(SIGXFSZ), "wrote a file larger than the 64 MiB the sandbox allows");
    EXPECT_FALSE(box.explain_signal(SIGSEGV).has_value());
    // A small leftover goes quietly; a large one is reported. Both go.
    std::ofstream(folder / "small.txt") << "x";
    EXPECT_FALSE(box.clean_up().has_value());
    EXPECT_FALSE(fs::exists(folder));
  }
  RunnerSandbox sim_box(SandboxOptions{Backend::sim, 20s, "/m.so", ""});
  ProcessOptions opts;
  unsetenv("GLIBC_TUNABLES");
  sim_box.apply(opts);
  EXPECT_TRUE(opts.limits.address_space_bytes.has_value());
  // The simulator's heap asks for huge pages (a third of a check's time was page faults), and a
  // user's own tunables are kept.
  const auto tunables = [&] {
    ProcessOptions o;
    sim_box.apply(o);
    const auto it =
        std::ranges::find_if(*o.environment, [](const std::string& v) { return v.starts_with("GLIBC_TUNABLES="); });
    return it == o.environment->end() ? std::string() : *it;
  };
  EXPECT_EQ(tunables(), "GLIBC_TUNABLES=glibc.malloc.hugetlb=1");
  setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=2", 1);
  EXPECT_EQ(tunables(), "GLIBC_TUNABLES=glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
  unsetenv("GLIBC_TUNABLES");
  std::ofstream(sim_box.working_dir() / "big.bin") << std::string(5 << 20, 'x');
  fs::create_directories(sim_box.working_dir() / "sub");
  std::ofstream(sim_box.working_dir() / "sub" / "small.txt") << "x";
  fs::permissions(sim_box.working_dir() / "sub", fs::perms::none);  // the submission's last trick
  const fs::path sim_folder = sim_box.working_dir();
  const auto note = sim_box.clean_up();
  ASSERT_TRUE(note.has_value());
  EXPECT_NE(note->find("left 5.0 MiB of files in its working folder"), std::string::npos) << *note;
  EXPECT_FALSE(fs::exists(sim_folder));
}

// A cudalab killed mid-run cannot remove its runner's folder; the next cudalab does, and leaves
// the folders of processes still alive alone.
TEST(SandboxedRunner, FoldersOfKilledRunsAreRemovedByTheNextRun) {
  if (!sandbox_enabled()) GTEST_SKIP() << "CUDALAB_NO_SANDBOX is set";
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  ASSERT_GT(gone, 0);
  ASSERT_EQ(waitpid(gone, nullptr, 0), gone);
  const fs::path temp = fs::temp_directory_path();
  const fs::path stale = temp / fmt::format("cudalab-box-{}-killed", gone);
  const fs::path live = temp / fmt::format("cudalab-box-{}-running", getpid());
  fs::create_directories(stale / "sub");
  std::ofstream(stale / "sub" / "left.bin") << "x";
  fs::create_directories(live);
  ProcessOptions opts;  // a fresh cudalab process: the sweep runs once per process
  opts.argv = {(fs::path(CUDALAB_BIN_DIR) / "cudalab").string(),
               "check",
               "05_reduce",
               "--backend",
               "sim",
               "--file",
               (source_dir / "exercises" / "05_reduce" / "kernel.cu").string(),
               "--size",
               "1"};
  opts.timeout = 120s;
  const ProcessResult r = run_process(opts);
  EXPECT_NE(r.output.find("not implemented"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
  fs::remove_all(live);
}

TEST(SandboxedRunner, DescriptionSaysWhatIsOn) {
  if (!sandbox_enabled()) GTEST_SKIP() << "CUDALAB_NO_SANDBOX is set";
  const std::string line = describe_sandbox(Backend::sim, 20s);
  const SandboxSupport& s = sandbox_support();
  EXPECT_EQ(line.rfind("sandbox: ", 0), 0u) << line;
  if (s.landlock_abi > 0) {
    EXPECT_NE(line.find(fmt::format("Landlock ABI {} (files", s.landlock_abi)), std::string::npos) << line;
  } else {
    EXPECT_NE(line.find("no Landlock"), std::string::npos) << line;
  }
  EXPECT_NE(line.find(s.seccomp ? "seccomp (no new processes" : "no seccomp"), std::string::npos) << line;
  EXPECT_NE(line.find("file 64 MiB"), std::string::npos) << line;
  EXPECT_NE(line.find("clean environment, private working folder"), std::string::npos) << line;
  EXPECT_EQ(describe_sandbox(Backend::gpu, 20s).find("address space"), std::string::npos);
}

TEST(SandboxProtocol, SpecRoundTripsAndBadPathsAreRefused) {
  protocol::Spec s;
  s.sets = {{{"x", 0, 16, protocol::BufferRole::input}}};
  s.args = {{}};
  s.total_bytes = 16;
  s.sandbox.enabled = true;
  s.sandbox.landlock = true;
  s.sandbox.seccomp = true;
  s.sandbox.read_files = {"/cache/m.so"};
  s.sandbox.work_dir = "/tmp/cudalab-box-1";
  s.sandbox.protected_dirs = {"/project"};
  const protocol::Spec back = protocol::parse_spec(protocol::dump_spec(s));
  EXPECT_TRUE(back.sandbox.enabled && back.sandbox.landlock && back.sandbox.seccomp);
  EXPECT_EQ(back.sandbox.read_files, s.sandbox.read_files);
  EXPECT_EQ(back.sandbox.work_dir, s.sandbox.work_dir);
  EXPECT_EQ(back.sandbox.protected_dirs, s.sandbox.protected_dirs);
  s.sandbox.work_dir = "relative/folder";
  EXPECT_THROW((void)protocol::parse_spec(protocol::dump_spec(s)), protocol::ProtocolError);
  s.sandbox.work_dir = "/tmp/x";
  s.sandbox.enabled = false;
  EXPECT_THROW((void)protocol::parse_spec(protocol::dump_spec(s)), protocol::ProtocolError);
}

TEST(SandboxProtocol, BlockedRecordsAreCappedInAReply) {
  protocol::Reply r;
  r.status = protocol::Status::ok;
  r.records.blocked = {"socket (a network connection)"};
  EXPECT_EQ(protocol::parse_reply(protocol::dump_reply(r)).records.blocked, r.records.blocked);
  r.records.blocked.assign(protocol::kMaxBlockedRecords + 1, "fork (a new process)");
  EXPECT_THROW((void)protocol::parse_reply(protocol::dump_reply(r)), protocol::ProtocolError);
  r.records.blocked = {std::string(protocol::kMaxBlockedBytes + 1, 'x')};
  EXPECT_THROW((void)protocol::parse_reply(protocol::dump_reply(r)), protocol::ProtocolError);
}

}  // namespace
}  // namespace cudalab

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
