#include "cudalab/exercise_bench.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <fstream>
#include <future>
#include <limits>
#include <mutex>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cudalab/paths.hpp"
#include "cudalab/process.hpp"
#include "cudalab/text.hpp"

namespace cudalab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr double kInputSetBudgetBytes = 2.0 * (1ull << 30);  // host memory for the rotating sets
/// Timed calls whose outputs the parent verifies, chosen at random among the first measured ones.
constexpr std::size_t kWitnessCalls = 3;
/// The input-set number whose case seed chooses the witnesses (far from the sets' own numbers).
constexpr std::size_t kWitnessSeedSet = 1000;
/// The detail of every refused time.
constexpr const char* kNotScored = "the time is not scored; docs/threat-model.md says what the checks are";
/// Above this share of the measured copy bandwidth, a time is not believed: a kernel moves its
/// bytes no faster than a device-to-device copy (the reference solutions reach 81–105 %; a cold L2
/// leaves little room above).
constexpr double kBandwidthCeiling = 1.15;
/// Where the TF32 tensor-core peak is not known: at most this many times the FP32 peak (dense: 8×
/// on an A100, 8× on an H100 at the same clock), a ceiling for the checks below, not a yardstick.
constexpr double kTf32OverFp32Ceiling = 8.0;
/// The parent's clock may see each call take at most this much longer than the runner reports
/// (launch, synchronisation and pipe wake-ups), in proportion and in absolute terms.
constexpr double kClockRatioAllowed = 3.0;
constexpr double kClockSlackS = 50e-6;
/// Pipe wake-ups at the three marks: what the parent's reading of a batch may be off by.
constexpr double kClockResolutionS = 200e-6;

/// What the host buffers of a host-pointer exercise were while timed, as the runner reports it.
std::string host_memory_note(protocol::HostMemory host_memory) {
  if (host_memory == protocol::HostMemory::page_locked) {
    return "host buffers page-locked while timed (cudaHostRegister): copies at the bus's speed; --pageable to "
           "time pageable memory";
  }
  return "host buffers pageable while timed: copy times vary with the host's memory traffic";
}

std::size_t set_bytes(const std::vector<Buffer>& buffers) {
  std::size_t total = 0;
  for (const auto& b : buffers) total += b.bytes.size();
  return total;
}

/// Times `cpu_solve` on copies of the first input set: what a user would otherwise run.
Baseline cpu_baseline(const Task& task, const Case& c, const std::vector<Buffer>& inputs, int threads,
                      const SamplingPolicy& policy) {
  std::vector<Buffer> work = inputs;
  Sampler sampler(policy);
  while (sampler.want_more()) {
    const auto t0 = std::chrono::steady_clock::now();
    task.cpu_solve(c, work, threads);
    sampler.add(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return Baseline{threads == 1 ? "CPU 1 thread" : fmt::format("CPU {} threads", threads), sampler.summary().median};
}

/// The statistics of the runner's samples, with how its sampler stopped.
Summary summary_of(const protocol::Reply& reply) {
  Summary s = summarize(reply.samples_s);
  s.stop = reply.stop;
  s.minimums_met = reply.minimums_met;
  s.wall_s = reply.wall_s;
  return s;
}

/// The measured calls whose outputs the runner copies aside for the parent to verify: the first
/// (every run has one), and others chosen with the (secret) seed among those up to min_samples.
std::vector<protocol::Witness> choose_witnesses(std::uint64_t seed, const SamplingPolicy& policy) {
  const std::size_t span = std::max<std::size_t>(policy.min_samples, kWitnessCalls);
  std::vector<std::size_t> calls(span);
  for (std::size_t i = 0; i < span; ++i) calls[i] = i;
  Rng rng(seed);
  for (std::size_t i = 1; i < kWitnessCalls; ++i) {  // a partial Fisher-Yates shuffle after the first
    std::uniform_int_distribution<std::size_t> pick(i, span - 1);
    std::swap(calls[i], calls[pick(rng)]);
  }
  std::vector<protocol::Witness> out;
  for (std::size_t i = 0; i < kWitnessCalls; ++i) out.push_back({calls[i], {}});
  return out;
}

/// The most a host-pointer exercise's call can move across the host link per second: both
/// directions at once, each at the ceiling of the measured copy. 0 when unknown.
double host_link_ceiling_gbs(const Peaks& peaks, bool host_pointers) {
  return host_pointers ? 2 * kBandwidthCeiling * peaks.host_link_gbs : 0;
}

/// The most flops per second a call can do: FP32, or at TF32 precision the tensor cores' peak
/// (where not known, a multiple of FP32). 0 when unknown.
double arithmetic_ceiling_gflops(const Peaks& peaks, Precision precision) {
  if (precision != Precision::tf32) return peaks.fp32_gflops;
  return peaks.tf32_gflops > 0 ? peaks.tf32_gflops : kTf32OverFp32Ceiling * peaks.fp32_gflops;
}

/// The fastest a call can physically be: its bytes at the ceiling of the copy bandwidth (for a
/// host-pointer exercise, whose inputs and outputs cross it, of the host link), its flops at the
/// arithmetic peak. 0 when the peaks are unknown.
double fastest_possible_s(const Cost& cost, const Peaks& peaks, Precision precision, bool host_pointers) {
  double t = 0;
  if (peaks.bandwidth_gbs > 0) t = std::max(t, cost.bytes / (kBandwidthCeiling * peaks.bandwidth_gbs * 1e9));
  if (const double link = host_link_ceiling_gbs(peaks, host_pointers); link > 0) {
    t = std::max(t, cost.bytes / (link * 1e9));
  }
  const double flops_peak = arithmetic_ceiling_gflops(peaks, precision);
  if (flops_peak > 0) t = std::max(t, cost.flops / (flops_peak * 1e9));
  return t;
}

/// Why a measurement cannot be true: faster than the device can go. Empty when it can be.
std::string impossible(const Measurement& m, Precision precision, bool host_pointers) {
  const Throughput& t = m.throughput;
  const Peaks& p = m.peaks;
  // No call takes no time (a forged reply that rounds its times down to 0 has no rate to refuse).
  if (!(m.summary.median > 0)) {
    return fmt::format("{} at {}: a median of {} s per call cannot be true", m.exercise, m.c.label(), m.summary.median);
  }
  if (t.gbs && p.bandwidth_gbs > 0 && *t.gbs > kBandwidthCeiling * p.bandwidth_gbs) {
    return fmt::format(
        "{} at {}: {:.0f} GB/s would be {:.0f} % of the device's measured copy bandwidth ({:.0f} GB/s); no kernel "
        "moves its data faster than a copy, so this time cannot be true",
        m.exercise, m.c.label(), *t.gbs, 100 * *t.gbs / p.bandwidth_gbs, p.bandwidth_gbs);
  }
  if (const double link = host_link_ceiling_gbs(p, host_pointers); t.gbs && link > 0 && *t.gbs > link) {
    return fmt::format(
        "{} at {}: {:.0f} GB/s across the host link would be {:.0f} % of twice its measured copy bandwidth "
        "({:.0f} GB/s each way); a host-pointer solve copies its inputs in and its outputs out, so this time "
        "cannot be true",
        m.exercise, m.c.label(), *t.gbs, 100 * *t.gbs / (2 * p.host_link_gbs), p.host_link_gbs);
  }
  const double flops_peak = arithmetic_ceiling_gflops(p, precision);
  if (t.gflops && flops_peak > 0 && *t.gflops > flops_peak) {
    return fmt::format(
        "{} at {}: {:.0f} GFLOP/s is above the device's {} peak ({:.0f} GFLOP/s), so this time cannot "
        "be true",
        m.exercise, m.c.label(), *t.gflops, precision == Precision::tf32 ? "TF32" : "FP32", flops_peak);
  }
  return {};
}

/// Compares what the runner reported with the clock batches the parent timed itself. Empty when
/// they agree. `fastest_s` is the physical floor of one call (0: unknown).
std::string clock_disagreement(const protocol::Reply& reply, const ParentClock& clock, double fastest_s) {
  std::string seen;
  for (const auto& m : clock.marks) seen += m.mark;
  std::string expected;
  for (std::size_t round = 0; round < protocol::kClockRounds; ++round) {
    expected.append(std::begin(protocol::kClockMarks), std::end(protocol::kClockMarks));
  }
  if (seen.empty()) {
    return "the parent's clock saw none of the runner's timed batches: the reply did not come from the runner's "
           "own timing";
  }
  if (seen != expected || reply.clock_calls != protocol::clock_calls_for(median(reply.samples_s))) {
    return fmt::format(
        "the runner's clock marks were not the protocol's ({} of {} calls): something in its process "
        "wrote to them",
        seen.substr(0, 16), reply.clock_calls);
  }
  const auto k = static_cast<double>(reply.clock_calls);
  // Each round's estimate of one call; a hiccup in one batch skews one round, so each check below
  // uses the round that is kindest to an honest run: a forger's marks are off in every round.
  double fastest_round = std::numeric_limits<double>::infinity();
  double slowest_round = -std::numeric_limits<double>::infinity();
  for (std::size_t round = 0; round < protocol::kClockRounds; ++round) {
    const ClockMark* m = &clock.marks[3 * round];
    const double without_solve = m[1].at_s - m[0].at_s;
    const double with_solve = m[2].at_s - m[1].at_s;
    const double per_call = (with_solve - without_solve) / k;
    fastest_round = std::min(fastest_round, per_call);
    slowest_round = std::max(slowest_round, per_call);
  }
  const double resolution = kClockResolutionS / k;
  if (fastest_s > 0 && slowest_round + resolution < 0.8 * fastest_s) {
    return fmt::format(
        "the parent's clock saw a call take {} on average, less than the device needs for the work "
        "({}): the marks were not written by the runner's timing",
        format_seconds(slowest_round), format_seconds(fastest_s));
  }
  const double reported = median(reply.samples_s);
  if (fastest_round > kClockRatioAllowed * reported + kClockSlackS + resolution) {
    return fmt::format(
        "the parent's clock saw each call take {} on average over {} calls, but the runner reported a "
        "median of {}",
        format_seconds(fastest_round), reply.clock_calls, format_seconds(reported));
  }
  return {};
}

/// The rotating input sets of case `c`: each with its own data, so that no sample reads inputs
/// the previous one left in a cache, and every set's result is re-checked afterwards. Set 0 has
/// the inputs `check` gives this case under the same seed.
void make_input_sets(const Task& task, const Case& c, const BenchOptions& options,
                     std::vector<std::shared_ptr<const CaseData>>& data, InputSets& sets) {
  for (std::size_t s = 0; s < std::max<std::size_t>(options.input_sets, 1); ++s) {
    data.push_back(case_data(options.case_data, task, c, case_seed(options.seed, task.info(), c, s)));
    sets.push_back(&data.back()->buffers);
    const double bytes = static_cast<double>(set_bytes(*sets.back()));
    if (s >= 1 && bytes * static_cast<double>(s + 2) > kInputSetBudgetBytes) break;
  }
}

/// Why a timed run's figures are not believed (Verdict::impossible_speed or timing_mismatch),
/// or nothing: physics first (a memoizing submission is fast, not forged), then the parent's own
/// clock against the runner's report.
std::optional<std::pair<Verdict, std::string>> unbelievable(const Task& task, const Case& c, const std::string& id,
                                                            const std::string& backend, const Summary& summary,
                                                            const Peaks& peaks, const protocol::Reply& reply,
                                                            const ParentClock& clock) {
  const bool host_pointers = task.info().pointers == PointerKind::host;
  if (std::string why =
          impossible(make_measurement(id, c, backend, task.cost(c), summary, peaks), c.precision, host_pointers);
      !why.empty()) {
    return std::pair{Verdict::impossible_speed, std::move(why)};
  }
  if (const std::string why =
          clock_disagreement(reply, clock, fastest_possible_s(task.cost(c), peaks, c.precision, host_pointers));
      !why.empty()) {
    return std::pair{Verdict::timing_mismatch, fmt::format("{} at {}: {}", id, c.label(), why)};
  }
  return std::nullopt;
}

/// Whether the submission's timed run stands: its outputs right (or right but breaking a rule, for
/// a ladder step: `unmet_but_right`) and its figures believed (unbelievable()). Otherwise `out`
/// says why, and nothing is measured.
bool timed_run_stands(BenchOutcome& out, const CaseResult& r, bool unmet_but_right, const Task& task, const Case& c,
                      const std::string& id, const Toolchain& toolchain, const Summary& summary, const Peaks& peaks,
                      const protocol::Reply& reply, const ParentClock& clock) {
  if (r.verdict != Verdict::passed && !unmet_but_right) {
    out.verdict = r.verdict;
    out.message = r.message;
    out.details = r.details;
    out.details.insert(out.details.end(), r.hints.begin(), r.hints.end());
    return false;
  }
  // Timed in the submission's process: believed only if physics and the parent's own
  // observations agree.
  if (auto why = unbelievable(task, c, id, backend_name(toolchain.backend()), summary, peaks, reply, clock)) {
    out.verdict = why->first;
    out.message = why->second;
    out.details = {kNotScored};
    return false;
  }
  return true;
}

/// The medians of a bench reply's rounds (protocol::Reply::round_ends).
std::vector<double> round_medians(const protocol::Reply& reply) {
  std::vector<double> out;
  std::size_t begin = 0;
  for (const std::size_t end : reply.round_ends) {
    out.push_back(median(std::vector<double>(reply.samples_s.begin() + static_cast<std::ptrdiff_t>(begin),
                                             reply.samples_s.begin() + static_cast<std::ptrdiff_t>(end))));
    begin = end;
  }
  return out;
}

/// How much slower the reference solution's rounds may be, once the submission has run, than its
/// first round (timed before any of the submission's code): more, and the submission is taken to
/// have left work on the GPU to slow the reference (docs/threat-model.md).
constexpr double kReferenceSlowdownAllowed = 1.25;

constexpr int kReferenceRunner = 0;
constexpr int kSubmissionRunner = 1;

/// Two runners taking turns on one GPU, a round each: the reference solution's, then the
/// submission's, until the ratio of their round medians is known well enough (PairingPolicy);
/// then each runs its last steps (clock batches) alone. Called from both runners' waiting threads.
/// The GPU is taken once both are ready and given back (`give_gpu`, where given) once both
/// processes have ended, before their outputs are judged: judging is CPU work, and another attempt
/// may time meanwhile.
class Alternation {
 public:
  Alternation(const PairingPolicy& policy, std::function<void()> take_gpu, std::function<void()> give_gpu)
      : policy_(policy), take_gpu_(std::move(take_gpu)), give_gpu_(std::move(give_gpu)) {}

  /// Runner `who` is at its gate; from its second visit on, with its round's median to read from
  /// `gate_fd`. Waits for its turn; returns kGateGo (a round) or kGateFinish (its last steps).
  char at_gate(int who, int gate_fd) {
    double round_s = 0;
    const bool back = visits_[who]++ > 0;
    if (back && read(gate_fd, &round_s, sizeof round_s) != sizeof round_s) round_s = 0;
    std::unique_lock lock(mutex_);
    if (back) {
      running_ = -1;
      if (!(round_s > 0) || !std::isfinite(round_s)) finishing_ = true;  // nothing to compare any more
      medians_[who].push_back(round_s);
      if (who == kSubmissionRunner) decide();
      changed_.notify_all();
    } else {
      // The GPU is taken once both runners are ready (or one is gone): not while the other still
      // starts its process and context.
      arrived_[who] = true;
      changed_.notify_all();
      changed_.wait(lock, [&] { return arrived_[1 - who] || gone_[1 - who]; });
      if (!gpu_taken_) {
        if (take_gpu_) take_gpu_();
        gpu_taken_ = true;
        started_ = std::chrono::steady_clock::now();
      }
    }
    changed_.wait(lock, [&] { return running_ < 0 && (turn_ == who || gone_[1 - who]); });
    running_ = who;
    turn_ = 1 - who;
    // Alone, the other runner gone: nothing to pair with, its last steps.
    return finishing_ || gone_[1 - who] ? protocol::kGateFinish : protocol::kGateGo;
  }

  /// Runner `who`'s process has ended (whenever, even before its gate): the GPU is the other's.
  void left(int who) {
    bool give = false;
    {
      std::lock_guard lock(mutex_);
      if (gone_[who]) return;
      gone_[who] = true;
      finishing_ = true;
      if (running_ == who) running_ = -1;
      give = give_gpu_ && gone_[1 - who] && gpu_taken_ && !gpu_given_;
      gpu_given_ = gpu_given_ || give;
      changed_.notify_all();
    }
    if (give) give_gpu_();
  }

  /// Whether left() has given the GPU back (both runners ended after it was taken, with a
  /// `give_gpu` to call).
  bool gave_gpu() {
    std::lock_guard lock(mutex_);
    return gpu_given_;
  }

 private:
  /// After a pair of rounds: enough rounds, or the ratio known to the target, or out of time.
  void decide() {
    const std::size_t pairs = std::min(medians_[0].size(), medians_[1].size());
    std::vector<double> ratios;
    for (std::size_t k = 0; k < pairs; ++k) ratios.push_back(medians_[1][k] / medians_[0][k]);
    std::ranges::sort(ratios);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    if (pairs >= policy_.max_rounds || elapsed >= policy_.time_cap_s ||
        (pairs >= policy_.min_rounds && median_ci_relative(ratios) <= policy_.ratio_target)) {
      finishing_ = true;
    }
  }

  PairingPolicy policy_;
  std::function<void()> take_gpu_;
  std::function<void()> give_gpu_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::atomic<int> visits_[2] = {0, 0};
  std::vector<double> medians_[2];
  bool gone_[2] = {false, false};
  bool arrived_[2] = {false, false};  ///< at its first gate
  bool finishing_ = false;
  bool gpu_taken_ = false;
  bool gpu_given_ = false;
  int running_ = -1;             ///< the runner timing now, or -1
  int turn_ = kReferenceRunner;  ///< whose round is next
  std::chrono::steady_clock::time_point started_;
};

}  // namespace

RatioEstimate paired_ratio(const std::vector<double>& submission_rounds, const std::vector<double>& reference_rounds) {
  RatioEstimate e;
  std::vector<double> ratios;
  for (std::size_t k = 0; k < std::min(submission_rounds.size(), reference_rounds.size()); ++k) {
    if (submission_rounds[k] > 0 && reference_rounds[k] > 0)
      ratios.push_back(submission_rounds[k] / reference_rounds[k]);
  }
  e.rounds = ratios.size();
  if (ratios.empty()) return e;
  std::ranges::sort(ratios);
  e.ratio = quantile_sorted(ratios, 0.5);
  if (const auto ranks = median_ci_ranks(ratios.size())) {
    e.low = ratios[ranks->lo];
    e.high = ratios[ranks->hi];
  } else {
    e.low = ratios.front();
    e.high = ratios.back();
  }
  return e;
}

std::string reference_slowed(const std::vector<double>& reference_rounds) {
  if (reference_rounds.size() < 2 || !(reference_rounds.front() > 0)) return {};
  // Round 0 ran before any code of the submission (its module loads after its first gate).
  const double before = reference_rounds.front();
  const double after = median(std::span(reference_rounds).subspan(1));
  if (after <= kReferenceSlowdownAllowed * before) return {};
  return fmt::format(
      "the reference solution's rounds took {:.0f} % longer once the submission had run ({} against {} before): "
      "something of the submission's kept the GPU busy between its rounds",
      100 * (after / before - 1), format_seconds(after), format_seconds(before));
}

int tf32_tensor_flops_per_sm(int cc_major, int cc_minor) {
  // Dense TF32 from NVIDIA's data sheets, per SM and clock (peak ÷ SMs ÷ boost clock): A100 1024,
  // H100 2048, B200 4096; the professional GA10x, Ada and Blackwell parts (A6000, L40S) 512, where
  // GeForce cards of the same architectures run at half that: the higher figure, so that no
  // percentage exceeds 100. Before Ampere: no TF32.
  if (cc_major < 8) return 0;
  if (cc_major == 8) return cc_minor == 0 ? 1024 : 512;
  if (cc_major == 9) return 2048;
  if (cc_major == 10) return 4096;
  if (cc_major == 12) return 512;
  return 0;  // not known: no yardstick rather than a wrong one
}

int fp32_lanes_per_sm(int cc_major, int cc_minor) {
  // NVIDIA's throughput table ("Arithmetic Instructions", CUDA C++ Programming Guide): FP32 FMA
  // results per clock per SM.
  if (cc_major == 6 && cc_minor == 0) return 64;                     // P100
  if (cc_major == 7 || (cc_major == 8 && cc_minor == 0)) return 64;  // V100, T4, A100
  if (cc_major == 3) return 192;                                     // Kepler
  return 128;                                                        // Maxwell, Pascal 6.1+, 8.6+, Hopper, Blackwell
}

Peaks device_peaks(const fs::path& runner, const GpuDevice& device, const fs::path& cache_dir, bool& measured_now,
                   const std::string& visible_devices) {
  measured_now = false;
  Peaks peaks;
  const int lanes = fp32_lanes_per_sm(device.cc_major, device.cc_minor);
  peaks.fp32_gflops = static_cast<double>(device.sm_count) * device.clock_khz * 1e3 * lanes * 2 / 1e9;
  peaks.tf32_gflops = static_cast<double>(device.sm_count) * device.clock_khz * 1e3 *
                      tf32_tensor_flops_per_sm(device.cc_major, device.cc_minor) / 1e9;
  const fs::path file = cache_dir / "peaks.json";
  const std::string key = device.uuid + "/" + std::to_string(device.driver_version);
  json cache = json::object();
  if (std::ifstream in(file); in) {
    try {
      cache = json::parse(in);
    } catch (const std::exception&) {
      cache = json::object();  // a damaged cache is measured again
    }
  }
  // An entry from before the host link's duplex was measured is measured again.
  if (cache.contains(key) && cache[key].contains("host_duplex_gbs")) {
    peaks.bandwidth_gbs = cache[key].value("bandwidth_gbs", 0.0);
    peaks.host_link_gbs = cache[key].value("host_link_gbs", 0.0);
    peaks.host_duplex_gbs = cache[key].value("host_duplex_gbs", 0.0);
  } else {
    ProcessOptions opts;
    opts.argv = {runner.string(), "--peak"};
    opts.timeout = std::chrono::seconds(120);
    if (!visible_devices.empty()) opts.environment = environment_with_visible_devices(visible_devices);
    const ProcessResult r = run_process(opts);
    try {
      const json measured = json::parse(r.output);
      peaks.bandwidth_gbs = measured.value("bandwidth_gbs", 0.0);
      peaks.host_link_gbs = measured.value("host_link_gbs", 0.0);
      peaks.host_duplex_gbs = measured.value("host_duplex_gbs", 0.0);
    } catch (const std::exception&) {
      peaks.bandwidth_gbs = 0;
    }
    if (peaks.bandwidth_gbs > 0) {
      measured_now = true;
      cache[key] = {{"device", device.name},
                    {"bandwidth_gbs", peaks.bandwidth_gbs},
                    {"host_link_gbs", peaks.host_link_gbs},
                    {"host_duplex_gbs", peaks.host_duplex_gbs}};
      std::error_code ec;
      fs::create_directories(cache_dir, ec);
      std::ofstream(file) << cache.dump(2);
    }
  }
  peaks.source = fmt::format(
      "bandwidth: 1 GiB device-to-device copy, read + write (measured, cached per device and "
      "driver); host link: 256 MiB page-locked copies both ways at once (measured), or twice the faster "
      "direction alone; FP32: {} SMs × {} MHz × {} "
      "FMA × 2 (compute capability {}.{}); TF32 tensor: {} SMs × {} MHz × {} dense flops (data sheet)",
      device.sm_count, device.clock_khz / 1000, lanes, device.cc_major, device.cc_minor, device.sm_count,
      device.clock_khz / 1000, tf32_tensor_flops_per_sm(device.cc_major, device.cc_minor));
  return peaks;
}

std::vector<Case> cases_to_time(const Task& task, const std::vector<std::int64_t>& sizes) {
  const std::vector<Case> all = task.cases(CaseOptions{});
  const auto large = std::ranges::find_if(all, [](const Case& c) { return c.large; });
  if (sizes.empty()) return large == all.end() ? std::vector<Case>{} : std::vector<Case>{*large};
  std::vector<Case> out;
  for (const std::int64_t size : sizes) {
    const auto match = std::ranges::find_if(all, [&](const Case& c) { return c.dims.front().value == size; });
    if (match != all.end()) {
      out.push_back(*match);
    } else if (large != all.end()) {
      Case c = *large;
      for (auto& d : c.dims) d.value = size;
      out.push_back(std::move(c));
    }
  }
  return out;
}

BenchOutcome bench_exercise(const Task& task, const Toolchain& toolchain, const fs::path& source, const Peaks& peaks,
                            const BenchOptions& options, const BenchProgress& progress) {
  auto say = [&](const std::string& what) {
    if (progress) progress(what);
  };
  BenchOutcome out;
  out.task = &task;
  out.source = source;
  const std::string id = options.name.empty() ? task.info().id : options.name;
  say(fmt::format("compiling {}", id));
  const CompileResult compiled = toolchain.compile(source);
  if (!compiled.ok) {
    out.verdict = Verdict::compile_error;
    out.message = "the file does not compile";
    out.details = {compiled.diagnostics};
    return out;
  }
  std::optional<CompileResult> reference;
  std::error_code ec;
  if (!options.reference.empty() && !fs::equivalent(options.reference, source, ec)) {
    say(fmt::format("compiling the reference solution of {}", id));
    reference = toolchain.compile(options.reference);
    if (!reference->ok) reference.reset();
  }

  const bool host_pointers = task.info().pointers == PointerKind::host;
  std::vector<Case> cases = cases_to_time(task, options.sizes);
  for (Case& c : cases) c.precision = options.precision;
  protocol::BenchRun bench_spec;
  bench_spec.policy = options.policy;
  bench_spec.host_memory =
      options.page_locked_host ? protocol::HostMemory::page_locked : protocol::HostMemory::pageable;
  bench_spec.clock_batches = true;
  bench_spec.kernel_traces = options.kernel_traces;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    // Rotating input sets, each with its own data, so that no sample reads inputs the previous
    // one left in a cache, and every set's result is re-checked afterwards.
    const auto inputs_start = std::chrono::steady_clock::now();
    std::vector<std::shared_ptr<const CaseData>> data;
    InputSets sets;
    make_input_sets(task, c, options, data, sets);
    auto expected_fn = [&](std::size_t set) -> const std::vector<Expected>& { return data.at(set)->expected.get(); };

    out.time_split.push_back(
        {"inputs", std::chrono::duration<double>(std::chrono::steady_clock::now() - inputs_start).count()});
    say(fmt::format("measuring {} at {} ({} input sets)", id, c.label(), sets.size()));
    protocol::Reply reply;
    ParentClock clock;
    protocol::BenchRun spec = bench_spec;
    spec.witnesses = choose_witnesses(case_seed(options.seed, task.info(), c, kWitnessSeedSet), options.policy);
    const RunnerCall call{task, toolchain, compiled.module, c, spec, options.timeout, 1 << 20, options.visible_devices,
                          // The GPU is free after the last case's run, unless the reference solution follows.
                          i + 1 == cases.size() && options.reference.empty() ? options.after_timed_run : nullptr,
                          &out.time_split, options.before_timed_run};
    const CaseResult r = call_runner(call, sets, expected_fn, &reply, &clock);
    const bool unmet_but_right = r.verdict == Verdict::requirement_unmet && options.measure_unmet_requirements;
    const Summary summary = summary_of(reply);
    if (!timed_run_stands(out, r, unmet_but_right, task, c, id, toolchain, summary, peaks, reply, clock)) return out;

    std::vector<Baseline> baselines;
    std::vector<std::string> notes;
    if (unmet_but_right) notes.push_back("requirement not met: " + r.message);
    if (reference) {
      say(fmt::format("measuring the reference solution of {} at {}", id, c.label()));
      protocol::Reply ref_reply;
      const RunnerCall ref_call{task,
                                toolchain,
                                reference->module,
                                c,
                                bench_spec,
                                options.timeout,
                                1 << 20,
                                options.visible_devices,
                                i + 1 == cases.size() ? options.after_timed_run : nullptr,
                                nullptr,
                                options.before_timed_run};
      const CaseResult rr = call_runner(ref_call, sets, expected_fn, &ref_reply);
      if (rr.verdict == Verdict::passed) {
        baselines.push_back({"reference solution", summary_of(ref_reply).median});
      } else {
        notes.push_back("the reference solution failed here: " + rr.message);
      }
    }
    if (options.cpu_baselines) {
      const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
      for (int threads : {1, cores}) {
        if (threads == cores && cores == 1) break;
        say(fmt::format("timing the CPU implementation of {} on {} thread{}", id, threads, threads == 1 ? "" : "s"));
        baselines.push_back(cpu_baseline(task, c, *sets.front(), threads, options.cpu_policy));
      }
      notes.push_back("CPU baseline: " + task.cpu_solve_name());
    }
    // Each row's percentages against the peak that bounds it: the tensor cores at TF32, the host
    // link for a host-pointer exercise's calls (its kernels alone: device memory).
    Peaks row_peaks = peaks;
    row_peaks.tf32 = c.precision == Precision::tf32;
    row_peaks.host_link = host_pointers;
    Peaks kernel_peaks = row_peaks;
    kernel_peaks.host_link = false;
    Measurement m =
        make_measurement(id, c, backend_name(toolchain.backend()), task.cost(c), summary, row_peaks, baselines);
    m.notes = std::move(notes);
    m.notes.push_back(describe_launches(reply.records));
    if (reply.host_memory) m.notes.push_back(host_memory_note(*reply.host_memory));
    std::optional<Measurement> kernels_only;
    // The row above is what the caller waits for (copies included for host-pointer exercises,
    // launch gaps and host work in solve for all); the kernels alone are what a profiler reports.
    const std::vector<double>& kernel = reply.kernel_samples_s;
    // The simulator traces nothing (all zeros): no kernels row there.
    if (std::ranges::any_of(kernel, [](double s) { return s > 0; })) {
      m.kernel_median_s = median(kernel);
      Summary ks = summarize(kernel);
      // The traced calls are a fixed count: they count as settled when the median is known to the target.
      ks.stop = ks.median_noise <= options.policy.noise_target ? StopReason::noise_target_met : StopReason::max_samples;
      ks.minimums_met = true;
      ks.wall_s = 0;
      kernels_only =
          make_measurement(id + " (kernels)", c, backend_name(toolchain.backend()), task.cost(c), ks, kernel_peaks);
      kernels_only->notes.push_back(
          fmt::format("the kernels of {} traced calls apart from the timed ones, from CUPTI", kernel.size()));
    }
    if (kernels_only) {
      // The kernels alone do not cross the host link.
      if (const std::string why = impossible(*kernels_only, c.precision, false); !why.empty()) {
        out.verdict = Verdict::impossible_speed;
        out.message = why;
        out.details = {kNotScored};
        return out;
      }
    }
    out.measurements.push_back(std::move(m));
    if (kernels_only) out.measurements.push_back(std::move(*kernels_only));
  }
  return out;
}

PairingPolicy paired_rounds(SamplingPolicy& round, double time_cap_s) {
  round.warmup_runs = 2;
  round.min_samples = 6;
  round.min_time_s = 0.005;
  round.noise_target = 0.02;
  round.time_cap_s = time_cap_s / 4;
  PairingPolicy pairing;
  pairing.time_cap_s = 4 * time_cap_s;
  return pairing;
}

Comparison compare_ratio(const RatioEstimate& b_over_a, double band) {
  if (b_over_a.rounds == 0 || !(b_over_a.ratio > 0)) return Comparison::unsure;
  if (b_over_a.high < 1 - band) return Comparison::faster;
  if (b_over_a.low > 1 + band) return Comparison::slower;
  if (b_over_a.low >= 1 - band && b_over_a.high <= 1 + band) return Comparison::same;
  return Comparison::unsure;
}

const char* comparison_name(Comparison comparison) {
  switch (comparison) {
    case Comparison::same:
      return "SAME";
    case Comparison::faster:
      return "FASTER";
    case Comparison::slower:
      return "SLOWER";
    case Comparison::unsure:
      return "UNSURE";
  }
  return "UNSURE";
}

PairedTiming time_against_reference(const Task& task, const Toolchain& toolchain, const fs::path& source,
                                    const fs::path& reference, const Peaks& peaks, const BenchOptions& asked,
                                    const PairingPolicy& pairing) {
  // One input set, whatever was asked: the two runners' rounds take the same inputs, and the
  // timed calls' outputs are judged against that set's. (With four, bench --compare judged a right
  // matmul's timed calls against another set's outputs: an H200, 2026-11-27; grading asked for one.)
  BenchOptions options = asked;
  options.input_sets = 1;
  PairedTiming out;
  BenchOutcome& timed = out.submission;
  timed.task = &task;
  timed.source = source;
  const std::string id = options.name.empty() ? task.info().id : options.name;
  const CompileResult compiled = toolchain.compile(source);
  if (!compiled.ok) {
    timed.verdict = Verdict::compile_error;
    timed.message = "the file does not compile";
    timed.details = {compiled.diagnostics};
    return out;
  }
  const CompileResult reference_module = toolchain.compile(reference);
  const std::vector<Case> cases = cases_to_time(task, options.sizes);
  if (cases.empty()) {
    timed.verdict = Verdict::runner_error;
    timed.message = id + " has no case to time";
    return out;
  }
  Case c = cases.front();
  c.precision = options.precision;
  const auto inputs_start = std::chrono::steady_clock::now();
  std::vector<std::shared_ptr<const CaseData>> data;
  InputSets sets;
  make_input_sets(task, c, options, data, sets);
  auto expected_fn = [&](std::size_t set) -> const std::vector<Expected>& { return data.at(set)->expected.get(); };
  timed.time_split.push_back(
      {"inputs", std::chrono::duration<double>(std::chrono::steady_clock::now() - inputs_start).count()});

  protocol::BenchRun spec;
  spec.policy = options.policy;
  spec.host_memory = options.page_locked_host ? protocol::HostMemory::page_locked : protocol::HostMemory::pageable;
  spec.kernel_traces = false;
  protocol::BenchRun submission_spec = spec;
  submission_spec.clock_batches = true;  // the reference solution is trusted: no need to watch its clock
  submission_spec.witnesses =
      choose_witnesses(case_seed(options.seed, task.info(), c, kWitnessSeedSet), options.policy);

  // The GPU is taken when both runners are ready and given back when both have ended, before the
  // outputs are judged where the timed calls see device memory only. A host-pointer exercise's
  // calls time the host link and host memory, which judging (gigabytes read) would share with the
  // next attempt's rounds: its GPU is given back after (two H200s, 2026-11-28: given back before,
  // three 02_vector_add attempts timed beside that judging were not scored).
  const bool give_before_judging = task.info().pointers == PointerKind::device;
  Alternation turns(pairing, options.before_timed_run,
                    give_before_judging ? options.after_timed_run : std::function<void()>());
  const auto make_call = [&](const CompileResult& module, const protocol::BenchRun& s, int who,
                             std::vector<protocol::Phase>* split) {
    RunnerCall call{task,
                    toolchain,
                    module.module,
                    c,
                    s,
                    options.timeout,
                    1 << 20,
                    options.visible_devices,
                    [&turns, who] { turns.left(who); },
                    split};
    call.at_gate = [&turns, who](int gate_fd) { return turns.at_gate(who, gate_fd); };
    return call;
  };
  protocol::Reply reference_reply;
  std::optional<CaseResult> reference_result;
  std::exception_ptr reference_fault;
  std::thread reference_thread;
  if (reference_module.ok) {
    reference_thread = std::thread([&] {
      try {
        reference_result = call_runner(make_call(reference_module, spec, kReferenceRunner, nullptr), sets, expected_fn,
                                       &reference_reply);
      } catch (...) {
        reference_fault = std::current_exception();
      }
      turns.left(kReferenceRunner);
    });
  } else {
    turns.left(kReferenceRunner);
    out.reference_failure = "the reference solution does not compile";
  }
  protocol::Reply reply;
  ParentClock clock;
  std::optional<CaseResult> result;
  std::exception_ptr fault;
  try {
    result = call_runner(make_call(compiled, submission_spec, kSubmissionRunner, &timed.time_split), sets, expected_fn,
                         &reply, &clock);
  } catch (...) {
    fault = std::current_exception();
  }
  turns.left(kSubmissionRunner);
  if (reference_thread.joinable()) reference_thread.join();
  if (!turns.gave_gpu() && options.after_timed_run) options.after_timed_run();
  if (fault) std::rethrow_exception(fault);
  if (reference_fault) std::rethrow_exception(reference_fault);

  const CaseResult& r = *result;
  const bool unmet_but_right = r.verdict == Verdict::requirement_unmet && options.measure_unmet_requirements;
  const Summary summary = summary_of(reply);
  if (!timed_run_stands(timed, r, unmet_but_right, task, c, id, toolchain, summary, peaks, reply, clock)) return out;
  Peaks row_peaks = peaks;
  row_peaks.tf32 = c.precision == Precision::tf32;
  row_peaks.host_link = task.info().pointers == PointerKind::host;
  Measurement m = make_measurement(id, c, backend_name(toolchain.backend()), task.cost(c), summary, row_peaks);
  m.notes.push_back(describe_launches(reply.records));
  if (unmet_but_right) m.notes.push_back("requirement not met: " + r.message);
  timed.measurements.push_back(std::move(m));
  // A reference that breaks a rule with a right answer is timed where asked (bench --compare of a
  // ladder's first step), with the rule it broke.
  const bool reference_stands =
      reference_result &&
      (reference_result->verdict == Verdict::passed ||
       (reference_result->verdict == Verdict::requirement_unmet && options.measure_unmet_requirements));
  if (reference_stands && !reference_reply.samples_s.empty()) {
    if (reference_result->verdict != Verdict::passed) out.reference_note = reference_result->message;
    out.reference_s = summary_of(reference_reply).median;
    const std::vector<double> reference_rounds = round_medians(reference_reply);
    // On the simulator the "GPU" is the machine's cores, shared with whatever else runs: its rounds
    // vary by more than the margin, and no grade is timed there (only a GPU's speed is scored).
    const std::string why = toolchain.backend() == Backend::gpu ? reference_slowed(reference_rounds) : std::string();
    if (!why.empty()) {
      timed.verdict = Verdict::timing_mismatch;
      timed.message = fmt::format("{} at {}: {}", id, c.label(), why);
      timed.details = {kNotScored};
      return out;
    }
    out.ratio = paired_ratio(round_medians(reply), reference_rounds);
  } else if (out.reference_failure.empty()) {
    out.reference_failure = "the reference solution failed here: " +
                            (reference_result ? reference_result->message : std::string("it did not run"));
  }
  return out;
}

}  // namespace cudalab
