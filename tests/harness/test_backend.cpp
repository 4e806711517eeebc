// Choosing the backend in-process: the line each choice prints, and set-up errors that name what
// is missing (a GPU, a runner, the simulator's library) instead of blaming student code.
#include <filesystem>

#include <gtest/gtest.h>

#include "cudalab/backend.hpp"
#include "cudalab/paths.hpp"

namespace cudalab {
namespace {

namespace fs = std::filesystem;

// The test's cudalab was built beside its runners and the simulator's library.
ToolchainConfig built_config() {
  ToolchainConfig config;
  config.cache_dir = fs::path(CUDALAB_TEST_CACHE_DIR);
  config.runner_dir = fs::path(CUDALAB_CLI).parent_path();
  return config;
}

/// An empty folder in place of the build's programs: an installation without its runners.
ToolchainConfig config_without_runners(const std::string& name) {
  ToolchainConfig config = built_config();
  config.runner_dir = fs::path(testing::TempDir()) / ("cudalab-no-runners-" + name);
  fs::remove_all(config.runner_dir);
  fs::create_directories(config.runner_dir);
  return config;
}

bool gpu_usable() {
  std::string why;
  return make_gpu_toolchain(built_config())->available(why);
}

TEST(Backend, ParsesTheThreeRequests) {
  EXPECT_EQ(parse_backend_request("auto"), BackendRequest::automatic);
  EXPECT_EQ(parse_backend_request("gpu"), BackendRequest::gpu);
  EXPECT_EQ(parse_backend_request("sim"), BackendRequest::sim);
  EXPECT_THROW(parse_backend_request("tpu"), UsageError);
}

#ifdef CUDALAB_HAVE_SIM
TEST(Backend, SimForcedIsTheSimulatorWithNoExcuse) {
  const BackendChoice c = choose_backend(BackendRequest::sim, built_config());
  ASSERT_NE(c.toolchain, nullptr);
  EXPECT_EQ(c.toolchain->backend(), Backend::sim);
  EXPECT_EQ(c.line.rfind("backend: sim (", 0), 0u) << c.line;
  EXPECT_NE(c.line.find("CPU simulator"), std::string::npos) << c.line;
  // Nobody asked about the GPU: nothing to say about it.
  EXPECT_EQ(c.line.find("using the CPU simulator"), std::string::npos) << c.line;
  EXPECT_TRUE(c.gpu_problem.empty()) << c.gpu_problem;
}

TEST(Backend, AutoWithoutAGpuSaysSoPlainly) {
  if (nvidia_gpu_visible()) GTEST_SKIP() << "this machine shows an NVIDIA GPU";
  const BackendChoice c = choose_backend(BackendRequest::automatic, built_config());
  ASSERT_NE(c.toolchain, nullptr);
  EXPECT_EQ(c.toolchain->backend(), Backend::sim);
  EXPECT_EQ(c.line.rfind("backend: sim (", 0), 0u) << c.line;
  const std::string plain = "; no NVIDIA GPU found: using the CPU simulator";
  ASSERT_GE(c.line.size(), plain.size());
  EXPECT_EQ(c.line.substr(c.line.size() - plain.size()), plain) << c.line;
  EXPECT_EQ(c.line.find("CUDA driver"), std::string::npos) << c.line;
  // CUDA's own words stay available for --verbose.
  EXPECT_FALSE(c.gpu_problem.empty());
}

TEST(Backend, SimWithoutItsRunnerIsASetUpErrorNamingTheRunner) {
  const ToolchainConfig config = config_without_runners("sim");
  try {
    (void)choose_backend(BackendRequest::sim, config);
    FAIL() << "a simulator without its runner was chosen";
  } catch (const SetupError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find((config.runner_dir / "cudalab-runner-sim").string()), std::string::npos) << what;
    EXPECT_NE(what.find("reinstall cudalab"), std::string::npos) << what;
  }
}

TEST(Backend, SimWithoutItsLibraryIsASetUpErrorNamingTheLibrary) {
  const ToolchainConfig config = config_without_runners("sim-lib");
  fs::copy_file(built_config().runner_dir / "cudalab-runner-sim", config.runner_dir / "cudalab-runner-sim");
  std::string why;
  EXPECT_FALSE(make_sim_toolchain(config)->available(why));
  EXPECT_NE(why.find((config.runner_dir / "libcudalab_sim.so").string()), std::string::npos) << why;
  EXPECT_THROW((void)choose_backend(BackendRequest::sim, config), SetupError);
}

TEST(Backend, AutoWithNeitherBackendNamesBothProblems) {
  if (nvidia_gpu_visible()) GTEST_SKIP() << "this machine shows an NVIDIA GPU";
  try {
    (void)choose_backend(BackendRequest::automatic, config_without_runners("auto"));
    FAIL() << "a backend was chosen without runners";
  } catch (const SetupError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("no NVIDIA GPU found, and the CPU simulator cannot run here", 0), 0u) << what;
    EXPECT_NE(what.find("cudalab-runner-sim"), std::string::npos) << what;
  }
}
#endif

TEST(Backend, GpuForcedWithoutAGpuKeepsCudasReasonAndNamesTheSimulator) {
  if (gpu_usable()) GTEST_SKIP() << "a GPU is usable here";
  try {
    (void)choose_backend(BackendRequest::gpu, built_config());
    FAIL() << "--backend gpu was accepted without a usable GPU";
  } catch (const SetupError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("--backend gpu: ", 0), 0u) << what;
    EXPECT_NE(what.find("--backend sim"), std::string::npos) << what;
    std::string raw;
    (void)make_gpu_toolchain(built_config())->available(raw);
    EXPECT_NE(what.find(raw), std::string::npos) << "the raw reason \"" << raw << "\" is lost: " << what;
  }
}

TEST(Backend, GpuWithoutItsRunnerNamesTheRunner) {
  std::string why;
  const ToolchainConfig config = config_without_runners("gpu");
  EXPECT_FALSE(make_gpu_toolchain(config)->available(why));
  if (why.find("nvcc was not found") != std::string::npos) GTEST_SKIP() << "no nvcc here: " << why;
  EXPECT_TRUE(why.find((config.runner_dir / "cudalab-runner-gpu").string()) != std::string::npos ||
              why.find("no GPU backend") != std::string::npos)
      << why;
}

TEST(Backend, GpuProblemInWordsHidesCudasMessageOnlyWithoutAGpu) {
  const std::string raw = "no usable CUDA device (CUDA driver version is insufficient for CUDA runtime version)";
  EXPECT_EQ(gpu_problem_in_words(raw), nvidia_gpu_visible() ? raw : "no NVIDIA GPU found");
}

}  // namespace
}  // namespace cudalab
