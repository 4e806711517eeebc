// cudalab: check CUDA exercises against CPU references, on a GPU or the CPU simulator.
// Exit codes: 0 every check passed, 1 something failed, 2 usage or set-up error, 3 a bug in cudalab.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cudalab/backend.hpp"
#include "cudalab/bench_report.hpp"
#include "cudalab/diagnostics.hpp"
#include "cudalab/errors.hpp"
#include "cudalab/exercise_bench.hpp"
#include "cudalab/exercise_check.hpp"
#include "cudalab/explain.hpp"
#include "cudalab/file_watch.hpp"
#include "cudalab/files.hpp"
#include "cudalab/ladder.hpp"
#include "cudalab/paths.hpp"
#include "cudalab/profile.hpp"
#include "cudalab/registry.hpp"
#include "cudalab/report.hpp"
#include "cudalab/sandbox.hpp"
#include "cudalab/show.hpp"
#include "cudalab/status_store.hpp"
#include "cudalab/text.hpp"
#include "cudalab/toolchain.hpp"

namespace {

namespace fs = std::filesystem;
using namespace cudalab;

// The exit codes of errors.hpp's ExitCode, as main returns them.
constexpr int kExitPassed = static_cast<int>(ExitCode::done);
constexpr int kExitFailed = static_cast<int>(ExitCode::failed);
constexpr int kExitUsage = static_cast<int>(ExitCode::not_run);

/// Edits (insertions, deletions, substitutions, swaps of neighbours) that turn `a` into `b`,
/// ignoring case.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  const auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1])) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

/// The candidate `typed` most likely misspells: {what it is compared with, what to suggest}.
/// Close means a third of the candidate's letters or fewer changed (at least one).
std::optional<std::string> did_you_mean(std::string_view typed,
                                        const std::vector<std::pair<std::string, std::string>>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const auto& [compared, suggested] : candidates) {
    const std::size_t d = edit_distance(typed, compared);
    if (d > std::max<std::size_t>(1, compared.size() / 3)) continue;
    if (!best || d < best_distance) {
      best = suggested;
      best_distance = d;
    }
  }
  return best;
}

const Task& task_or_throw(const std::string& key) {
  const Task* task = find_task(key);
  if (task != nullptr) return *task;
  std::vector<std::pair<std::string, std::string>> names;
  for (const auto& t : all_tasks()) {
    names.emplace_back(t->info().id, t->info().id);
    names.emplace_back(t->info().name, t->info().id);
  }
  const auto guess = did_you_mean(key, names);
  throw UsageError(fmt::format("unknown exercise '{}'; {}{}", key,
                               guess ? fmt::format("did you mean '{}'? ", *guess) : std::string(), known_tasks_hint()));
}

ToolchainConfig toolchain_config() {
  ToolchainConfig config;
  config.cache_dir = cache_dir();
  config.runner_dir = program_dir();
  return config;
}

fs::path exercise_source(const Task& task, bool solution) {
  return (solution ? solutions_dir() : project_root() / "exercises") / task.info().id / "kernel.cu";
}

/// Which exercises, and which file of each: shared by check and bench.
struct Selection {
  std::vector<std::string> exercises;
  bool all = false;
  std::string file;
  bool solution = false;
  bool tf32 = false;
};

/// The selection options of a subcommand; `verb` is "Check" or "Measure".
void add_selection_options(CLI::App* app, Selection& s, const std::string& verb) {
  app->add_option("exercise", s.exercises, "Exercises by folder (03_matmul), name (matmul) or number (3)");
  app->add_flag("--all", s.all, verb + " every exercise");
  app->add_option("--file", s.file, verb + " this file instead of exercises/NAME/kernel.cu")->check(CLI::ExistingFile);
  app->add_flag("--solution", s.solution, verb + " the reference solution in solutions/NAME/kernel.cu");
  app->add_flag("--tf32", s.tf32,
                verb +
                    " at TF32 precision: each product's inputs may be rounded to 10 mantissa bits, as tensor "
                    "cores do (03_matmul's tensor-core tier; GPU only)");
}

Precision precision_of(const Selection& s) { return s.tf32 ? Precision::tf32 : Precision::fp32; }

/// Registers --color on a command whose report is coloured on a terminal; `what` names that report
/// where it is not the command's whole output.
void add_color_option(CLI::App* command, std::string& color, const std::string& what = "Colour") {
  command->add_option("--color", color, what + ": auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
}

/// Whether a report on standard output is coloured: --color always, or auto on a terminal (and
/// neither NO_COLOR nor CI set).
bool use_color(const std::string& color) { return color == "always" || (color == "auto" && want_color(STDOUT_FILENO)); }

struct BenchArgs {
  Selection selection;
  std::uint64_t seed = 1;
  std::vector<std::int64_t> sizes;
  bool json = false, csv = false, markdown = false;
  double time_cap_s = 10;
  double noise = 0.005;
  bool no_cpu = false;
  bool no_reference = false;
  bool ladder = false;
  bool pageable = false;
  bool verbose = false;
  bool profile = false;
  std::string color = "auto";        // the --profile report's
  std::vector<std::string> compare;  // A B: two kernels of one exercise, timed in turns
};

/// Exercises and their sources from the shared selection options of check and bench.
std::vector<std::pair<const Task*, fs::path>> select_sources(const Selection& selection) {
  const auto& [names, all, file, solution, tf32] = selection;
  if (all && !names.empty()) throw UsageError("name exercises or give --all, not both");
  if (!all && names.empty()) throw UsageError("name an exercise (see `cudalab list`) or give --all");
  if (!file.empty() && (all || names.size() != 1)) throw UsageError("--file needs exactly one exercise");
  if (!file.empty() && solution) throw UsageError("--file and --solution choose the source twice; give one");
  std::vector<const Task*> tasks;
  if (all) {
    for (const auto& t : all_tasks()) tasks.push_back(t.get());
  } else {
    for (const auto& key : names) tasks.push_back(&task_or_throw(key));
  }
  std::vector<std::pair<const Task*, fs::path>> out;
  for (const Task* t : tasks) {
    if (tf32 && !t->info().supports_tf32) {
      throw UsageError(t->info().id + " has no TF32 tier; --tf32 applies to 03_matmul");
    }
    fs::path source = file.empty() ? exercise_source(*t, solution) : fs::absolute(file);
    if (!fs::is_regular_file(source)) {
      if (!file.empty()) throw UsageError(source.string() + " not found");
      // In a project, a missing kernel.cu was deleted, and git has it; elsewhere the root is wrong.
      if (!fs::is_directory(project_root() / "exercises")) {
        throw UsageError(fmt::format("{} not found (is this a cudalab project? set CUDALAB_ROOT)", source.string()));
      }
      const std::string shown = source.lexically_relative(project_root()).generic_string();
      std::error_code ec;
      const bool git = fs::exists(project_root() / ".git", ec);
      if (solution && !git) {
        throw UsageError(fmt::format(
            "{} is missing: the reference solutions are not installed here (the cudalab-solutions package has "
            "them)",
            source.string()));
      }
      throw UsageError(git ? fmt::format("{} is missing (`git checkout {}` restores it)", shown, shown)
                           : fmt::format("{} is missing (the course's copy of {} has it)", shown,
                                         source.parent_path().parent_path().filename().string() + "/"));
    }
    out.emplace_back(t, source);
  }
  return out;
}

std::string today() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

/// `cudalab bench --profile`: each selected file (each ladder step with --ladder) once under
/// Nsight Compute at explain's representative size, beside explain's counts on the simulator.
/// Exit code 2 when there are no counters (no ncu, counters not permitted), 1 when a run fails.
int run_profile(const BenchArgs& args, const std::vector<std::pair<const Task*, fs::path>>& selected,
                const Toolchain& gpu, const std::string& device_name, const ToolchainConfig& config,
                const std::function<void(const std::string&)>& say) {
  if (args.csv) throw UsageError("--profile prints a table, --json or --markdown; not --csv");
  ToolchainConfig checked = config;
  checked.checked = true;  // explain's build: every access calls the simulator, which counts it
  const BackendChoice sim = choose_backend(BackendRequest::sim, checked);
  ProfileOptions options;
  options.seed = args.seed;
  options.only_sizes = args.sizes;
  options.device_name = device_name;
  options.cache_dir = config.cache_dir;
  for (const auto& [task, source] : selected) {
    try {
      (void)representative_case(*task, args.sizes);
    } catch (const SelectionError& e) {
      throw UsageError(std::string("--profile runs at a checked size: ") + e.what());
    }
  }
  std::vector<ProfileResult> results;
  for (const auto& [task, source] : selected) {
    std::vector<LadderStep> steps{{source, precision_of(args.selection)}};
    if (args.ladder) steps = ladder_steps(*task, solutions_dir());
    for (const auto& [file, precision] : steps) {
      if (precision == Precision::tf32) {
        say(fmt::format("{} {} left out: the simulator has no tensor cores to compare with", task->info().id,
                        file.filename().string()));
        continue;
      }
      say(fmt::format("profiling {} {} under Nsight Compute, and on the simulator", task->info().id,
                      file.filename().string()));
      results.push_back(profile_exercise(*task, gpu, *sim.toolchain, file, options));
    }
  }
  if (args.json) {
    std::cout << profile_report_json(results).dump(2) << '\n';
  } else if (args.markdown) {
    write_profile_markdown(std::cout, results, true);
  } else {
    ReportStyle style;
    style.color = use_color(args.color);
    write_profile_report(std::cout, results, style);
  }
  if (std::ranges::any_of(results, [](const ProfileResult& r) { return !r.problem.empty(); })) {
    for (const auto& r : results) {
      if (!r.problem.empty()) {
        fmt::print(stderr, "cudalab: {}\n", r.problem);
        break;
      }
    }
    return kExitUsage;
  }
  const bool failed = std::ranges::any_of(results, [](const ProfileResult& r) { return r.verdict != Verdict::passed; });
  return failed ? kExitFailed : kExitPassed;
}

/// `bench EX --compare A B`: A and B in turns on the GPU, round by round, and the verdict on B's
/// time over A's from the ratio's 95 % interval. Exit 0 with a verdict, 1 where a kernel fails.
int run_compare(const BenchArgs& args, const Task& task, const Toolchain& gpu, const std::string& device,
                const Peaks& peaks) {
  const fs::path a = args.compare.at(0);
  const fs::path b = args.compare.at(1);
  BenchOptions options;
  options.seed = args.seed;
  options.sizes = args.sizes;
  options.precision = precision_of(args.selection);
  options.page_locked_host = !args.pageable;
  options.kernel_traces = false;
  options.cpu_baselines = false;
  options.measure_unmet_requirements = true;  // a naive first step against a tiled one: a rule broken, said
  const PairingPolicy pairing = paired_rounds(options.policy, args.time_cap_s);
  fmt::print(stderr, "cudalab: timing {} and {} in turns on {}…\n", a.string(), b.string(), device);
  // B is the "submission" (its clock watched, its outputs checked), A the "reference" (checked too).
  const PairedTiming paired = time_against_reference(task, gpu, b, a, peaks, options, pairing);
  const BenchOutcome& timed = paired.submission;
  if (timed.verdict != Verdict::passed || timed.measurements.empty()) {
    fmt::print("B ({}) cannot be timed: {}: {}\n", b.string(), verdict_title(timed.verdict), timed.message);
    for (const auto& d : timed.details) fmt::print("  {}\n", d);
    return kExitFailed;
  }
  if (!paired.reference_s || paired.ratio.rounds == 0) {
    fmt::print("A ({}) cannot be timed: {}\n", a.string(), paired.reference_failure);
    return kExitFailed;
  }
  const RatioEstimate& r = paired.ratio;
  constexpr double kBand = 0.02;
  const Comparison verdict = compare_ratio(r, kBand);
  const std::size_t width = std::max(a.string().size(), b.string().size());
  fmt::print("{} at {} on {}: A and B timed in turns, {} rounds\n", task.info().id,
             timed.measurements.front().c.label(), device, r.rounds);
  fmt::print("  A  {:<{}}  {}\n", a.string(), width, format_seconds(*paired.reference_s));
  fmt::print("  B  {:<{}}  {}\n", b.string(), width, format_seconds(timed.measurements.front().summary.median));
  fmt::print("  B/A {:.3f} (95 % interval {:.3f} to {:.3f})\n", r.ratio, r.low, r.high);
  if (!paired.reference_note.empty()) fmt::print("  note: A, requirement not met: {}\n", paired.reference_note);
  for (const auto& note : timed.measurements.front().notes) {
    if (note.starts_with("requirement not met")) fmt::print("  note: B, {}\n", note);
  }
  std::string why;
  switch (verdict) {
    case Comparison::faster:
      why = fmt::format("B takes {:.2f} of A's time ({:.2f}× as fast)", r.ratio, 1 / r.ratio);
      break;
    case Comparison::slower:
      why = fmt::format("B takes {:.2f}× A's time", r.ratio);
      break;
    case Comparison::same:
      why = fmt::format("within ±{:.0f} % of each other", 100 * kBand);
      break;
    case Comparison::unsure:
      why = fmt::format("the interval crosses ±{:.0f} %; run again with a longer --time-cap, on a quiet GPU",
                        100 * kBand);
      break;
  }
  fmt::print("{}: {}\n", comparison_name(verdict), why);
  return kExitPassed;
}

int run_bench(const BenchArgs& args, const std::string& command_line) {
  if (static_cast<int>(args.json) + static_cast<int>(args.csv) + static_cast<int>(args.markdown) > 1) {
    throw UsageError("give one of --json, --csv, --markdown");
  }
  if (!args.compare.empty()) {
    if (args.selection.all || args.selection.exercises.size() != 1) {
      throw UsageError("--compare A B times two kernels of one exercise: name it (bench 3 --compare a.cu b.cu)");
    }
    if (!args.selection.file.empty() || args.selection.solution || args.ladder || args.profile) {
      throw UsageError("--compare A B names both kernels; not with --file, --solution, --ladder or --profile");
    }
    if (args.json || args.csv || args.markdown)
      throw UsageError("--compare prints its verdict; not --json, --csv or --markdown");
    for (const auto& f : args.compare) {
      if (!fs::is_regular_file(f)) throw UsageError(f + " not found");
    }
  }
  if (args.ladder && (!args.selection.file.empty() || args.selection.solution)) {
    throw UsageError("--ladder measures the steps in solutions/NAME/; it takes no --file or --solution");
  }
  Selection selection = args.selection;
  selection.solution = selection.solution || args.ladder;  // the ladder lives beside the reference solution
  const auto selected = select_sources(selection);
  const ToolchainConfig config = toolchain_config();
  auto gpu = make_gpu_toolchain(config);
  std::string why;
  if (!gpu->available(why)) {
    if (args.profile) {
      throw SetupError("cudalab bench --profile reads a GPU's counters, and there is none here (" +
                       gpu_problem_in_words(why) + "); `cudalab explain` counts the same on the CPU simulator");
    }
    throw SetupError("cudalab bench times kernels on a GPU, and there is none here (" + gpu_problem_in_words(why) +
                     "); `cudalab check` runs on the CPU simulator");
  }
  auto device = probe_gpu(gpu->runner(), why);
  if (!device) throw SetupError("no GPU: " + why);
  auto say = [](const std::string& line) { fmt::print(stderr, "cudalab: {}…\n", line); };
  if (args.profile) return run_profile(args, selected, *gpu, device->name, config, say);
  bool measured_now = false;
  say("reading the device's peak bandwidth");
  const Peaks peaks = device_peaks(gpu->runner(), *device, config.cache_dir, measured_now);
  if (!args.compare.empty()) return run_compare(args, *selected.front().first, *gpu, device->name, peaks);

  BenchOptions options;
  options.seed = args.seed;
  options.sizes = args.sizes;
  options.policy.time_cap_s = args.time_cap_s;
  options.policy.noise_target = args.noise;
  options.cpu_policy.warmup_runs = 1;
  options.cpu_policy.min_samples = 3;
  options.cpu_policy.min_time_s = 0.1;
  options.cpu_policy.noise_target = 0.02;
  options.cpu_policy.time_cap_s = 5;
  options.cpu_baselines = !args.no_cpu;
  options.page_locked_host = !args.pageable;

  BenchResults results;
  results.device = {device->name, nvidia_driver(),
                    fmt::format("{}.{}", device->runtime_version / 1000, device->runtime_version % 1000 / 10), ""};
  results.date = today();
  results.command = command_line;
  results.policy = options.policy;
  const std::string clocks_before = clock_state();
  std::vector<BenchOutcome> failures;
  for (const auto& [task, source] : selected) {
    options.reference = args.no_reference ? fs::path() : exercise_source(*task, true);
    std::vector<LadderStep> sources{{source, precision_of(args.selection)}};
    if (args.ladder) {
      sources = ladder_steps(*task, solutions_dir());
      if (sources.empty())
        say(task->info().id + " has no speed ladder (no solutions/" + task->info().id + "/step*.cu)");
    }
    for (const auto& [file, precision] : sources) {
      BenchOptions step_options = options;
      step_options.precision = precision;
      if (args.ladder) {
        step_options.name = task->info().id + " " + (file.stem() == "kernel" ? "reference" : file.stem().string());
        step_options.measure_unmet_requirements = true;
        step_options.cpu_baselines = options.cpu_baselines && file.stem() == "kernel";
      }
      BenchOutcome outcome = bench_exercise(*task, *gpu, file, peaks, step_options, say);
      if (args.verbose && !outcome.time_split.empty()) {
        fmt::print(stderr, "cudalab: {} took, in seconds{}\n",
                   step_options.name.empty() ? file.string() : step_options.name,
                   protocol::describe_phases(outcome.time_split, 0.0005, 3));
      }
      if (!args.ladder && !args.selection.solution && outcome.verdict == Verdict::passed) {
        // The largest size the reference ran at speaks for the kernel (a "(kernels)" row has no
        // reference): `list` remembers how close it came.
        std::optional<double> vs;
        for (const auto& m : outcome.measurements) {
          if (auto v = m.speedup_over("reference solution")) vs = v;
        }
        if (vs) (void)StatusStore::in_cache().record_speed(file, *vs);
      }
      for (auto& m : outcome.measurements) results.measurements.push_back(std::move(m));
      if (outcome.verdict != Verdict::passed) failures.push_back(std::move(outcome));
    }
  }
  const std::string clocks_after = clock_state();
  results.device.clocks = clocks_after.empty() ? "" : "before: " + clocks_before + "; after: " + clocks_after;

  if (args.json) {
    std::cout << bench_report_json(results).dump(2) << '\n';
  } else if (args.csv) {
    write_bench_csv(std::cout, results);
  } else if (args.markdown) {
    write_bench_markdown(std::cout, results);
  } else {
    write_bench_table(std::cout, results);
  }
  for (const auto& f : failures) {
    fmt::print(stderr, "cudalab: {} ({}) not measured: {} ({})\n", f.task->info().id, f.source.filename().string(),
               f.message, verdict_title(f.verdict));
    for (const auto& d : f.details) fmt::print(stderr, "    {}\n", d);
  }
  return failures.empty() ? kExitPassed : kExitFailed;
}

/// Where the student stands on `task`, in words for `list`: "failing: wrong output (sim)".
std::string standing_text(const Task& task, const StatusStore& status, Standing& standing) {
  const fs::path source = exercise_source(task, false);
  standing = Standing::not_started;
  if (!fs::exists(source)) return "not started: no kernel.cu";
  const auto last = status.find(source);
  standing = standing_of(last);
  if (!last) return "not started: not checked yet";
  std::string text = std::string(standing_name(standing)) + ": " + last->title + " (" + last->backend + ")";
  if (standing == Standing::passed_fast_check) {
    return fmt::format("{} ({}): run the full check, without --fast", standing_name(standing), last->backend);
  }
  if (standing == Standing::passing || standing == Standing::passing_and_fast) {
    text = std::string(standing_name(standing)) + " (" + last->backend + ")";
    if (last->speed_vs_reference)
      text += fmt::format(", {:.0f} % of the reference's speed", 100 * *last->speed_vs_reference);
  }
  return text;
}

/// Columns on a terminal: code points, not UTF-8 bytes ("‖x‖₂" is 4 wide).
std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(std::ranges::count_if(text, [](char c) { return (c & 0xC0) != 0x80; }));
}

/// How to run this program in a command shown to the user: `cudalab` where it is installed, else
/// the clone's wrapper (`./cudalab` from the clone's folder, its path from elsewhere).
std::string program_command() {
  if (install_layout()) return "cudalab";
  std::error_code ec;
  // In a clone's folder (or a copy of one), its wrapper is `./cudalab`.
  if (is_executable(fs::current_path(ec) / "cudalab")) return "./cudalab";
  const fs::path wrapper = data_dir() / "cudalab";
  return fs::is_regular_file(wrapper, ec) ? wrapper.string() : std::string("cudalab");
}

int run_list() {
  const StatusStore status = StatusStore::in_cache();
  std::size_t id_width = std::string("exercise").size(), teaches_width = std::string("what it practises").size();
  for (const auto& t : all_tasks()) {
    id_width = std::max(id_width, display_width(t->info().id));
    teaches_width = std::max(teaches_width, display_width(t->info().teaches));
  }
  auto row = [&](const std::string& number, const std::string& id, const std::string& teaches,
                 const std::string& where) {
    fmt::print("{:<2}  {}{:{}} {}{:{}} {}\n", number, id, "", id_width - display_width(id), teaches, "",
               teaches_width - display_width(teaches), where);
  };
  row("#", "exercise", "what it practises", "where you stand");
  for (const auto& t : all_tasks()) {
    Standing standing{};
    const std::string where = standing_text(*t, status, standing);
    row(std::to_string(t->info().number), t->info().id, t->info().teaches, where);
  }
  const std::string program = program_command();
  fmt::print(
      "\nRun `{} check NAME` after editing exercises/NAME/kernel.cu; name an exercise by its\n"
      "folder (03_matmul), its name (matmul) or its number (3). `{} next` says where to go on.\n",
      program, program);
  return kExitPassed;
}

/// `cudalab init DIR`: a student's own copy of the exercises (each README and skeleton), so that
/// the project's copies stay pristine. cudalab run inside DIR finds DIR's exercises (project_root
/// walks up from the current folder). Never overwrites: a folder that already holds exercises is
/// refused, so that no student's work is lost.
int run_init(const fs::path& dir) {
  const fs::path from = project_root() / "exercises";
  std::error_code ec;
  for (const auto& t : all_tasks()) {
    if (fs::exists(dir / "exercises" / t->info().id, ec)) {
      throw UsageError(fmt::format("{} already holds exercises ({}): init never overwrites; choose a new folder",
                                   dir.string(), (dir / "exercises" / t->info().id).string()));
    }
  }
  std::size_t copied = 0;
  for (const auto& t : all_tasks()) {
    const std::string& id = t->info().id;
    fs::create_directories(dir / "exercises" / id, ec);
    for (const char* file : {"README.md", "kernel.cu"}) {
      if (!fs::exists(from / id / file, ec)) continue;  // a course without this exercise's file
      fs::copy_file(from / id / file, dir / "exercises" / id / file, ec);
      if (ec)
        throw SetupError(fmt::format("cannot write {}: {}", (dir / "exercises" / id / file).string(), ec.message()));
    }
    ++copied;
  }
  fmt::print("cudalab: {} exercises copied into {}\n", copied, (dir / "exercises").string());
  // Installed, cudalab is on the PATH; from a clone, the clone's ./cudalab wrapper is the program
  // (by its path: the command runs in the new folder).
  const fs::path wrapper = data_dir() / "cudalab";
  const std::string program =
      install_layout() || !fs::is_regular_file(wrapper) ? std::string("cudalab") : wrapper.string();
  fmt::print("next: cd {} && {} list   (cudalab works on the exercises of the folder you are in)\n", dir.string(),
             program);
  return kExitPassed;
}

/// The course path's next step: the first exercise not passing, else the first not yet fast.
int run_next() {
  const StatusStore status = StatusStore::in_cache();
  const Task* slow = nullptr;
  const std::string program = program_command();
  for (const auto& t : all_tasks()) {
    Standing standing{};
    const std::string where = standing_text(*t, status, standing);
    const std::string id = t->info().id;
    if (standing == Standing::not_started || standing == Standing::failing) {
      fmt::print("next: {} — {}\n", id, t->info().teaches);
      fmt::print("why: {}{}\n", where, t.get() == all_tasks().front().get() ? "" : "; the exercises before it pass");
      fmt::print("do: read exercises/{}/README.md, edit exercises/{}/kernel.cu, then `{} check {}`\n", id, id, program,
                 t->info().number);
      return kExitPassed;
    }
    if (standing == Standing::passed_fast_check) {
      fmt::print("next: {} — {}\n", id, t->info().teaches);
      fmt::print("why: it passed a fast check only (--fast), which does not look for races or out-of-bounds reads\n");
      fmt::print("do: `{} check {}`\n", program, t->info().number);
      return kExitPassed;
    }
    if (standing == Standing::passing && slow == nullptr) slow = t.get();
  }
  if (slow != nullptr) {
    const std::string id = slow->info().id;
    fmt::print("next: make {} fast — every exercise passes\n", id);
    fmt::print("why: it passes, but no `bench` has shown it at {:.0f} % of the reference solution's speed\n",
               100 * kFastVsReference);
    fmt::print("do: on a GPU, `{} bench {}`; its README's speed ladder shows the steps\n", program,
               slow->info().number);
    return kExitPassed;
  }
  fmt::print("every exercise passes, at {:.0f} % of the reference's speed or more: the course is done\n",
             100 * kFastVsReference);
  return kExitPassed;
}

struct CheckArgs {
  Selection selection;
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::string backend = "auto";
  bool json = false;
  double timeout_s = 20;
  bool verbose = false;
  std::string color = "auto";
  std::vector<std::int64_t> sizes;
  std::string junit;
  std::string format = "text";  // text (the report) or gcc (diagnostics.hpp's lines)
  std::string sarif;
  bool sanitize = false;
  bool fast = false;
  bool watch = false;
};

/// The simulator's checked build, for the checked run a check makes by default; null where it is
/// not wanted (`skip`: --fast, or the TF32 tier, whose tensor cores the simulator does not have)
/// or cannot run here (said on stderr; the check goes on without it).
std::unique_ptr<Toolchain> checked_run_toolchain(const ToolchainConfig& config, bool skip) {
  if (skip) return nullptr;
  ToolchainConfig checked = config;
  checked.checked = true;  // every access calls the simulator, which checks it
  std::unique_ptr<Toolchain> toolchain = make_sim_toolchain(checked);
  if (std::string why; !toolchain->available(why)) {
    fmt::print(stderr, "cudalab: the checked run cannot run here ({}): only the plain checks run\n", why);
    return nullptr;
  }
  return toolchain;
}

/// One check of the selected exercises, as `check` prints it. `watching`: a round of `--watch`, whose
/// screen starts with the verdict line (cleared first on a terminal), then the report.
int check_once(const CheckArgs& args, bool watching) {
  std::vector<const Task*> tasks;
  std::vector<fs::path> sources;
  for (const auto& [task, source] : select_sources(args.selection)) {
    tasks.push_back(task);
    sources.push_back(source);
  }

  ToolchainConfig config = toolchain_config();
  config.checked = args.sanitize;
  const BackendChoice backend = choose_backend(parse_backend_request(args.backend), config);
  // TF32 runs on tensor cores through mma.h, which the simulator does not provide.
  if (args.selection.tf32 && backend.toolchain->backend() != Backend::gpu) {
    throw UsageError("--tf32 needs a GPU: the TF32 tier uses the tensor cores, which the simulator does not have");
  }
  const std::string& backend_line = backend.line;
  CheckOptions options;
  options.sanitize = args.sanitize;
  // The checked run, beside the plain one unless --fast: the simulator's checked build at the
  // small sizes, on a GPU machine too (it finds what the GPU's own checks cannot).
  const std::unique_ptr<Toolchain> checked = checked_run_toolchain(config, args.fast || args.selection.tf32);
  options.checked_toolchain = checked.get();
  // nvcc's front end where nvcc is installed, so the simulator fails what nvcc rejects (not --fast).
  const std::unique_ptr<Toolchain> nvcc_front_end =
      args.fast || backend.toolchain->backend() != Backend::sim ? nullptr : make_nvcc_front_end(config);
  options.nvcc_front_end = nvcc_front_end.get();
  options.seed = args.seed_given ? args.seed : std::random_device{}();
  options.timeout = std::chrono::milliseconds(static_cast<long>(args.timeout_s * 1000));
  options.only_sizes = args.sizes;
  options.precision = precision_of(args.selection);
  // A --size that matches no check is a usage error: said before anything compiles or prints.
  for (const Task* t : tasks) (void)select_cases(*t, backend.toolchain->backend(), options);

  const bool tty = isatty(STDERR_FILENO) != 0;
  const bool gcc_format = args.format == "gcc";
  // The backend, the sandbox and the seed: before the checks, or with --watch after its verdict line.
  const auto print_header = [&] {
    fmt::print("{}\n", backend_line);
    if (args.verbose && !backend.gpu_problem.empty()) fmt::print("gpu backend not used: {}\n", backend.gpu_problem);
    fmt::print("{}\n", describe_sandbox(backend.toolchain->backend(), options.timeout));
    fmt::print("seed {} (repeat with --seed {})\n\n", options.seed, options.seed);
    std::fflush(stdout);
  };
  if (!args.json && !gcc_format && !watching) print_header();
  std::vector<ExerciseResult> results;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const ProgressFn progress = [&](const Task& t, std::size_t k, std::size_t n, const Case& c) {
      if (tty) fmt::print(stderr, "\r\033[Kchecking {} [{}/{}] {}", t.info().id, k + 1, n, c.label());
    };
    if (tty) fmt::print(stderr, "\r\033[Kcompiling {}…", tasks[i]->info().id);
    results.push_back(check_exercise(*tasks[i], *backend.toolchain, sources[i], options, progress));
  }
  if (tty) fmt::print(stderr, "\r\033[K");
  // Only complete runs: `--size 99999` checks nothing and must not mark a skeleton passed.
  StatusStore::in_cache().record(results, options);

  if (watching) {
    // The verdict first: a glance at the terminal beside the editor says whether the save fixed it.
    if (isatty(STDOUT_FILENO) != 0) fmt::print("\033[H\033[2J\033[3J");
    for (const auto& r : results) {
      fmt::print("{:%H:%M:%S}  {}: {} ({}/{} checks)\n", fmt::localtime(std::time(nullptr)), r.task->info().id,
                 verdict_title(r.verdict), r.passed_cases(), r.cases.size());
    }
    print_header();
  }
  // For editors and CI's problem matchers: with --format gcc, or after the report in CI.
  const auto gcc_lines = [&] {
    std::vector<std::string> lines;
    for (const auto& r : results) {
      for (const SourceDiagnostic& d : source_diagnostics(r)) lines.push_back(gcc_line(d));
    }
    return lines;
  };
  if (args.json) {
    std::cout << check_report_json(results, backend_line, options.seed).dump(2) << '\n';
  } else if (gcc_format) {
    for (const auto& line : gcc_lines()) fmt::print("{}\n", line);
  } else {
    ReportStyle style;
    style.color = use_color(args.color);
    style.verbose = args.verbose;
    write_check_report(std::cout, results, style);
    // In CI the same findings follow in GCC's form, which its problem matchers turn into annotations.
    if (const auto lines = in_ci() ? gcc_lines() : std::vector<std::string>{}; !lines.empty()) {
      fmt::print("\nin GCC's form, for CI (CI is set):\n");
      for (const auto& line : lines) fmt::print("{}\n", line);
    }
  }
  // Written after the report, so that a bad path loses nothing already computed.
  const auto written = [](const std::string& path, const char* what, const auto& write) {
    if (path.empty()) return true;
    std::ofstream out(path);
    if (out) write(out);
    if (!out) fmt::print(stderr, "cudalab: cannot write the {} to {}\n", what, path);
    return static_cast<bool>(out);
  };
  if (!written(args.junit, "JUnit report", [&](std::ostream& out) { write_check_junit(out, results); }) ||
      !written(args.sarif, "SARIF log", [&](std::ostream& out) { out << sarif_log(results).dump(2) << '\n'; })) {
    return kExitUsage;
  }
  for (const auto& r : results) {
    if (r.verdict != Verdict::passed) return kExitFailed;
  }
  return kExitPassed;
}

/// Set by Ctrl-C while `check --watch` waits or checks: the watch ends after the check in hand
/// (lock-free, so a signal handler may set it).
std::atomic<bool> watch_stop = false;

/// `check`, and with --watch, again at every save of the file until Ctrl-C. The exit code is the
/// last check's.
int run_check(const CheckArgs& args) {
  if (!args.watch) return check_once(args, false);
  if (args.json || args.format != "text") throw UsageError("--watch shows the report; not with --json or --format");
  const auto selected = select_sources(args.selection);
  if (selected.size() != 1) throw UsageError("--watch needs exactly one exercise (or --file with one)");
  const fs::path file = selected.front().second;
  FileWatch watch(file, watch_mode_from_environment());
  // The first Ctrl-C ends the watch once the check in hand is done; a second one ends it at once
  // (SA_RESETHAND; the runners die with their parent).
  struct sigaction on_interrupt {};
  on_interrupt.sa_handler = [](int) { watch_stop = true; };
  on_interrupt.sa_flags = SA_RESETHAND;  // no SA_RESTART: the wait wakes up
  sigemptyset(&on_interrupt.sa_mask);
  sigaction(SIGINT, &on_interrupt, nullptr);
  sigaction(SIGTERM, &on_interrupt, nullptr);
  int code = kExitPassed;
  do {
    code = check_once(args, true);
    fmt::print("watching {} ({}); Ctrl-C stops\n", file.string(), watch.describe());
    std::fflush(stdout);
  } while (!watch_stop && watch.wait_for_change(watch_stop));
  fmt::print("stopped watching {}\n", file.string());
  return code;
}

/// A page of cudalab's documentation: its HTML file on the Doxygen site and its Markdown source.
struct DocPage {
  const char* html;      ///< "md_docs_failures.html"
  const char* markdown;  ///< "docs/failures.md", relative to the source tree
  const char* title;     ///< "Failure messages"
};

/// Where to read `page`, for the end of a --help: documentation_page() (only a file that exists is
/// named, so the line is true in a clone, a students' export and an installation alike), else the
/// page's title and source name.
std::string doc_location(const DocPage& page) {
  if (const auto path = documentation_page(page.html, page.markdown)) return path->string();
  return fmt::format("\"{}\" in cudalab's documentation ({} in its source)", page.title, page.markdown);
}

/// The end of a --help: "Docs: <where> (<what it covers>)", one line per page to read.
std::string docs_footer(std::initializer_list<std::pair<DocPage, const char*>> pages) {
  std::string text;
  for (const auto& [page, what] : pages) {
    text += fmt::format("{}{} ({})", text.empty() ? "Docs: " : "\n      ", doc_location(page), what);
  }
  return text;
}

constexpr DocPage kIndexPage{"index.html", "docs/README.md", "cudalab documentation"};
constexpr DocPage kGettingStartedPage{"md_docs_getting_started.html", "docs/getting-started.md", "Getting started"};
constexpr DocPage kCoursePage{"md_docs_course.html", "docs/course.md", "The course path"};
constexpr DocPage kReportsPage{"md_docs_reports.html", "docs/reports.md", "Understanding a report"};
constexpr DocPage kFailuresPage{"md_docs_failures.html", "docs/failures.md", "Failure messages"};

constexpr DocPage kExplainPage{"md_docs_explain.html", "docs/explain.md", "Why is my kernel slow?"};

struct ExplainArgs {
  Selection selection;
  std::string target = "h100";
  std::vector<std::int64_t> sizes;
  std::uint64_t seed = 1;
  bool json = false;
  bool verbose = false;
  std::string color = "auto";
  double timeout_s = 120;
};

/// `cudalab explain`'s options, on `app`.
CLI::App* add_explain_command(CLI::App& app, ExplainArgs& args) {
  auto* explain = app.add_subcommand(
      "explain",
      "Say why a kernel is slow, from its accesses counted on the simulator: each problem with its line, its "
      "cost on a target GPU and a fix");
  add_selection_options(explain, args.selection, "Explain");
  explain->remove_option(explain->get_option("--tf32"));  // precision is check's and bench's: explain counts accesses
  std::string targets;
  for (const auto& t : gpu_targets()) targets += (targets.empty() ? "" : ", ") + t.key;
  explain->add_option("--target", args.target, "The GPU to estimate for: " + targets)->capture_default_str();
  explain->add_option("--size", args.sizes,
                      "Run at the check whose first dimension (n or M) is this, instead of the representative size");
  explain->add_option("--seed", args.seed, "Seed of the random inputs")->capture_default_str();
  explain->add_flag("--json", args.json, "Print the findings and counts as JSON");
  explain->add_flag("-v,--verbose", args.verbose, "Also list every counted line, the costliest first");
  explain->add_option("--timeout", args.timeout_s, "Seconds allowed for the run")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  add_color_option(explain, args.color);
  explain->footer(docs_footer({{kExplainPage, "what each number means and how it is counted"}}));
  return explain;
}

/// `cudalab explain`: the simulator's checked build, run once per exercise at its representative
/// size with every access counted. Exit code 1 when it names a problem or the run fails.
int run_explain(const ExplainArgs& args) {
  const auto selected = select_sources(args.selection);
  const GpuTarget* target = find_gpu_target(args.target);
  if (target == nullptr) {
    std::string known;
    for (const auto& t : gpu_targets()) known += (known.empty() ? "" : ", ") + t.key;
    throw UsageError(fmt::format("unknown --target '{}'; explain knows {}", args.target, known));
  }
  ToolchainConfig config = toolchain_config();
  config.checked = true;  // every access calls the simulator, which counts it
  const BackendChoice backend = choose_backend(BackendRequest::sim, config);
  ExplainOptions options;
  options.target = target->key;
  options.seed = args.seed;
  options.only_sizes = args.sizes;
  options.timeout = std::chrono::milliseconds(static_cast<long>(args.timeout_s * 1000));
  options.cache_dir = config.cache_dir;
  // A --size that matches no check is a usage error, said before anything compiles.
  for (const auto& [task, source] : selected) (void)representative_case(*task, args.sizes);
  if (!args.json) {
    fmt::print("{}\n", backend.line);
    fmt::print(
        "target: {} ({} SMs; per SM {} warps, {} blocks, {} registers, {} KiB of shared memory; {:.2f} TB/s, "
        "{:.1f} FP32 TFLOP/s); --target {}\n\n",
        target->name, target->sms, target->max_warps_per_sm, target->max_blocks_per_sm, target->registers_per_sm,
        target->shared_per_sm / 1024, target->dram_bytes_per_s / 1e12, target->fp32_flops_per_s / 1e12, [] {
          std::string keys;
          for (const auto& t : gpu_targets()) keys += (keys.empty() ? "" : "|") + t.key;
          return keys;
        }());
    std::fflush(stdout);
  }
  const bool tty = isatty(STDERR_FILENO) != 0;
  std::vector<ExplainResult> results;
  for (const auto& [task, source] : selected) {
    if (tty) fmt::print(stderr, "\r\033[Kexplaining {}…", task->info().id);
    results.push_back(explain_exercise(*task, *backend.toolchain, source, options));
  }
  if (tty) fmt::print(stderr, "\r\033[K");
  if (args.json) {
    std::cout << explain_report_json(results, backend.line).dump(2) << '\n';
  } else {
    ReportStyle style;
    style.color = use_color(args.color);
    style.verbose = args.verbose;
    write_explain_report(std::cout, results, style);
  }
  for (const auto& r : results) {
    if (!r.ran() || !r.findings.empty()) return kExitFailed;
  }
  return kExitPassed;
}

constexpr DocPage kShowPage{"md_docs_show.html", "docs/show.md", "See what each thread did"};

struct ShowArgs {
  Selection selection;
  std::vector<std::int64_t> sizes;
  std::uint64_t seed = 1;
  std::int64_t block = -1;
  bool text = false;
  std::string output;
  std::string svg;
  double timeout_s = 60;
};

/// `cudalab show`'s options, on `app`.
CLI::App* add_show_command(CLI::App& app, ShowArgs& args) {
  auto* show = app.add_subcommand(
      "show",
      "Draw what each thread of a kernel did, from one run on the simulator at a small size: which thread read "
      "and wrote which element between which barriers, with the findings (races, out-of-bounds accesses, "
      "elements never written) on the picture; an HTML page, or text with --text");
  add_selection_options(show, args.selection, "Show");
  show->remove_option(show->get_option("--all"));
  show->remove_option(show->get_option("--tf32"));
  show->add_option("--size", args.sizes,
                   "Run at the check whose first dimension (n or M) is this; default: the smallest that fails, else "
                   "the smallest");
  show->add_option("--block", args.block,
                   "The block whose shared memory and threads are drawn, linear in the grid "
                   "(default: the block of the first finding, else 0)");
  show->add_option("--seed", args.seed, "Seed of the random inputs")->capture_default_str();
  show->add_flag("--text", args.text, "Print the picture as text instead of writing the page (small grids)");
  show->add_option("-o,--output", args.output, "Where the page goes (default: show-EXERCISE.html here)");
  show->add_option("--svg", args.svg,
                   "Write one SVG picture of the first launch, without tooltips (the exercise READMEs' pictures); "
                   "the page too only with -o");
  show->add_option("--timeout", args.timeout_s, "Seconds allowed for each run")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  show->footer(docs_footer({{kShowPage, "what the page shows, and how to read it"}}));
  return show;
}

/// `cudalab show`: the simulator's checked build, one traced run; exit 1 when that run fails.
int run_show(const ShowArgs& args) {
  if (args.selection.exercises.size() != 1) {
    throw UsageError("show draws one exercise: name it (cudalab show 03_matmul)");
  }
  const auto selected = select_sources(args.selection);
  const auto& [task, source] = selected.front();
  ToolchainConfig config = toolchain_config();
  config.checked = true;  // every access calls the simulator, which records it
  const BackendChoice backend = choose_backend(BackendRequest::sim, config);
  ShowOptions options;
  options.seed = args.seed;
  options.only_sizes = args.sizes;
  options.timeout = std::chrono::milliseconds(static_cast<long>(args.timeout_s * 1000));
  if (args.block >= 0) options.block = static_cast<std::uint32_t>(args.block);
  const bool tty = isatty(STDERR_FILENO) != 0;
  if (tty) fmt::print(stderr, "running {} on the simulator…", task->info().id);
  ShowResult result = show_exercise(*task, *backend.toolchain, source, options);
  if (tty) fmt::print(stderr, "\r\033[K");
  if (!args.selection.file.empty()) result.command += " --file " + args.selection.file;
  if (args.selection.solution) result.command += " --solution";
  if (!args.svg.empty()) write_file_atomically(args.svg, show_figure_svg(result));
  if (!args.svg.empty() && args.output.empty() && !args.text) {
    fmt::print("{} at {}: {}\npicture: {}\n", task->info().id, result.c.label(), verdict_title(result.verdict),
               args.svg);
  } else if (args.text) {
    ReportStyle style;
    style.color = want_color(STDOUT_FILENO);
    write_show_text(std::cout, result, style);
  } else {
    const fs::path page =
        args.output.empty() ? fs::path(fmt::format("show-{}.html", task->info().id)) : fs::path(args.output);
    write_file_atomically(page, show_page_html(result));
    fmt::print("{} at {}: {}{}\n", task->info().id, result.c.label(), verdict_title(result.verdict),
               result.verdict == Verdict::passed || result.message.empty() ? "" : " — " + result.message);
    fmt::print("page: {} (open it in a browser)\n", page.string());
  }
  return result.verdict == Verdict::passed && result.compile.ok ? kExitPassed : kExitFailed;
}

/// What is wrong with the subcommand of a command line, before CLI11 parses it.
struct SubcommandProblem {
  std::string message;
  bool show_help = false;
};

/// A missing or unknown subcommand. The top level takes flags only (--help, --version), so the
/// first argument without a dash names the subcommand.
std::optional<SubcommandProblem> subcommand_problem(const CLI::App& app, int argc, char** argv) {
  std::vector<std::pair<std::string, std::string>> names;
  std::string listed;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.emplace_back(sub->get_name(), sub->get_name());
    listed += (listed.empty() ? "" : ", ") + sub->get_name();
  }
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("-")) {
      if (arg == "-h" || arg == "--help" || arg == "--version") return std::nullopt;
      continue;
    }
    for (const auto& [name, _] : names) {
      if (arg == name) return std::nullopt;
    }
    const auto guess = did_you_mean(arg, names);
    return SubcommandProblem{guess ? fmt::format("unknown command '{}'; did you mean '{}'?", arg, *guess)
                                   : fmt::format("unknown command '{}'; the commands are {}", arg, listed),
                             false};
  }
  return SubcommandProblem{fmt::format("pick a subcommand ({}); `cudalab list` is a good start", listed), true};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "cudalab: learn CUDA by doing. Checks your kernels against CPU references on fresh random\n"
      "inputs and explains what is wrong; runs on the GPU, or on a CPU simulator when there is none.",
      "cudalab"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("cudalab ") + CUDALAB_VERSION);
  app.footer(
      "Exit codes: 0 all passed, 1 something failed, 2 usage or set-up error, 3 a bug in cudalab.\n"
      "Environment: CUDALAB_ROOT (project folder), CUDALAB_CACHE_DIR (compiled modules),\n"
      "CUDALAB_NVCC, CUDALAB_CUDA_ARCH (e.g. sm_90), CUDALAB_CXX (simulator compiler), CUDALAB_WATCH=poll, NO_COLOR,\n"
      "CUDALAB_NO_SANDBOX=1 (run student code unconfined: for debugging the runner only).\n" +
      docs_footer({{kIndexPage, "students, instructors, contributors"},
                   {kGettingStartedPage, "with a GPU, without one, on a lab machine"}}));

  auto* list = app.add_subcommand("list", "List the exercises, what each practises, and where you stand");
  auto* next = app.add_subcommand("next", "Say which exercise to do next, and why");
  std::string init_dir;
  auto* init =
      app.add_subcommand("init", "Copy the exercises (READMEs and skeletons) into a folder of your own, to work there");
  init->add_option("dir", init_dir, "The folder to create or fill (it must not hold exercises yet)")->required();
  list->footer(docs_footer({{kCoursePage, "the exercises in order, one page each"}}));
  next->footer(docs_footer({{kCoursePage, "the exercises in order, one page each"}}));
  init->footer(docs_footer({{kGettingStartedPage, "working in a folder of your own"}}));

  CheckArgs check_args;
  auto* check = app.add_subcommand("check", "Compile a kernel.cu and check it against the CPU reference");
  add_selection_options(check, check_args.selection, "Check");
  check->add_option("--seed", check_args.seed, "Seed of the random inputs (printed with every run; repeats a failure)")
      ->each([&](const std::string&) { check_args.seed_given = true; });
  check->add_option("--backend", check_args.backend, "Where the kernel runs: auto (the GPU if there is one), gpu, sim")
      ->check(CLI::IsMember({"auto", "gpu", "sim"}))
      ->capture_default_str();
  check->add_flag("--json", check_args.json, "Print the results as JSON instead of a table");
  check->add_option("--timeout", check_args.timeout_s, "Seconds allowed per check before it counts as a hang")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  check->add_option("--junit", check_args.junit, "Also write the results as JUnit XML to this file (for CI)");
  check
      ->add_option("--format", check_args.format,
                   "text: the report; gcc: instead, one `file:line:col: error: ...` line per finding, failure and "
                   "compiler message, placed in your file, as editors and CI problem matchers read them")
      ->check(CLI::IsMember({"text", "gcc"}))
      ->capture_default_str();
  check->add_option("--sarif", check_args.sarif,
                    "Also write the findings as a SARIF 2.1.0 log to this file (GitHub code scanning, SARIF viewers)");
  check->add_option("--size", check_args.sizes, "Run only the checks whose first dimension (n or M) is one of these");
  check->add_flag("-v,--verbose", check_args.verbose, "Show every check, not only the failures");
  check->add_flag("--sanitize", check_args.sanitize,
                  "Check every memory access at more sizes: on the simulator, every size up to 2^20 elements (a "
                  "check already checks the small ones); on a GPU, also under compute-sanitizer");
  check->add_flag("--fast", check_args.fast,
                  "Skip the checked run (every access of the small sizes checked on the simulator for "
                  "out-of-bounds accesses, races and uninitialised reads) and, on the simulator, nvcc's front "
                  "end where nvcc is installed: quicker, but a pass no longer means the kernel is right, and "
                  "`list` shows it as a fast pass");
  check->get_option("--fast")->excludes(check->get_option("--sanitize"));
  check->get_option("--json")->excludes(check->get_option("--format"));
  check->add_flag("--watch", check_args.watch,
                  "Check again at every save of the file (one exercise), the verdict line first; Ctrl-C stops. "
                  "inotify, with polling beside it for folders where it never fires (CUDALAB_WATCH=poll: "
                  "polling alone)");
  add_color_option(check, check_args.color);
  check->footer(docs_footer(
      {{kReportsPage, "the report line by line"}, {kFailuresPage, "every verdict, what it means, what to do"}}));

  BenchArgs bench_args;
  auto* bench = app.add_subcommand("bench", "Time kernels on the GPU: median, throughput, percent of peak, speedups");
  add_selection_options(bench, bench_args.selection, "Measure");
  bench
      ->add_option("--size", bench_args.sizes,
                   "Sizes to time: n, or for 03_matmul the M of a checked shape or any square size "
                   "(4096: 4096×4096×4096); default: the large size")
      ->check(CLI::PositiveNumber);
  bench->add_option("--seed", bench_args.seed, "Seed of the random inputs")->capture_default_str();
  bench->add_flag("--json", bench_args.json, "Print JSON (docs/bench-output.md)");
  bench->add_flag("--csv", bench_args.csv, "Print CSV");
  bench->add_flag("--markdown", bench_args.markdown, "Print a Markdown table for docs/performance.md");
  bench->add_option("--time-cap", bench_args.time_cap_s, "Seconds of measuring per size at most")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  bench->add_option("--noise", bench_args.noise, "Stop once the median is known to this relative precision (95 %)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  bench->add_flag("--no-cpu", bench_args.no_cpu, "Skip the CPU baselines");
  bench
      ->add_option("--compare", bench_args.compare,
                   "A B: time two kernels of the exercise in turns on the GPU and say whether B is SAME, FASTER, "
                   "SLOWER or UNSURE against A (from the 95 % interval of B's time over A's; ±2 % is the same)")
      ->expected(2);
  bench->add_flag("--no-reference", bench_args.no_reference, "Skip the comparison with the reference solution");
  bench->add_flag("--pageable", bench_args.pageable,
                  "Time host-pointer exercises with pageable host buffers (default: page-locked, whose copies "
                  "are repeatable)");
  bench->add_flag("-v,--verbose", bench_args.verbose,
                  "Also say where each measurement's time went: inputs, process start, context, the timed calls, "
                  "judging");
  bench->add_flag("--ladder", bench_args.ladder,
                  "Measure the speed ladder: solutions/NAME/step*.cu in order, then the reference solution, then "
                  "any TF32 tensor-core tier (solutions/NAME/tf32_*.cu, at TF32 precision)");
  bench->add_flag("--profile", bench_args.profile,
                  "Instead of timing: run one call of solve under Nsight Compute (ncu) at explain's size and show "
                  "its hardware counters (sectors and wavefronts per request, occupancy, active lanes, branches, "
                  "device memory) beside the simulator's counts");
  add_color_option(bench, bench_args.color, "Colour of the --profile report");
  bench->footer(docs_footer({{kReportsPage, "every column of the table"},
                             {kExplainPage, "--profile: each counter and how the simulator's compare"}}));

  ExplainArgs explain_args;
  CLI::App* explain = add_explain_command(app, explain_args);
  ShowArgs show_args;
  CLI::App* show = add_show_command(app, show_args);

  // The instructor's commands live in grading/ (a layer on top of the harness): they are run as
  // the program cudalab-grading next to this one, with the rest of the command line.
  std::vector<CLI::App*> grading_commands;
  for (const auto& [name, what] : std::vector<std::pair<const char*, const char*>>{
           {"grade",
            "Grade a class: every student's kernels checked (and timed on a GPU), scored by a rubric, "
            "recorded in a gradebook, written up as reports (`cudalab grade --help`)"},
           {"report", "Write the reports of a gradebook again (`cudalab report --help`)"},
           {"merge", "Join the gradebooks of a class graded in shards (`cudalab merge --help`)"},
           {"export", "Write the students' distribution, without solutions or grading data"}}) {
    CLI::App* sub = app.add_subcommand(name, what);
    sub->prefix_command();
    sub->set_help_flag();  // --help goes to cudalab-grading, which knows the options
    grading_commands.push_back(sub);
  }

  // CLI11 would say "A subcommand is required" or "The following argument was not expected".
  if (const auto problem = subcommand_problem(app, argc, argv)) {
    if (problem->show_help) std::cout << app.help() << std::flush;
    fmt::print(stderr, "cudalab: {}\n", problem->message);
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return e.get_exit_code() == 0 ? code : kExitUsage;
  }
  for (CLI::App* sub : grading_commands) {
    if (!sub->parsed()) continue;
    const fs::path program = program_dir() / "cudalab-grading";
    if (!is_executable(program)) {
      fmt::print(stderr,
                 "cudalab: {} is missing: this installation of cudalab has no grading (rebuild or reinstall it)\n",
                 program.string());
      return kExitUsage;
    }
    std::vector<std::string> args{program.string(), sub->get_name()};
    for (const auto& extra : sub->remaining()) args.push_back(extra);
    std::vector<char*> raw;
    for (auto& a : args) raw.push_back(a.data());
    raw.push_back(nullptr);
    std::fflush(stdout);
    execv(raw[0], raw.data());
    fmt::print(stderr, "cudalab: cannot run {}: {}\n", program.string(), std::strerror(errno));
    return kExitUsage;
  }
  std::string command_line = "cudalab";
  for (int i = 1; i < argc; ++i) command_line += std::string(" ") + argv[i];
  try {
    if (bench->parsed()) return run_bench(bench_args, command_line);
    if (list->parsed()) return run_list();
    if (next->parsed()) return run_next();
    if (init->parsed()) return run_init(fs::absolute(init_dir));
    if (check->parsed()) return run_check(check_args);
    if (explain->parsed()) return run_explain(explain_args);
    if (show->parsed()) return run_show(show_args);
  } catch (...) {  // one line and the family's exit code (errors.hpp); a bug asks for a report
    const ErrorReport report = report_error(std::current_exception());
    fmt::print(stderr, "cudalab: {}\n", report.line);
    return static_cast<int>(report.code);
  }
  return kExitUsage;
}
