// The sim toolchain as the harness uses it: availability, diagnostics that name the student's
// file and line, the module cache.
#include <gtest/gtest.h>

#include <filesystem>

#include "sim_module.hpp"

namespace cudalab::sim::test {
namespace {

namespace fs = std::filesystem;

fs::path kernel(const char* name) { return fs::path(CUDALAB_SIM_TEST_KERNELS) / name; }

TEST(SimToolchain, AvailableWithRunnerBesideTheRuntime) {
  auto tc = make_sim_toolchain(test_config());
  std::string why;
  EXPECT_TRUE(tc->available(why)) << why;
  EXPECT_EQ(tc->backend(), Backend::sim);
  EXPECT_EQ(tc->runner(), fs::path(CUDALAB_SIM_RUNNER_DIR) / "cudalab-runner-sim");
  EXPECT_NE(tc->describe().find("CPU simulator"), std::string::npos) << tc->describe();
}

TEST(SimToolchain, CompilerErrorsPointAtTheStudentsLine) {
  auto tc = make_sim_toolchain(test_config());
  const fs::path src = kernel("compile_error.cu");
  const CompileResult r = tc->compile(src);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find(src.string() + ":14:"), std::string::npos) << r.diagnostics;
  EXPECT_NE(r.diagnostics.find("undeclared_identifier"), std::string::npos) << r.diagnostics;
  EXPECT_FALSE(r.command.empty());
}

TEST(SimToolchain, TranslatorErrorsPointAtTheStudentsLine) {
  auto tc = make_sim_toolchain(test_config());
  const fs::path src = kernel("translate_error.cu");
  const CompileResult r = tc->compile(src);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.diagnostics.rfind(src.string() + ":5:", 0), 0u) << r.diagnostics;
}

TEST(SimToolchain, MissingFileIsAnErrorNotAThrow) {
  auto tc = make_sim_toolchain(test_config());
  const CompileResult r = tc->compile(kernel("no_such_file.cu"));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("no_such_file.cu"), std::string::npos);
}

TEST(SimToolchain, SecondCompileComesFromTheCache) {
  auto tc = make_sim_toolchain(test_config());
  const CompileResult first = tc->compile(kernel("blocks.cu"));
  ASSERT_TRUE(first.ok) << first.diagnostics;
  const CompileResult second = tc->compile(kernel("blocks.cu"));
  ASSERT_TRUE(second.ok);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(first.module, second.module);
  // Another cache directory: compiled again.
  ToolchainConfig other = test_config();
  other.cache_dir = fs::path(CUDALAB_SIM_TEST_CACHE) / "other";
  fs::remove_all(other.cache_dir);
  const CompileResult third = make_sim_toolchain(other)->compile(kernel("blocks.cu"));
  ASSERT_TRUE(third.ok);
  EXPECT_FALSE(third.cached);
}

}  // namespace
}  // namespace cudalab::sim::test
