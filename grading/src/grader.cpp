#include "cudalab/grading/grader.hpp"

#include <algorithm>
#include <atomic>
#include <ctime>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudalab/backend.hpp"
#include "cudalab/detail/module_cache.hpp"
#include "cudalab/exercise_bench.hpp"
#include "cudalab/exercise_check.hpp"
#include "cudalab/grading/gradebook.hpp"
#include "cudalab/grading/reports.hpp"
#include "cudalab/grading/rubric.hpp"
#include "cudalab/grading/submissions.hpp"
#include "cudalab/paths.hpp"
#include "cudalab/registry.hpp"

namespace cudalab::grading {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// The rubric to grade with: --rubric, else the project's grading/rubric.toml, else the one this
/// cudalab was built with.
fs::path rubric_path(const GradeOptions& options) {
  if (!options.rubric.empty()) return options.rubric;
  const fs::path in_project = project_root() / "grading" / "rubric.toml";
  return fs::exists(in_project) ? in_project : fs::path(CUDALAB_DEFAULT_RUBRIC);
}

/// One student's kernel.cu for one exercise.
struct Job {
  const Submission* submission = nullptr;
  const Task* task = nullptr;
  fs::path source;
  std::string hash;  ///< of the file's content: --resume skips what the gradebook has for it
};

std::string file_hash(const fs::path& file) {
  try {
    return content_key({"kernel.cu", read_file(file)});
  } catch (const std::exception&) {
    return "unreadable";
  }
}

/// Reference-solution times per exercise, measured once per run with the GPU to itself.
class ReferenceTimes {
 public:
  std::optional<double> get(const Task& task, const Toolchain& gpu, const Peaks& peaks, const BenchOptions& options) {
    const std::string& id = task.info().id;
    if (auto it = times_.find(id); it != times_.end()) return it->second;
    const fs::path solution = project_root() / "solutions" / id / "kernel.cu";
    std::optional<double> median;
    if (fs::exists(solution)) {
      const BenchOutcome out = bench_exercise(task, gpu, solution, peaks, options);
      if (out.verdict == Verdict::passed && !out.measurements.empty()) median = out.measurements.front().summary.median;
    }
    times_[id] = median;
    return median;
  }

 private:
  std::map<std::string, std::optional<double>> times_;
};

CheckRow check_row(const CaseResult& c) {
  return {c.c.label(), verdict_name(c.verdict), c.message, c.details, c.hints, c.solve_ms};
}

/// The checks that ran with a right output (a broken rule is a penalty, not a wrong answer).
bool outputs_right(const ExerciseResult& r) {
  return !r.cases.empty() && std::ranges::all_of(r.cases, [](const CaseResult& c) {
    return c.verdict == Verdict::passed || c.verdict == Verdict::requirement_unmet || c.verdict == Verdict::device_leak;
  });
}

}  // namespace

GradeSummary grade_class(const GradeOptions& options, const GradeProgressFn& progress) {
  // Everything that can be wrong with the set-up is found before any student is graded.
  if (!fs::is_directory(options.submissions)) {
    throw std::invalid_argument(options.submissions.string() + " is not a folder of submissions");
  }
  std::vector<std::string> known;
  for (const auto& t : all_tasks()) known.push_back(t->info().id);
  const Rubric rubric = load_rubric(rubric_path(options), known);
  fs::create_directories(options.out_dir);
  Gradebook gradebook(options.out_dir / "gradebook.sqlite", options.seed);

  ToolchainConfig config;
  config.cache_dir = cache_dir();
  config.runner_dir = program_dir();
  BackendChoice backend = choose_backend(parse_backend_request(options.backend), config);
  const Toolchain& toolchain = *backend.toolchain;
  const bool on_gpu = toolchain.backend() == Backend::gpu;
  std::string device = on_gpu ? "GPU" : "CPU simulator";
  std::optional<Peaks> peaks;
  if (on_gpu) {
    std::string why;
    if (const auto d = probe_gpu(toolchain.runner(), why)) {
      device = d->name;
      bool measured_now = false;
      peaks = device_peaks(toolchain.runner(), *d, config.cache_dir, measured_now);
    }
  }

  std::vector<std::string> graded_ids;
  for (const auto& [id, rule] : rubric.exercises) graded_ids.push_back(id);
  std::vector<std::string> skipped;
  const std::vector<Submission> submissions =
      read_submissions(options.submissions, options.out_dir / "work", graded_ids, {}, &skipped);

  RunInfo run_info{
      utc_now(), CUDALAB_VERSION, backend_name(toolchain.backend()), device, options.command, rubric.source, {}};
  // What each exercise is out of in this run: without a GPU, its correctness points only.
  for (const auto& [id, rule] : rubric.exercises) {
    run_info.points[id] = on_gpu ? rule.points : rule.points * (1 - rule.performance_share);
  }
  const std::int64_t run = gradebook.begin_run(run_info);

  GradeSummary summary;
  summary.backend_line = backend.line;
  summary.skipped = skipped;
  std::vector<Job> jobs;
  for (const Submission& s : submissions) {
    if (!options.only.empty() && std::ranges::find(options.only, s.student) == options.only.end()) continue;
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

  // Checks share the device (each in its own process); a timed run takes it alone.
  std::shared_mutex device_lock;
  std::mutex gradebook_lock;
  std::mutex progress_lock;
  ReferenceTimes references;
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  const auto started = Clock::now();
  BenchOptions bench;
  bench.seed = gradebook.seed();
  bench.policy.time_cap_s = options.time_cap_s;
  bench.cpu_baselines = false;
  // One input set: the CPU reference of a large case costs more than the timing itself, and the
  // ranking of a class does not need four.
  bench.input_sets = 1;

  auto grade_one = [&](const Job& job) {
    const auto t0 = Clock::now();
    const TaskInfo& info = job.task->info();
    Attempt a;
    a.student = job.submission->student;
    a.exercise = info.id;
    a.source_hash = job.hash;
    a.source_path = fs::relative(job.source, job.submission->root).string();
    a.cudalab_version = CUDALAB_VERSION;
    a.backend = backend_name(toolchain.backend());
    a.device = device;
    a.seed = gradebook.seed();
    a.submitted_at = job.submission->submitted_at;
    CheckOptions check;
    check.seed = a.seed;
    check.timeout = options.timeout;
    try {
      ExerciseResult r;
      {
        std::shared_lock shared(device_lock);
        r = check_exercise(*job.task, toolchain, job.source, check);
      }
      a.verdict = verdict_name(r.verdict);
      const CaseResult* failure = r.first_failure();
      a.message = r.verdict == Verdict::compile_error ? "the file does not compile"
                  : failure != nullptr                ? failure->message
                                                      : "passed";
      if (r.verdict == Verdict::compile_error) {
        a.checks.push_back(
            {"compile", "compile_error", "the file does not compile", {r.compile.diagnostics.substr(0, 4000)}, {}, 0});
      }
      a.hints = r.hints;
      for (const auto& c : r.cases) a.checks.push_back(check_row(c));
      if (on_gpu && peaks && outputs_right(r)) {
        std::unique_lock alone(device_lock);
        const auto reference = references.get(*job.task, toolchain, *peaks, bench);
        const BenchOutcome timed = bench_exercise(*job.task, toolchain, job.source, *peaks, bench);
        if (timed.verdict == Verdict::passed && !timed.measurements.empty()) {
          const Measurement& m = timed.measurements.front();
          Timing t;
          t.label = m.c.label();
          t.median_s = m.summary.median;
          t.reference_s = reference.value_or(0);
          // The rate nearer its peak, as bench's table shows it.
          const bool flops = m.throughput.compute_bound && m.throughput.gflops;
          t.throughput = flops ? *m.throughput.gflops : m.throughput.gbs.value_or(0);
          t.unit = flops ? "GFLOP/s" : "GB/s";
          t.percent_of_peak =
              flops ? m.throughput.percent_fp32.value_or(0) : m.throughput.percent_bandwidth.value_or(0);
          a.timing = t;
          a.speed_graded = reference.has_value();
        } else {
          a.hints.push_back("not timed: " + timed.message);
        }
      }
    } catch (const std::exception& e) {
      // One submission's trouble is that submission's verdict; the class goes on.
      a.verdict = verdict_name(Verdict::runner_error);
      a.message = std::string("could not be graded: ") + e.what();
    }
    a.score = rubric.score(a);
    a.graded_at = utc_now();
    a.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    {
      std::lock_guard lock(gradebook_lock);
      gradebook.add_attempt(run, a);
    }
    std::lock_guard lock(progress_lock);
    ++done;
    ++summary.graded;
    if (progress) {
      const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
      const double eta = elapsed / static_cast<double>(done) * static_cast<double>(jobs.size() - done);
      progress({done, jobs.size(), a.student + " " + a.exercise, eta});
    }
  };

  unsigned workers = options.jobs != 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  workers = std::min<unsigned>(workers, std::max<std::size_t>(jobs.size(), 1));
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w) {
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < jobs.size(); i = next++) grade_one(jobs[i]);
    });
  }
  for (auto& t : pool) t.join();

  summary.results = gradebook.class_results();
  if (options.write_reports) write_reports(summary.results, options.out_dir);
  return summary;
}

}  // namespace cudalab::grading
