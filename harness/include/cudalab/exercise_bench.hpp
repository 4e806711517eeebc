// Measuring one exercise on the GPU: rotating input sets timed in the runner (CUDA events, L2
// flushed, adaptive sample count), every set's result re-checked, throughput against the device's
// measured peak, and speedups over the CPU and the reference solution timed in the same run.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cudalab/exercise_check.hpp"
#include "cudalab/gpu_probe.hpp"
#include "cudalab/timing.hpp"

namespace cudalab {

/// Dense TF32 tensor-core flops per SM and clock for a compute capability (NVIDIA's specifications);
/// 0 where there are no TF32 tensor cores (before 8.0) or the architecture is not known.
int tf32_tensor_flops_per_sm(int cc_major, int cc_minor);

/// FP32 FMA lanes per SM for a compute capability: 64 on P100, V100, T4 and A100, 128 on the
/// consumer Pascal parts, on Ampere from 8.6 and on Ada, Hopper and Blackwell.
int fp32_lanes_per_sm(int cc_major, int cc_minor);

/// Peak device bandwidth (a 1 GiB device-to-device copy, bytes read plus written, measured once
/// per device and driver and cached in `cache_dir/peaks.json`) and FP32 peak (SMs × clock × FMA
/// lanes per SM for the compute capability × 2). `measured_now` says whether the copy ran in this call.
/// `visible_devices`, when not empty, is the runner's CUDA_VISIBLE_DEVICES (the GPU `device` is).
Peaks device_peaks(const std::filesystem::path& runner, const GpuDevice& device, const std::filesystem::path& cache_dir,
                   bool& measured_now, const std::string& visible_devices = {});

/// How a bench runs: which sizes, how long to sample, what to compare with and under which limits.
struct BenchOptions {
  std::uint64_t seed = 0;                   ///< the run's seed; case_seed() derives each input set's from it
  std::vector<std::int64_t> sizes;          ///< first dimension (n or M) of the cases to time; empty: the large case
  SamplingPolicy policy;                    ///< for the submission and the reference solution
  SamplingPolicy cpu_policy;                ///< for the CPU baselines
  bool cpu_baselines = true;                ///< also time Task::cpu_solve on 1 thread and on every core
  std::filesystem::path reference;          ///< the reference solution to compare with; empty: none
  std::string name;                         ///< the measurement's name in reports; empty: the exercise id
  bool measure_unmet_requirements = false;  ///< ladder steps: time a right answer that breaks a rule, with a note
  /// Host-pointer exercises: page-lock the host buffers while timing (copies at the bus's speed,
  /// repeatable); false times them in pageable memory, as a plain `new[]` would be.
  bool page_locked_host = true;
  Precision precision = Precision::fp32;  ///< tf32 only for tasks that support it
  /// Per timed runner process.
  std::chrono::milliseconds timeout{120'000};
  /// Rotating input sets (each generated, checked against the CPU reference and re-checked after
  /// timing): 4 keep the caches honest; a grader timing hundreds of kernels may use fewer.
  std::size_t input_sets = 4;
  std::string visible_devices;  ///< CUDA_VISIBLE_DEVICES for the runner; empty: as inherited

  /// Device-pointer exercises: time the kernels alone in extra traced calls (the "(kernels)" row);
  /// a grader, which scores the end-to-end time, saves the second this takes.
  bool kernel_traces = true;
  CaseDataCache* case_data = nullptr;  ///< inputs and expected outputs shared between benches; null: made here

  /// Called once the submission's last timed runner has ended, before its outputs are judged,
  /// where no run of the reference solution follows: the GPU is no longer needed.
  std::function<void()> after_timed_run;
  /// Called when each timed runner (the submission's and the reference's) is ready to time: its
  /// process and context exist, and the GPU is needed from here on (RunnerCall::before_run).
  std::function<void()> before_timed_run;
};

/// One exercise's measurements, or why it could not be measured.
struct BenchOutcome {
  const Task* task = nullptr;             ///< the exercise timed
  std::filesystem::path source;           ///< the kernel.cu timed
  Verdict verdict = Verdict::passed;      ///< a failure of the timed code (compile error, wrong output, …)
  std::string message;                    ///< what failed, for reports
  std::vector<std::string> details;       ///< more lines about the failure: compiler output, mismatches, hints
  std::vector<Measurement> measurements;  ///< per case timed, plus its "(kernels)" row where there is one
  /// Where the wall time of the timed runs went, in order (each case's inputs, then
  /// RunnerCall::time_split): for logs, never judged.
  std::vector<protocol::Phase> time_split;
};

/// The cases `sizes` selects: the (first) large case when empty; else, per size, the checked case
/// whose first dimension (n or M) it is, or the large case with every dimension set to it
/// (03_matmul: 4096 is 4096×4096×4096).
std::vector<Case> cases_to_time(const Task& task, const std::vector<std::int64_t>& sizes);

/// Called with a line saying what is being measured now.
using BenchProgress = std::function<void(const std::string&)>;

/// Compiles and measures `source` (and the reference solution, when one is given) at each case.
BenchOutcome bench_exercise(const Task& task, const Toolchain& toolchain, const std::filesystem::path& source,
                            const Peaks& peaks, const BenchOptions& options, const BenchProgress& progress = {});

/// How long the submission and the reference solution take turns (time_against_reference): at
/// least `min_rounds` pairs (the fewest whose median has a 95 % interval), then until that interval
/// is within ±`ratio_target` of the ratio, at most `max_rounds` pairs or `time_cap_s` of turns.
struct PairingPolicy {
  std::size_t min_rounds = 6;   ///< pairs of rounds before the interval may stop it
  std::size_t max_rounds = 16;  ///< pairs of rounds at most
  double ratio_target = 0.01;   ///< stop once the ratio's 95 % interval is within ± this share of it
  double time_cap_s = 20;       ///< seconds of turns at most, from the first round
};

/// Paired timing's policies for `time_cap_s` seconds of timing, as grading and `bench --compare` use
/// them: one round (`round`, set here) is a few calls with its median to 2 %, and the rounds'
/// ratios then narrow the interval, within four times the cap (the returned PairingPolicy).
PairingPolicy paired_rounds(SamplingPolicy& round, double time_cap_s);

/// The submission's time over the reference solution's, from rounds timed in turn on one GPU: the
/// median of the rounds' ratios and its 95 % interval (median_ci_ranks; [min, max] below six rounds).
struct RatioEstimate {
  double ratio = 0;        ///< 0: no round of both
  double low = 0;          ///< the interval's lower end
  double high = 0;         ///< the interval's upper end
  std::size_t rounds = 0;  ///< pairs of rounds compared
};

/// The ratio of the round medians, round by round (`submission_rounds[k]` against
/// `reference_rounds[k]`), as time_against_reference estimates it.
RatioEstimate paired_ratio(const std::vector<double>& submission_rounds, const std::vector<double>& reference_rounds);

/// How kernel B's time compares with kernel A's (`bench --compare A B`).
enum class Comparison {
  same,    ///< the ratio's interval lies within the band around 1: no difference that matters
  faster,  ///< B: the whole interval lies below 1 − band
  slower,  ///< B: the whole interval lies above 1 + band
  unsure,  ///< the interval crosses a band's edge: more rounds, or a quieter GPU, could tell
};

/// The verdict on B's time over A's (`b_over_a`, as time_against_reference estimates it with B as
/// the submission and A as the reference), against a band of ±`band` around 1 (nvbench's compare
/// idea: a difference is claimed only where the whole interval says it). No round: unsure.
Comparison compare_ratio(const RatioEstimate& b_over_a, double band = 0.02);

/// "SAME", "FASTER", "SLOWER", "UNSURE".
const char* comparison_name(Comparison comparison);

/// Why paired timing is not believed: the reference solution's rounds after the first (timed
/// before any of the submission's code ran) are, in their median, more than a quarter slower than
/// the first, as when a submission leaves kernels running on the GPU between its rounds. Empty
/// when they are not.
std::string reference_slowed(const std::vector<double>& reference_rounds);

/// What time_against_reference measured.
struct PairedTiming {
  BenchOutcome submission;            ///< as bench_exercise: its verdict and one measurement over every round
  std::optional<double> reference_s;  ///< the reference solution's median over its rounds; none if it failed
  RatioEstimate ratio;                ///< rounds 0 when the reference solution did not run
  std::string reference_failure;      ///< why there is no reference time
  /// The rule the reference broke with a right answer, where options.measure_unmet_requirements
  /// let it be timed; empty otherwise.
  std::string reference_note;
};

/// Grading's timing: the submission (`source`) and the reference solution (`reference`) at the
/// large case, each in its own runner, timed in rounds taken in turn on the GPU (the reference's
/// round, then the submission's), so that both see the GPU in the same state: clocks, temperature
/// and neighbours change between the rounds of a pair far less than between two runs minutes apart.
/// `options.policy` is one round's; before_timed_run and after_timed_run frame both runners' turns.
/// One input set is timed (`options.input_sets` is not used).
PairedTiming time_against_reference(const Task& task, const Toolchain& toolchain, const std::filesystem::path& source,
                                    const std::filesystem::path& reference, const Peaks& peaks,
                                    const BenchOptions& options, const PairingPolicy& pairing = {});

}  // namespace cudalab
