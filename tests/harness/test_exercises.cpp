// End to end on each backend: every reference solution passes every check, every skeleton is
// "not implemented", and every kernel of the known-wrong corpus (tests/wrong/NN_name/*.cu) gets
// the verdict and the explanation its first lines promise:
//   // expect: <verdict> | <text the report must contain>
//   // expect on gpu: <verdict> | <text>     (optional: where the GPU behaves differently)
//   // never: <text the report must not contain>   (optional, repeatable)
//   // only on: sim                          (optional: where the outcome on a GPU is not determined)
// GPU cases skip, with the reason, where no GPU is visible; the simulator runs them everywhere.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../support/files.hpp"
#include "../support/toolchains.hpp"
#include "cudalab/exercise_check.hpp"
#include "cudalab/ladder.hpp"
#include "cudalab/registry.hpp"
#include "cudalab/toolchain.hpp"

namespace cudalab {
namespace {

namespace fs = std::filesystem;

const fs::path source_dir = CUDALAB_SOURCE_DIR;

using testing_support::toolchain_of;

const Toolchain* toolchain_for(Backend backend, std::string& why) { return toolchain_of(backend, false, why); }

#define REQUIRE_BACKEND(backend, var)                       \
  std::string why_##var;                                    \
  const Toolchain* var = toolchain_for(backend, why_##var); \
  if (var == nullptr) GTEST_SKIP() << backend_name(backend) << " backend unavailable: " << why_##var

/// Everything a report shows about a result, for "does it say X" assertions.
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

/// What `cudalab check` runs with no flags: the checked run beside the plain one (on both
/// backends; it runs on the simulator).
CheckOptions test_options() {
  CheckOptions o;
  o.seed = 20261122;
  o.timeout = std::chrono::seconds(120);
  std::string why;
  o.checked_toolchain = toolchain_of(Backend::sim, true, why);
  return o;
}

struct ExerciseParam {
  Backend backend;
  std::string exercise;
};

std::vector<ExerciseParam> exercise_params() {
  std::vector<ExerciseParam> params;
  for (Backend b : {Backend::sim, Backend::gpu}) {
    for (const auto& t : all_tasks()) params.push_back({b, t->info().id});
  }
  return params;
}

// Short names in test logs instead of gtest's byte dumps.
void PrintTo(const ExerciseParam& p, std::ostream* os) { *os << backend_name(p.backend) << " " << p.exercise; }

std::string exercise_param_name(const testing::TestParamInfo<ExerciseParam>& info) {
  return std::string(backend_name(info.param.backend)) + "_" + info.param.exercise;
}

class Exercise : public testing::TestWithParam<ExerciseParam> {};

TEST_P(Exercise, ReferenceSolutionPassesEveryCheck) {
  REQUIRE_BACKEND(GetParam().backend, toolchain);
  const Task& task = *find_task(GetParam().exercise);
  REQUIRE_FILE(source_dir / "solutions" / task.info().id / "kernel.cu");
  auto r = check_exercise(task, *toolchain, source_dir / "solutions" / task.info().id / "kernel.cu", test_options());
  EXPECT_EQ(r.verdict, Verdict::passed) << all_text(r);
  EXPECT_GE(r.cases.size(), 10u);
  EXPECT_EQ(r.passed_cases(), r.cases.size());
  // The checked run ran (a full check) and found nothing in the reference.
  EXPECT_TRUE(r.full_check) << r.checked_note;
  for (const auto& c : r.cases) EXPECT_TRUE(c.findings.empty()) << c.c.label() << ": " << all_text(r);
}

TEST_P(Exercise, SkeletonSaysNotImplemented) {
  REQUIRE_BACKEND(GetParam().backend, toolchain);
  const Task& task = *find_task(GetParam().exercise);
  auto r = check_exercise(task, *toolchain, source_dir / "exercises" / task.info().id / "kernel.cu", test_options());
  ASSERT_EQ(r.verdict, Verdict::not_implemented) << all_text(r);
  EXPECT_EQ(r.first_failure()->message.rfind("not implemented yet", 0), 0u);
}

INSTANTIATE_TEST_SUITE_P(All, Exercise, testing::ValuesIn(exercise_params()), exercise_param_name);

// Speed-ladder steps (solutions/NN_name/step*.cu): every one computes the right answer at every
// size. A step may break an exercise rule on purpose (the naive matmul uses no shared memory):
// then only that rule may fail, after the outputs passed.
struct LadderStep {
  Backend backend;
  std::string exercise;
  fs::path file;
};

void PrintTo(const LadderStep& s, std::ostream* os) {
  *os << backend_name(s.backend) << " " << s.file.filename().string();
}

// The ladders as `cudalab bench --ladder` finds them; the reference and the TF32 tier are checked
// by the tests above and below.
std::vector<LadderStep> ladder_steps() {
  std::vector<LadderStep> out;
  for (Backend b : {Backend::sim, Backend::gpu}) {
    for (const auto& t : all_tasks()) {
      for (const auto& step : cudalab::ladder_steps(*t, source_dir / "solutions")) {
        if (step.file.filename().string().starts_with("step")) out.push_back({b, t->info().id, step.file});
      }
    }
  }
  return out;
}

std::string ladder_step_name(const testing::TestParamInfo<LadderStep>& info) {
  std::string name =
      fmt::format("{}_{}_{}", backend_name(info.param.backend), info.param.exercise, info.param.file.stem().string());
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class Ladder : public testing::TestWithParam<LadderStep> {};

TEST_P(Ladder, StepComputesTheRightAnswerEverywhere) {
  const auto& s = GetParam();
  REQUIRE_BACKEND(s.backend, toolchain);
  auto r = check_exercise(*find_task(s.exercise), *toolchain, s.file, test_options());
  EXPECT_TRUE(r.full_check) << r.checked_note;
  for (const auto& c : r.cases) {
    const bool right = c.verdict == Verdict::passed ||
                       (c.verdict == Verdict::requirement_unmet && c.message.rfind("right output", 0) == 0);
    EXPECT_TRUE(right) << c.c.label() << ": " << c.message << "\n" << all_text(r);
    EXPECT_TRUE(c.findings.empty()) << c.c.label() << ": " << all_text(r);
  }
  EXPECT_GE(r.cases.size(), 10u);
}

INSTANTIATE_TEST_SUITE_P(Steps, Ladder, testing::ValuesIn(ladder_steps()), ladder_step_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Ladder);  // no solutions/ in a students' distribution

// The tensor-core tier of 03_matmul (GPU only: the simulator has no tensor cores) passes every
// check at TF32 precision.
TEST(TensorCoreTier, Tf32MatmulPassesAtTf32PrecisionOnTheGpu) {
  REQUIRE_BACKEND(Backend::gpu, toolchain);
  REQUIRE_FILE(source_dir / "solutions/03_matmul/tf32_tensor_cores.cu");
  CheckOptions options = test_options();
  options.precision = Precision::tf32;
  options.checked_toolchain = nullptr;  // the simulator has no tensor cores (the CLI drops it for --tf32)
  auto r = check_exercise(*find_task("03_matmul"), *toolchain, source_dir / "solutions/03_matmul/tf32_tensor_cores.cu",
                          options);
  EXPECT_EQ(r.passed_cases(), r.cases.size()) << all_text(r);
  EXPECT_GE(r.cases.size(), 10u);
  for (const auto& c : r.cases) EXPECT_EQ(c.c.precision, Precision::tf32);
}

// The Hopper tier (wgmma and TMA) passes every check at TF32 precision on an H100 or H200, and
// on any other GPU stops with the reason, as its README says.
TEST(TensorCoreTier, WgmmaTierPassesAtTf32PrecisionOnAHopperGpu) {
  REQUIRE_BACKEND(Backend::gpu, toolchain);
  const fs::path file = source_dir / "solutions/03_matmul/tf32_wgmma_tma.cu";
  REQUIRE_FILE(file);
  CheckOptions options = test_options();
  options.precision = Precision::tf32;
  options.checked_toolchain = nullptr;  // the simulator has no tensor cores
  auto r = check_exercise(*find_task("03_matmul"), *toolchain, file, options);
  if (all_text(r).find("runs on Hopper GPUs only") != std::string::npos) {
    GTEST_SKIP() << "not a Hopper GPU (compute capability 9.0): the tier stopped and said so";
  }
  EXPECT_EQ(r.passed_cases(), r.cases.size()) << all_text(r);
  EXPECT_GE(r.cases.size(), 10u);
}

struct WrongKernel {
  Backend backend;
  std::string exercise;
  fs::path file;
  std::string verdict;
  std::string must_say;
  std::vector<std::string> never_say;
  std::string only_on;  ///< a backend name, or empty for every backend
};

/// "<verdict> | <text>" into its two parts; false when the bar is missing.
bool split_expectation(const std::string& text, std::string& verdict, std::string& must_say) {
  const auto bar = text.find(" | ");
  if (bar == std::string::npos) return false;
  verdict = text.substr(0, bar);
  must_say = text.substr(bar + 3);
  return true;
}

std::vector<WrongKernel> wrong_kernels() {
  std::vector<WrongKernel> out;
  const fs::path root = source_dir / "tests" / "wrong";
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(root, ec)) {
    if (entry.path().extension() == ".cu") files.push_back(entry.path());
  }
  std::ranges::sort(files);
  for (Backend b : {Backend::sim, Backend::gpu}) {
    for (const auto& f : files) {
      std::ifstream in(f);
      WrongKernel w{b, f.parent_path().filename().string(), f, "", "", {}, ""};
      const std::string expect = "// expect: ";
      const std::string backend_expect = std::string("// expect on ") + backend_name(b) + ": ";
      const std::string never = "// never: ";
      std::string line;
      for (int i = 0; i < 6 && std::getline(in, line); ++i) {
        if (line.rfind(expect, 0) == 0 && w.verdict.empty()) {
          split_expectation(line.substr(expect.size()), w.verdict, w.must_say);
        } else if (line.rfind(backend_expect, 0) == 0) {
          split_expectation(line.substr(backend_expect.size()), w.verdict, w.must_say);
        } else if (line.rfind(never, 0) == 0) {
          w.never_say.push_back(line.substr(never.size()));
        } else if (line.rfind("// only on: ", 0) == 0) {
          w.only_on = line.substr(12);
        }
      }
      out.push_back(w);
    }
  }
  return out;
}

void PrintTo(const WrongKernel& w, std::ostream* os) {
  *os << backend_name(w.backend) << " " << w.file.filename().string();
}

std::string wrong_kernel_name(const testing::TestParamInfo<WrongKernel>& info) {
  std::string name =
      fmt::format("{}_{}_{}", backend_name(info.param.backend), info.param.exercise, info.param.file.stem().string());
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class KnownWrong : public testing::TestWithParam<WrongKernel> {};

TEST_P(KnownWrong, IsCaughtWithTheRightExplanation) {
  const auto& w = GetParam();
  ASSERT_FALSE(w.verdict.empty()) << w.file << ": the first line must be `// expect: <verdict> | <text>`";
  if (!w.only_on.empty() && w.only_on != backend_name(w.backend)) {
    GTEST_SKIP() << w.file.filename() << " is checked on " << w.only_on << " only: its outcome on "
                 << backend_name(w.backend) << " is not determined";
  }
  REQUIRE_BACKEND(w.backend, toolchain);
  const Task* task = find_task(w.exercise);
  ASSERT_NE(task, nullptr) << "tests/wrong/" << w.exercise << " is not an exercise";
  auto r = check_exercise(*task, *toolchain, w.file, test_options());
  EXPECT_EQ(verdict_name(r.verdict), w.verdict) << all_text(r);
  EXPECT_NE(all_text(r).find(w.must_say), std::string::npos)
      << "the report should say \"" << w.must_say << "\"; it says:\n"
      << all_text(r);
  for (const auto& wrong : w.never_say) {
    EXPECT_EQ(all_text(r).find(wrong), std::string::npos) << "the report must not say \"" << wrong << "\"; it says:\n"
                                                          << all_text(r);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, KnownWrong, testing::ValuesIn(wrong_kernels()), wrong_kernel_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(KnownWrong);  // no tests/wrong/ in a students' distribution

// Student code that misbehaves on the host side: each misbehaviour is a named verdict, and the
// parent goes on to check the next submission (tests/misbehaving/*.cu).
struct Misbehaving {
  Backend backend;
  std::string exercise;
  std::string file;
  Verdict verdict;
  std::string must_say;
};

void PrintTo(const Misbehaving& m, std::ostream* os) { *os << backend_name(m.backend) << " " << m.file; }

std::vector<Misbehaving> misbehaving_modules() {
  std::vector<Misbehaving> out;
  for (Backend b : {Backend::sim, Backend::gpu}) {
    out.push_back({b, "01_increment", "crash.cu", Verdict::crash, "SIGSEGV"});
    out.push_back({b, "01_increment", "hang.cu", Verdict::timeout, "did not finish within 2 s"});
    out.push_back({b, "01_increment", "flood.cu", Verdict::output_flood, "debugging output, n ="});
    out.push_back({b, "01_increment", "exits.cu", Verdict::crash, "did it call exit()?"});
    out.push_back({b, "01_increment", "throws.cu", Verdict::exception, "boom from solve"});
    out.push_back({b, "01_increment", "wrong_signature.cu", Verdict::wrong_signature, "solve(float*, int)"});
    // CUDA 13 on an H100 names a 2048-thread block cudaErrorInvalidValue; the simulator, as CUDA's
    // documentation does, cudaErrorInvalidConfiguration.
    out.push_back({b, "01_increment", "bad_launch.cu", Verdict::cuda_error, "cudaErrorInvalid"});
    out.push_back({b, "02_vector_add", "writes_input.cu", Verdict::input_modified, "the input a changed"});
    // The time limit holds whatever the child does to its file descriptors.
    out.push_back({b, "01_increment", "closes_fds_and_spins.cu", Verdict::timeout, "did not finish within 2 s"});
    // A reply the submission wrote itself is malformed: that case's runner error, nothing more.
    out.push_back({b, "01_increment", "forges_reply.cu", Verdict::runner_error, "reply at n=1000 is unusable"});
    out.push_back({b, "01_increment", "floods_reply.cu", Verdict::runner_error, "reply at n=1000 was longer than"});
  }
  return out;
}

std::string misbehaving_name(const testing::TestParamInfo<Misbehaving>& info) {
  std::string name = std::string(backend_name(info.param.backend)) + "_" + info.param.file;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class Runner : public testing::TestWithParam<Misbehaving> {};

TEST_P(Runner, MisbehaviourGetsItsVerdictAndTheParentCarriesOn) {
  const auto& m = GetParam();
  REQUIRE_BACKEND(m.backend, toolchain);
  const Task& task = *find_task(m.exercise);
  CheckOptions options = test_options();
  options.timeout = std::chrono::seconds(2);
  options.max_output_bytes = 64 << 10;
  options.only_sizes = {1000};
  auto r = check_exercise(task, *toolchain, source_dir / "tests" / "misbehaving" / m.file, options);
  EXPECT_EQ(verdict_name(r.verdict), std::string(verdict_name(m.verdict))) << all_text(r);
  EXPECT_NE(all_text(r).find(m.must_say), std::string::npos)
      << "the report should say \"" << m.must_say << "\"; it says:\n"
      << all_text(r);
  // The same process checks a good submission right after (where there are solutions).
  const fs::path solution = source_dir / "solutions" / m.exercise / "kernel.cu";
  if (fs::exists(solution)) {
    auto good = check_exercise(task, *toolchain, solution, options);
    EXPECT_EQ(good.verdict, Verdict::passed) << all_text(good);
  }
}

INSTANTIATE_TEST_SUITE_P(Misbehaving, Runner, testing::ValuesIn(misbehaving_modules()), misbehaving_name);

// Every case of a check runs in one runner process, as the calls of solve in a program do; a case
// that ends its process (a crash) is followed by a new process for the cases after it.
class OneProcess : public testing::TestWithParam<Backend> {};

TEST_P(OneProcess, ACrashEndsOnlyItsCaseAndTheRestRunInANewProcess) {
  REQUIRE_BACKEND(GetParam(), toolchain);
  const Task& task = *find_task("01_increment");
  auto r = check_exercise(task, *toolchain, source_dir / "tests" / "misbehaving" / "crashes_at_33.cu", test_options());
  ASSERT_GT(r.cases.size(), 8u);
  for (const auto& c : r.cases) {
    const bool at_33 = c.c.label() == "n=33";
    EXPECT_EQ(verdict_name(c.verdict), std::string(verdict_name(at_33 ? Verdict::crash : Verdict::passed)))
        << c.c.label() << ": " << c.message;
  }
}

TEST_P(OneProcess, StateKeptFromAnEarlierCallIsCaughtAtALargerSize) {
  REQUIRE_BACKEND(GetParam(), toolchain);
  const Task& task = *find_task("05_reduce");
  auto r = check_exercise(task, *toolchain, source_dir / "tests" / "misbehaving" / "keeps_grid.cu", test_options());
  // The grid kept from n=1 covers 256 elements: every size up to 256 passes, n=257 does not.
  bool seen_257 = false;
  for (const auto& c : r.cases) {
    const bool covered = c.c.dims.front().value <= 256;
    seen_257 = seen_257 || c.c.label() == "n=257";
    EXPECT_EQ(verdict_name(c.verdict), std::string(verdict_name(covered ? Verdict::passed : Verdict::wrong_output)))
        << c.c.label() << ": " << c.message;
    // Run again alone, n=257 is right: the report says that an earlier call left something behind.
    if (c.c.label() == "n=257") {
      EXPECT_NE(c.message.find("right when it is the first call of a fresh process"), std::string::npos) << c.message;
      EXPECT_EQ(c.message.find("right by luck"), std::string::npos) << c.message;  // the checked run found no race
      ASSERT_FALSE(c.hints.empty());
      EXPECT_NE(c.hints.front().find("solve must work every time it is called"), std::string::npos);
    }
  }
  EXPECT_TRUE(seen_257);
}

// `--fast` makes no checked run: nothing looked for a race, which a fresh process can get right by
// luck as well, so the state-kept explanation says so rather than blaming the earlier calls alone.
TEST_P(OneProcess, AFastCheckDoesNotBlameEarlierCallsAlone) {
  REQUIRE_BACKEND(GetParam(), toolchain);
  const Task& task = *find_task("05_reduce");
  CheckOptions fast = test_options();
  fast.checked_toolchain = nullptr;
  auto r = check_exercise(task, *toolchain, source_dir / "tests" / "misbehaving" / "keeps_grid.cu", fast);
  const auto at = std::ranges::find_if(r.cases, [](const CaseResult& c) { return c.c.label() == "n=257"; });
  ASSERT_NE(at, r.cases.end());
  EXPECT_NE(at->message.find("left something behind (or a race was right by luck there: the check without --fast "
                             "looks for races)"),
            std::string::npos)
      << at->message;
}

// Where a check's time went, as grade's progress lines show it: the plain build's compile and run,
// the checked build's compile and run beside them and the wait for them; none of the checked parts
// after `--fast`.
TEST_P(OneProcess, ACheckSaysWhereItsTimeWent) {
  REQUIRE_BACKEND(GetParam(), toolchain);
  const Task& task = *find_task("02_vector_add");
  const fs::path file = source_dir / "solutions" / "02_vector_add" / "kernel.cu";
  const auto names = [](const ExerciseResult& r) {
    std::vector<std::string> out;
    for (const auto& p : r.time_split) {
      EXPECT_GE(p.seconds, 0) << p.name;
      out.push_back(p.name);
    }
    return out;
  };
  const auto full = check_exercise(task, *toolchain, file, test_options());
  ASSERT_EQ(full.verdict, Verdict::passed);
  const std::vector<std::string> parts = names(full);
  for (const char* part : {"compile", "run", "waiting for the checked run", "checked build's compile", "checked run"}) {
    EXPECT_NE(std::ranges::find(parts, part), parts.end()) << part << " missing from " << testing::PrintToString(parts);
  }
  const auto run = std::ranges::find(full.time_split, std::string("run"), &protocol::Phase::name);
  ASSERT_NE(run, full.time_split.end());
  EXPECT_GT(run->seconds, 0) << "the plain run of every case takes time";
  // The run's own parts, one after another within it.
  double run_parts_s = 0;
  for (const char* part : {"run: inputs", "run: laying out", "run: runner", "run: judging"}) {
    const auto at = std::ranges::find(full.time_split, std::string(part), &protocol::Phase::name);
    ASSERT_NE(at, full.time_split.end()) << part << " missing from " << testing::PrintToString(parts);
    run_parts_s += at->seconds;
  }
  EXPECT_LE(run_parts_s, run->seconds + 1e-6) << "the run's parts are within it";
  EXPECT_GT(run_parts_s, 0.5 * run->seconds) << "the run's parts are most of it";

  CheckOptions fast = test_options();
  fast.checked_toolchain = nullptr;
  const auto quick = check_exercise(task, *toolchain, file, fast);
  const std::vector<std::string> quick_parts = names(quick);
  EXPECT_NE(std::ranges::find(quick_parts, "run"), quick_parts.end());
  EXPECT_EQ(std::ranges::find(quick_parts, "checked run"), quick_parts.end()) << "no checked run after --fast";
}

TEST_P(OneProcess, ACopyPastTheEndFaultsInItsOwnCaseNotTheNext) {
  REQUIRE_BACKEND(GetParam(), toolchain);
  const Task& task = *find_task("02_vector_add");
  auto r =
      check_exercise(task, *toolchain, source_dir / "tests" / "misbehaving" / "writes_past_output.cu", test_options());
  ASSERT_FALSE(r.cases.empty());
  // Only the running case's buffers are mapped: the stray copy never reaches another case's
  // inputs, so no case is blamed for changing its inputs or for a wrong answer it did not give.
  for (const auto& c : r.cases) {
    EXPECT_TRUE(c.verdict == Verdict::crash || c.verdict == Verdict::cuda_error)
        << c.c.label() << ": " << verdict_name(c.verdict) << ": " << c.message;
  }
}

INSTANTIATE_TEST_SUITE_P(Check, OneProcess, testing::Values(Backend::sim, Backend::gpu),
                         [](const testing::TestParamInfo<Backend>& info) { return backend_name(info.param); });

// A case's inputs depend on the seed, the exercise and the case's size only: checking n=257 alone
// gives it the inputs it gets in a full check, on every backend.
TEST(CaseIdentity, ACheckOfOneSizeGivesItTheInputsOfTheFullCheck) {
  REQUIRE_BACKEND(Backend::sim, toolchain);
  const Task& task = *find_task("02_vector_add");
  const fs::path printer = source_dir / "tests" / "misbehaving" / "prints_inputs.cu";
  auto printed = [&](const ExerciseResult& r, const std::string& label) {
    for (const auto& c : r.cases) {
      if (c.c.label() != label) continue;
      for (const auto& d : c.details) {
        if (d.find("inputs of ") != std::string::npos) return d;
      }
    }
    return std::string();
  };
  CheckOptions options = test_options();
  options.seed = 7;
  options.only_sizes = {257};
  const auto one = check_exercise(task, *toolchain, printer, options);
  options.only_sizes = {1, 2, 3, 31, 32, 33, 255, 256, 257};
  const auto several = check_exercise(task, *toolchain, printer, options);
  const std::string alone = printed(one, "n=257");
  ASSERT_NE(alone.find("inputs of n=257: "), std::string::npos) << all_text(one);
  EXPECT_EQ(printed(several, "n=257"), alone) << all_text(several);
  options.seed = 8;
  options.only_sizes = {257};
  EXPECT_NE(printed(check_exercise(task, *toolchain, printer, options), "n=257"), alone)
      << "another seed must give other inputs";
}

TEST(CaseIdentity, ASizeThatMatchesNoCaseIsRefusedWithTheValidSizes) {
  const Task& task = *find_task("02_vector_add");
  CheckOptions options = test_options();
  options.only_sizes = {99999};
  try {
    (void)select_cases(task, Backend::sim, options);
    FAIL() << "an empty selection must be refused";
  } catch (const SelectionError& e) {
    EXPECT_NE(std::string(e.what()).find("no check of 02_vector_add has n=99999; its sizes are 1, 2, 3,"),
              std::string::npos)
        << e.what();
  }
  options.only_sizes = {257, 99999};
  EXPECT_EQ(select_cases(task, Backend::sim, options).size(), 1u);
}

TEST(Backend, GpuRequestWithoutGpuIsASetUpErrorThatNamesTheSimulator) {
  std::string why;
  if (toolchain_for(Backend::gpu, why) != nullptr) GTEST_SKIP() << "a GPU is present; nothing to refuse";
  EXPECT_FALSE(why.empty());
}

TEST(Backend, CompileErrorShowsTheCompilersMessageWithFileAndLine) {
  std::vector<std::string> checked;
  for (Backend b : {Backend::sim, Backend::gpu}) {
    std::string why;
    const Toolchain* toolchain = toolchain_for(b, why);
    if (toolchain == nullptr) continue;  // the other backend, if any, is checked; none: skipped below
    checked.push_back(backend_name(b));
    const fs::path broken = fs::temp_directory_path() / fmt::format("cudalab-broken-{}.cu", backend_name(b));
    std::ofstream(broken)
        << "#include <stdexcept>\n\nvoid solve(const float* A, const float* B, float* C, int M, int N, int K) {\n"
           "  int x = ;\n}\n";
    auto r = check_exercise(*find_task("03_matmul"), *toolchain, broken, test_options());
    EXPECT_EQ(r.verdict, Verdict::compile_error) << backend_name(b);
    EXPECT_NE(r.compile.diagnostics.find(broken.filename().string()), std::string::npos) << r.compile.diagnostics;
    // g++ writes file:4:11, nvcc file(4): the line of `int x = ;` either way.
    const std::string file = broken.filename().string();
    EXPECT_TRUE(r.compile.diagnostics.find(file + ":4:") != std::string::npos ||
                r.compile.diagnostics.find(file + "(4)") != std::string::npos)
        << "line 4 should be named: " << r.compile.diagnostics;
    EXPECT_TRUE(r.cases.empty());
  }
  if (checked.empty()) GTEST_SKIP() << "this build has neither the simulator nor a GPU toolchain";
}

/// An environment variable set for one scope and put back as it was after.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;
  ~ScopedVariable() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

/// 03's reference checked on the simulator at one size of its cases, with 2 simulated SMs (one per
/// host thread), so that the path its grid takes is the same on every machine.
ExerciseResult check_matmul_reference(const Toolchain& toolchain, int size) {
  const ScopedVariable sms("CUDALAB_SIM_THREADS", "2");
  CheckOptions options = test_options();
  options.only_sizes = {size};
  return check_exercise(*find_task("03_matmul"), toolchain, source_dir / "solutions" / "03_matmul" / "kernel.cu",
                        options);
}

/// The kernels the first case of `r` launched, in order.
std::vector<std::string> launched_kernels(const ExerciseResult& r) {
  std::vector<std::string> kernels;
  for (const auto& l : r.cases.at(0).records.launches) kernels.push_back(l.kernel);
  return kernels;
}

// 03's reference multiplies zero-padded copies of A and B where K or N is not a multiple of 4 and
// its grid has a large tile per SM: 255×257×129 (6 large tiles) takes that path with 2 SMs; the
// checked run checks it too.
TEST(MatmulReference, ItsPaddedPathIsRightOnTheSimulator) {
  REQUIRE_BACKEND(Backend::sim, toolchain);
  REQUIRE_FILE(source_dir / "solutions" / "03_matmul" / "kernel.cu");
  const auto r = check_matmul_reference(*toolchain, 255);
  ASSERT_EQ(r.verdict, Verdict::passed) << all_text(r);
  EXPECT_TRUE(r.full_check) << r.checked_note;
  ASSERT_EQ(r.cases.size(), 1u);
  ASSERT_TRUE(r.cases[0].launches_recorded);
  const auto kernels = launched_kernels(r);
  ASSERT_EQ(kernels.size(), 3u) << testing::PrintToString(kernels);
  EXPECT_EQ(kernels[0], "copy_padded");
  EXPECT_EQ(kernels[1], "copy_padded");
  EXPECT_NE(kernels[2].find("matmul_warp_tiled<Large, true, true>"), std::string::npos) << kernels[2];
}

// Where M and N are multiples of its 128×128 tiles and K of 16, 03's reference launches a kernel
// without range checks: 256³ (4 large tiles) takes that path with 2 SMs.
TEST(MatmulReference, ItsWholeTilePathIsRightOnTheSimulator) {
  REQUIRE_BACKEND(Backend::sim, toolchain);
  REQUIRE_FILE(source_dir / "solutions" / "03_matmul" / "kernel.cu");
  const auto r = check_matmul_reference(*toolchain, 256);
  ASSERT_EQ(r.verdict, Verdict::passed) << all_text(r);
  ASSERT_EQ(r.cases.size(), 1u);
  ASSERT_TRUE(r.cases[0].launches_recorded);
  const auto kernels = launched_kernels(r);
  ASSERT_EQ(kernels.size(), 1u) << testing::PrintToString(kernels);
  EXPECT_NE(kernels[0].find("matmul_warp_tiled<Large, true, true, true>"), std::string::npos) << kernels[0];
}

/// A cache folder of its own, so that no test finds another's verdict there.
ToolchainConfig front_end_config(const char* name) {
  ToolchainConfig config;
  config.cache_dir = fs::temp_directory_path() / fmt::format("cudalab-nvcc-front-end-{}-{}", name, getpid());
  fs::remove_all(config.cache_dir);
  config.runner_dir = CUDALAB_BIN_DIR;
  return config;
}

/// nvcc's front end with a stand-in nvcc in `config`'s cache folder: a shell script that answers
/// `--version` with `version` and otherwise runs `body`; CUDALAB_NVCC names it while this lives.
struct StandInNvcc {
  StandInNvcc(const ToolchainConfig& config, const char* version, const std::string& body)
      : path(write(config, version, body)), nvcc("CUDALAB_NVCC", path.c_str()) {
    front_end = make_nvcc_front_end(config);
  }
  static fs::path write(const ToolchainConfig& config, const char* version, const std::string& body) {
    fs::create_directories(config.cache_dir);
    const fs::path file = config.cache_dir / "nvcc";
    std::ofstream(file) << "#!/bin/sh\n[ \"$1\" = --version ] && { echo '" << version << "'; exit 0; }\n" << body;
    fs::permissions(file, fs::perms::owner_all);
    return file;
  }
  fs::path path;
  ScopedVariable nvcc;
  ScopedVariable on{"CUDALAB_NVCC_FRONT_END", nullptr};
  std::unique_ptr<Toolchain> front_end;
};

TEST(NvccFrontEnd, LocationsAreWrittenAsEditorsReadThem) {
  EXPECT_EQ(gcc_style_locations("/s/kernel.cu(12): error: calling a __host__ function\n  k();\n"),
            "/s/kernel.cu:12: error: calling a __host__ function\n  k();\n");
  EXPECT_EQ(gcc_style_locations("a b.cu(3): warning: x\nb.cu(4): remark: y\n"),
            "a b.cu:3: warning: x\nb.cu:4: remark: y\n");
  // Text that only looks like a location further in a line is left alone.
  EXPECT_EQ(gcc_style_locations("  p[i] = f(2): error\n"), "  p[i] = f(2): error\n");
  EXPECT_EQ(gcc_style_locations("1 error detected in the compilation of \"k.cu\".\n"),
            "1 error detected in the compilation of \"k.cu\".\n");
}

TEST(NvccFrontEnd, AFileItRejectsFailsTheSimulatorsCheckInItsWords) {
  REQUIRE_BACKEND(Backend::sim, sim);
  const fs::path solution = source_dir / "solutions" / "01_increment" / "kernel.cu";
  REQUIRE_FILE(solution);
  // A stand-in nvcc with nvcc's message format: it rejects every file, as nvcc rejects one whose
  // kernel calls a host function that the host compiler takes.
  const ToolchainConfig config = front_end_config("fake");
  const StandInNvcc fake(config, "Build fake_1",
                         "for a; do last=$a; done\n"
                         "echo \"$last(27): error: calling a constexpr __host__ function(\\\"min\\\") from a "
                         "__global__ function(\\\"increment_by_one\\\") is not allowed\"\n"
                         "exit 1\n");
  ASSERT_NE(fake.front_end, nullptr);
  CheckOptions options = test_options();
  options.nvcc_front_end = fake.front_end.get();
  const ExerciseResult r = check_exercise(*find_task("01_increment"), *sim, solution, options);
  EXPECT_EQ(r.verdict, Verdict::compile_error);
  EXPECT_NE(r.compile.diagnostics.find("nvcc rejects this file, which the simulator's compiler accepted"),
            std::string::npos)
      << r.compile.diagnostics;
  EXPECT_NE(r.compile.diagnostics.find(solution.string() + ":27: error: calling a constexpr __host__ function"),
            std::string::npos)
      << r.compile.diagnostics;
  EXPECT_TRUE(r.cases.empty());
  // Without it (no nvcc, or turned off) the same file passes: the runs alone decide.
  options.nvcc_front_end = nullptr;
  EXPECT_EQ(check_exercise(*find_task("01_increment"), *sim, solution, options).verdict, Verdict::passed);
  const ScopedVariable off("CUDALAB_NVCC_FRONT_END", "0");
  EXPECT_EQ(make_nvcc_front_end(config), nullptr);
  fs::remove_all(config.cache_dir);
}

// nvcc's front end runs once for every copy of a file without headers of its own (a class's
// identical submissions, the reference solution in scratch copies); each copy's messages name it.
TEST(NvccFrontEnd, CopiesOfAFileShareOneRunAndNameThemselves) {
  const ToolchainConfig config = front_end_config("shared");
  // The stand-in warns about the file it is given, writes its output and counts its runs.
  const fs::path runs = config.cache_dir / "runs";
  const StandInNvcc fake(config, "Build fake_2",
                         "echo run >> '" + runs.string() +
                             "'\n"
                             "while [ $# -gt 1 ]; do [ \"$1\" = -o ] && : > \"$2\"; shift; done\n"
                             "echo \"$1(2): warning: variable \\\"x\\\" was declared but never referenced\"\n");
  ASSERT_NE(fake.front_end, nullptr);
  const std::unique_ptr<Toolchain>& front_end = fake.front_end;
  const std::string text = "__global__ void k() {\n  int x;\n}\n";
  for (const char* who : {"alice", "bob"}) {
    fs::create_directories(config.cache_dir / who);
    std::ofstream(config.cache_dir / who / "kernel.cu") << text;
  }
  const CompileResult a = front_end->compile(config.cache_dir / "alice" / "kernel.cu");
  const CompileResult b = front_end->compile(config.cache_dir / "bob" / "kernel.cu");
  ASSERT_TRUE(a.ok) << a.diagnostics;
  ASSERT_TRUE(b.ok) << b.diagnostics;
  EXPECT_TRUE(b.cached);
  std::ifstream counted(runs);
  const std::string count((std::istreambuf_iterator<char>(counted)), std::istreambuf_iterator<char>());
  EXPECT_EQ(count, "run\n") << "nvcc ran once for both copies";
  EXPECT_NE(a.diagnostics.find((config.cache_dir / "alice" / "kernel.cu").string() + ":2: warning"), std::string::npos)
      << a.diagnostics;
  EXPECT_NE(b.diagnostics.find((config.cache_dir / "bob" / "kernel.cu").string() + ":2: warning"), std::string::npos)
      << b.diagnostics;
  EXPECT_EQ(b.diagnostics.find("alice"), std::string::npos) << b.diagnostics;
  fs::remove_all(config.cache_dir);
}

TEST(NvccFrontEnd, RejectsWhatNvccRejectsAndPassesTheReferenceWhereNvccIsInstalled) {
  REQUIRE_BACKEND(Backend::sim, sim);
  const fs::path solution = source_dir / "solutions" / "01_increment" / "kernel.cu";
  REQUIRE_FILE(solution);
  const ScopedVariable on("CUDALAB_NVCC_FRONT_END", nullptr);
  const ToolchainConfig config = front_end_config("real");
  const std::unique_ptr<Toolchain> front_end = make_nvcc_front_end(config);
  if (front_end == nullptr) GTEST_SKIP() << "no nvcc here: the simulator's check relies on the translator's checks";
  CheckOptions options = test_options();
  options.nvcc_front_end = front_end.get();
  // std::min is a host function to nvcc (without --expt-relaxed-constexpr); g++ takes it anywhere.
  const fs::path with_min = config.cache_dir / "kernel.cu";
  fs::create_directories(config.cache_dir);
  std::ofstream(with_min) << "#include <algorithm>\n#include <cuda_runtime.h>\n\n"
                             "__global__ void increment(int* data, int n) {\n"
                             "  const int i = std::min(static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x), n);\n"
                             "  if (i < n) data[i] += 1;\n}\n\n"
                             "void solve(int* data, int n) { increment<<<(n + 255) / 256, 256>>>(data, n); }\n";
  const ExerciseResult rejected = check_exercise(*find_task("01_increment"), *sim, with_min, options);
  EXPECT_EQ(rejected.verdict, Verdict::compile_error) << all_text(rejected);
  EXPECT_NE(rejected.compile.diagnostics.find(with_min.string() + ":5: error: calling a constexpr __host__ function"),
            std::string::npos)
      << rejected.compile.diagnostics;
  EXPECT_EQ(check_exercise(*find_task("01_increment"), *sim, solution, options).verdict, Verdict::passed);
  fs::remove_all(config.cache_dir);
}

}  // namespace
}  // namespace cudalab

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
