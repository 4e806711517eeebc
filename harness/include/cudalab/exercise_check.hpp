// Checking one exercise: compile the submission, run every case in an isolated child process,
// compare in this (trusted) process, and explain what went wrong.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudalab/case_data.hpp"
#include "cudalab/judge.hpp"
#include "cudalab/protocol.hpp"
#include "cudalab/task.hpp"
#include "cudalab/toolchain.hpp"

namespace cudalab {

/// How a check runs: the seed of its inputs and the limits each case runs under.
struct CheckOptions {
  std::uint64_t seed = 0;                     ///< the run's seed; case_seed() derives each case's from it
  std::chrono::milliseconds timeout{20'000};  ///< per case, context creation included
  std::size_t max_output_bytes = 1 << 20;     ///< stdout+stderr of one case
  std::vector<std::int64_t> only_sizes;       ///< empty: all cases; else cases whose first dim is listed
  Precision precision = Precision::fp32;      ///< tf32 only for tasks that support it
  std::string visible_devices;                ///< CUDA_VISIBLE_DEVICES for the runner; empty: as inherited
  CaseDataCache* case_data = nullptr;  ///< inputs and expected outputs shared between checks; null: made per check

  /// Check device code's accesses (`--sanitize`): the toolchain must be made with
  /// ToolchainConfig::checked. The simulator checks every access itself and runs the small cases
  /// again with each block's threads in reverse and shuffled order; a GPU runs under compute-sanitizer.
  bool sanitize = false;
  /// The order the simulator starts each block's threads in (set by the sanitize runs).
  protocol::ThreadOrder order = protocol::ThreadOrder::forward;
  /// Per case, where the cases run in different orders (empty: `order` for all).
  std::vector<protocol::ThreadOrder> orders;
  /// A tool the runner runs under (compute-sanitizer and its options, set by the sanitize runs on
  /// a GPU): its argv before the runner's. The runner is not locked down then (the tool must reach
  /// its own files and process), and marks each case on stdout.
  std::vector<std::string> runner_prefix;
  /// Where the runner processes' own output goes, in full, when not null (the tool's reports).
  std::string* runner_output = nullptr;
  /// The simulator's checked build (ToolchainConfig::checked), for the checked run every check
  /// makes by default: the small cases run there too, beside the plain run, every access checked
  /// and each block's threads in other orders; what it finds leads the case's report. It compiles
  /// at the same time as the plain build. Null: no checked run (`check --fast`).
  const Toolchain* checked_toolchain = nullptr;
  /// On the simulator, where nvcc is installed: its front end (make_nvcc_front_end), compiled at the
  /// same time as the builds; a file it rejects fails the check as a compile error in its words,
  /// whatever the runs gave, since a GPU would never run it. Null: the translator's own checks only.
  const Toolchain* nvcc_front_end = nullptr;
  /// Added to the runners' nice value: the default check's plain run and other thread orders yield
  /// the CPU to its checked run, the last to start and the one the verdict waits for.
  int runner_niceness = 0;
};

/// A finding as `check` words it, with the line of the checked file it names: what `--format gcc`
/// and `--sarif` place in the student's file.
struct PlacedFinding {
  Verdict verdict = Verdict::data_race;  ///< the verdict the finding gives
  int line = 0;                          ///< 1-based line of the checked file; 0 where it is not known
  std::string text;                      ///< the finding's sentence: "thread (3,0,0) of block (0,0,0) reads …"
  std::string fix;                       ///< the hint that fixes it
};

/// One case's outcome.
struct CaseResult {
  Case c;                             ///< the size checked
  Verdict verdict = Verdict::passed;  ///< passed, or the first problem found
  std::string message;                ///< one line: what happened
  std::vector<std::string> details;   ///< mismatches, the submission's output, …
  std::vector<std::string> hints;     ///< what the mistake looks like
  bool diagnosed = false;             ///< a hint is the task's own diagnosis (Task::diagnose)
  /// Every wrong output had a thread per element: a launch covered it (launches_cover), so its
  /// grid was not short. True where no output was wrong.
  bool output_covered = true;
  /// The requirement broken is that kernels do the work (an input copied to the host, an output
  /// copied from it, a kernel touching host memory): no time measured is the submission's GPU
  /// speed, so grading does not time it.
  bool work_on_host = false;
  double solve_ms = 0;                      ///< wall time of solve in the runner (not a benchmark)
  protocol::Records records;                ///< launches, copies, allocations
  bool launches_recorded = false;           ///< false where kernel launches could not be traced
  std::vector<protocol::Finding> findings;  ///< what --sanitize found in device code, in order
  std::vector<PlacedFinding> placed;        ///< the findings as judged: one per bug, the leading one first
};

/// One exercise's outcome.
struct ExerciseResult {
  const Task* task = nullptr;      ///< the exercise checked
  Backend backend = Backend::sim;  ///< where it ran
  std::filesystem::path source;    ///< the kernel.cu checked
  CompileResult compile;           ///< its compilation; no cases ran when that failed
  std::vector<CaseResult> cases;   ///< one per case run, in order
  std::vector<std::string> hints;  ///< drawn from the pattern of failing sizes
  /// Exercises with streams: the largest case's copies and kernels per stream (draw_timeline), or
  /// on the simulator a line that says why there is none.
  std::vector<std::string> timeline;
  Verdict verdict = Verdict::passed;  ///< passed, compile_error, or the first failing case's verdict
  /// Whether every access of the small cases was checked (the checked run, or `--sanitize` on the
  /// simulator): a pass is a full check. False after `check --fast`, or where the simulator could
  /// not compile the file (checked_note says so).
  bool full_check = false;
  /// Where the checked run was asked for but could not run, why, in one line; empty otherwise.
  std::string checked_note;

  /// How many of `cases` passed.
  [[nodiscard]] std::size_t passed_cases() const;
  /// The first failing case, or nullptr.
  [[nodiscard]] const CaseResult* first_failure() const;
};

/// A selection of sizes that matches no case: a usage error, with the valid sizes in its message.
struct SelectionError : UsageError {
  using UsageError::UsageError;
};

/// The cases a check runs on `backend`: all of the task's, or those whose first dimension is in
/// `options.only_sizes`. Throws SelectionError when that leaves none.
std::vector<Case> select_cases(const Task& task, Backend backend, const CheckOptions& options);

/// Called before each case runs: (exercise, case index, case count, case).
using ProgressFn = std::function<void(const Task&, std::size_t, std::size_t, const Case&)>;

/// Compiles `source` with `toolchain` and checks it against `task` on every case.
ExerciseResult check_exercise(const Task& task, const Toolchain& toolchain, const std::filesystem::path& source,
                              const CheckOptions& options, const ProgressFn& progress = {});

/// Input sets by reference: a large case is gigabytes, already held by its CaseData.
using InputSets = std::vector<const std::vector<Buffer>*>;

/// One call of the runner: which module, at which case, which run (a check, or a bench with its
/// policy; the spec's other fields are filled in from the task and the buffers) and under which limits.
struct RunnerCall {
  const Task& task;                      ///< the exercise, for its signature and requirements
  const Toolchain& toolchain;            ///< whose runner program runs the module
  std::filesystem::path module;          ///< the compiled submission
  Case c;                                ///< the case the input sets belong to
  protocol::Run run;                     ///< the check or bench; the rest of the spec is filled in here
  std::chrono::milliseconds timeout;     ///< per case (a check of several cases gets that many times it)
  std::size_t max_output_bytes;          ///< stdout+stderr per case, as timeout
  std::string visible_devices = {};      ///< CUDA_VISIBLE_DEVICES for the runner; empty: as inherited
  std::function<void()> after_run = {};  ///< called once the runner's process has ended, before judging
  /// Where the call's wall time went, appended in order: the parent's preparing, the process's
  /// start and end, the runner's own phases (bench), the parent's judging. Null: not wanted.
  std::vector<protocol::Phase>* time_split = nullptr;
  /// Called once the shared buffers are filled: the grader takes its GPU here, so that another
  /// attempt's run overlaps this one's preparing. A bench calls it at the runner's gate (its
  /// process and context exist, its host buffers are page-locked, the module is not loaded yet),
  /// a check right before the runner's process starts. Not called if the runner ends first.
  std::function<void()> before_run = {};
  std::vector<std::string> runner_prefix = {};  ///< CheckOptions::runner_prefix
  int niceness = 0;                             ///< CheckOptions::runner_niceness
  /// A bench in rounds (protocol::BenchRun::rounds): called each time the runner is at its gate, in
  /// place of `before_run`; from the second time on the gate's socket (its argument) holds the
  /// round's median (a double) to read. Returns protocol::kGateGo or kGateFinish.
  std::function<char(int gate_fd)> at_gate = {};
};

/// One byte the runner wrote on the clock pipe, and when the parent read it (seconds since the spawn).
struct ClockMark {
  char mark = 0;    ///< one of protocol::kClockMarks
  double at_s = 0;  ///< when the parent read it, in seconds since the spawn
};

/// What the parent's own clock saw of a bench run (protocol::kClockFd).
struct ParentClock {
  std::vector<ClockMark> marks;  ///< in the order read
};

/// The expected outputs of input set `set`; called once the child has started, so that the
/// reference can be computed meanwhile.
using ExpectedFn = std::function<const std::vector<Expected>&(std::size_t set)>;

/// Runs the module on `sets` (one or more input sets of the case, outputs poisoned) in a child
/// process, then judges every set's outputs against `expected`, and in a bench the outputs of the
/// witness calls `call.run` names. `reply`, if given, receives the runner's reply when the run
/// succeeded; `clock`, if given and the spec asks for clock batches, the marks the parent saw.
CaseResult call_runner(const RunnerCall& call, const InputSets& sets, const ExpectedFn& expected,
                       protocol::Reply* reply, ParentClock* clock = nullptr);

/// Whether a case's verdict ends its check (the cases after it are skipped): a timeout, a missing
/// or unloadable solve, "not implemented", a runner error — none depends on the size.
[[nodiscard]] bool stops_check(Verdict v);

/// Runs the cases of an already compiled module, in order, in as few runner processes as it can:
/// one for them all, and another after each case that ends its process (a crash, a CUDA error, an
/// exception: its state is suspect). Each case has `options.timeout` from the end of the one
/// before. Returns one result per case run: all of them, or up to the first that stops_check.
std::vector<CaseResult> run_cases(const Task& task, const Toolchain& toolchain, const std::filesystem::path& module,
                                  const std::vector<Case>& cases, const CheckOptions& options,
                                  const ProgressFn& progress = {});

/// Runs one case of an already compiled module in a runner of its own (the tests).
CaseResult run_case(const Task& task, const Toolchain& toolchain, const std::filesystem::path& module, const Case& c,
                    std::uint64_t case_seed, const CheckOptions& options);

}  // namespace cudalab
