// The stopping rule against a fake clock: each test drives the sampler as `cudalab bench` does
// and checks where, and why, it stopped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include "cudalab/sampling.hpp"

namespace cudalab {
namespace {

/// Time that moves only when a test says so.
struct FakeClock {
  double now = 100;  // not 0: the sampler must take differences
  Clock clock() {
    return [this] { return now; };
  }
};

/// Runs the measuring loop: sample `i` takes `time(i)` seconds, plus `overhead` of wall time
/// that is not measured (L2 flush, fresh inputs, checks).
Summary drive(Sampler& sampler, FakeClock& fake, const std::function<double(std::size_t)>& time, double overhead = 0) {
  for (std::size_t i = 0; sampler.want_more(); ++i) {
    const double t = time(i);
    fake.now += t + overhead;
    sampler.add(t);
  }
  return sampler.summary();
}

/// Deterministic noise in [0, 1).
double uniform01(std::size_t i) {
  std::uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ULL;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  return static_cast<double>(x >> 11) / 9007199254740992.0;
}

SamplingPolicy quick_policy() {
  SamplingPolicy p;
  p.warmup_runs = 3;
  p.min_samples = 10;
  p.min_time_s = 0.001;
  p.noise_target = 0.005;
  p.time_cap_s = 10;
  p.max_samples = 1'000'000;
  return p;
}

TEST(Sampler, SteadySamplesStopOnTheNoiseTargetAsSoonAsAllowed) {
  FakeClock fake;
  Sampler sampler(quick_policy(), fake.clock());
  // Warm-ups are slow (a cold module); then 1 ms ± 0.1 %.
  const Summary s =
      drive(sampler, fake, [](std::size_t i) { return i < 3 ? 1.0 : 1e-3 * (1 + 0.002 * (uniform01(i) - 0.5)); });
  EXPECT_EQ(s.stop, StopReason::noise_target_met);
  EXPECT_EQ(s.n, 10U);  // min_samples, no more
  EXPECT_EQ(s.warmup_runs, 3U);
  EXPECT_LT(s.max, 1.01e-3);  // the warm-ups are not in the data
  EXPECT_NEAR(s.median, 1e-3, 1e-6);
  EXPECT_LE(s.median_noise, 0.005);
  EXPECT_TRUE(s.minimums_met);
  EXPECT_NEAR(s.wall_s, 3.0 + 10e-3, 2e-5);
  EXPECT_FALSE(sampler.want_more());  // stays stopped
  EXPECT_THROW(sampler.add(1e-3), std::logic_error);
}

TEST(Sampler, NoisySamplesKeepGoingUntilTheTimeCap) {
  FakeClock fake;
  Sampler sampler(quick_policy(), fake.clock());
  // Uniform in [1, 3) ms: the median is known to about ±0.98/√n, needing n ≈ 38,000 for ±0.5 %;
  // the 10 s cap allows about 5,000.
  const Summary s = drive(sampler, fake, [](std::size_t i) { return 1e-3 * (1 + 2 * uniform01(i)); });
  EXPECT_EQ(s.stop, StopReason::time_cap);
  EXPECT_GT(s.median_noise, 0.005);
  EXPECT_GT(s.n, 4000U);
  EXPECT_LT(s.n, 6000U);
  EXPECT_GE(s.wall_s, 10.0);
  EXPECT_LT(s.wall_s, 10.0 + 3e-3);  // stopped right after the sample that crossed the cap
  EXPECT_NEAR(s.median, 2e-3, 0.05e-3);
}

TEST(Sampler, RespectsMinimumSampleCount) {
  FakeClock fake;
  auto policy = quick_policy();
  policy.min_samples = 25;
  Sampler sampler(policy, fake.clock());
  const Summary s = drive(sampler, fake, [](std::size_t) { return 1e-3; });  // noise 0 from the start
  EXPECT_EQ(s.stop, StopReason::noise_target_met);
  EXPECT_EQ(s.n, 25U);
}

TEST(Sampler, RespectsMinimumMeasuredTime) {
  FakeClock fake;
  auto policy = quick_policy();
  const double t = 1.0 / 1024;  // exact in binary, so the sum is too
  policy.min_time_s = 50 * t;
  Sampler sampler(policy, fake.clock());
  const Summary s = drive(sampler, fake, [t](std::size_t) { return t; });
  EXPECT_EQ(s.stop, StopReason::noise_target_met);
  EXPECT_EQ(s.n, 50U);
  EXPECT_DOUBLE_EQ(s.total_s, 50 * t);
}

TEST(Sampler, ShortKernelsStopAtTheWallCap) {
  // 1 µs kernels with 1 ms of overhead each: 0.5 s of kernel time would take 500,000 samples
  // and 500 s of wall time. The wall cap ends it at 2 s.
  FakeClock fake;
  auto policy = quick_policy();
  policy.warmup_runs = 0;
  policy.min_time_s = 0.5;
  policy.time_cap_s = 2;
  Sampler sampler(policy, fake.clock());
  const Summary s = drive(
      sampler, fake, [](std::size_t) { return 1e-6; }, 1e-3);
  EXPECT_EQ(s.stop, StopReason::time_cap);
  EXPECT_FALSE(s.minimums_met);
  EXPECT_GE(s.n, 1990U);
  EXPECT_LE(s.n, 1999U);
  EXPECT_GE(s.wall_s, 2.0);
  EXPECT_LT(s.wall_s, 2.0 + 1.001e-3);
  EXPECT_EQ(s.median_noise, 0);  // steady: only the minimum time held it back
}

TEST(Sampler, SlowRunsStopAtTheCapBeforeTheMinimumCount) {
  FakeClock fake;
  auto policy = quick_policy();
  policy.warmup_runs = 1;
  Sampler sampler(policy, fake.clock());
  const Summary s = drive(sampler, fake, [](std::size_t) { return 3.0; });
  EXPECT_EQ(s.stop, StopReason::time_cap);
  EXPECT_EQ(s.warmup_runs, 1U);
  EXPECT_EQ(s.n, 3U);  // warm-up ends at 3 s; samples end at 6, 9, 12 s
  EXPECT_FALSE(s.minimums_met);
}

TEST(Sampler, TheCapCutsWarmUpButOneSampleIsAlwaysMeasured) {
  FakeClock fake;
  auto policy = quick_policy();
  policy.warmup_runs = 5;
  Sampler sampler(policy, fake.clock());
  std::vector<bool> warm;
  for (std::size_t i = 0; sampler.want_more(); ++i) {
    warm.push_back(sampler.warming_up());
    fake.now += 4;
    sampler.add(4);
  }
  // Warm-ups end at 4, 8 and 12 s; at 12 s the cap has passed: one measured sample, then stop.
  EXPECT_EQ(warm, (std::vector<bool>{true, true, true, false}));
  const Summary s = sampler.summary();
  EXPECT_EQ(s.warmup_runs, 3U);
  EXPECT_EQ(s.n, 1U);
  EXPECT_EQ(s.stop, StopReason::time_cap);
}

TEST(Sampler, StopsAtMaxSamples) {
  FakeClock fake;
  auto policy = quick_policy();
  policy.max_samples = 100;
  Sampler sampler(policy, fake.clock());
  const Summary s = drive(sampler, fake, [](std::size_t i) { return 1e-3 * (1 + 2 * uniform01(i)); });
  EXPECT_EQ(s.stop, StopReason::max_samples);
  EXPECT_EQ(s.n, 100U);
  EXPECT_EQ(sampler.samples().size(), 100U);
}

TEST(Sampler, NoiseTargetWinsWhenMetAtTheLastAllowedSample) {
  FakeClock fake;
  auto policy = quick_policy();
  policy.min_samples = 10;
  policy.max_samples = 10;
  Sampler sampler(policy, fake.clock());
  const Summary s = drive(sampler, fake, [](std::size_t) { return 1e-3; });
  EXPECT_EQ(s.stop, StopReason::noise_target_met);
  EXPECT_EQ(s.n, 10U);
}

TEST(Sampler, LongRunsStopWithinTheCheckScheduleOfTheFirstSettledCount) {
  // Uniform in [1, 3): with a ±2 % target the rule first holds at a few thousand samples. The
  // sampler checks every n/64 samples there, so it may stop up to n/64 later, never earlier.
  auto time = [](std::size_t i) { return 1e-3 * (1 + 2 * uniform01(i)); };
  auto policy = quick_policy();
  policy.warmup_runs = 0;
  policy.noise_target = 0.02;
  policy.time_cap_s = 1e9;

  std::vector<double> sorted;
  std::size_t first = 0;
  for (std::size_t i = 0; first == 0; ++i) {
    const double t = time(i);
    sorted.insert(std::upper_bound(sorted.begin(), sorted.end(), t), t);
    if (sorted.size() >= policy.min_samples && median_ci_relative(sorted) <= policy.noise_target) first = sorted.size();
  }
  ASSERT_GT(first, 1000U);

  FakeClock fake;
  Sampler sampler(policy, fake.clock());
  const Summary s = drive(sampler, fake, time);
  EXPECT_EQ(s.stop, StopReason::noise_target_met);
  EXPECT_GE(s.n, first);
  EXPECT_LE(s.n, first + first / 64 + 1);
}

TEST(Sampler, RejectsBadTimesAndPolicies) {
  FakeClock fake;
  Sampler sampler(quick_policy(), fake.clock());
  EXPECT_THROW(sampler.add(-1e-3), std::invalid_argument);
  EXPECT_THROW(sampler.add(std::nan("")), std::invalid_argument);
  EXPECT_THROW(sampler.add(INFINITY), std::invalid_argument);

  auto p = quick_policy();
  p.max_samples = 5;  // below min_samples
  EXPECT_THROW(Sampler(p, fake.clock()), std::invalid_argument);
  p = quick_policy();
  p.time_cap_s = 0;
  EXPECT_THROW(Sampler(p, fake.clock()), std::invalid_argument);
  p = quick_policy();
  p.min_samples = 0;
  EXPECT_THROW(p.validate(), std::invalid_argument);
  EXPECT_THROW(Sampler(quick_policy(), Clock{}), std::invalid_argument);
}

TEST(Sampler, SteadyClockAdvances) {
  const double a = steady_clock_seconds();
  const double b = steady_clock_seconds();
  EXPECT_GE(b, a);
  EXPECT_GT(a, 0);
}

}  // namespace
}  // namespace cudalab
