// The CLI's usage and set-up errors: one clear line and exit code 2.
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "cudalab/process.hpp"

namespace cudalab {
namespace {

ProcessResult cli(std::vector<std::string> args) {
  // Compiled modules and `list`'s status go to the build folder, not the user's cache.
  static const bool cache_set = [] { return setenv("CUDALAB_CACHE_DIR", CUDALAB_TEST_CACHE_DIR, 1) == 0; }();
  (void)cache_set;
  ProcessOptions opts;
  opts.argv = {CUDALAB_CLI};
  opts.argv.insert(opts.argv.end(), args.begin(), args.end());
  opts.timeout = std::chrono::seconds(60);
  return run_process(opts);
}

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
  auto r = cli({"check", "--all", "--file", CUDALAB_SOURCE_DIR "/solutions/03_matmul/kernel.cu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("exactly one exercise"), std::string::npos) << r.output;
}

TEST(Cli, UnknownBackendIsRejected) {
  auto r = cli({"check", "1", "--backend", "tpu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("tpu"), std::string::npos) << r.output;
}

TEST(Cli, LadderTakesNoFile) {
  auto r = cli({"bench", "3", "--ladder", "--file", CUDALAB_SOURCE_DIR "/solutions/03_matmul/kernel.cu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--ladder"), std::string::npos) << r.output;
}

// --solution measures solutions/NAME/kernel.cu, not the exercise's skeleton (which would fail
// as "not implemented"). Needs a GPU: `cudalab bench` refuses to time the simulator.
TEST(Cli, BenchOfTheSolutionMeasuresTheReferenceSolution) {
  auto r =
      cli({"bench", "1", "--solution", "--no-cpu", "--no-reference", "--size", "100000", "--time-cap", "1", "--csv"});
  if (r.output.find("there is none here") != std::string::npos) GTEST_SKIP() << "no GPU: " << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("not measured"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("01_increment,"), std::string::npos) << r.output;
}

TEST(Cli, Tf32IsOnlyForExercisesWithATensorCoreTier) {
  auto r = cli({"check", "5", "--solution", "--tf32"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("05_reduce has no TF32 tier"), std::string::npos) << r.output;
}

TEST(Cli, JunitReportNamesEveryCheckAndItsFailure) {
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

TEST(Cli, UnwritableJunitPathKeepsTheReportAndExitsTwo) {
  auto r = cli({"check", "1", "--solution", "--backend", "sim", "--size", "1", "--junit", "/no/such/dir/report.xml"});
  if (r.output.find("no CPU simulator") != std::string::npos) GTEST_SKIP() << "this build has no simulator";
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("01_increment     passed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cannot write the JUnit report to /no/such/dir/report.xml"), std::string::npos) << r.output;
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
  for (const char* id : {"01_increment", "02_vector_add", "03_matmul", "04_normalize", "05_reduce"}) {
    EXPECT_NE(r.output.find(id), std::string::npos) << id;
  }
}

}  // namespace
}  // namespace cudalab
