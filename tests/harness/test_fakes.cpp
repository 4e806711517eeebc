// Speed that cannot be faked from inside the submission: the fakes of tests/fakes, each built as a
// dishonest student would, are refused or detected and named by `bench` (and so by `grade`), on the
// simulator and, where there is one, on the GPU. The honest solutions pass the same checks.
#include <gtest/gtest.h>

#include "cudalab/exercise_bench.hpp"
#include "cudalab/gpu_probe.hpp"
#include "cudalab/registry.hpp"

namespace cudalab {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = CUDALAB_SOURCE_DIR;

struct Fake {
  const char* exercise;
  const char* file;  ///< under tests/fakes, or a solution's path for the honest controls
  Verdict verdict;
  const char* text;  ///< in the message
};

/// A toolchain and the peaks the checks are held against: the simulator with small made-up peaks
/// (its honest kernels run far below them), or the GPU with its measured ones.
struct Target {
  std::unique_ptr<Toolchain> toolchain;
  Peaks peaks;
  std::int64_t reduce_n = 0;
  std::int64_t vector_add_n = 0;
};

ToolchainConfig test_config() {
  ToolchainConfig config;
  config.cache_dir = fs::path(CUDALAB_BIN_DIR) / ".." / "test-module-cache";
  config.runner_dir = CUDALAB_BIN_DIR;
  return config;
}

BenchOptions options_for(std::int64_t n) {
  BenchOptions o;
  o.seed = 11;
  o.sizes = {n};
  o.policy.warmup_runs = 1;
  o.policy.min_samples = 8;
  o.policy.min_time_s = 0;
  o.policy.time_cap_s = 3;
  o.cpu_baselines = false;
  o.input_sets = 2;
  o.timeout = std::chrono::seconds(120);
  return o;
}

BenchOutcome bench_fake(const Target& target, const Fake& fake) {
  const Task& task = *find_task(fake.exercise);
  const std::int64_t n = std::string(fake.exercise) == "05_reduce" ? target.reduce_n : target.vector_add_n;
  const fs::path file = fs::path(fake.file).is_absolute() ? fs::path(fake.file) : kSource / "tests/fakes" / fake.file;
  return bench_exercise(task, *target.toolchain, file, target.peaks, options_for(n));
}

void expect_caught(const Target& target, const std::vector<Fake>& fakes) {
  for (const Fake& fake : fakes) {
    SCOPED_TRACE(fake.file);
    const BenchOutcome out = bench_fake(target, fake);
    EXPECT_EQ(verdict_name(out.verdict), std::string(verdict_name(fake.verdict))) << out.message;
    EXPECT_NE(out.message.find(fake.text), std::string::npos) << out.message;
    EXPECT_TRUE(out.measurements.empty()) << "a faked time was reported as a measurement";
  }
}

/// The reference solutions pass untouched (the fakes are caught by the checks, not by chance).
/// Skips the calling test in the students' export, which has no solutions.
void expect_honest_pass(const Target& target) {
  for (const char* id : {"05_reduce", "02_vector_add"}) {
    const fs::path solution = kSource / "solutions" / id / "kernel.cu";
    if (!fs::exists(solution)) GTEST_SKIP() << solution << " is not in this distribution (cudalab export)";
    SCOPED_TRACE(id);
    const BenchOutcome out = bench_fake(target, {id, solution.c_str(), Verdict::passed, ""});
    EXPECT_EQ(out.verdict, Verdict::passed) << out.message;
    EXPECT_FALSE(out.measurements.empty());
  }
}

const std::vector<Fake> kFakes = {
    // The fake of the issue: the first call computes, later ones launch an empty kernel.
    {"05_reduce", "computes_once.cu", Verdict::wrong_output, "timed call"},
    // Right every time, from a kept value: only the speed gives it away.
    {"05_reduce", "memoizes.cu", Verdict::impossible_speed, "cannot be true"},
    // Replaces the runner's reply: the parent's clock saw no timed batch.
    {"02_vector_add", "forges_reply.cu", Verdict::timing_mismatch, "saw none"},
    // A reply that claims no time at all: no rate to refuse, and still impossible.
    {"02_vector_add", "claims_no_time.cu", Verdict::impossible_speed, "cannot be true"},
    // Paced clock marks, but a reply that claims far less.
    {"02_vector_add", "forges_reply_paced.cu", Verdict::timing_mismatch, "but the runner reported"},
};

TEST(Fakes, AreCaughtOnTheSimulator) {
#ifndef CUDALAB_HAVE_SIM
  GTEST_SKIP() << "this build has no simulator";
#else
  // 10 GB/s and 100 GFLOP/s: far above what the simulator reaches at these sizes.
  Target sim{make_sim_toolchain(test_config()), Peaks{10, 100, "test"}, 1 << 16, 1 << 18};
  expect_honest_pass(sim);
  if (testing::Test::IsSkipped()) return;
  std::vector<Fake> fakes = kFakes;
  // Marks written at once: faster than the made-up device could move the data.
  fakes.push_back({"02_vector_add", "forges_reply_and_clock.cu", Verdict::timing_mismatch, "less than the device"});
  expect_caught(sim, fakes);
#endif
}

// A host-pointer solve copies its inputs in and its outputs out: its time is held to the host
// link's measured bandwidth (both ways at once), a device-pointer one's is not.
TEST(Fakes, AHostPointerTimeIsHeldToTheHostLink) {
#ifndef CUDALAB_HAVE_SIM
  GTEST_SKIP() << "this build has no simulator";
#else
  // A made-up link of 10 MB/s each way: the simulator's honest vector add is far faster.
  Peaks slow_link{1e6, 1e6, "test"};
  slow_link.host_link_gbs = 0.01;
  const Target target{make_sim_toolchain(test_config()), slow_link, 1 << 16, 1 << 18};
  const fs::path solutions = kSource / "solutions";
  if (!fs::exists(solutions)) GTEST_SKIP() << "the students' export has no solutions";
  expect_caught(target, {{"02_vector_add", (solutions / "02_vector_add/kernel.cu").c_str(), Verdict::impossible_speed,
                          "across the host link"}});
  const BenchOutcome device_pointers =
      bench_fake(target, {"05_reduce", (solutions / "05_reduce/kernel.cu").c_str(), Verdict::passed, ""});
  EXPECT_EQ(device_pointers.verdict, Verdict::passed) << device_pointers.message;
#endif
}

TEST(Fakes, AreCaughtOnTheGpu) {
  ToolchainConfig config = test_config();
  auto gpu = make_gpu_toolchain(config);
  std::string why;
  if (!gpu->available(why)) GTEST_SKIP() << "no GPU: " << why;
  const auto device = probe_gpu(gpu->runner(), why);
  ASSERT_TRUE(device.has_value()) << why;
  bool measured_now = false;
  const Peaks peaks = device_peaks(gpu->runner(), *device, config.cache_dir, measured_now);
  // 2^20 floats per vector: a forger's own writes to the shared file stay under the sandbox's 64 MiB file limit.
  Target target{std::move(gpu), peaks, 1 << 26, 1 << 20};
  expect_honest_pass(target);
  if (testing::Test::IsSkipped()) return;
  std::vector<Fake> fakes = kFakes;
  // Instant marks: faster than the host link lets a host-pointer call be.
  fakes.push_back({"02_vector_add", "forges_reply_and_clock.cu", Verdict::timing_mismatch, "less than the device"});
  expect_caught(target, fakes);
}

}  // namespace
}  // namespace cudalab
