#include "cudalab/exercise_bench.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cudalab/detail/process.hpp"
#include "cudalab/paths.hpp"

namespace cudalab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr double kInputSetBudgetBytes = 2.0 * (1ull << 30);  // host memory for the rotating sets

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

}  // namespace

int fp32_lanes_per_sm(int cc_major, int cc_minor) {
  // NVIDIA's throughput table ("Arithmetic Instructions", CUDA C++ Programming Guide): FP32 FMA
  // results per clock per SM.
  if (cc_major == 6 && cc_minor == 0) return 64;                     // P100
  if (cc_major == 7 || (cc_major == 8 && cc_minor == 0)) return 64;  // V100, T4, A100
  if (cc_major == 3) return 192;                                     // Kepler
  return 128;                                                        // Maxwell, Pascal 6.1+, 8.6+, Hopper, Blackwell
}

Peaks device_peaks(const fs::path& runner, const GpuDevice& device, const fs::path& cache_dir, bool& measured_now) {
  measured_now = false;
  Peaks peaks;
  const int lanes = fp32_lanes_per_sm(device.cc_major, device.cc_minor);
  peaks.fp32_gflops = static_cast<double>(device.sm_count) * device.clock_khz * 1e3 * lanes * 2 / 1e9;
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
  if (cache.contains(key)) {
    peaks.bandwidth_gbs = cache[key].value("bandwidth_gbs", 0.0);
  } else {
    ProcessOptions opts;
    opts.argv = {runner.string(), "--peak"};
    opts.timeout = std::chrono::seconds(120);
    const ProcessResult r = run_process(opts);
    try {
      peaks.bandwidth_gbs = json::parse(r.output).value("bandwidth_gbs", 0.0);
    } catch (const std::exception&) {
      peaks.bandwidth_gbs = 0;
    }
    if (peaks.bandwidth_gbs > 0) {
      measured_now = true;
      cache[key] = {{"device", device.name}, {"bandwidth_gbs", peaks.bandwidth_gbs}};
      std::error_code ec;
      fs::create_directories(cache_dir, ec);
      std::ofstream(file) << cache.dump(2);
    }
  }
  peaks.source = fmt::format(
      "bandwidth: 1 GiB device-to-device copy, read + write (measured, cached per device and "
      "driver); FP32: {} SMs × {} MHz × {} FMA × 2 (compute capability {}.{})",
      device.sm_count, device.clock_khz / 1000, lanes, device.cc_major, device.cc_minor);
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

  std::vector<Case> cases = cases_to_time(task, options.sizes);
  for (Case& c : cases) c.precision = options.precision;
  protocol::Spec bench_spec;
  bench_spec.mode = protocol::Mode::bench;
  bench_spec.policy = options.policy;
  bench_spec.host_memory =
      options.page_locked_host ? protocol::HostMemory::page_locked : protocol::HostMemory::pageable;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    // Rotating input sets, each with its own data, so that no sample reads inputs the previous
    // one left in a cache, and every set's result is re-checked afterwards.
    std::vector<std::vector<Buffer>> sets;
    for (std::size_t s = 0; s < std::max<std::size_t>(options.input_sets, 1); ++s) {
      // Set 0 has the inputs `check` gives this case under the same seed.
      Rng rng(case_seed(options.seed, task.info(), c, s));
      sets.push_back(task.make_buffers(c, rng));
      for (auto& b : sets.back()) {
        if (b.role == Role::output) poison(b);
      }
      const double bytes = static_cast<double>(set_bytes(sets.back()));
      if (s >= 1 && bytes * static_cast<double>(s + 2) > kInputSetBudgetBytes) break;
    }
    std::shared_future<std::vector<std::vector<Expected>>> expected = std::async(std::launch::async, [&] {
      std::vector<std::vector<Expected>> all;
      for (const auto& set : sets) all.push_back(task.reference(c, set));
      return all;
    });
    auto expected_fn = [&]() -> const std::vector<std::vector<Expected>>& { return expected.get(); };

    say(fmt::format("measuring {} at {} ({} input sets)", id, c.label(), sets.size()));
    protocol::Reply reply;
    const RunnerCall call{task, toolchain, compiled.module, c, bench_spec, options.timeout, 1 << 20};
    const CaseResult r = call_runner(call, sets, expected_fn, &reply);
    const bool unmet_but_right = r.verdict == Verdict::requirement_unmet && options.measure_unmet_requirements;
    if (r.verdict != Verdict::passed && !unmet_but_right) {
      out.verdict = r.verdict;
      out.message = r.message;
      out.details = r.details;
      out.details.insert(out.details.end(), r.hints.begin(), r.hints.end());
      return out;
    }
    const Summary summary = summary_of(reply);

    std::vector<Baseline> baselines;
    std::vector<std::string> notes;
    if (unmet_but_right) notes.push_back("requirement not met: " + r.message);
    if (reference) {
      say(fmt::format("measuring the reference solution of {} at {}", id, c.label()));
      protocol::Reply ref_reply;
      const RunnerCall ref_call{task, toolchain, reference->module, c, bench_spec, options.timeout, 1 << 20};
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
        baselines.push_back(cpu_baseline(task, c, sets.front(), threads, options.cpu_policy));
      }
      notes.push_back("CPU baseline: " + task.cpu_solve_name());
    }
    Measurement m = make_measurement(id, c, backend_name(toolchain.backend()), task.cost(c), summary, peaks, baselines);
    m.notes = std::move(notes);
    m.notes.push_back(describe_launches(reply.records));
    if (reply.host_memory) m.notes.push_back(host_memory_note(*reply.host_memory));
    std::optional<Measurement> kernels_only;
    // The row above is what the caller waits for (copies included for host-pointer exercises,
    // launch gaps and host work in solve for all); the kernels alone are what a profiler reports.
    const std::vector<double>& kernel = reply.kernel_samples_s;
    // The simulator traces nothing (all zeros): no kernels row there.
    if (std::ranges::any_of(kernel, [](double s) { return s > 0; })) {
      const bool host = task.info().pointers == PointerKind::host;
      m.kernel_median_s = median(kernel);
      Summary ks = summarize(kernel);
      // The traced calls are a fixed count: they count as settled when the median is known to the target.
      ks.stop = host ? summary.stop
                     : (ks.median_noise <= options.policy.noise_target ? StopReason::noise_target_met
                                                                       : StopReason::max_samples);
      ks.minimums_met = host ? summary.minimums_met : true;
      ks.wall_s = host ? summary.wall_s : 0;
      kernels_only = make_measurement(id + " (kernels)", c, backend_name(toolchain.backend()), task.cost(c), ks, peaks);
      kernels_only->notes.push_back(host ? "the kernels of every timed call, from CUPTI"
                                         : fmt::format("the kernels of {} traced calls apart from the timed ones, from "
                                                       "CUPTI",
                                                       kernel.size()));
    }
    out.measurements.push_back(std::move(m));
    if (kernels_only) out.measurements.push_back(std::move(*kernels_only));
  }
  return out;
}

}  // namespace cudalab
