// The CLI's usage and set-up errors: one clear line and exit code 2.
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <regex>
#include <sstream>
#include <system_error>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/files.hpp"
#include "../support/small_disk.hpp"
#include "cudalab/process.hpp"

namespace cudalab {
namespace {

namespace fs = std::filesystem;

/// Runs `program` with `args`, and with `env` ("NAME=value") added to the environment.
ProcessResult run_cli(const std::string& program, const std::vector<std::string>& args,
                      const std::vector<std::string>& env = {}) {
  // Compiled modules and `list`'s status go to the build folder, not the user's cache.
  static const bool cache_set = [] { return setenv("CUDALAB_CACHE_DIR", CUDALAB_TEST_CACHE_DIR, 1) == 0; }();
  (void)cache_set;
  ProcessOptions opts;
  if (!env.empty()) {
    opts.argv = {"/usr/bin/env"};
    opts.argv.insert(opts.argv.end(), env.begin(), env.end());
  }
  opts.argv.push_back(program);
  opts.argv.insert(opts.argv.end(), args.begin(), args.end());
  opts.timeout = std::chrono::seconds(60);
  opts.kept_output_bytes = opts.max_output_bytes;  // a --json report is read whole
  return run_process(opts);
}

ProcessResult cli(const std::vector<std::string>& args) { return run_cli(CUDALAB_CLI, args); }

/// A fresh folder for one test, named after it.
fs::path test_dir(const std::string& what) {
  const fs::path dir = fs::path(testing::TempDir()) /
                       ("cudalab-cli-" + what + "-" + testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// A copy of the project's exercises/ and solutions/ (where there are: `cudalab export` leaves
/// solutions/ out), for tests that change files in it.
fs::path project_copy() {
  const fs::path root = test_dir("project");
  for (const char* sub : {"exercises", "solutions"}) {
    if (!fs::exists(fs::path(CUDALAB_SOURCE_DIR) / sub)) continue;
    fs::copy(fs::path(CUDALAB_SOURCE_DIR) / sub, root / sub, fs::copy_options::recursive);
  }
  return root;
}

#define REQUIRE_SOLUTIONS() REQUIRE_FILE(fs::path(CUDALAB_SOURCE_DIR) / "solutions")

/// The `cudalab` program alone in a folder, as in an installation that lost its runners (the CLI
/// looks for them beside itself).
fs::path cli_without_runners(const std::vector<std::string>& kept = {}) {
  const fs::path dir = test_dir("install");
  const fs::path built = fs::path(CUDALAB_CLI).parent_path();
  fs::copy_file(CUDALAB_CLI, dir / "cudalab");
  for (const auto& name : kept) fs::copy_file(built / name, dir / name);
  return dir / "cudalab";
}

/// The line of `list`'s table for `exercise` (after its number).
std::string list_line(const std::string& output, const std::string& exercise) {
  const auto at = output.find(" " + exercise + " ");
  if (at == std::string::npos) return "";
  return output.substr(at + 1, output.find('\n', at + 1) - at - 1);
}

TEST(Cli, MistypedCommandSuggestsTheNearestOne) {
  auto r = cli({"chek", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("cudalab: unknown command 'chek'; did you mean 'check'?"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("was not expected"), std::string::npos) << r.output;
  r = cli({"bnech", "--all"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("did you mean 'bench'?"), std::string::npos) << r.output;
}

TEST(Cli, UnknownCommandWithNoNearOneListsTheCommands) {
  auto r = cli({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown command 'frobnicate'; the commands are list, next, init, check, bench"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("did you mean"), std::string::npos) << r.output;
}

TEST(Cli, NoCommandPrintsTheHelpAndSaysToPickOne) {
  auto r = cli({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("Exit codes"), std::string::npos) << "the help is missing: " << r.output;
  EXPECT_NE(
      r.output.find(
          "cudalab: pick a subcommand (list, next, init, check, bench, explain, show, grade, report, merge, export)"),
      std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("A subcommand is required"), std::string::npos) << r.output;
}

// The instructor's commands are the program cudalab-grading next to cudalab, with the rest of the
// command line (and its own --help).
TEST(Cli, GradingCommandsAreHandedToTheGradingProgram) {
  REQUIRE_FILE(fs::path(CUDALAB_SOURCE_DIR) / "grading");
  auto r = cli({"grade", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("--resume"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--rubric"), std::string::npos) << r.output;
  r = cli({"grade", "/no/such/class"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/no/such/class is not a folder of submissions"), std::string::npos) << r.output;
  r = cli({"report", "/no/such/gradebook.sqlite"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST(Cli, VersionNeedsNoCommand) {
  auto r = cli({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("cudalab "), std::string::npos) << r.output;
}

TEST(Cli, MistypedExerciseSuggestsTheNearestOne) {
  auto r = cli({"check", "matmull"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown exercise 'matmull'; did you mean '03_matmul'?"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("known exercises: 01_increment"), std::string::npos) << r.output;
  r = cli({"check", "vectoradd"});
  EXPECT_NE(r.output.find("did you mean '02_vector_add'?"), std::string::npos) << r.output;
}

TEST(Cli, DeletedKernelSaysHowToRestoreIt) {
  const fs::path root = project_copy();
  fs::remove(root / "exercises/01_increment/kernel.cu");
  // A project that is not a git clone (an unpacked archive, an installation's copy): no git advice.
  auto r = run_cli(CUDALAB_CLI, {"check", "1"}, {"CUDALAB_ROOT=" + root.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("cudalab: exercises/01_increment/kernel.cu is missing (the course's copy of exercises/ "
                          "has it)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("git"), std::string::npos) << r.output;
  // A clone: git restores it.
  fs::create_directories(root / ".git");
  r = run_cli(CUDALAB_CLI, {"check", "1"}, {"CUDALAB_ROOT=" + root.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("cudalab: exercises/01_increment/kernel.cu is missing "
                          "(`git checkout exercises/01_increment/kernel.cu` restores it)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("set CUDALAB_ROOT"), std::string::npos) << r.output;
}

TEST(Cli, ARootWithoutExercisesAsksForCudalabRoot) {
  const fs::path root = test_dir("empty");
  auto r = run_cli(CUDALAB_CLI, {"check", "1"}, {"CUDALAB_ROOT=" + root.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("is this a cudalab project? set CUDALAB_ROOT"), std::string::npos) << r.output;
}

#ifdef CUDALAB_HAVE_SIM
// Before, the reference solution "crashed … did it call exit()?": the runner was what was missing.
TEST(Cli, MissingSimRunnerIsASetUpErrorNamingIt) {
  REQUIRE_SOLUTIONS();
  const fs::path cudalab = cli_without_runners();
  for (const char* backend : {"sim", "auto"}) {
    auto r = run_cli(cudalab.string(), {"check", "1", "--solution", "--backend", backend});
    EXPECT_EQ(r.exit_code, 2) << backend << ": " << r.output;
    EXPECT_NE(r.output.find((cudalab.parent_path() / "cudalab-runner-sim").string() + " is missing"), std::string::npos)
        << backend << ": " << r.output;
    EXPECT_NE(r.output.find("reinstall cudalab"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("01_increment     "), std::string::npos) << "student code was run: " << r.output;
  }
}

// Before, every module failed to link and the reference solution got "compile error".
TEST(Cli, MissingSimLibraryIsASetUpErrorNamingIt) {
  REQUIRE_SOLUTIONS();
  const fs::path cudalab = cli_without_runners({"cudalab-runner-sim"});
  auto r = run_cli(cudalab.string(), {"check", "1", "--solution", "--backend", "sim"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("libcudalab_sim.so is missing"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("compile error"), std::string::npos) << r.output;
}

TEST(Cli, AutoWithoutAGpuSaysSoPlainly) {
  REQUIRE_SOLUTIONS();
  auto r = cli({"check", "1", "--solution", "--size", "1", "--color", "never"});
  if (r.output.find("backend: gpu") != std::string::npos) GTEST_SKIP() << "a GPU is usable here";
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(": using the CPU simulator\n"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("CUDA driver version"), std::string::npos) << r.output;
  // --verbose keeps the GPU toolchain's own reason.
  r = cli({"check", "1", "--solution", "--size", "1", "--color", "never", "--verbose"});
  EXPECT_NE(r.output.find("gpu backend not used: "), std::string::npos) << r.output;
}

// `--size 99999` once ran no check and printed "passed 0/0", and `list` then called the skeleton
// passed. A run of some sizes says nothing of the others either.
TEST(Cli, OnlyACompleteRunChangesWhatListShows) {
  const fs::path root = project_copy();
  // A status of its own: the copy's path is the same on every run of this test.
  const std::vector<std::string> env = {"CUDALAB_ROOT=" + root.string(),
                                        "CUDALAB_CACHE_DIR=" + (root / "cache").string()};
  auto r = run_cli(CUDALAB_CLI, {"check", "2", "--backend", "sim", "--size", "99999"}, env);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.find("backend:"), std::string::npos) << "a size that matches nothing is found first: " << r.output;
  r = run_cli(CUDALAB_CLI, {"list"}, env);
  EXPECT_NE(list_line(r.output, "02_vector_add").find("not checked yet"), std::string::npos) << r.output;
  r = run_cli(CUDALAB_CLI, {"check", "2", "--backend", "sim", "--size", "1"}, env);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  r = run_cli(CUDALAB_CLI, {"list"}, env);
  EXPECT_NE(list_line(r.output, "02_vector_add").find("not checked yet"), std::string::npos) << r.output;
  r = run_cli(CUDALAB_CLI, {"check", "2", "--backend", "sim"}, env);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  r = run_cli(CUDALAB_CLI, {"list"}, env);
  EXPECT_NE(list_line(r.output, "02_vector_add").find("not implemented (sim)"), std::string::npos) << r.output;
}
#endif

#ifdef CUDALAB_HAVE_SIM
// The course path: `next` names the first exercise that does not pass, and moves on once it does.
TEST(Cli, NextNamesTheFirstExerciseThatDoesNotPass) {
  REQUIRE_SOLUTIONS();
  const fs::path root = project_copy();
  const std::vector<std::string> env = {"CUDALAB_ROOT=" + root.string(),
                                        "CUDALAB_CACHE_DIR=" + (root / "cache").string()};
  auto r = run_cli(CUDALAB_CLI, {"next"}, env);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("next: 01_increment"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("not checked yet"), std::string::npos) << r.output;
  // The student's 01 passes (the reference solution stands in for their work).
  fs::copy_file(root / "solutions/01_increment/kernel.cu", root / "exercises/01_increment/kernel.cu",
                fs::copy_options::overwrite_existing);
  r = run_cli(CUDALAB_CLI, {"check", "1", "--backend", "sim"}, env);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = run_cli(CUDALAB_CLI, {"next"}, env);
  EXPECT_NE(r.output.find("next: 02_vector_add"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("the exercises before it pass"), std::string::npos) << r.output;
  r = run_cli(CUDALAB_CLI, {"list"}, env);
  EXPECT_NE(list_line(r.output, "01_increment").find("passing (sim)"), std::string::npos) << r.output;
  EXPECT_NE(list_line(r.output, "03_matmul").find("shared-memory tiling"), std::string::npos) << r.output;
}
#endif

#ifdef CUDALAB_HAVE_SIM
// The check a student runs with no flags is the full one: a scan whose tile load reads past n
// (into slots whose sums nobody uses: the plain run is right every time) fails with the read's
// line; `--fast` passes it, and says the pass is a fast one in the table, the JSON, the JUnit
// report, `list` and `next`. (A race between blocks, the issue's `*sum +=`, may or may not show in
// a plain run on two host threads: the sanitize corpus has it, judged by the default check only.)
TEST(Cli, TheDefaultCheckFindsWhatAFastCheckPasses) {
  REQUIRE_FILE(fs::path(CUDALAB_SOURCE_DIR) / "tests/sanitize/11_scan/loads_past_n.cu");
  const fs::path root = project_copy();
  const std::vector<std::string> env = {"CUDALAB_ROOT=" + root.string(),
                                        "CUDALAB_CACHE_DIR=" + (root / "cache").string()};
  fs::copy_file(fs::path(CUDALAB_SOURCE_DIR) / "tests/sanitize/11_scan/loads_past_n.cu",
                root / "exercises/11_scan/kernel.cu", fs::copy_options::overwrite_existing);
  auto r = run_cli(CUDALAB_CLI, {"check", "11", "--backend", "sim", "--seed", "1", "--color", "never"}, env);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("11_scan          out of bounds"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("kernel.cu:13:"), std::string::npos) << r.output;  // the student's file, its line
  EXPECT_NE(r.output.find("check the index against the size"), std::string::npos) << r.output;

  const std::string junit = (root / "fast.xml").string();
  r = run_cli(CUDALAB_CLI, {"check", "11", "--backend", "sim", "--seed", "1", "--fast", "--junit", junit}, env);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("11_scan          passed (fast check)"), std::string::npos) << r.output;
  std::ifstream in(junit);
  const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(xml.find("<property name=\"full_check\" value=\"false\"/>"), std::string::npos) << xml;
  r = run_cli(CUDALAB_CLI, {"check", "11", "--backend", "sim", "--seed", "1", "--fast", "--json"}, env);
  const auto json = nlohmann::json::parse(r.output.substr(r.output.find("{\n")));
  EXPECT_FALSE(json["exercises"][0]["full_check"].get<bool>()) << r.output;
  r = run_cli(CUDALAB_CLI, {"list"}, env);
  EXPECT_NE(list_line(r.output, "11_scan").find("passed a fast check (sim): run the full check"), std::string::npos)
      << r.output;
  // --fast and --sanitize ask for opposite things.
  r = run_cli(CUDALAB_CLI, {"check", "11", "--fast", "--sanitize"}, env);
  EXPECT_EQ(r.exit_code, 2) << r.output;
}
#endif

TEST(Cli, UnknownExerciseNamesTheKnownOnes) {
  auto r = cli({"check", "99_nothing"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown exercise '99_nothing'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("03_matmul"), std::string::npos) << r.output;
}

TEST(Cli, MissingFileIsAUsageError) {
  auto r = cli({"check", "03_matmul", "--file", "/no/such/kernel.cu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("/no/such/kernel.cu"), std::string::npos) << r.output;
}

TEST(Cli, CheckNeedsAnExerciseOrAll) {
  auto r = cli({"check"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--all"), std::string::npos) << r.output;
}

TEST(Cli, FileNeedsExactlyOneExercise) {
  auto r = cli({"check", "--all", "--file", CUDALAB_SOURCE_DIR "/exercises/03_matmul/kernel.cu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("exactly one exercise"), std::string::npos) << r.output;
}

TEST(Cli, UnknownBackendIsRejected) {
  auto r = cli({"check", "1", "--backend", "tpu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("tpu"), std::string::npos) << r.output;
}

TEST(Cli, LadderTakesNoFile) {
  auto r = cli({"bench", "3", "--ladder", "--file", CUDALAB_SOURCE_DIR "/exercises/03_matmul/kernel.cu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--ladder"), std::string::npos) << r.output;
}

// --color is chosen the same way on every command whose report is coloured on a terminal: check,
// explain, and bench (its --profile report). Any other value is a usage error that names the three.
TEST(Cli, ColourIsChosenTheSameWayOnEveryCommandThatPaints) {
  for (const char* command : {"check", "explain", "bench"}) {
    auto r = cli({command, "1", "--color", "sometimes"});
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.output;
    EXPECT_NE(r.output.find("--color: sometimes not in {auto,always,never}"), std::string::npos)
        << command << ": " << r.output;
    r = cli({command, "--help"});
    EXPECT_NE(r.output.find("--color TEXT:{auto,always,never}=auto"), std::string::npos) << command << ": " << r.output;
  }
}

// --solution measures solutions/NAME/kernel.cu, not the exercise's skeleton (which would fail
// as "not implemented"). Needs a GPU: `cudalab bench` refuses to time the simulator.
TEST(Cli, BenchOfTheSolutionMeasuresTheReferenceSolution) {
  REQUIRE_SOLUTIONS();
  auto r =
      cli({"bench", "1", "--solution", "--no-cpu", "--no-reference", "--size", "100000", "--time-cap", "1", "--csv"});
  if (r.output.find("there is none here") != std::string::npos) GTEST_SKIP() << "no GPU: " << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("not measured"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("01_increment,"), std::string::npos) << r.output;
}

// Two kernels of one exercise in turns: the tiled matmul against the naive one is FASTER, the other
// way round SLOWER, and a file against itself never FASTER or SLOWER. Without a GPU: exit 2, saying so.
TEST(Cli, BenchCompareTellsWhichOfTwoKernelsIsFaster) {
  REQUIRE_SOLUTIONS();
  const std::string naive = CUDALAB_SOURCE_DIR "/solutions/03_matmul/step1_naive.cu";
  const std::string tiled = CUDALAB_SOURCE_DIR "/solutions/03_matmul/step3_register_blocking.cu";
  auto r = cli({"bench", "3", "--compare", naive, tiled, "--size", "1024", "--time-cap", "2"});
  if (r.output.find("there is none here") != std::string::npos) {
    EXPECT_EQ(r.exit_code, 2) << r.output;
    GTEST_SKIP() << "no GPU: " << r.output;
  }
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\nFASTER: B takes "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("timed in turns"), std::string::npos) << r.output;
  // The naive step uses no shared memory, as 03_matmul requires: timed all the same, and said.
  EXPECT_NE(r.output.find("note: A, requirement not met: "), std::string::npos) << r.output;
  r = cli({"bench", "3", "--compare", tiled, naive, "--size", "1024", "--time-cap", "2"});
  EXPECT_NE(r.output.find("\nSLOWER: B takes "), std::string::npos) << r.output;
  r = cli({"bench", "3", "--compare", tiled, tiled, "--size", "1024", "--time-cap", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(r.output.find("\nSAME: ") != std::string::npos || r.output.find("\nUNSURE: ") != std::string::npos)
      << r.output;
}

TEST(Cli, BenchCompareNamesOneExerciseAndTwoFiles) {
  auto r = cli({"bench", "--all", "--compare", "a.cu", "b.cu"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--compare A B times two kernels of one exercise"), std::string::npos) << r.output;
  r = cli({"bench", "3", "--compare", CUDALAB_SOURCE_DIR "/exercises/03_matmul/kernel.cu", "no-such.cu"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no-such.cu not found"), std::string::npos) << r.output;
  r = cli({"bench", "3", "--compare", "a.cu"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

// Without a GPU, --profile says what it needs and what counts the same without one; with a GPU,
// its JSON sets both sides of every kernel beside each other (or says why there are no counters).
TEST(Cli, ProfileNeedsAGpuAndNamesExplainWithoutOne) {
  REQUIRE_SOLUTIONS();
  auto r = cli({"bench", "9", "--solution", "--profile", "--json"});
  if (r.output.find("there is none here") == std::string::npos) {
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 2) << r.output;
    const auto json_start = r.output.find("{\n");
    ASSERT_NE(json_start, std::string::npos) << r.output;
    const auto j = nlohmann::json::parse(r.output.substr(json_start, r.output.rfind('}') - json_start + 1));
    const auto& p = j["profiles"][0];
    if (r.exit_code == 2) {
      EXPECT_FALSE(p["problem"].get<std::string>().empty()) << r.output;
    } else {
      EXPECT_EQ(p["kernels"][0]["kernel"], "transpose_tiles") << r.output;
      EXPECT_TRUE(p["kernels"][0]["differ"].empty()) << r.output;
    }
    return;
  }
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--profile reads a GPU's counters"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("`cudalab explain` counts the same on the CPU simulator"), std::string::npos) << r.output;
}

TEST(Cli, Tf32IsOnlyForExercisesWithATensorCoreTier) {
  auto r = cli({"check", "5", "--solution", "--tf32"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("05_reduce has no TF32 tier"), std::string::npos) << r.output;
}

TEST(Cli, Tf32OnTheSimulatorSaysItNeedsAGpu) {
  auto r = cli({"check", "3", "--solution", "--tf32", "--backend", "sim"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--tf32 needs a GPU"), std::string::npos) << r.output;
}

// The smallest sizes can point the wrong way (a copy of n bytes in, at n = 1, looks like an element
// incremented twice); the hint most failing sizes give then gets a line of its own.
TEST(Cli, TheHintOfMostFailingSizesIsShownWhenTheFirstSizesMislead) {
  const std::string path = testing::TempDir() + "cudalab-copy-in-bytes.cu";
  std::ofstream(path) << R"(#include <cuda_runtime.h>
__global__ void inc(int* d, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) d[i] += 1; }
void solve(int* data, int n) {
  int* d; cudaMalloc(&d, n * sizeof(int));
  cudaMemcpy(d, data, n, cudaMemcpyHostToDevice);
  inc<<<(n + 255) / 256, 256>>>(d, n);
  cudaMemcpy(data, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
}
)";
  // The plain run's hints (--fast): the one most failing sizes give has a line of its own. (Seed 2:
  // its n = 1 input has non-zero upper bytes, which a one-byte copy loses.)
  auto r = cli({"check", "1", "--file", path, "--backend", "sim", "--seed", "2", "--color", "never", "--fast"});
  if (r.output.find("no CPU simulator") != std::string::npos) GTEST_SKIP() << "this build has no simulator";
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("incremented more than once"), std::string::npos) << r.output;  // n = 1 misleads
  EXPECT_TRUE(
      std::regex_search(r.output, std::regex(R"(hint: at \d+ of the \d+ failing sizes: .*cudaMemcpy counts bytes)")))
      << r.output;
  // The default check's checked run names the cause where it shows: device memory read before the
  // copy (of n bytes) wrote it.
  r = cli({"check", "1", "--file", path, "--backend", "sim", "--seed", "2", "--color", "never"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("uninitialised read at n=2"), std::string::npos) << r.output;
}

// A launch the GPU refuses is named with its grid and the usual cause (the simulator records it).
TEST(Cli, ARefusedLaunchIsNamedWithItsGridAndCause) {
  REQUIRE_FILE(fs::path(CUDALAB_SOURCE_DIR) / "tests/wrong/01_increment/blocks_rounded_down.cu");
  auto r = cli({"check", "1", "--file", CUDALAB_SOURCE_DIR "/tests/wrong/01_increment/blocks_rounded_down.cu",
                "--backend", "sim", "--seed", "1", "--color", "never"});
  if (r.output.find("no CPU simulator") != std::string::npos) GTEST_SKIP() << "this build has no simulator";
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cudaErrorInvalidConfiguration at n=1: increment_by_one<<<(0,1,1), (256,1,1)>>> failed: "
                          "a grid of 0 blocks"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("the runtime still reported cudaErrorInvalidConfiguration"), std::string::npos) << r.output;
}

TEST(Cli, ADeviceAssertEndsItsKernelAsOnAGpuAndAHostAssertAborts) {
  const fs::path dir = test_dir("assert");
  const std::string kernel = R"(#include <cassert>
#include <cuda_runtime.h>
__global__ void increment_by_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(i < n);
  data[i] += 1;
}
void solve(int* data, int n) {
  assert(HOST_CONDITION);
  int* d = nullptr;
  cudaMalloc(&d, n * sizeof(int));
  cudaMemcpy(d, data, n * sizeof(int), cudaMemcpyHostToDevice);
  increment_by_one<<<(n + 255) / 256, 256>>>(d, n);
  cudaMemcpy(data, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
}
)";
  const auto write = [&](const std::string& name, const std::string& host_condition) {
    std::string text = kernel;
    text.replace(text.find("HOST_CONDITION"), std::string("HOST_CONDITION").size(), host_condition);
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  auto device = cli({"check", "1", "--file", write("device.cu", "n > 0"), "--backend", "sim", "--fast", "--seed", "1",
                     "--color", "never"});
  if (device.output.find("no CPU simulator") != std::string::npos) GTEST_SKIP() << "this build has no simulator";
  EXPECT_EQ(device.exit_code, 1) << device.output;
  EXPECT_NE(device.output.find("cudaErrorAssert at n=1: device-side assert triggered"), std::string::npos)
      << device.output;
  EXPECT_NE(device.output.find("assert(i < n) failed (device.cu:5)"), std::string::npos) << device.output;
  // In host code assert aborts the process, as it does beside a GPU.
  auto host = cli({"check", "1", "--file", write("host.cu", "n < 0"), "--backend", "sim", "--fast", "--seed", "1",
                   "--color", "never"});
  EXPECT_EQ(host.exit_code, 1) << host.output;
  EXPECT_NE(host.output.find("crashed"), std::string::npos) << host.output;
  EXPECT_NE(host.output.find("Assertion `n < 0' failed"), std::string::npos) << host.output;
}

TEST(Cli, JunitReportNamesEveryCheckAndItsFailure) {
  REQUIRE_FILE(fs::path(CUDALAB_SOURCE_DIR) / "tests/wrong/01_increment/grid_too_small.cu");
  const std::string path = testing::TempDir() + "cudalab-junit.xml";
  auto r = cli({"check", "1", "--file", CUDALAB_SOURCE_DIR "/tests/wrong/01_increment/grid_too_small.cu", "--backend",
                "sim", "--seed", "5", "--junit", path, "--color", "never"});
  if (r.output.find("no CPU simulator") != std::string::npos) GTEST_SKIP() << "this build has no simulator";
  EXPECT_EQ(r.exit_code, 1) << r.output;
  std::ifstream in(path);
  const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\"", 0), 0u);
  EXPECT_NE(xml.find("<testsuite name=\"01_increment\" tests=\"17\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"01_increment\" name=\"n=1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure type=\"wrong_output\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("does your grid cover all n elements?"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("<<<"), std::string::npos) << "unescaped markup in " << xml;
}

TEST(Cli, FormatGccAndSarifPlaceARaceOnItsLine) {
  const fs::path racy = fs::path(CUDALAB_SOURCE_DIR) / "tests/sanitize/03_matmul/missing_first_sync.cu";
  REQUIRE_FILE(racy);
  // The corpus file's first line says where the race is: "// finding: data_race | 18 | …".
  std::ifstream in(racy);
  std::string first;
  std::getline(in, first);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(first, m, std::regex(R"(finding: data_race \| (\d+) \|)"))) << first;
  const std::string line = m[1].str();
  // The file as the lines name it: relative to the working folder where it lies inside it.
  const fs::path relative = racy.lexically_relative(fs::current_path());
  const std::string shown = !relative.empty() && *relative.begin() != ".." ? relative.string() : racy.string();
  const fs::path dir = test_dir("sarif");
  const fs::path sarif = dir / "check.sarif";
  auto r = cli({"check", "3", "--file", racy.string(), "--backend", "sim", "--seed", "5", "--format", "gcc", "--sarif",
                sarif.string()});
  if (r.output.find("no CPU simulator") != std::string::npos) GTEST_SKIP() << "this build has no simulator";
  EXPECT_EQ(r.exit_code, 1) << r.output;
  // Only GCC's lines: each one `file:line:col: severity: message [rule]`, the race at its line.
  std::istringstream lines(r.output);
  std::string text;
  bool race_placed = false;
  while (std::getline(lines, text)) {
    EXPECT_TRUE(std::regex_match(text, std::regex(R"(.+:\d+:\d+: (error|warning|note): .+ \[[a-z_]+\])"))) << text;
    race_placed |= text.starts_with(shown + ":" + line + ":1: error: data race at ");
  }
  EXPECT_TRUE(race_placed) << r.output;
  EXPECT_EQ(r.output.find("backend:"), std::string::npos) << "--format gcc prints the lines alone:\n" << r.output;

  // The SARIF log holds the same race at the same line, and validates against SARIF 2.1.0's schema.
  std::ifstream log_in(sarif);
  const nlohmann::json log = nlohmann::json::parse(log_in);
  bool in_log = false;
  for (const auto& result : log["runs"][0]["results"]) {
    const auto& region = result["locations"][0]["physicalLocation"]["region"];
    in_log |= result["ruleId"] == "data_race" && region["startLine"] == std::stoi(line);
  }
  EXPECT_TRUE(in_log) << log.dump(2);
  const std::string python = CUDALAB_PYTHON;
  if (python.empty() || !fs::exists(python)) {
    GTEST_SKIP() << "no Python here (" << python << "): the log was not validated against the schema";
  }
  const fs::path validate = fs::path(CUDALAB_SOURCE_DIR) / "tests/schemas/validate.py";
  const fs::path schema = fs::path(CUDALAB_SOURCE_DIR) / "tests/schemas/sarif-schema-2.1.0.json";
  ProcessOptions opts;
  opts.argv = {python, validate.string(), schema.string(), sarif.string()};
  const ProcessResult valid = run_process(opts);
  if (valid.exit_code == 77) GTEST_SKIP() << valid.output;
  EXPECT_EQ(valid.exit_code, 0) << valid.output;
  // The validator is no rubber stamp: a level SARIF does not have is refused.
  nlohmann::json broken = log;
  broken["runs"][0]["results"][0]["level"] = "fatal";
  std::ofstream(dir / "broken.sarif") << broken.dump();
  opts.argv.back() = (dir / "broken.sarif").string();
  const ProcessResult refused = run_process(opts);
  EXPECT_EQ(refused.exit_code, 1) << refused.output;
  EXPECT_NE(refused.output.find("level"), std::string::npos) << refused.output;
}

TEST(Cli, InCiTheReportIsFollowedByGccsLines) {
  const fs::path wrong = fs::path(CUDALAB_SOURCE_DIR) / "tests/wrong/01_increment/grid_too_small.cu";
  REQUIRE_FILE(wrong);
  auto r = run_cli(CUDALAB_CLI, {"check", "1", "--file", wrong.string(), "--backend", "sim", "--color", "never"},
                   {"CI=true"});
  if (r.output.find("no CPU simulator") != std::string::npos) GTEST_SKIP() << "this build has no simulator";
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const auto report = r.output.find("01_increment  (");
  const auto gcc = r.output.find("in GCC's form, for CI (CI is set):");
  ASSERT_NE(report, std::string::npos) << r.output;
  ASSERT_NE(gcc, std::string::npos) << r.output;
  EXPECT_LT(report, gcc) << r.output;
  const fs::path relative = wrong.lexically_relative(fs::current_path());
  const std::string shown = !relative.empty() && *relative.begin() != ".." ? relative.string() : wrong.string();
  EXPECT_NE(r.output.find(shown + ":", gcc), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(": error: wrong output at n=", gcc), std::string::npos) << r.output;
  // Outside CI, the report alone.
  r = run_cli(CUDALAB_CLI, {"check", "1", "--file", wrong.string(), "--backend", "sim", "--color", "never"}, {"CI="});
  EXPECT_EQ(r.output.find("in GCC's form"), std::string::npos) << r.output;
}

TEST(Cli, UnwritableJunitPathKeepsTheReportAndExitsTwo) {
  REQUIRE_SOLUTIONS();
  auto r = cli({"check", "1", "--solution", "--backend", "sim", "--size", "1", "--junit", "/no/such/dir/report.xml"});
  if (r.output.find("no CPU simulator") != std::string::npos) GTEST_SKIP() << "this build has no simulator";
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("01_increment     passed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cannot write the JUnit report to /no/such/dir/report.xml"), std::string::npos) << r.output;
}

/// `cudalab check --watch` running in the background: its output read as it comes, through a pipe.
class WatchedCheck {
 public:
  WatchedCheck(const std::vector<std::string>& args, const std::string& watch_mode) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], STDOUT_FILENO);
      dup2(fds[1], STDERR_FILENO);
      setenv("CUDALAB_CACHE_DIR", CUDALAB_TEST_CACHE_DIR, 1);
      if (watch_mode.empty())
        unsetenv("CUDALAB_WATCH");
      else
        setenv("CUDALAB_WATCH", watch_mode.c_str(), 1);
      std::vector<char*> argv{const_cast<char*>(CUDALAB_CLI)};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(fds[1]);
    out_ = fds[0];
  }
  ~WatchedCheck() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    close(out_);
  }
  WatchedCheck(const WatchedCheck&) = delete;
  WatchedCheck& operator=(const WatchedCheck&) = delete;

  /// Reads until `text` appears after `from` in the output (true) or 90 s pass or the output ends
  /// (false). Returns where it starts through `at`.
  bool wait_for(const std::string& text, std::size_t from, std::size_t& at) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    while ((at = output.find(text, from)) == std::string::npos) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{out_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buffer[4096];
      const ssize_t n = read(out_, buffer, sizeof buffer);
      if (n <= 0) return false;
      output.append(buffer, static_cast<std::size_t>(n));
    }
    return true;
  }
  /// Sends `signal` and waits for the exit; the exit code (128 + signal where one ended it).
  int stop_with(int signal) {
    kill(pid_, signal);
    int status = 0;
    waitpid(pid_, &status, 0);
    reaped_ = true;
    for (char buffer[4096];;) {  // what it printed on the way out
      const ssize_t n = read(out_, buffer, sizeof buffer);
      if (n <= 0) break;
      output.append(buffer, static_cast<std::size_t>(n));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  std::string output;  ///< everything read so far

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  bool reaped_ = false;
};

class CliWatch : public testing::TestWithParam<std::string> {};

TEST_P(CliWatch, ChecksAgainAtEverySaveVerdictFirstAndCtrlCLeavesCleanly) {
  REQUIRE_SOLUTIONS();
  const fs::path dir = test_dir("watch-" + (GetParam().empty() ? std::string("inotify") : GetParam()));
  const fs::path file = dir / "kernel.cu";
  fs::copy_file(fs::path(CUDALAB_SOURCE_DIR) / "exercises/01_increment/kernel.cu", file);
  WatchedCheck watched(
      {"check", "1", "--file", file.string(), "--watch", "--backend", "sim", "--fast", "--color", "never"}, GetParam());
  std::size_t at = 0;
  if (!watched.wait_for("watching " + file.string(), 0, at)) {
    if (watched.output.find("no CPU simulator") != std::string::npos) GTEST_SKIP() << "this build has no simulator";
    FAIL() << "no first check:\n" << watched.output;
  }
  EXPECT_NE(watched.output.find("01_increment: not implemented (0/"), std::string::npos) << watched.output;
  EXPECT_NE(watched.output.find(GetParam() == "poll" ? "(polling every" : "(inotify and polling every", 0),
            std::string::npos)
      << watched.output;

  // The student saves a solved file: checked again, the verdict line first.
  const std::size_t second = watched.output.size();
  {
    std::ofstream(file, std::ios::trunc)
        << std::ifstream(fs::path(CUDALAB_SOURCE_DIR) / "solutions/01_increment/kernel.cu").rdbuf();
  }
  ASSERT_TRUE(watched.wait_for("watching " + file.string(), second, at)) << watched.output;
  const std::string round = watched.output.substr(second);
  const auto verdict = round.find("01_increment: passed (");
  ASSERT_NE(verdict, std::string::npos) << round;
  EXPECT_LT(verdict, round.find("backend: sim")) << "the verdict line comes first:\n" << round;
  EXPECT_NE(round.find("01_increment     passed"), std::string::npos) << "then the report:\n" << round;

  // Ctrl-C: the watch ends, saying so, with the last check's exit code.
  EXPECT_EQ(watched.stop_with(SIGINT), 0) << watched.output;
  EXPECT_NE(watched.output.find("stopped watching " + file.string()), std::string::npos) << watched.output;
}

INSTANTIATE_TEST_SUITE_P(Modes, CliWatch, testing::Values("", "poll"),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param.empty() ? std::string("inotify") : info.param;
                         });

TEST(Cli, WatchTakesOneExerciseAndTheReport) {
  auto r = cli({"check", "--all", "--watch"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--watch needs exactly one exercise"), std::string::npos) << r.output;
  r = cli({"check", "1", "--watch", "--json"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--watch shows the report"), std::string::npos) << r.output;
}

TEST(Cli, HelpExplainsExitCodes) {
  auto r = cli({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("Exit codes"), std::string::npos);
  EXPECT_NE(r.output.find("check"), std::string::npos);
}

TEST(Cli, ListShowsEveryExerciseByFolder) {
  auto r = cli({"list"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::size_t listed = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(CUDALAB_SOURCE_DIR) / "exercises")) {
    const std::string id = entry.path().filename().string();
    if (!fs::exists(entry.path() / "task.cpp")) continue;
    EXPECT_NE(r.output.find(id), std::string::npos) << id;
    ++listed;
  }
  EXPECT_GE(listed, 5u);
}

TEST(Cli, InitCopiesTheExercisesIntoAFolderOfTheStudentsAndNeverOverwrites) {
  const fs::path dir = test_dir("init") / "my course";
  auto r = cli({"init", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::size_t exercises = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(CUDALAB_SOURCE_DIR) / "exercises")) {
    if (!fs::exists(entry.path() / "task.cpp")) continue;
    const fs::path mine = dir / "exercises" / entry.path().filename();
    EXPECT_TRUE(fs::exists(mine / "kernel.cu")) << mine;
    EXPECT_TRUE(fs::exists(mine / "README.md")) << mine;
    EXPECT_FALSE(fs::exists(mine / "task.cpp")) << "the trusted side stays out of the student's copy";
    ++exercises;
  }
  EXPECT_NE(r.output.find(std::to_string(exercises) + " exercises copied"), std::string::npos) << r.output;

  // cudalab works on the copy: a change there is what `check` sees, and the project's is untouched.
  { std::ofstream(dir / "exercises/01_increment/kernel.cu") << "void solve(int* data, int n) { int x = ; }\n"; }
  r = run_cli(CUDALAB_CLI, {"check", "1", "--backend", "sim"}, {"CUDALAB_ROOT=" + dir.string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("does not compile"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("my course/exercises/01_increment/kernel.cu"), std::string::npos) << r.output;

  // A second init would overwrite that work: refused in one line, the file as the student left it.
  r = cli({"init", dir.string()});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("already holds exercises"), std::string::npos) << r.output;
  std::ifstream kept(dir / "exercises/01_increment/kernel.cu");
  EXPECT_NE(std::string(std::istreambuf_iterator<char>(kept), {}).find("int x = ;"), std::string::npos);
}

#ifdef CUDALAB_HAVE_SIM
// A machine that cannot compile is never the student's fault: an unusable module cache, a missing
// compiler and a full disk each stop `check` with one line naming the cause and exit code 2, and
// the file is never called one that "does not compile".
TEST(Cli, AModuleCacheThatCannotBeWrittenStopsTheCheckWithItsCause) {
  REQUIRE_SOLUTIONS();
  const fs::path dir = test_dir("cache");
  std::ofstream(dir / "a-file") << "not a folder\n";
  const auto r = run_cli(CUDALAB_CLI, {"check", "1", "--solution", "--backend", "sim", "--color", "never"},
                         {"CUDALAB_CACHE_DIR=" + (dir / "a-file" / "cache").string()});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("cudalab: cannot create the module cache " + (dir / "a-file" / "cache").string()),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("set CUDALAB_CACHE_DIR to a folder cudalab can write"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("does not compile"), std::string::npos) << r.output;
}

TEST(Cli, AMissingCompilerStopsTheCheckWithItsCause) {
  REQUIRE_SOLUTIONS();
  const auto r = run_cli(CUDALAB_CLI, {"check", "1", "--solution", "--backend", "sim", "--color", "never"},
                         {"CUDALAB_CXX=/nonexistent/bin/g++"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("cudalab: the CPU simulator cannot run here: no host C++ compiler found"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("does not compile"), std::string::npos) << r.output;
}

TEST(Cli, AFullDiskStopsTheCheckWithItsCause) {
  REQUIRE_SOLUTIONS();
  const fs::path cache = test_dir("disk") / "cache";
  fs::create_directories(cache);
  // 64 KiB: room for the cache's probe file, not for a compiled module.
  const auto r = testing_support::with_small_disk(cache, "64k",
                                                  "CUDALAB_CACHE_DIR='" + cache.string() + "' '" + CUDALAB_CLI +
                                                      "' check 1 --solution --backend sim --color never 2>&1");
  if (!r) GTEST_SKIP() << "this machine lets no test make a mount namespace of its own (unshare -rm)";
  EXPECT_EQ(r->exit_code, 2) << r->output;
  EXPECT_NE(r->output.find("cudalab: " + (cache / "sim").string() + " has only"), std::string::npos) << r->output;
  EXPECT_NE(r->output.find("bytes free, too few to compile: free some space"), std::string::npos) << r->output;
  EXPECT_EQ(r->output.find("does not compile"), std::string::npos) << r->output;
}
#endif

}  // namespace
}  // namespace cudalab
