#include "cudalab/exercise_check.hpp"
#include "cudalab/findings.hpp"

#include <atomic>
#include <future>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudalab/detail/case_judge.hpp"
#include "cudalab/detail/runner_session.hpp"
#include "cudalab/protocol.hpp"
#include "cudalab/timeline.hpp"
#include "sanitize.hpp"

namespace cudalab {

namespace fs = std::filesystem;

namespace {

/// The streams exercise's report: the largest case's copies and kernels per stream, timed on the
/// GPU; the simulator, which runs each copy and kernel at its call, says what it cannot show.
std::vector<std::string> streams_timeline(Backend backend, const std::vector<CaseResult>& cases) {
  if (backend == Backend::sim) {
    return {
        "the simulator runs each copy and kernel at its call, one after another: it checks your chunks, "
        "streams and asynchronous copies, but whether copies overlap kernels shows on a GPU only, where "
        "this report draws each stream's copies and kernels on a time line"};
  }
  for (auto c = cases.rbegin(); c != cases.rend(); ++c) {
    auto lines = draw_timeline(c->records);
    if (lines.empty()) continue;
    lines.insert(lines.begin(),
                 fmt::format("copies and kernels at {}, per stream ({}):", c->c.label(),
                             copies_overlap(c->records) ? "copies overlap kernels" : "nothing overlaps"));
    return lines;
  }
  return {};
}

}  // namespace

std::size_t ExerciseResult::passed_cases() const {
  std::size_t n = 0;
  for (const auto& c : cases) n += c.verdict == Verdict::passed ? 1 : 0;
  return n;
}

const CaseResult* ExerciseResult::first_failure() const {
  for (const auto& c : cases) {
    if (c.verdict != Verdict::passed && c.verdict != Verdict::skipped) return &c;
  }
  return nullptr;
}

std::int64_t work_of(const Task& task, const Case& c) {
  const Cost cost = task.cost(c);
  return static_cast<std::int64_t>(std::max(cost.bytes / 8, cost.flops / 2));
}

namespace {

using SteadyClock = std::chrono::steady_clock;

double seconds_since(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

/// run_cases with the seeds given.
std::vector<CaseResult> run_cases_seeded(const Task& task, const Toolchain& toolchain, const fs::path& module,
                                         const std::vector<Case>& cases, const std::vector<std::uint64_t>& seeds,
                                         const CheckOptions& options, const ProgressFn& progress,
                                         std::vector<protocol::Phase>* time_split = nullptr) {
  double inputs_s = 0;
  double laying_out_s = 0;
  double runner_s = 0;
  double judging_s = 0;
  auto step = SteadyClock::now();
  // Every case's inputs first (the references are computed meanwhile, on threads of their own).
  std::vector<std::shared_ptr<const CaseData>> data;
  SetViews sets;
  std::vector<const Case*> case_of_set;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    data.push_back(case_data(options.case_data, task, cases[i], seeds[i]));
    sets.push_back(&data.back()->buffers);
    case_of_set.push_back(&cases[i]);
  }
  inputs_s += seconds_since(step);
  step = SteadyClock::now();
  const SharedBuffers shared(sets, 0, /*page_per_set=*/true);
  laying_out_s += seconds_since(step);
  std::vector<CaseResult> results;
  std::vector<std::string> blocked_named;
  // One runner for every case left; after a case that ends its process, another for the rest.
  while (results.size() < cases.size()) {
    step = SteadyClock::now();  // the runner's sandbox, spec and process
    const std::size_t first = results.size();
    RunnerCall call{task,
                    toolchain,
                    module,
                    cases[first],
                    protocol::CheckRun{},
                    options.timeout,
                    options.max_output_bytes,
                    options.visible_devices};
    std::optional<RunnerSandbox> box;
    make_box(call, box);
    auto& check_run = std::get<protocol::CheckRun>(call.run);
    check_run.instrumentation = options.sanitize && toolchain.backend() == Backend::sim
                                    ? protocol::Instrumentation::access_checks
                                    : protocol::Instrumentation::none;
    check_run.order = options.order;
    check_run.order_seed = derive_from_seed(options.seed, "thread order");  // never the seed itself
    check_run.case_markers = !options.runner_prefix.empty();
    call.runner_prefix = options.runner_prefix;
    call.niceness = options.runner_niceness;
    protocol::Spec spec = make_spec(call, sets, shared, case_of_set, first);
    auto& check = spec.check();
    if (!options.orders.empty()) check.orders.assign(options.orders.begin() + first, options.orders.end());
    if (check.instrumentation != protocol::Instrumentation::none) {
      // The checks cost some 20 times a plain access: the sizes of up to 2^20 elements (or
      // multiply-adds) are checked, the rest run plain (the large sizes, 255×257×129 matmuls).
      for (std::size_t i = first; i < cases.size(); ++i)
        check.instrumented_sets.push_back(work_of(task, cases[i]) <= (1 << 20));
    }
    // Under a tool the runner is not locked down: the tool's library in it must reach its files.
    if (options.runner_prefix.empty()) spec.sandbox = box->spec();
    std::size_t replied = 0;
    if (progress) progress(task, first, cases.size(), cases[first]);
    const auto on_reply = [&] {
      ++replied;
      if (progress && first + replied < cases.size()) {
        progress(task, first + replied, cases.size(), cases[first + replied]);
      }
    };
    const RunnerProcess run = spawn_runner(*box, call, spec, shared, nullptr, cases.size() - first, on_reply);
    runner_s += seconds_since(step);
    step = SteadyClock::now();
    if (options.runner_output != nullptr) {
      // Renumbered from this process's first case, so that markers name cases of the whole run.
      std::string text = run.p.output;
      for (std::size_t at = text.find("cudalab-case "); at != std::string::npos;
           at = text.find("cudalab-case ", at + 1)) {
        const std::size_t end = text.find('\n', at);
        const std::size_t k = std::strtoul(text.c_str() + at + 13, nullptr, 10);
        text.replace(at + 13, end - at - 13, std::to_string(first + k));
      }
      *options.runner_output += text;
    }
    // Whole lines only: a line cut short is the process's end (a crash, a flood), judged below.
    const std::string_view text = run.p.result;
    const std::size_t last_newline = text.rfind('\n');
    const std::string_view whole =
        last_newline == std::string_view::npos ? text.substr(0, 0) : text.substr(0, last_newline + 1);
    const bool cut_short = whole.size() < text.size() && !run.p.result_overflow;
    std::vector<protocol::Reply> replies;
    std::optional<CaseResult> unusable;
    try {
      replies = protocol::parse_replies(whole);
      if (cut_short && run.p.status == ProcessResult::Status::exited) {
        throw protocol::ProtocolError("malformed reply: not a whole line");
      }
    } catch (const protocol::ProtocolError& e) {
      // The replies before the bad line are lost with it: the case after the last good one is blamed.
      unusable = unusable_reply(run, cases[first], e);
    }
    bool ended = false;
    for (std::size_t k = 0; k < replies.size() && first + k < cases.size() && !ended; ++k) {
      const Case& c = cases[first + k];
      CaseResult r;
      r.c = c;
      call.c = c;
      if (take_reply(call, replies[k], r)) {
        const std::size_t set = first + k;
        if (judge_bounds(c, *sets[set], replies[k], r)) {
          const std::vector<Buffer> after = shared.read(set, *sets[set]);
          judge_outputs(task, c, *sets[set], after, shared.inputs_now(set), data[set]->expected.get(), r);
        }
      } else {
        ended = true;  // the runner stops after a failed case
      }
      // A finding outranks what the output shows: it names the cause.
      r.findings = replies[k].findings;
      judge_findings(r.findings, module, r, nullptr, task.info().in_place_steps);
      // What each case printed, with that case.
      add_printed(run, r, k);
      name_blocked(blocked_named, r);
      results.push_back(std::move(r));
      if (stops_check(results.back().verdict)) ended = true;
    }
    if (!ended && results.size() < cases.size()) {
      // The process ended (or was stopped) before replying for the next case.
      CaseResult r = unusable ? std::move(*unusable) : ended_without_reply(*box, call, run, cases[results.size()]);
      r.c = cases[results.size()];
      results.push_back(std::move(r));
    }
    if (auto left = box->clean_up()) results.back().hints.push_back(*left);
    judging_s += seconds_since(step);
    if (stops_check(results.back().verdict)) break;
  }
  if (time_split != nullptr) {
    time_split->insert(
        time_split->end(),
        {{"inputs", inputs_s}, {"laying out", laying_out_s}, {"runner", runner_s}, {"judging", judging_s}});
  }
  return results;
}

}  // namespace

bool stops_check(Verdict v) { return traits_of(v).stops_check; }

std::vector<CaseResult> run_cases(const Task& task, const Toolchain& toolchain, const fs::path& module,
                                  const std::vector<Case>& cases, const CheckOptions& options,
                                  const ProgressFn& progress, std::vector<protocol::Phase>* time_split) {
  std::vector<std::uint64_t> seeds;
  for (const Case& c : cases) seeds.push_back(case_seed(options.seed, task.info(), c));
  return run_cases_seeded(task, toolchain, module, cases, seeds, options, progress, time_split);
}

CaseResult run_case(const Task& task, const Toolchain& toolchain, const fs::path& module, const Case& c,
                    std::uint64_t case_seed, const CheckOptions& options) {
  return run_cases_seeded(task, toolchain, module, {c}, {case_seed}, options, {}).front();
}

std::vector<Case> select_cases(const Task& task, Backend backend, const CheckOptions& options) {
  std::vector<Case> cases = task.cases(CaseOptions{.simulator = backend == Backend::sim});
  for (Case& c : cases) c.precision = options.precision;
  if (options.only_sizes.empty()) return cases;
  std::vector<Case> selected;
  for (const Case& c : cases) {
    if (std::ranges::find(options.only_sizes, c.dims.front().value) != options.only_sizes.end()) selected.push_back(c);
  }
  if (selected.empty()) {
    std::string sizes;
    for (const Case& c : cases) {
      const std::string size = std::to_string(c.dims.front().value);
      if (sizes.find(" " + size + ",") == std::string::npos) sizes += " " + size + ",";
    }
    sizes.pop_back();
    throw SelectionError(fmt::format("no check of {} has {}={}; its sizes are{}", task.info().id,
                                     cases.front().dims.front().name, fmt::join(options.only_sizes, " or "), sizes));
  }
  return selected;
}

/// The cases of a check run one after another in one process, as the calls of a program do. When
/// a case gives a wrong answer after earlier ones passed, it runs again alone, as the first call
/// of a fresh process: right there means that something an earlier call left behind (a
/// `__device__` or `static` accumulator, a kept grid or pointer) changed this call's answer.
/// Says so in the failing case and returns true; false when that is not the explanation.
bool explain_state_kept(const Task& task, const Toolchain& toolchain, const fs::path& module,
                        const CheckOptions& options, ExerciseResult& result) {
  bool earlier_passed = false;
  for (CaseResult& c : result.cases) {
    if (c.verdict == Verdict::passed) {
      earlier_passed = true;
      continue;
    }
    if (c.verdict != Verdict::wrong_output || !earlier_passed) return false;
    const CaseResult alone = run_case(task, toolchain, module, c.c, case_seed(options.seed, task.info(), c.c), options);
    if (alone.verdict != Verdict::passed) return false;
    // Without the checked run nothing looked for a race, which can be right by luck alone too.
    const bool races_looked_for = options.checked_toolchain != nullptr || options.sanitize;
    c.message = fmt::format(
        "{} — but right when it is the first call of a fresh process: the earlier calls of "
        "solve left something behind{}",
        c.message,
        races_looked_for ? "" : " (or a race was right by luck there: the check without --fast looks for races)");
    c.hints.insert(c.hints.begin(),
                   "solve must work every time it is called: reset accumulators (`__device__` or `static` "
                   "variables) inside solve, and work out grids and sizes from this call's arguments, not "
                   "from a value kept from the first call");
    return true;
  }
  return false;
}

namespace {

/// The checked run's side of a check: its compile, then its cases.
struct CheckedRun {
  CompileResult compile;
  std::vector<CaseResult> cases;
  double compile_s = 0;
  double run_s = 0;
};

/// The other thread orders of the checked run, run from the plain build on the simulator: started
/// once that build is compiled, beside its run. Whoever waits on them is answered, with no runs
/// where they never started (the plain build failed, or the check ended early).
class OrdersFromPlainBuild {
 public:
  explicit OrdersFromPlainBuild(bool wanted) {
    if (wanted) future_ = promise_.get_future().share();
  }
  OrdersFromPlainBuild(const OrdersFromPlainBuild&) = delete;
  OrdersFromPlainBuild& operator=(const OrdersFromPlainBuild&) = delete;
  ~OrdersFromPlainBuild() {
    if (future_.valid() && !started_) promise_.set_value({});
  }

  /// What the checked run waits on; not valid where the checked run runs its own orders.
  std::shared_future<OrderRuns> future() const { return future_; }

  void start(const Task& task, const Toolchain& plain, const fs::path& module, const CheckOptions& options) {
    if (!future_.valid()) return;
    started_ = true;
    runs_ = std::async(std::launch::async, [this, &task, &plain, module, &options] {
      try {
        promise_.set_value(run_in_other_orders(task, plain, module, options));
      } catch (...) {
        promise_.set_exception(std::current_exception());
      }
    });
  }

 private:
  std::promise<OrderRuns> promise_;
  std::shared_future<OrderRuns> future_;
  bool started_ = false;
  std::future<void> runs_;  // last: its destructor waits for the runs, which use the promise
};

/// Sets a flag when the scope ends, however it ends.
struct StopOnExit {
  explicit StopOnExit(std::atomic<bool>& f) : flag(f) {}
  StopOnExit(const StopOnExit&) = delete;
  StopOnExit& operator=(const StopOnExit&) = delete;
  ~StopOnExit() { flag = true; }
  std::atomic<bool>& flag;
};

/// The first line of a compiler's messages, for a one-line note.
std::string first_line(const std::string& text) {
  const std::size_t error = text.find("error");
  const std::size_t start = error == std::string::npos ? 0 : text.rfind('\n', error) + 1;
  return text.substr(start, text.find('\n', start) - start);
}

/// Where nvcc's front end rejected the file that the simulator's compiler took: a compile error in
/// nvcc's words, in place of whatever the runs gave (a GPU would never run the file).
void rejected_by_nvcc(CompileResult front_end, ExerciseResult& result) {
  if (front_end.ok) return;
  front_end.diagnostics =
      "nvcc rejects this file, which the simulator's compiler accepted (a GPU would never run it):\n" +
      front_end.diagnostics;
  result.compile = std::move(front_end);
  result.cases.clear();
  result.hints.clear();
  result.timeline.clear();
  result.checked_note.clear();
  result.full_check = false;
  result.verdict = Verdict::compile_error;
}

}  // namespace

ExerciseResult check_exercise(const Task& task, const Toolchain& toolchain, const fs::path& source,
                              const CheckOptions& given, const ProgressFn& progress) {
  const std::vector<Case> cases = select_cases(task, toolchain.backend(), given);
  // The check's runs (plain, checked, other thread orders, a re-run) share one set of inputs and
  // references, made while the compilers run.
  CaseDataCache own_data;
  CheckOptions options = given;
  if (options.case_data == nullptr) options.case_data = &own_data;
  std::atomic<bool> stop_making{false};
  const auto made = std::async(std::launch::async, [&] {
    for (const Case& c : cases) {
      if (stop_making) return;
      (void)case_data(options.case_data, task, c, case_seed(options.seed, task.info(), c));
    }
  });
  const StopOnExit stop_making_on_exit{stop_making};  // a compile error does not wait for the rest
  ExerciseResult result;
  result.task = &task;
  result.backend = toolchain.backend();
  result.source = source;
  // `--sanitize` on the simulator runs the checked build for the whole check; otherwise the
  // checked build runs beside the plain one, on the small cases, and both compile at once.
  const bool whole_run_checked = options.sanitize && toolchain.backend() == Backend::sim;
  const Toolchain* checked = whole_run_checked ? nullptr : options.checked_toolchain;
  std::atomic<bool> plain_compiled{true};
  std::future<CheckedRun> checked_run;
  // On the simulator the plain run and the other orders yield the CPU to the checked run: it starts
  // last (its build compiles longer) and the verdict waits for it; they still end before it does.
  CheckOptions yielding = options;
  if (checked != nullptr && toolchain.backend() == Backend::sim) yielding.runner_niceness = 5;
  // On the simulator the other thread orders run from the plain build, as soon as it is compiled
  // (declared after checked_run: a check that ends early answers the checked run before waiting on it).
  OrdersFromPlainBuild plain_orders(checked != nullptr && toolchain.backend() == Backend::sim);
  if (checked != nullptr) {
    checked_run = std::async(std::launch::async, [&, orders = plain_orders.future()] {
      CheckedRun run;
      const auto compile_start = SteadyClock::now();
      run.compile = checked->compile(source);
      run.compile_s = seconds_since(compile_start);
      if (run.compile.ok && plain_compiled) {
        const auto run_start = SteadyClock::now();
        run.cases = run_checked(task, *checked, run.compile.module, options, orders);
        run.run_s = seconds_since(run_start);
      }
      return run;
    });
  }
  // nvcc's word on the file, where it is installed: what it rejects fails on the simulator too.
  std::future<CompileResult> front_end;
  if (options.nvcc_front_end != nullptr && toolchain.backend() == Backend::sim) {
    front_end = std::async(std::launch::async, [&] { return options.nvcc_front_end->compile(source); });
  }
  // Each part as it ends; the checked build's, once it is waited for.
  const auto timed = [&result](const char* name, SteadyClock::time_point start) {
    result.time_split.push_back({name, seconds_since(start)});
  };
  auto part_start = SteadyClock::now();
  result.compile = toolchain.compile(source);
  timed("compile", part_start);
  if (!result.compile.ok) {
    plain_compiled = false;  // the checked run's cases are not wanted (its compile may still finish)
    result.verdict = Verdict::compile_error;
    return result;
  }
  plain_orders.start(task, toolchain, result.compile.module, yielding);
  // The run's own parts, named as parts of it ("run: laying out").
  std::vector<protocol::Phase> run_split;
  part_start = SteadyClock::now();
  result.cases = run_cases(task, toolchain, result.compile.module, cases, yielding, progress, &run_split);
  timed("run", part_start);
  for (const protocol::Phase& p : run_split) result.time_split.push_back({"run: " + p.name, p.seconds});
  // What stops a check does not depend on the size (stops_check): one report is enough.
  for (std::size_t i = result.cases.size(); i < cases.size(); ++i) {
    CaseResult skipped;
    skipped.c = cases[i];
    skipped.verdict = Verdict::skipped;
    skipped.message = "not run after the failure above";
    result.cases.push_back(std::move(skipped));
  }
  if (whole_run_checked) {
    part_start = SteadyClock::now();
    check_thread_orders(task, toolchain, result.compile.module, options, result.cases);
    timed("other thread orders", part_start);
    result.full_check = true;
  }
  if (checked_run.valid()) {
    part_start = SteadyClock::now();
    CheckedRun run = checked_run.get();
    timed("waiting for the checked run", part_start);
    result.time_split.push_back({"checked build's compile", run.compile_s});
    if (run.run_s > 0) result.time_split.push_back({"checked run", run.run_s});
    if (run.compile.ok) {
      merge_checked(std::move(run.cases), toolchain.backend(), result);
      result.full_check = true;
    } else {
      // The plain build compiled: on a GPU the simulator lacks something the file uses.
      result.checked_note = fmt::format(
          "the simulator's checked run could not compile this file ({}): {}", first_line(run.compile.diagnostics),
          toolchain.backend() == Backend::gpu ? "only the GPU's checks ran, which miss races between blocks, "
                                                "uninitialised reads and out-of-bounds reads that stay in memory"
                                              : "only the plain checks ran");
    }
  }
  if (options.sanitize && toolchain.backend() == Backend::gpu) {
    part_start = SteadyClock::now();
    check_with_compute_sanitizer(task, toolchain, result.compile.module, options, result);
    timed("compute-sanitizer", part_start);
  }
  const bool found = std::ranges::any_of(result.cases, [](const CaseResult& c) { return !c.findings.empty(); });
  // A task's diagnosis names the mistake; the pattern of failing sizes would only guess again.
  const bool diagnosed = std::ranges::any_of(result.cases, [](const CaseResult& c) { return c.diagnosed; });
  // A finding outranks a guess: where state kept from earlier calls explains the failure, the
  // pattern of failing sizes (which it also produces) is not offered as the cause.
  part_start = SteadyClock::now();
  const bool state_kept = !found && explain_state_kept(task, toolchain, result.compile.module, options, result);
  if (!found) timed("looking for state kept between calls", part_start);
  if (!found && !state_kept) {
    std::vector<CaseOutcome> outcomes;
    for (const auto& c : result.cases) {
      if (c.verdict == Verdict::passed || c.verdict == Verdict::wrong_output) {
        outcomes.push_back({c.c, c.verdict == Verdict::passed, c.output_covered});
      }
    }
    if (auto hint = size_pattern_hint(outcomes); hint && !diagnosed) result.hints.push_back(*hint);
  }
  if (task.info().requires_streams) result.timeline = streams_timeline(toolchain.backend(), result.cases);
  const CaseResult* failure = result.first_failure();
  result.verdict = failure == nullptr ? Verdict::passed : failure->verdict;
  if (front_end.valid()) {
    part_start = SteadyClock::now();
    rejected_by_nvcc(front_end.get(), result);
    timed("waiting for nvcc's front end", part_start);
  }
  return result;
}

}  // namespace cudalab
