#include "cudalab/grading/grader.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudalab/backend.hpp"
#include "cudalab/errors.hpp"
#include "cudalab/exercise_bench.hpp"
#include "cudalab/exercise_check.hpp"
#include "cudalab/files.hpp"
#include "cudalab/grading/gradebook.hpp"
#include "cudalab/grading/reports.hpp"
#include "cudalab/grading/rubric.hpp"
#include "cudalab/grading/similarity.hpp"
#include "cudalab/grading/submissions.hpp"
#include "cudalab/paths.hpp"
#include "cudalab/registry.hpp"
#include "cudalab/sandbox.hpp"

namespace cudalab::grading {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

/// The nice value of the checks while a GPU times beside them: the timing's processes and the
/// thread that reads their clock marks get the cores first.
constexpr int kCheckNicenessBesideTiming = 10;

/// Attempts in the timing phase at once per GPU: one holds the GPU while the others prepare their
/// inputs, start their runner (which waits at its gate) and judge their outputs on the CPU. The
/// CPU's share of a large case is about three times the GPU's, hence up to six per GPU, as the
/// cores (two each) and the memory (a large case holds up to about 6 GiB) allow.
unsigned timing_workers_per_gpu(std::size_t gpus) {
  constexpr unsigned kMost = 6;
  constexpr unsigned kLeast = 2;
  constexpr double kBytesPerWorker = 6.0 * (1 << 30);
  const auto per_gpu = static_cast<double>(std::max<std::size_t>(gpus, 1));
  const double cores = std::max(1u, std::thread::hardware_concurrency());
  const double memory = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  const double fits = std::min(cores / 2, memory > 0 ? memory / kBytesPerWorker : kLeast) / per_gpu;
  return static_cast<unsigned>(std::clamp(fits, double{kLeast}, double{kMost}));
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// The rubric to grade with: --rubric, else the project's grading/rubric.toml, else the default
/// one beside cudalab's data (the source tree of a build, share/cudalab of an installation).
fs::path rubric_path(const GradeOptions& options) {
  if (!options.rubric.empty()) return options.rubric;
  const fs::path in_project = project_root() / "grading" / "rubric.toml";
  return fs::exists(in_project) ? in_project : data_dir() / "grading" / "rubric.toml";
}

/// One student's kernel.cu for one exercise.
struct Job {
  const Submission* submission = nullptr;
  const Task* task = nullptr;
  fs::path source;
  std::string hash;  ///< of the file's content: --resume skips what the gradebook has for it
};

/// describe_phases' ": a 1.0, b 2.0" as " [a 1.0, b 2.0]", for a progress line that already has
/// parentheses; "" stays "".
std::string bracketed(const std::string& phases) { return phases.size() > 2 ? " [" + phases.substr(2) + "]" : ""; }

std::string file_hash(const fs::path& file) {
  try {
    return content_key({"kernel.cu", read_file(file)});
  } catch (const std::exception&) {
    return "unreadable";
  }
}

/// One GPU grading runs on, or the simulator as one slot.
struct Device {
  std::string visible;  ///< the runner's CUDA_VISIBLE_DEVICES; "": as inherited
  std::string name;     ///< as attempts record it: "NVIDIA H100 80GB HBM3 (GPU 1)", "CPU simulator"
  std::optional<Peaks> peaks;
};

/// One GPU taken alone for the timed runs of one attempt: from the first run's start (its inputs
/// are prepared first, while another attempt times) to the end of the last (a device-pointer
/// exercise's outputs are judged after, while another times; time_against_reference). Used by one
/// attempt's threads, one at a time: the runner's thread that ends last gives the GPU back.
class TimingTurn {
 public:
  TimingTurn(GpuPool& pool, std::size_t gpu) : pool_(pool), gpu_(gpu) {}
  ~TimingTurn() { end(); }
  TimingTurn(const TimingTurn&) = delete;
  TimingTurn& operator=(const TimingTurn&) = delete;
  /// Waits for the GPU, unless this turn has it already.
  void begin() {
    if (held_) return;
    pool_.take_alone(gpu_);
    held_ = true;
  }
  void end() {
    if (!held_) return;
    held_s_ += pool_.release(gpu_, true);
    held_ = false;
  }
  /// Seconds this turn has held the GPU, once it has ended.
  [[nodiscard]] double held_s() const { return held_s_; }
  /// The hooks that give `options`' timed runs this turn.
  void attach(BenchOptions& options) {
    options.before_timed_run = [this] { begin(); };
    options.after_timed_run = [this] { end(); };
  }

 private:
  GpuPool& pool_;
  std::size_t gpu_;
  bool held_ = false;
  double held_s_ = 0;
};

/// A GPU of the pool for as long as it lives.
class Held {
 public:
  Held(GpuPool& pool, bool alone) : pool_(pool), alone_(alone), gpu_(alone ? pool.take_alone() : pool.share()) {}
  ~Held() { release(); }
  /// Gives the GPU back before the end of the scope (once).
  void release() {
    if (released_.exchange(true)) return;
    pool_.release(gpu_, alone_);
  }
  Held(const Held&) = delete;
  Held& operator=(const Held&) = delete;
  [[nodiscard]] std::size_t gpu() const { return gpu_; }

 private:
  GpuPool& pool_;
  bool alone_;
  std::atomic<bool> released_{false};
  std::size_t gpu_;
};

/// The GPUs to grade on, probed, with their peaks. Throws std::invalid_argument for a GPU of
/// `gpus` that is not there, is listed twice (under two names) or has another architecture.
std::vector<std::unique_ptr<Device>> gpu_devices(const Toolchain& gpu, const std::vector<unsigned>& gpus,
                                                 const fs::path& cache, std::vector<std::string>& lines) {
  std::vector<std::unique_ptr<Device>> out;
  auto describe = [&](const Device& d, const std::string& visible) {
    std::string line = d.name;
    if (!visible.empty()) line += fmt::format(" (CUDA_VISIBLE_DEVICES={} for the runner)", visible);
    if (d.peaks) {
      line += fmt::format(": peaks {:.0f} GB/s, {:.0f} GFLOP/s FP32, host link {:.0f} GB/s", d.peaks->bandwidth_gbs,
                          d.peaks->fp32_gflops, d.peaks->host_link_gbs);
    }
    lines.push_back(line);
  };
  if (gpus.empty()) {
    // As before --gpus: the first GPU the runner finds, whatever cudalab inherited.
    auto d = std::make_unique<Device>();
    d->name = "GPU";
    std::string why;
    if (const auto probed = probe_gpu(gpu.runner(), why)) {
      d->name = probed->name;
      bool measured_now = false;
      d->peaks = device_peaks(gpu.runner(), *probed, cache, measured_now);
    }
    describe(*d, "");
    out.push_back(std::move(d));
    return out;
  }
  const char* inherited = std::getenv("CUDA_VISIBLE_DEVICES");
  std::map<std::string, unsigned> by_uuid;
  std::optional<GpuDevice> first;
  for (const unsigned number : gpus) {
    auto d = std::make_unique<Device>();
    d->visible = visible_device_for(number, inherited);
    std::string why;
    const auto probed = probe_gpu(gpu.runner(), why, d->visible);
    if (!probed) {
      throw UsageError(fmt::format("--gpus: GPU {} is not visible (the runner with CUDA_VISIBLE_DEVICES={}: {})",
                                   number, d->visible, why));
    }
    if (const auto [it, fresh] = by_uuid.emplace(probed->uuid, number); !fresh) {
      throw UsageError(fmt::format("--gpus: GPUs {} and {} are the same device ({}, uuid {})", it->second, number,
                                   probed->name, probed->uuid));
    }
    // Kernels are compiled once, for one architecture.
    if (first && (probed->cc_major != first->cc_major || probed->cc_minor != first->cc_minor)) {
      throw UsageError(fmt::format(
          "--gpus: GPU {} ({}, compute capability {}.{}) is not of the architecture of GPU {} ({}, {}.{}): list GPUs "
          "of one kind",
          number, probed->name, probed->cc_major, probed->cc_minor, gpus.front(), first->name, first->cc_major,
          first->cc_minor));
    }
    if (!first) first = probed;
    d->name = fmt::format("{} (GPU {})", probed->name, number);
    bool measured_now = false;
    d->peaks = device_peaks(gpu.runner(), *probed, cache, measured_now, d->visible);
    describe(*d, d->visible);
    out.push_back(std::move(d));
  }
  return out;
}

CheckRow check_row(const CaseResult& c) {
  return {c.c.label(), verdict_name(c.verdict), c.message, c.details, c.hints, c.solve_ms};
}

/// The checks that ran with a right output (a broken rule is a penalty, not a wrong answer).
bool outputs_right(const ExerciseResult& r) {
  return !r.cases.empty() && std::ranges::all_of(r.cases, [](const CaseResult& c) {
    // Work done on the host has no GPU speed to time.
    return traits_of(c.verdict).output_right && !c.work_on_host;
  });
}

}  // namespace

GradeSummary grade_class(const GradeOptions& options, const GradeProgressFn& progress) {
  // Everything that can be wrong with the set-up is found before any student is graded.
  if (!fs::is_directory(options.submissions)) {
    throw UsageError(options.submissions.string() + " is not a folder of submissions");
  }
  if (options.shard && (options.shard->count == 0 || options.shard->index >= options.shard->count)) {
    throw UsageError(fmt::format("--shard {}/{}: K must be below N", options.shard->index, options.shard->count));
  }
  if (options.shard && options.shard->count > 1 && !options.seed) {
    throw UsageError(
        "--shard needs the class's seed (--seed-file FILE): every shard must grade on the same one, or their "
        "students get other inputs and `cudalab merge` refuses them");
  }
  if (std::set<unsigned>(options.gpus.begin(), options.gpus.end()).size() != options.gpus.size()) {
    throw UsageError("--gpus: a GPU is listed twice");
  }
  std::vector<std::string> known;
  for (const auto& t : all_tasks()) known.push_back(t->info().id);
  const Rubric rubric = load_rubric(rubric_path(options), known);

  ToolchainConfig config;
  config.cache_dir = cache_dir();
  config.runner_dir = program_dir();
  BackendChoice backend = choose_backend(parse_backend_request(options.backend), config);
  const Toolchain& toolchain = *backend.toolchain;
  const bool on_gpu = toolchain.backend() == Backend::gpu;
  // The checked run, as `cudalab check` makes it: the simulator's checked build at the small
  // sizes, whose findings (races, out-of-bounds reads) fail a check that the outputs alone pass.
  ToolchainConfig checked_config = config;
  checked_config.checked = true;
  const std::unique_ptr<Toolchain> checked = make_sim_toolchain(checked_config);
  if (std::string why; !checked->available(why)) throw SetupError("the simulator's checked build cannot run: " + why);
  // On the simulator, nvcc's front end where it is installed: a file it rejects scores as one that
  // does not compile, as it would on a GPU.
  const std::unique_ptr<Toolchain> nvcc_front_end = on_gpu ? nullptr : make_nvcc_front_end(config);
  if (!on_gpu && !options.gpus.empty()) {
    throw UsageError(
        fmt::format("--gpus: grading runs on the CPU simulator here ({}), which has no GPUs: drop --gpus, or grade on "
                    "a GPU machine",
                    backend.line));
  }
  GradeSummary summary;
  std::vector<std::unique_ptr<Device>> devices;
  if (on_gpu) {
    devices = gpu_devices(toolchain, options.gpus, config.cache_dir, summary.devices);
  } else {
    devices.push_back(std::make_unique<Device>());
    devices.back()->name = "CPU simulator";
  }
  fs::create_directories(options.out_dir);
  Gradebook gradebook(options.out_dir / "gradebook.sqlite", options.seed);

  std::vector<std::string> graded_ids;
  for (const auto& [id, rule] : rubric.exercises) graded_ids.push_back(id);
  std::vector<std::string> skipped;
  std::set<std::string> in_class;
  std::set<std::string> in_shard;
  const auto select = [&](const std::string& student) {
    in_class.insert(student);
    if (options.shard && shard_of(student, options.shard->count) != options.shard->index) return false;
    in_shard.insert(student);
    return options.only.empty() || std::ranges::find(options.only, student) != options.only.end();
  };
  const std::vector<Submission> submissions =
      read_submissions(options.submissions, options.out_dir / "work", graded_ids, {}, &skipped, select);
  // A name in --only that is not in the class is a typo: grading nobody would look like success.
  for (const auto& student : options.only) {
    if (!in_class.contains(student)) {
      throw UsageError(fmt::format("--only: {} has no submission named '{}' (the class: {})",
                                   options.submissions.string(), student, fmt::join(in_class, ", ")));
    }
  }
  if (options.shard) {
    summary.shard_line = fmt::format("shard {}/{}: {} of the class's {} students", options.shard->index,
                                     options.shard->count, in_shard.size(), in_class.size());
  }

  std::vector<std::string> device_names;
  for (const auto& d : devices) device_names.push_back(d->name);
  RunInfo run_info{utc_now(),
                   CUDALAB_VERSION,
                   backend_name(toolchain.backend()),
                   fmt::format("{}", fmt::join(device_names, ", ")),
                   options.command,
                   rubric.source,
                   {},
                   rubric.hash,
                   describe_sandbox(toolchain.backend(), options.timeout)};
  // What each exercise is out of in this run: without a GPU, its correctness points only.
  for (const auto& [id, rule] : rubric.exercises) {
    run_info.points[id] = on_gpu ? rule.points : rule.points * (1 - rule.performance_share);
  }
  const std::int64_t run = gradebook.begin_run(run_info);

  summary.backend_line = backend.line;
  summary.skipped = skipped;
  std::vector<Job> jobs;
  for (const Submission& s : submissions) {
    ++summary.students;
    std::vector<std::string> notes = s.notes;
    std::vector<std::string> missing;
    for (const auto& [id, rule] : rubric.exercises) {
      const auto kernel = s.kernels.find(id);
      if (kernel == s.kernels.end()) {
        missing.push_back(id);
        continue;
      }
      const std::string hash = file_hash(kernel->second);
      if (options.resume) {
        const auto before = gradebook.latest(s.student, id);
        if (before && before->source_hash == hash) {
          ++summary.unchanged;
          continue;
        }
      }
      jobs.push_back({&s, find_task(id), kernel->second, hash});
    }
    if (!missing.empty()) {
      notes.push_back(fmt::format("no kernel.cu found for {} (NN_name/kernel.cu or name.cu): 0 points there",
                                  fmt::join(missing, ", ")));
    }
    gradebook.add_student_notes(run, s.student, notes);
  }

  // Checks share a GPU (each in its own process); a timed run takes one alone.
  GpuPool gpus(devices.size());
  std::mutex gradebook_lock;
  std::mutex progress_lock;
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  const auto started = Clock::now();
  // Every student's kernel gets the same inputs (one seed per class): each case's inputs and CPU
  // reference are made once, not once per submission.
  CaseDataCache case_data;
  double compile_s = 0;
  double check_s = 0;
  double timing_s = 0;
  BenchOptions bench;
  bench.case_data = &case_data;
  bench.seed = gradebook.seed();
  // The paired timing's rounds (time_against_reference, which times one input set); the
  // kernels-alone row of `bench` is not scored.
  const PairingPolicy pairing = paired_rounds(bench.policy, options.time_cap_s);
  bench.kernel_traces = false;
  bench.cpu_baselines = false;

  const auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  // An attempt between its check and its timing.
  struct Pending {
    const Job* job = nullptr;
    Attempt attempt;
    double compiling = 0;
    double checking = 0;
    double timing = 0;
    double gpu_held = 0;                          ///< of `timing`, with the GPU alone
    std::vector<protocol::Phase> checking_split;  ///< where the check's seconds went
    std::vector<protocol::Phase> timing_split;    ///< where the timing's seconds went
  };

  // Scores, records and reports an attempt that is complete.
  auto finish = [&](Pending& p) {
    Attempt& a = p.attempt;
    a.score = rubric.score(a);
    a.graded_at = utc_now();
    a.seconds = p.compiling + p.checking + p.timing;
    {
      std::lock_guard lock(gradebook_lock);
      gradebook.add_attempt(run, a);
    }
    std::lock_guard lock(progress_lock);
    compile_s += p.compiling;
    check_s += p.checking;
    timing_s += p.timing;
    ++done;
    ++summary.graded;
    if (progress) {
      const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
      const double eta = elapsed / static_cast<double>(done) * static_cast<double>(jobs.size() - done);
      // Where each attempt's time went, so that a slow class can be read from its log.
      progress({done, jobs.size(),
                fmt::format("{} {}: {} in {:.1f} s (compiling {:.1f}, checking {:.1f}{}, timing {:.1f}{}{})", a.student,
                            a.exercise, a.verdict, a.seconds, p.compiling, p.checking,
                            bracketed(protocol::describe_phases(p.checking_split, 0.1, 1)), p.timing,
                            p.gpu_held > 0 ? fmt::format(", the GPU held {:.1f}", p.gpu_held) : "",
                            protocol::describe_phases(p.timing_split, 0.1, 1)),
                eta});
    }
  };

  // Phase 1, many at once: compile and check. Returns whether the attempt is to be timed.
  auto check_one = [&](const Job& job, Pending& p) {
    p.job = &job;
    const TaskInfo& info = job.task->info();
    Attempt& a = p.attempt;
    a.student = job.submission->student;
    a.exercise = info.id;
    a.source_hash = job.hash;
    a.source_path = fs::relative(job.source, job.submission->root).string();
    a.cudalab_version = CUDALAB_VERSION;
    a.backend = backend_name(toolchain.backend());
    a.seed = gradebook.seed();
    a.submitted_at = job.submission->submitted_at;
    CheckOptions check;
    check.seed = a.seed;
    check.timeout = options.timeout;
    check.case_data = &case_data;
    check.checked_toolchain = checked.get();
    check.nvcc_front_end = nvcc_front_end.get();
    try {
      // Compiled first (no GPU needed), so that the check finds the module in the cache.
      const auto compile_start = Clock::now();
      (void)toolchain.compile(job.source);
      p.compiling = seconds_since(compile_start);
      const auto check_start = Clock::now();
      ExerciseResult r;
      {
        const Held held(gpus, false);
        const Device& d = *devices[held.gpu()];
        a.device = d.name;
        check.visible_devices = d.visible;
        r = check_exercise(*job.task, toolchain, job.source, check);
      }
      p.checking_split = r.time_split;
      p.checking = seconds_since(check_start);
      a.verdict = verdict_name(r.verdict);
      const CaseResult* failure = r.first_failure();
      a.message = r.verdict == Verdict::compile_error ? "the file does not compile"
                  : failure != nullptr                ? failure->message
                                                      : "passed";
      if (r.verdict == Verdict::compile_error) {
        // The student sees their own file's path, not where the instructor keeps the class.
        std::string diagnostics = r.compile.diagnostics;
        const std::string absolute = job.source.string();
        for (std::size_t at = diagnostics.find(absolute); at != std::string::npos;
             at = diagnostics.find(absolute, at + a.source_path.size())) {
          diagnostics.replace(at, absolute.size(), a.source_path);
        }
        a.checks.push_back(
            {"compile", "compile_error", "the file does not compile", {diagnostics.substr(0, 4000)}, {}, 0});
      }
      a.hints = r.hints;
      for (const auto& c : r.cases) a.checks.push_back(check_row(c));
      // Without peaks the GPU could not be probed (no --gpus; with it, every GPU was): not timed.
      return on_gpu && devices.front()->peaks.has_value() && outputs_right(r);
    } catch (const SetupError&) {
      throw;  // the machine's trouble: run_workers stops the class, and nothing is recorded
    } catch (const std::exception& e) {
      // One submission's trouble is that submission's verdict; the class goes on.
      a.verdict = verdict_name(Verdict::runner_error);
      a.message = std::string("could not be graded: ") + e.what();
      return false;
    }
  };

  // Phase 2, on GPU `gpu`: time, with the GPU alone while the runner runs. Returns false for an
  // attempt timed beside the checks whose clock batches were not believed: it is timed again once
  // the checks are over (TimingQueue), and nothing of this timing is kept but its seconds.
  auto time_one = [&](Pending& p, std::size_t gpu, bool beside_checks) -> bool {
    Attempt& a = p.attempt;
    const Job& job = *p.job;
    const auto timing_start = Clock::now();
    try {
      Device& d = *devices[gpu];
      // The GPU that timed it is the attempt's device; its speed is against the reference timed there.
      a.device = d.name;
      BenchOptions on_d = bench;
      on_d.visible_devices = d.visible;
      // Inputs are prepared and outputs judged on the CPU while another attempt times.
      TimingTurn turn(gpus, gpu);
      turn.attach(on_d);
      // The reference solution in turn with the submission, round by round on this GPU: a ratio
      // that does not depend on when, or on which GPU of the same model, the class is graded.
      const fs::path solution = solutions_dir() / job.task->info().id / "kernel.cu";
      const PairedTiming paired =
          time_against_reference(*job.task, toolchain, job.source, solution, *d.peaks, on_d, pairing);
      const BenchOutcome& timed = paired.submission;
      turn.end();
      p.gpu_held += turn.held_s();
      if (beside_checks && timed.verdict == Verdict::timing_mismatch) {
        p.timing += seconds_since(timing_start);
        return false;
      }
      p.timing_split = timed.time_split;
      if (timed.verdict == Verdict::passed && !timed.measurements.empty()) {
        const Measurement& m = timed.measurements.front();
        Timing t;
        t.label = m.c.label();
        t.median_s = m.summary.median;
        t.reference_s = paired.reference_s.value_or(0);
        t.ratio = paired.ratio.ratio;
        t.ratio_low = paired.ratio.low;
        t.ratio_high = paired.ratio.high;
        t.rounds = paired.ratio.rounds;
        // The rate nearer its peak, as bench's table shows it.
        const bool flops = m.throughput.compute_bound && m.throughput.gflops;
        t.throughput = flops ? *m.throughput.gflops : m.throughput.gbs.value_or(0);
        t.unit = flops ? "GFLOP/s" : "GB/s";
        t.percent_of_peak =
            flops ? m.throughput.percent_compute.value_or(0) : m.throughput.percent_bandwidth.value_or(0);
        a.timing = t;
        a.speed_graded = t.rounds > 0;
        if (t.rounds == 0) a.hints.push_back("speed not scored: " + paired.reference_failure);
      } else if (timed.verdict == Verdict::impossible_speed || timed.verdict == Verdict::timing_mismatch) {
        // A time that cannot be believed is named, never scored (docs/threat-model.md).
        a.hints.push_back(fmt::format("speed not scored ({}): {}", verdict_title(timed.verdict), timed.message));
      } else {
        a.hints.push_back("not timed: " + timed.message);
      }
    } catch (const SetupError&) {
      throw;
    } catch (const std::exception& e) {
      a.hints.push_back(std::string("not timed: ") + e.what());
    }
    p.timing += seconds_since(timing_start);
    return true;
  };

  // With one GPU: every check first, then the timing (a timed run needs its GPU alone, and taking
  // one that checks use would leave every other worker waiting for the checks in flight to drain).
  // With more: the last GPU times what is checked while the others serve the checks (mostly CPU
  // work), then every GPU times what is left. The checks then yield the CPU to the timing (nice
  // +10): with every core busy, honest clock batches were refused as untrusted (two H100s,
  // 2026-11-27, 2 to 5 of 7 05_reduce attempts), and one still refused beside the checks is timed
  // again after them (TimingQueue); docs/performance.md.
  std::vector<Pending> pending(jobs.size());
  TimingQueue queue;
  std::atomic<std::size_t> timed_count{0};
  // A set-up fault (SetupError: the cache, the compiler, the disk, the sandbox) stops every worker
  // after the attempt in hand and leaves the class: the attempts recorded so far stay, the rest
  // are graded by --resume once the machine is fixed, and nobody's row blames their file.
  std::atomic<bool> stopping{false};
  const auto run_workers = [&stopping, &queue](unsigned count, const std::function<void()>& work) {
    std::exception_ptr fault;
    std::mutex fault_lock;
    std::vector<std::thread> threads;
    for (unsigned w = 0; w < count; ++w) {
      threads.emplace_back([&] {
        try {
          work();
        } catch (...) {
          stopping = true;
          queue.stop();
          std::lock_guard lock(fault_lock);
          if (!fault) fault = std::current_exception();
        }
      });
    }
    for (auto& t : threads) t.join();
    if (fault) std::rethrow_exception(fault);
  };
  const auto time_on = [&](std::size_t gpu) {
    while (const auto turn = queue.take()) {
      const bool believed = time_one(pending[turn->index], gpu, turn->beside_checks);
      queue.done(*turn, !believed);
      if (believed) finish(pending[turn->index]);
    }
  };
  unsigned workers = options.jobs != 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  workers = std::min<unsigned>(workers, std::max<std::size_t>(jobs.size(), 1));
  const unsigned timing_per_gpu = timing_workers_per_gpu(devices.size());
  const bool time_beside_checks = on_gpu && devices.size() >= 2;
  const std::size_t timing_gpu = devices.size() - 1;
  std::optional<Clock::time_point> timing_start;
  std::exception_ptr early_fault;
  std::thread early_timing;
  if (time_beside_checks) {
    gpus.keep_for_timing(timing_gpu, true);
    timing_start = Clock::now();
    early_timing = std::thread([&] {
      try {
        run_workers(timing_per_gpu, [&] { time_on(timing_gpu); });
      } catch (...) {
        early_fault = std::current_exception();
      }
    });
  }
  const auto check_phase_start = Clock::now();
  try {
    run_workers(workers, [&] {
      // This thread's nice value, which the compilers and runners it starts inherit.
      if (time_beside_checks) (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kCheckNicenessBesideTiming);
      for (std::size_t i = next++; i < jobs.size() && !stopping; i = next++) {
        if (check_one(jobs[i], pending[i])) {
          ++timed_count;
          queue.push(i);
        } else {
          finish(pending[i]);
        }
      }
    });
  } catch (...) {
    queue.stop();
    if (early_timing.joinable()) early_timing.join();
    throw;
  }
  summary.check_phase_s = seconds_since(check_phase_start);
  summary.check_workers = workers;
  queue.end_checks();
  if (time_beside_checks) gpus.keep_for_timing(timing_gpu, false);
  if (!timing_start) timing_start = Clock::now();
  {
    // Every GPU not timing already; with one GPU, that one.
    const std::size_t others = time_beside_checks ? devices.size() - 1 : devices.size();
    std::atomic<unsigned> timing_worker{0};
    std::exception_ptr late_fault;
    try {
      run_workers(static_cast<unsigned>(timing_per_gpu * others), [&] { time_on(timing_worker++ % others); });
    } catch (...) {
      late_fault = std::current_exception();
    }
    if (early_timing.joinable()) early_timing.join();
    if (late_fault) std::rethrow_exception(late_fault);
    if (early_fault) std::rethrow_exception(early_fault);
  }
  summary.timing_phase_s = timed_count > 0 ? seconds_since(*timing_start) : 0;
  summary.timed_beside_checks = time_beside_checks;
  summary.timed_again = queue.put_back();
  if (on_gpu) {
    for (std::size_t g = 0; g < devices.size(); ++g) summary.gpu_timing_s.push_back(gpus.seconds_alone(g));
  }

  summary.sandbox_line = describe_sandbox(toolchain.backend(), options.timeout);
  summary.compile_s = compile_s;
  summary.check_s = check_s;
  summary.timing_s = timing_s;
  summary.wall_s = std::chrono::duration<double>(Clock::now() - started).count();
  summary.results = gradebook.class_results();
  if (options.write_reports) {
    write_reports(summary.results, options.out_dir);
    // Every submission of the class, graded now or before: the pairs much more alike than the rest.
    SubmittedFiles files;
    for (const Submission& s : submissions) {
      for (const auto& [id, file] : s.kernels) {
        if (rubric.exercises.contains(id)) files[id][s.student] = file;
      }
    }
    const SimilarityReport similar = find_similar(files, [](const std::string& id) {
      const fs::path in_project = project_root() / "exercises" / id / "kernel.cu";
      return fs::exists(in_project) ? in_project : data_dir() / "exercises" / id / "kernel.cu";
    });
    write_similarity_reports(similar, options.out_dir);
    const auto flagged = std::ranges::count_if(similar.pairs, [](const SimilarPair& p) { return p.flagged; });
    summary.similarity_line =
        !similar.note.empty() && similar.tool.empty()
            ? "similar submissions " + similar.note
            : fmt::format("similar submissions: {} pair{} flagged (similarity.html, similarity.csv)", flagged,
                          flagged == 1 ? "" : "s");
  }
  return summary;
}

}  // namespace cudalab::grading
