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
#include "cudalab/runner_call.hpp"
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
  /// Where the check's wall time went, each part's own wall time: the plain build's compile and
  /// run, then the run's parts ("run: laying out": run_cases); "waiting for the checked run", then that run's own parts
  /// (its build's compile and its run, which went on beside the plain ones); the parts that follow (compute-sanitizer,
  /// the re-runs that look for state kept between calls, nvcc's front end on the simulator).
  std::vector<protocol::Phase> time_split;

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

/// Runs the module on `sets` (one or more input sets of the case, outputs poisoned) in a child
/// process, then judges every set's outputs against `expected`, and in a bench the outputs of the
/// witness calls `call.run` names. `reply`, if given, receives the runner's reply whenever it
/// replied, whatever its status; `clock`, if given and the spec asks for clock batches, the marks the parent saw.
CaseResult call_runner(const RunnerCall& call, const InputSets& sets, const ExpectedFn& expected,
                       protocol::Reply* reply, ParentClock* clock = nullptr);

/// Whether a case's verdict ends its check (the cases after it are skipped): a timeout, a missing
/// or unloadable solve, "not implemented", a runner error — none depends on the size.
[[nodiscard]] bool stops_check(Verdict v);

/// Runs the cases of an already compiled module, in order, in as few runner processes as it can:
/// one for them all, and another after each case that ends its process (a crash, a CUDA error, an
/// exception: its state is suspect). Each case has `options.timeout` from the end of the one
/// before. Returns one result per case run: all of them, or up to the first that stops_check.
/// Where its time went is appended to `time_split` where given: the inputs (made, or waited for),
/// laying them out for the runner, the runner's processes, judging their outputs.
std::vector<CaseResult> run_cases(const Task& task, const Toolchain& toolchain, const std::filesystem::path& module,
                                  const std::vector<Case>& cases, const CheckOptions& options,
                                  const ProgressFn& progress = {}, std::vector<protocol::Phase>* time_split = nullptr);

/// Runs one case of an already compiled module in a runner of its own (the tests).
CaseResult run_case(const Task& task, const Toolchain& toolchain, const std::filesystem::path& module, const Case& c,
                    std::uint64_t case_seed, const CheckOptions& options);

}  // namespace cudalab
