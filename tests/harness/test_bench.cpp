// The bench pipeline end to end on the simulator (the CLI refuses to time the simulator, but the
// pipeline is the same): rotating input sets re-checked, the sampler's stop state, baselines, and a
// wrong kernel that is refused instead of measured.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "../support/files.hpp"
#include "cudalab/exercise_bench.hpp"
#include "cudalab/registry.hpp"

namespace cudalab {
namespace {

namespace fs = std::filesystem;

std::unique_ptr<Toolchain> sim_toolchain() {
#ifdef CUDALAB_HAVE_SIM
  ToolchainConfig config;
  config.cache_dir = fs::path(CUDALAB_BIN_DIR) / ".." / "test-module-cache";
  config.runner_dir = CUDALAB_BIN_DIR;
  return make_sim_toolchain(config);
#else
  return nullptr;
#endif
}

/// This process's open file descriptors.
std::size_t open_descriptors() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

BenchOptions quick_options() {
  BenchOptions o;
  o.seed = 3;
  o.sizes = {1000};
  o.policy.warmup_runs = 1;
  o.policy.min_samples = 5;
  o.policy.min_time_s = 0;
  o.policy.time_cap_s = 2;
  o.cpu_policy = o.policy;
  o.timeout = std::chrono::seconds(60);
  return o;
}

TEST(Bench, MeasuresASolutionWithBaselines) {
  REQUIRE_FILE(fs::path(CUDALAB_SOURCE_DIR) / "solutions/02_vector_add/kernel.cu");
  auto toolchain = sim_toolchain();
  if (!toolchain) GTEST_SKIP() << "this build has no simulator";
  const Task& task = *find_task("02_vector_add");
  const Peaks peaks{100.0, 1000.0, "test"};
  std::vector<std::string> progress;
  auto out = bench_exercise(task, *toolchain, fs::path(CUDALAB_SOURCE_DIR) / "solutions/02_vector_add/kernel.cu", peaks,
                            quick_options(), [&](const std::string& line) { progress.push_back(line); });
  ASSERT_EQ(out.verdict, Verdict::passed) << out.message;
  ASSERT_EQ(out.measurements.size(), 1u);  // no kernels row: the simulator traces no kernels
  const Measurement& m = out.measurements.front();
  EXPECT_EQ(m.exercise, "02_vector_add");
  EXPECT_EQ(m.c.label(), "n=1000");
  EXPECT_GE(m.summary.n, 5u);
  EXPECT_NE(m.summary.stop, StopReason::running);
  EXPECT_GT(m.summary.median, 0);
  ASSERT_TRUE(m.throughput.gbs.has_value());
  EXPECT_NEAR(*m.throughput.gbs, 12000.0 / m.summary.median / 1e9, 1e-9 * *m.throughput.gbs + 1e-12);
  EXPECT_TRUE(m.speedup_over("CPU 1 thread").has_value());
  // The launches of one call are named in the notes.
  bool launch_note = false;
  for (const auto& n : m.notes) launch_note = launch_note || n.find("1 launch: vector_add") != std::string::npos;
  EXPECT_TRUE(launch_note);
  ASSERT_FALSE(progress.empty());
  EXPECT_NE(progress.front().find("compiling 02_vector_add"), std::string::npos);
}

// A timed run's log says where its seconds went: the parent's work around the runner's own phases.
TEST(Bench, SaysWhereTheTimedRunsSecondsWent) {
  REQUIRE_FILE(fs::path(CUDALAB_SOURCE_DIR) / "solutions/05_reduce/kernel.cu");
  auto toolchain = sim_toolchain();
  if (!toolchain) GTEST_SKIP() << "this build has no simulator";
  auto options = quick_options();
  options.cpu_baselines = false;
  options.kernel_traces = false;  // as grade times
  const auto start = std::chrono::steady_clock::now();
  const auto out = bench_exercise(*find_task("05_reduce"), *toolchain,
                                  fs::path(CUDALAB_SOURCE_DIR) / "solutions/05_reduce/kernel.cu", Peaks{}, options);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(out.verdict, Verdict::passed) << out.message;
  std::vector<std::string> names;
  double sum_s = 0;
  for (const auto& p : out.time_split) {
    names.push_back(p.name);
    sum_s += p.seconds;
  }
  // The parent's phases frame the runner's; device-pointer exercises upload and download.
  const std::vector<std::string> expected = {"inputs",
                                             "preparing",
                                             "process start",
                                             "context",
                                             "lockdown",
                                             "host set-up",
                                             "load",
                                             "upload",
                                             "set-up",
                                             "restoring outputs and flushing",
                                             "timed calls: solve",
                                             "timed calls: device finishing",
                                             "tracing, witnesses, statistics",
                                             "clock batches",
                                             "download",
                                             "process exit",
                                             "judging"};
  EXPECT_EQ(names, expected);
  EXPECT_GT(sum_s, 0);
  EXPECT_LE(sum_s, wall_s) << "the phases cannot add up to more than the run took";
}

TEST(Bench, AWrongKernelIsNotMeasured) {
  REQUIRE_FILE(fs::path(CUDALAB_SOURCE_DIR) / "tests/wrong/02_vector_add/ignores_b.cu");
  auto toolchain = sim_toolchain();
  if (!toolchain) GTEST_SKIP() << "this build has no simulator";
  const Task& task = *find_task("02_vector_add");
  auto options = quick_options();
  options.cpu_baselines = false;
  auto out = bench_exercise(task, *toolchain, fs::path(CUDALAB_SOURCE_DIR) / "tests/wrong/02_vector_add/ignores_b.cu",
                            Peaks{}, options);
  EXPECT_EQ(out.verdict, Verdict::wrong_output);
  EXPECT_TRUE(out.measurements.empty());
  EXPECT_NE(out.message.find("wrong output at n=1000"), std::string::npos) << out.message;
}

// Grading takes the GPU when the timed runner is ready (its process and context started, its
// host buffers prepared): at its gate, where the wait counts against neither the run's timeout nor
// the process's start.
TEST(Bench, TakesTheGpuAtTheRunnersGateAndTheWaitIsNotItsTimeout) {
  REQUIRE_FILE(fs::path(CUDALAB_SOURCE_DIR) / "solutions/05_reduce/kernel.cu");
  auto toolchain = sim_toolchain();
  if (!toolchain) GTEST_SKIP() << "this build has no simulator";
  auto options = quick_options();
  options.cpu_baselines = false;
  options.kernel_traces = false;
  options.policy.time_cap_s = 0.3;
  options.timeout = std::chrono::seconds(2);
  int taken = 0;
  options.before_timed_run = [&] {
    ++taken;
    std::this_thread::sleep_for(std::chrono::milliseconds(2200));  // longer than the timeout
  };
  const auto out = bench_exercise(*find_task("05_reduce"), *toolchain,
                                  fs::path(CUDALAB_SOURCE_DIR) / "solutions/05_reduce/kernel.cu", Peaks{}, options);
  ASSERT_EQ(out.verdict, Verdict::passed) << verdict_title(out.verdict) << ": " << out.message;
  EXPECT_EQ(taken, 1);
  std::vector<std::string> names;
  double waiting_s = 0;
  double start_s = 0;
  for (const auto& p : out.time_split) {
    names.push_back(p.name);
    if (p.name == "waiting for the GPU") waiting_s = p.seconds;
    if (p.name == "process start") start_s = p.seconds;
  }
  // The wait comes after the parent's preparing; the runner's phases stop at the gate and go on.
  const auto at = [&](const char* name) { return std::ranges::find(names, name) - names.begin(); };
  EXPECT_LT(at("preparing"), at("waiting for the GPU"));
  EXPECT_LT(at("host set-up"), at("load"));
  EXPECT_GE(waiting_s, 2.1);
  EXPECT_LT(start_s, 2.0) << "the wait at the gate is not the process's start";
}

// Grading gives the GPU to the next attempt as soon as a timed run has ended: once per bench,
// after the last case's runner, and before the outputs are judged (a wrong one still fails).
TEST(Bench, SaysOnceWhenTheTimedRunsAreOverBeforeJudging) {
  REQUIRE_FILE(fs::path(CUDALAB_SOURCE_DIR) / "tests/wrong/02_vector_add/ignores_b.cu");
  auto toolchain = sim_toolchain();
  if (!toolchain) GTEST_SKIP() << "this build has no simulator";
  const Task& task = *find_task("02_vector_add");
  auto options = quick_options();
  options.cpu_baselines = false;
  options.sizes = {1000, 1025};
  int calls = 0;
  options.after_timed_run = [&] { ++calls; };
  auto out = bench_exercise(task, *toolchain, fs::path(CUDALAB_SOURCE_DIR) / "solutions/02_vector_add/kernel.cu",
                            Peaks{}, options);
  ASSERT_EQ(out.verdict, Verdict::passed) << out.message;
  EXPECT_EQ(out.measurements.size(), 2u);
  EXPECT_EQ(calls, 1) << "after the last of the two cases only";
  options.sizes = {1000};
  calls = 0;
  out = bench_exercise(task, *toolchain, fs::path(CUDALAB_SOURCE_DIR) / "tests/wrong/02_vector_add/ignores_b.cu",
                       Peaks{}, options);
  EXPECT_EQ(out.verdict, Verdict::wrong_output);
  EXPECT_EQ(calls, 1) << "the run ended before its outputs were judged wrong";
}

TEST(Bench, LadderStepsThatBreakARuleAreMeasuredWithANote) {
  REQUIRE_FILE(fs::path(CUDALAB_SOURCE_DIR) / "tests/wrong/03_matmul/naive_no_shared.cu");
  auto toolchain = sim_toolchain();
  if (!toolchain) GTEST_SKIP() << "this build has no simulator";
  const Task& task = *find_task("03_matmul");
  auto options = quick_options();
  options.sizes = {16};
  options.cpu_baselines = false;
  const fs::path naive = fs::path(CUDALAB_SOURCE_DIR) / "tests/wrong/03_matmul/naive_no_shared.cu";
  auto refused = bench_exercise(task, *toolchain, naive, Peaks{}, options);
  EXPECT_EQ(refused.verdict, Verdict::requirement_unmet);
  options.measure_unmet_requirements = true;
  options.name = "03_matmul step1_naive";
  auto out = bench_exercise(task, *toolchain, naive, Peaks{}, options);
  ASSERT_EQ(out.verdict, Verdict::passed) << out.message;
  const Measurement& m = out.measurements.front();
  EXPECT_EQ(m.exercise, "03_matmul step1_naive");
  ASSERT_FALSE(m.notes.empty());
  EXPECT_NE(m.notes.front().find("requirement not met"), std::string::npos) << m.notes.front();
}

TEST(Bench, ComparesWithTheReferenceSolution) {
  REQUIRE_FILE(fs::path(CUDALAB_SOURCE_DIR) / "solutions/05_reduce/kernel.cu");
  auto toolchain = sim_toolchain();
  if (!toolchain) GTEST_SKIP() << "this build has no simulator";
  const Task& task = *find_task("05_reduce");
  auto options = quick_options();
  options.cpu_baselines = false;
  options.reference = fs::path(CUDALAB_SOURCE_DIR) / "solutions/05_reduce/kernel.cu";
  auto out = bench_exercise(task, *toolchain, fs::path(CUDALAB_SOURCE_DIR) / "tests/wrong/05_reduce/cpu_sum.cu",
                            Peaks{}, options);
  // The host-computed sum is right but launches nothing: a requirement failure, not a measurement.
  EXPECT_EQ(out.verdict, Verdict::requirement_unmet) << out.message;
  out = bench_exercise(task, *toolchain, fs::path(CUDALAB_SOURCE_DIR) / "solutions/05_reduce/kernel.cu", Peaks{},
                       options);
  ASSERT_EQ(out.verdict, Verdict::passed) << out.message;
  // The same file as the reference is not compared with itself...
  EXPECT_FALSE(out.measurements.front().speedup_over("reference solution").has_value());
  // ...another file is.
  const fs::path copy = fs::temp_directory_path() / "cudalab-test-reduce-copy.cu";
  fs::copy_file(options.reference, copy, fs::copy_options::overwrite_existing);
  out = bench_exercise(task, *toolchain, copy, Peaks{}, options);
  ASSERT_EQ(out.verdict, Verdict::passed) << out.message;
  const auto speedup = out.measurements.front().speedup_over("reference solution");
  ASSERT_TRUE(speedup.has_value());
  EXPECT_GT(*speedup, 0);
}

// Grading's timing: the submission and the reference solution take turns, a round each, in their
// own runners, and the ratio of their round medians is estimated with its interval.
TEST(PairedTiming, TheSubmissionAndTheReferenceTakeTurnsAndTheirRatioIsEstimated) {
  const fs::path reference = fs::path(CUDALAB_SOURCE_DIR) / "solutions/02_vector_add/kernel.cu";
  REQUIRE_FILE(reference);
  auto toolchain = sim_toolchain();
  if (!toolchain) GTEST_SKIP() << "this build has no simulator";
  const Task& task = *find_task("02_vector_add");
  // The reference with its kernel launched 16 times over: the same result, 16 times the kernel's
  // work. (Four times was not enough where many cores run the simulator's kernel: a fixed cost per
  // call, about six kernels' worth, left the ratio at 1.4 on a 16-core machine.)
  std::string text = read_text(reference);
  const std::string launch = "vector_add<<<blocks, THREADS_PER_BLOCK>>>(d_a, d_b, d_c, n);";
  const auto at = text.find(launch);
  ASSERT_NE(at, std::string::npos) << "the reference's launch line changed";
  text.replace(at, launch.size(), "for (int r = 0; r < 16; ++r) " + launch);
  const fs::path slower = fs::temp_directory_path() / "cudalab-test-vector-add-four-times.cu";
  std::ofstream(slower) << text;

  auto options = quick_options();
  options.sizes = {1 << 16};
  options.cpu_baselines = false;
  options.kernel_traces = false;
  options.input_sets = 1;
  options.policy.min_samples = 3;
  options.policy.time_cap_s = 1;
  int taken = 0;
  int given_back = 0;
  options.before_timed_run = [&] { ++taken; };
  options.after_timed_run = [&] { ++given_back; };
  PairingPolicy pairing;
  pairing.min_rounds = 6;
  pairing.max_rounds = 8;
  pairing.time_cap_s = 60;

  const std::size_t descriptors_before = open_descriptors();
  const PairedTiming paired = time_against_reference(task, *toolchain, slower, reference, Peaks{}, options, pairing);
  ASSERT_EQ(paired.submission.verdict, Verdict::passed) << paired.submission.message;
  ASSERT_TRUE(paired.reference_s.has_value()) << paired.reference_failure;
  EXPECT_EQ(taken, 1) << "the GPU is taken once for both runners' turns";
  EXPECT_EQ(given_back, 1);
  EXPECT_GE(paired.ratio.rounds, 6u);
  EXPECT_LE(paired.ratio.rounds, 8u);
  EXPECT_LE(paired.ratio.low, paired.ratio.ratio);
  EXPECT_GE(paired.ratio.high, paired.ratio.ratio);
  // 16 launches in place of one: clearly slower, whatever else the machine is doing.
  EXPECT_GT(paired.ratio.low, 1.5) << paired.ratio.ratio;
  EXPECT_EQ(compare_ratio(paired.ratio), Comparison::slower) << "bench --compare's verdict on it";
  ASSERT_EQ(paired.submission.measurements.size(), 1u);
  EXPECT_GT(paired.submission.measurements.front().summary.median, *paired.reference_s);
  EXPECT_EQ(open_descriptors(), descriptors_before) << "two runners' pipes, gates and shared files are all closed";

  // A file that does not compile is the submission's verdict, and the GPU is never taken.
  const fs::path broken = fs::temp_directory_path() / "cudalab-test-vector-add-broken.cu";
  std::ofstream(broken) << "void solve(const float* a, const float* b, float* c, int n) { int x = ; }\n";
  taken = 0;
  const PairedTiming failed = time_against_reference(task, *toolchain, broken, reference, Peaks{}, options, pairing);
  EXPECT_EQ(failed.submission.verdict, Verdict::compile_error);
  EXPECT_EQ(taken, 0);
  fs::remove(slower);
  fs::remove(broken);
}

// Grading gives the GPU to the next attempt once both runners have ended, before their outputs are
// judged (CPU work, over a second for a large case on an H100 host), where the timed calls see
// device memory only. A host-pointer exercise's calls time host memory and the host link, which
// that judging would share with the next attempt's rounds: there the GPU is given back after.
struct GivenBack {
  double after_giving_s = 0;  ///< from the hand-back to the return
  double judging_s = 0;       ///< the submission's judging
};

GivenBack give_back_around_judging(const char* exercise, std::int64_t size) {
  const fs::path reference = fs::path(CUDALAB_SOURCE_DIR) / "solutions" / exercise / "kernel.cu";
  auto toolchain = sim_toolchain();
  const Task& task = *find_task(exercise);
  auto options = quick_options();
  options.sizes = {size};  // outputs large enough that judging them outweighs what follows it
  options.cpu_baselines = false;
  options.kernel_traces = false;
  options.policy.min_samples = 2;
  options.policy.time_cap_s = 0.1;  // a round: two calls, whatever their noise
  using Clock = std::chrono::steady_clock;
  std::optional<Clock::time_point> given_at;
  int given = 0;
  options.after_timed_run = [&] {
    ++given;
    given_at = Clock::now();
  };
  PairingPolicy pairing;
  pairing.min_rounds = 2;
  pairing.max_rounds = 2;
  const PairedTiming paired = time_against_reference(task, *toolchain, reference, reference, Peaks{}, options, pairing);
  const auto returned_at = Clock::now();
  EXPECT_EQ(paired.submission.verdict, Verdict::passed) << paired.submission.message;
  EXPECT_EQ(given, 1) << "the GPU is given back once";
  const auto& split = paired.submission.time_split;
  const auto judging = std::ranges::find(split, std::string("judging"), &protocol::Phase::name);
  if (!given_at || judging == split.end()) {
    ADD_FAILURE() << "no hand-back, or the submission's outputs were not judged";
    return {};
  }
  return {std::chrono::duration<double>(returned_at - *given_at).count(), judging->seconds};
}

TEST(PairedTiming, TheGpuIsGivenBackBeforeJudgingWhereTheTimedCallsSeeDeviceMemoryOnly) {
  REQUIRE_FILE(fs::path(CUDALAB_SOURCE_DIR) / "solutions/04_normalize/kernel.cu");
  if (!sim_toolchain()) GTEST_SKIP() << "this build has no simulator";
  // 2^20 floats: judging them takes milliseconds, well above the 2 ms the end of a timing takes
  // after the hand-back (2^18 floats were judged in 3.5 ms, and half of that was within the noise).
  const GivenBack device = give_back_around_judging("04_normalize", 1 << 20);
  EXPECT_GT(device.judging_s, 0.002) << "too small a case to tell";
  // Both runners judge the same outputs, and whichever ended last gave the GPU back: at least one
  // judging (give or take half of it, for the other's) follows the hand-back.
  EXPECT_GE(device.after_giving_s, 0.5 * device.judging_s)
      << "the GPU was held while the outputs were judged (judging took " << device.judging_s << " s)";

  REQUIRE_FILE(fs::path(CUDALAB_SOURCE_DIR) / "solutions/02_vector_add/kernel.cu");
  const GivenBack host = give_back_around_judging("02_vector_add", 1 << 20);
  EXPECT_GT(host.judging_s, 0.002) << "too small a case to tell";
  EXPECT_LT(host.after_giving_s, 0.5 * host.judging_s)
      << "a host-pointer exercise's GPU was given back before its outputs were judged";
}

TEST(PairedTiming, TheRatioIsTheMedianOfTheRoundsWithA95PercentInterval) {
  // Six rounds: the interval of a median is [min, max] (P = 1 − 2·2⁻⁶ ≈ 97 %).
  const RatioEstimate six = paired_ratio({2, 4, 6, 8, 10, 12}, {1, 2, 3, 4, 5, 4});
  EXPECT_EQ(six.rounds, 6u);
  EXPECT_DOUBLE_EQ(six.ratio, 2.0);  // five ratios of 2 and one of 3
  EXPECT_DOUBLE_EQ(six.low, 2.0);
  EXPECT_DOUBLE_EQ(six.high, 3.0);
  // Rounds without both times are left out; unpaired rounds are ignored.
  const RatioEstimate some = paired_ratio({1.1, 0, 1.2}, {1, 1, 1, 1});
  EXPECT_EQ(some.rounds, 2u);
  EXPECT_DOUBLE_EQ(some.low, 1.1);
  EXPECT_DOUBLE_EQ(some.high, 1.2);
  EXPECT_EQ(paired_ratio({}, {1}).rounds, 0u);
}

// bench --compare's verdict: a difference only where the whole interval says it.
TEST(PairedTiming, CompareSaysADifferenceOnlyWhereTheWholeIntervalLiesBeyondTheBand) {
  const auto estimate = [](double low, double ratio, double high) { return RatioEstimate{ratio, low, high, 8}; };
  EXPECT_EQ(compare_ratio(estimate(0.50, 0.52, 0.55)), Comparison::faster);
  EXPECT_EQ(compare_ratio(estimate(1.10, 1.20, 1.30)), Comparison::slower);
  EXPECT_EQ(compare_ratio(estimate(0.99, 1.00, 1.015)), Comparison::same);
  EXPECT_EQ(compare_ratio(estimate(0.95, 0.99, 1.01)), Comparison::unsure) << "crosses the lower edge";
  EXPECT_EQ(compare_ratio(estimate(0.99, 1.02, 1.05)), Comparison::unsure) << "crosses the upper edge";
  EXPECT_EQ(compare_ratio(estimate(0.90, 1.00, 1.10), 0.2), Comparison::same) << "a wider band";
  EXPECT_EQ(compare_ratio(RatioEstimate{}), Comparison::unsure) << "no round";
  EXPECT_STREQ(comparison_name(Comparison::faster), "FASTER");
  EXPECT_STREQ(comparison_name(Comparison::unsure), "UNSURE");
}

// A submission that leaves kernels running between its rounds slows the reference's next round,
// and so its own ratio: the reference's first round, timed before any of its code, gives it away.
TEST(PairedTiming, AReferenceSlowedOnceTheSubmissionRanIsNotBelieved) {
  EXPECT_EQ(reference_slowed({1.0, 1.02, 0.99, 1.05, 1.01, 1.0}), "");  // noise
  EXPECT_EQ(reference_slowed({1.2, 1.0, 1.0, 1.0}), "");                // a cold first round
  EXPECT_EQ(reference_slowed({1.0}), "");
  const std::string why = reference_slowed({1e-3, 2e-3, 1.9e-3, 2.1e-3, 1e-3});
  EXPECT_NE(why.find("took 95 % longer once the submission had run"), std::string::npos) << why;
}

TEST(Bench, SizesSelectCheckedCasesOrSquareOnes) {
  const Task& matmul = *find_task("03_matmul");
  const auto large = cases_to_time(matmul, {});
  ASSERT_EQ(large.size(), 1u);
  EXPECT_TRUE(large.front().large);
  EXPECT_EQ(large.front().label(), "M=2048 N=2048 K=2048");
  // 255 is the M of a checked shape (255×257×129); 4096 is none, so it means 4096³.
  const auto chosen = cases_to_time(matmul, {255, 4096});
  ASSERT_EQ(chosen.size(), 2u);
  EXPECT_EQ(chosen[0].label(), "M=255 N=257 K=129");
  EXPECT_EQ(chosen[1].label(), "M=4096 N=4096 K=4096");
  const auto reduce = cases_to_time(*find_task("05_reduce"), {12345});
  ASSERT_EQ(reduce.size(), 1u);
  EXPECT_EQ(reduce.front().label(), "n=12345");
}

// Host-pointer exercises are timed with page-locked host buffers on the GPU unless asked not to.
TEST(Bench, HostBuffersArePageLockedOnTheGpuUnlessAskedNotTo) {
  REQUIRE_FILE(fs::path(CUDALAB_SOURCE_DIR) / "solutions/01_increment/kernel.cu");
  ToolchainConfig config;
  config.cache_dir = fs::path(CUDALAB_BIN_DIR) / ".." / "test-module-cache";
  config.runner_dir = CUDALAB_BIN_DIR;
  auto gpu = make_gpu_toolchain(config);
  std::string why;
  if (!gpu->available(why)) GTEST_SKIP() << "no GPU: " << why;
  const Task& task = *find_task("01_increment");
  auto options = quick_options();
  options.cpu_baselines = false;
  auto note_of = [&](bool page_locked) {
    options.page_locked_host = page_locked;
    auto out =
        bench_exercise(task, *gpu, fs::path(CUDALAB_SOURCE_DIR) / "solutions/01_increment/kernel.cu", Peaks{}, options);
    EXPECT_EQ(out.verdict, Verdict::passed) << out.message;
    std::string found;
    for (const auto& m : out.measurements) {
      for (const auto& n : m.notes) {
        if (n.starts_with("host buffers")) found = n;
      }
    }
    return found;
  };
  EXPECT_TRUE(note_of(true).starts_with("host buffers page-locked")) << note_of(true);
  EXPECT_TRUE(note_of(false).starts_with("host buffers pageable")) << note_of(false);
}

}  // namespace
}  // namespace cudalab

namespace cudalab {
namespace {

// "% of FP32 peak" needs the FMA lanes per SM of the device's generation: half of Hopper's on a
// V100 or an A100, so a fixed 128 would halve their percentages.
TEST(Peaks, Fp32LanesPerSmFollowTheComputeCapability) {
  EXPECT_EQ(fp32_lanes_per_sm(7, 0), 64);   // V100
  EXPECT_EQ(fp32_lanes_per_sm(7, 5), 64);   // T4
  EXPECT_EQ(fp32_lanes_per_sm(8, 0), 64);   // A100
  EXPECT_EQ(fp32_lanes_per_sm(8, 6), 128);  // RTX 30
  EXPECT_EQ(fp32_lanes_per_sm(8, 9), 128);  // L4, RTX 40
  EXPECT_EQ(fp32_lanes_per_sm(9, 0), 128);  // H100
  EXPECT_EQ(fp32_lanes_per_sm(6, 0), 64);   // P100
  EXPECT_EQ(fp32_lanes_per_sm(6, 1), 128);
}

// The TF32 row of 03_matmul's ladder is held to the tensor cores: dense flops per SM and clock
// from the data sheets (A100: 156 TFLOPS = 108 SMs × 1410 MHz × 1024; H100 SXM: 494.7 TFLOPS =
// 132 SMs × 1830 MHz × 2048), none before Ampere.
TEST(Peaks, Tf32TensorFlopsPerSmFollowTheComputeCapability) {
  EXPECT_EQ(tf32_tensor_flops_per_sm(7, 0), 0);  // V100: no TF32
  EXPECT_EQ(tf32_tensor_flops_per_sm(7, 5), 0);  // T4
  EXPECT_EQ(tf32_tensor_flops_per_sm(8, 0), 1024);
  EXPECT_EQ(tf32_tensor_flops_per_sm(8, 6), 512);  // A6000 (GeForce: half)
  EXPECT_EQ(tf32_tensor_flops_per_sm(8, 9), 512);  // L40S
  EXPECT_EQ(tf32_tensor_flops_per_sm(9, 0), 2048);
  EXPECT_EQ(tf32_tensor_flops_per_sm(10, 0), 4096);
  EXPECT_NEAR(132 * 1830e6 * tf32_tensor_flops_per_sm(9, 0) / 1e12, 494.7, 0.1);
  EXPECT_NEAR(108 * 1410e6 * tf32_tensor_flops_per_sm(8, 0) / 1e12, 155.9, 0.1);
}

}  // namespace
}  // namespace cudalab

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
