// The CLI's usage and set-up errors: one clear line and exit code 2.
#include <gtest/gtest.h>

#include "cudalab/process.hpp"

namespace cudalab {
namespace {

ProcessResult cli(std::vector<std::string> args) {
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
