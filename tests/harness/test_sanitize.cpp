// The checked run end to end (on the simulator, the default `cudalab check`: the plain build on
// every size and the checked build on the small ones; on a GPU, `check --sanitize` under
// compute-sanitizer): every reference solution and speed-ladder step has no finding,
// and every known-wrong kernel that carries a `// finding:` line (tests/sanitize/, tests/wrong/)
// gets that verdict, points at that line of its file and names the fix:
//   // finding: <verdict> | <line> | <text the report must contain>
//   // finding: none                      (a correct kernel: passes, no finding)
//   // finding on gpu: ...                (what compute-sanitizer gives, where it differs:
//                                            `<verdict> | - | <text>`: that verdict from the output, no finding;
//                                            `none (why)`: the tools see nothing; `skip: why`: not determined)
// The simulator checks every access itself and runs everywhere (CI); the GPU runs under
// compute-sanitizer where a GPU is visible, and skips with the reason where not.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../support/toolchains.hpp"
#include "cudalab/exercise_check.hpp"
#include "cudalab/findings.hpp"
#include "cudalab/ladder.hpp"
#include "cudalab/registry.hpp"
#include "cudalab/toolchain.hpp"

namespace cudalab {
namespace {

namespace fs = std::filesystem;

const fs::path source_dir = CUDALAB_SOURCE_DIR;

using testing_support::toolchain_of;

/// The checked toolchain of `backend` (`--sanitize`: the simulator's checked build; a GPU's plain one).
const Toolchain* checked_toolchain(Backend backend, std::string& why) { return toolchain_of(backend, true, why); }

/// What `cudalab check` runs with no flags: the plain build on every case and, beside it, the
/// simulator's checked build on the small ones. On the simulator the corpus is held to it; on a
/// GPU to `--sanitize` (compute-sanitizer's own findings, which the `finding on gpu:` lines name).
ExerciseResult default_check(Backend backend, const Task& task, const fs::path& file, CheckOptions options,
                             std::string& why) {
  const Toolchain* plain = toolchain_of(backend, backend == Backend::gpu, why);
  if (plain == nullptr) return {};
  if (backend == Backend::sim) {
    options.sanitize = false;
    options.checked_toolchain = toolchain_of(Backend::sim, true, why);
    if (options.checked_toolchain == nullptr) return {};
  }
  return check_exercise(task, *plain, file, options);
}

#define REQUIRE_CHECKED_BACKEND(backend, var)                   \
  std::string why_##var;                                        \
  const Toolchain* var = checked_toolchain(backend, why_##var); \
  if (var == nullptr) GTEST_SKIP() << backend_name(backend) << " backend unavailable: " << why_##var

CheckOptions sanitize_options() {
  CheckOptions o;
  o.seed = 20261125;
  o.timeout = std::chrono::seconds(120);
  o.sanitize = true;
  return o;
}

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

std::size_t finding_count(const ExerciseResult& r) {
  std::size_t n = 0;
  for (const auto& c : r.cases) n += c.findings.size();
  return n;
}

std::string safe_name(std::string name) {
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

// ---- no finding where there is no bug ----

struct CleanKernel {
  Backend backend;
  std::string exercise;
  fs::path file;
};

void PrintTo(const CleanKernel& k, std::ostream* os) {
  *os << backend_name(k.backend) << " " << k.exercise << "/" << k.file.filename().string();
}

// On the simulator the default check of every reference and ladder step is the checked run, and
// test_exercises.cpp holds each to no finding (Exercise.ReferenceSolutionPassesEveryCheck,
// Ladder.StepComputesTheRightAnswerEverywhere); here, compute-sanitizer's on a GPU.
std::vector<CleanKernel> clean_kernels() {
  std::vector<CleanKernel> out;
  for (Backend b : {Backend::gpu}) {
    for (const auto& t : all_tasks()) {
      out.push_back({b, t->info().id, source_dir / "solutions" / t->info().id / "kernel.cu"});
      for (const auto& step : ladder_steps(*t, source_dir / "solutions")) {
        if (step.file.filename().string().starts_with("step")) out.push_back({b, t->info().id, step.file});
      }
    }
  }
  return out;
}

class SanitizeClean : public testing::TestWithParam<CleanKernel> {};

TEST_P(SanitizeClean, HasNoFinding) {
  const auto& k = GetParam();
  if (!fs::exists(k.file)) GTEST_SKIP() << k.file << " is not in this distribution (cudalab export leaves it out)";
  std::string why;
  const auto r = default_check(k.backend, *find_task(k.exercise), k.file, sanitize_options(), why);
  if (r.task == nullptr) GTEST_SKIP() << backend_name(k.backend) << " backend unavailable: " << why;
  ASSERT_TRUE(r.compile.ok) << r.compile.diagnostics;
  EXPECT_TRUE(r.full_check || k.backend == Backend::gpu) << r.checked_note;
  EXPECT_EQ(finding_count(r), 0u) << all_text(r);
  for (const auto& c : r.cases) {
    // A ladder step may break an exercise rule on purpose (the naive matmul uses no shared memory).
    const bool right = c.verdict == Verdict::passed ||
                       (c.verdict == Verdict::requirement_unmet && c.message.rfind("right output", 0) == 0);
    EXPECT_TRUE(right) << c.c.label() << ": " << c.message << "\n" << all_text(r);
  }
  EXPECT_GE(r.cases.size(), 10u);
}

INSTANTIATE_TEST_SUITE_P(Solutions, SanitizeClean, testing::ValuesIn(clean_kernels()),
                         [](const testing::TestParamInfo<CleanKernel>& info) {
                           return safe_name(fmt::format("{}_{}_{}", backend_name(info.param.backend),
                                                        info.param.exercise, info.param.file.stem().string()));
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SanitizeClean);

// ---- the corpus ----

struct BuggyKernel {
  Backend backend;
  std::string exercise;
  fs::path file;
  std::string verdict;   ///< "none": no finding, every check passes; "skip": not determined here
  int line = 0;          ///< 0: no finding expected (the verdict comes from the output)
  std::string must_say;  ///< for "skip" and "none": why
};

void PrintTo(const BuggyKernel& k, std::ostream* os) {
  *os << backend_name(k.backend) << " " << k.exercise << "/" << k.file.filename().string();
}

/// "<verdict> | <line> | <text>" or "none".
bool parse_finding(const std::string& text, BuggyKernel& k) {
  if (text.rfind("none", 0) == 0 || text.rfind("skip:", 0) == 0) {
    k.verdict = text.substr(0, 4);
    k.must_say = text;
    return true;
  }
  const auto bar1 = text.find(" | ");
  const auto bar2 = bar1 == std::string::npos ? bar1 : text.find(" | ", bar1 + 3);
  if (bar2 == std::string::npos) return false;
  k.verdict = text.substr(0, bar1);
  const std::string line = text.substr(bar1 + 3, bar2 - bar1 - 3);
  k.line = line == "-" ? 0 : std::atoi(line.c_str());
  k.must_say = text.substr(bar2 + 3);
  return k.line > 0 || line == "-";
}

std::vector<BuggyKernel> buggy_kernels() {
  std::vector<fs::path> files;
  for (const char* folder : {"sanitize", "wrong"}) {
    std::error_code ec;
    for (const auto& entry : fs::recursive_directory_iterator(source_dir / "tests" / folder, ec)) {
      if (entry.path().extension() == ".cu") files.push_back(entry.path());
    }
  }
  std::ranges::sort(files);
  std::vector<BuggyKernel> out;
  for (Backend b : {Backend::sim, Backend::gpu}) {
    for (const auto& f : files) {
      std::ifstream in(f);
      std::string line;
      const std::string own = std::string("// finding on ") + backend_name(b) + ": ";
      BuggyKernel k{b, f.parent_path().filename().string(), f, "", 0, ""};
      bool have = false;
      for (int i = 0; i < 8 && std::getline(in, line); ++i) {
        if (line.rfind(own, 0) == 0) {
          have = parse_finding(line.substr(own.size()), k);
        } else if (line.rfind("// finding: ", 0) == 0 && !have) {
          have = parse_finding(line.substr(12), k);
        }
      }
      if (have) out.push_back(k);
    }
  }
  return out;
}

class SanitizeCorpus : public testing::TestWithParam<BuggyKernel> {};

TEST_P(SanitizeCorpus, FindsTheBugAndNamesItsLineAndFix) {
  const auto& k = GetParam();
  if (k.verdict == "skip") GTEST_SKIP() << k.file.filename() << " on " << backend_name(k.backend) << ": " << k.must_say;
  std::string why;
  const auto r = default_check(k.backend, *find_task(k.exercise), k.file, sanitize_options(), why);
  if (r.task == nullptr) GTEST_SKIP() << backend_name(k.backend) << " backend unavailable: " << why;
  ASSERT_TRUE(r.compile.ok) << r.compile.diagnostics;
  if (k.verdict == "none") {
    EXPECT_EQ(r.verdict, Verdict::passed) << all_text(r);
    EXPECT_EQ(finding_count(r), 0u) << all_text(r);
    return;
  }
  ASSERT_EQ(verdict_name(r.verdict), k.verdict) << all_text(r);
  const CaseResult* first = r.first_failure();
  ASSERT_NE(first, nullptr);
  std::string said = first->message;
  for (const auto& h : first->hints) said += "\n" + h;
  if (k.line == 0) {
    // What compute-sanitizer does not see: the output's own verdict and hint, and no finding.
    EXPECT_EQ(finding_count(r), 0u) << all_text(r);
    EXPECT_NE(all_text(r).find(k.must_say), std::string::npos) << "the report should say \"" << k.must_say << "\":\n"
                                                               << all_text(r);
    return;
  }
  EXPECT_FALSE(first->findings.empty()) << "the verdict must come from a finding:\n" << all_text(r);
  const std::string at = fmt::format("{}:{}", k.file.filename().string(), k.line);
  // The simulator leads with the line; compute-sanitizer's reports come in its own order, so on a
  // GPU the line must be among the case's findings.
  std::string shown = first->message;
  if (k.backend == Backend::gpu) {
    for (const auto& d : first->details) shown += "\n" + d;
  }
  EXPECT_NE(shown.find(at), std::string::npos) << "the report should lead with " << at << ":\n" << all_text(r);
  EXPECT_NE(said.find(k.must_say), std::string::npos) << "the report should say \"" << k.must_say << "\":\n"
                                                      << all_text(r);
}

INSTANTIATE_TEST_SUITE_P(Corpus, SanitizeCorpus, testing::ValuesIn(buggy_kernels()),
                         [](const testing::TestParamInfo<BuggyKernel>& info) {
                           return safe_name(fmt::format("{}_{}_{}", backend_name(info.param.backend),
                                                        info.param.exercise, info.param.file.stem().string()));
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SanitizeCorpus);

// A race that no pair of checked accesses shows (atomics never race with atomics, yet which one
// lands last is a race) still changes the answer when the threads start in another order.
TEST(SanitizeOrder, AResultThatDependsOnTheThreadOrderIsARace) {
  REQUIRE_CHECKED_BACKEND(Backend::sim, toolchain);
  const fs::path file = fs::path(CUDALAB_BIN_DIR) / ".." / "order_dependent.cu";
  {
    std::ofstream out(file);
    out << R"(#include <cuda_runtime.h>
// The last thread computes the sum, the others 0, and each exchanges its value into *sum: right
// only where the last thread happens to exchange last.
__global__ void last_one_wins(const float* x, float* sum, int n) {
  float s = 0.0f;
  if (threadIdx.x == blockDim.x - 1) {
    for (int k = 0; k < n; ++k) s += x[k];
  }
  atomicExch(sum, s);
}
void solve(const float* x, float* sum, int n) { last_one_wins<<<1, 32>>>(x, sum, n); }
)";
  }
  const auto r = check_exercise(*find_task("05_reduce"), *toolchain, file, sanitize_options());
  ASSERT_TRUE(r.compile.ok) << r.compile.diagnostics;
  ASSERT_EQ(r.verdict, Verdict::data_race) << all_text(r);
  const CaseResult* first = r.first_failure();
  ASSERT_EQ(first->findings.size(), 1u) << all_text(r);
  EXPECT_EQ(first->findings.front().kind, protocol::FindingKind::order);
  EXPECT_NE(first->message.find("wrong with them started in reverse order"), std::string::npos) << all_text(r);
  // Without --sanitize the threads start in order, and the answer is right.
  CheckOptions plain = sanitize_options();
  plain.sanitize = false;
  EXPECT_EQ(check_exercise(*find_task("05_reduce"), *toolchain, file, plain).verdict, Verdict::passed);
}

// A tool's report around the runner is read whole: compute-sanitizer prints its findings for every
// case of a process, which passes the 16 KiB kept of a runner's own output when cases are many.
// A stand-in tool prints 40 KiB and a last line, then runs the runner as compute-sanitizer does.
TEST(SanitizeTool, TheToolsReportIsKeptWhole) {
  std::string why;
  const Toolchain* toolchain = toolchain_of(Backend::sim, false, why);
  if (toolchain == nullptr) GTEST_SKIP() << "sim backend unavailable: " << why;
  const fs::path solution = source_dir / "solutions" / "01_increment" / "kernel.cu";
  if (!fs::exists(solution)) GTEST_SKIP() << solution << " is not in this distribution (cudalab export leaves it out)";
  CheckOptions options = sanitize_options();
  options.sanitize = false;
  std::string report;
  options.runner_output = &report;
  options.runner_prefix = {"/bin/sh", "-c",
                           "i=0; while [ $i -lt 640 ]; do printf '%063d\\n' $i >&2; i=$((i+1)); done; "
                           "echo 'the stand-in tool: last line' >&2; exec \"$@\"",
                           "stand-in-tool"};
  const auto r = check_exercise(*find_task("01_increment"), *toolchain, solution, options);
  EXPECT_EQ(r.verdict, Verdict::passed) << all_text(r);
  EXPECT_GT(report.size(), std::size_t{40} << 10);
  EXPECT_NE(report.find("the stand-in tool: last line"), std::string::npos)
      << report.substr(report.size() > 500 ? report.size() - 500 : 0);
}

// compute-sanitizer's reports, as its four tools print them (the formats of CUDA 12 and 13; the
// GPU corpus above runs the real thing where a GPU is visible).
TEST(ComputeSanitizerReport, EachToolsReportBecomesAFindingOfItsCase) {
  const std::string output = R"(cudalab-case 0
========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at increment_by_one(int *, int)+0x70 in /work/x/past_own_allocation.cu:9
=========     by thread (232,0,0) in block (3,0,0)
=========     Address 0x7f1c2e000fa0 is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7f1c2e000000 of size 4000 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========
cudalab-case 2
========= Error: Race reported between Write access at
=========     matmul_tiled(const float *, const float *, float *, int, int, int)+0xb0 in missing_first_sync.cu:15
=========     and Read access at
=========     matmul_tiled(const float *, const float *, float *, int, int, int)+0xc0 in missing_first_sync.cu:18
=========     [1024 hazards]
=========
========= Barrier error detected. Divergent thread(s) in block
=========     at 0x130 in returns_before_barrier.cu:14:sum_of_squares(const float*, float*, int)
=========     by thread (37,0,0) in block (0,0,0)
=========
========= Uninitialized __global__ memory read of size 4 bytes
=========     at increment_by_one(int *, int)+0x50 in never_copied_in.cu:8
=========     by thread (5,0,0) in block (0,0,0)
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
========= ERROR SUMMARY: 1 error
)";
  std::map<std::uint64_t, SourcePlace> places;
  const auto found = parse_compute_sanitizer(output, places);
  ASSERT_EQ(found.size(), 4u);
  const auto& [case0, oob] = found[0];
  EXPECT_EQ(case0, 0u);
  EXPECT_EQ(oob.kind, protocol::FindingKind::out_of_bounds);
  EXPECT_EQ(oob.kernel, "increment_by_one");
  EXPECT_TRUE(oob.access.write);
  EXPECT_EQ(oob.access.thread, (std::array<unsigned, 3>{232, 0, 0}));
  EXPECT_EQ(oob.access.block, (std::array<unsigned, 3>{3, 0, 0}));
  EXPECT_EQ(places.at(oob.access.pc).line, 9);
  EXPECT_EQ(oob.where, "right past the end of a 4000-byte allocation");

  const auto& [case2, race] = found[1];
  EXPECT_EQ(case2, 2u);
  EXPECT_EQ(race.kind, protocol::FindingKind::race);
  EXPECT_EQ(race.kernel, "matmul_tiled");
  ASSERT_TRUE(race.other.has_value());
  // The write (line 15) comes before the read (line 18) in the source: the read came too early.
  EXPECT_TRUE(race.write_first);
  EXPECT_FALSE(race.access.write);
  EXPECT_EQ(places.at(race.access.pc).line, 18);
  EXPECT_EQ(places.at(race.other->pc).line, 15);

  EXPECT_EQ(found[2].second.kind, protocol::FindingKind::barrier);
  EXPECT_EQ(found[2].second.kernel, "sum_of_squares");
  EXPECT_EQ(places.at(found[2].second.access.pc).line, 14);
  EXPECT_EQ(found[3].second.kind, protocol::FindingKind::uninitialized);
  EXPECT_FALSE(found[3].second.access.write);
  EXPECT_EQ(places.at(found[3].second.access.pc).file, "never_copied_in.cu");

  // Read into a case's report, the race leads with the read's line and the fix for it.
  CaseResult r;
  r.c.dims = {{"M", 1}, {"N", 1}, {"K", 1}};
  judge_findings({race}, "/nonexistent.so", r, &places);
  EXPECT_EQ(r.verdict, Verdict::data_race);
  EXPECT_NE(r.message.find("missing_first_sync.cu:18"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("at missing_first_sync.cu:15"), std::string::npos) << r.message;
  ASSERT_FALSE(r.hints.empty());
  EXPECT_NE(r.hints.front().find("between writing shared memory and reading"), std::string::npos) << r.hints.front();
}

// racecheck does not say which access of a pair was meant to come first: the source does. A
// barrier between the write and the read (a comment naming one does not count) means they race
// across loop iterations, and the write came too early.
TEST(ComputeSanitizerReport, RacecheckPairsAreOrderedByTheSource) {
  const fs::path source = fs::path(CUDALAB_BIN_DIR) / ".." / "race_order.cu";
  {
    std::ofstream out(source);
    for (int line = 1; line <= 30; ++line) {
      if (line == 17) {
        out << "    // no __syncthreads() here\n";
      } else if (line == 25) {
        out << "    __syncthreads();\n";
      } else {
        out << "\n";
      }
    }
  }
  const auto race = [&](int write_line, int read_line) {
    const std::string report = fmt::format(
        "cudalab-case 0\n========= Error: Race reported between Write access at\n=========     k(float *)+0xb0 in "
        "race_order.cu:{}\n=========     and Read access at\n=========     k(float *)+0xc0 in race_order.cu:{}\n",
        write_line, read_line);
    std::map<std::uint64_t, SourcePlace> places;
    const auto found = parse_compute_sanitizer(report, places, source);
    EXPECT_EQ(found.size(), 1u);
    return found.empty() ? protocol::Finding{} : found.front().second;
  };
  // Write on 15, read on 18, only a comment between: the read came too early.
  EXPECT_TRUE(race(15, 18).write_first);
  EXPECT_FALSE(race(15, 18).access.write);
  // Write on 15, read on 27, a barrier on 25 between: the write (of the next iteration) came too early.
  EXPECT_FALSE(race(15, 27).write_first);
  EXPECT_TRUE(race(15, 27).access.write);
  // One line (x[i] += x[i + s]): a tree step whose barrier is missing after it.
  EXPECT_TRUE(race(14, 14).write_first);
}

}  // namespace
}  // namespace cudalab
