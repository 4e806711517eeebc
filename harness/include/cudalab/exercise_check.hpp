// Checking one exercise: compile the submission, run every case in an isolated child process,
// compare in this (trusted) process, and explain what went wrong.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudalab/check.hpp"
#include "cudalab/task.hpp"
#include "cudalab/toolchain.hpp"

namespace cudalab {

/// How a check runs: the seed of its inputs and the limits each case runs under.
struct CheckOptions {
  std::uint64_t seed = 0;
  std::chrono::milliseconds timeout{20'000};  ///< per case, context creation included
  std::size_t max_output_bytes = 1 << 20;     ///< stdout+stderr of one case
  std::vector<std::int64_t> only_sizes;       ///< empty: all cases; else cases whose first dim is listed
  Precision precision = Precision::fp32;      ///< tf32 only for tasks that support it
};

/// One case's outcome.
struct CaseResult {
  Case c;
  Verdict verdict = Verdict::passed;
  std::string message;               ///< one line: what happened
  std::vector<std::string> details;  ///< mismatches, the submission's output, …
  std::vector<std::string> hints;    ///< what the mistake looks like
  double solve_ms = 0;               ///< wall time of solve in the runner (not a benchmark)
  nlohmann::json records;            ///< launches, copies, allocations
  bool launches_recorded = false;    ///< false where kernel launches could not be traced
};

/// One exercise's outcome.
struct ExerciseResult {
  const Task* task = nullptr;
  Backend backend = Backend::sim;
  std::filesystem::path source;
  CompileResult compile;
  std::vector<CaseResult> cases;
  std::vector<std::string> hints;  ///< drawn from the pattern of failing sizes
  Verdict verdict = Verdict::passed;

  [[nodiscard]] std::size_t passed_cases() const;
  /// The first failing case, or nullptr.
  [[nodiscard]] const CaseResult* first_failure() const;
};

/// Called before each case runs: (exercise, case index, case count, case).
using ProgressFn = std::function<void(const Task&, std::size_t, std::size_t, const Case&)>;

/// Compiles `source` with `toolchain` and checks it against `task` on every case.
ExerciseResult check_exercise(const Task& task, const Toolchain& toolchain, const std::filesystem::path& source,
                              const CheckOptions& options, const ProgressFn& progress = {});

/// One call of the runner: which module, at which case, with which extra spec fields (the bench
/// mode and its policy) and limits.
struct RunnerCall {
  const Task& task;
  const Toolchain& toolchain;
  std::filesystem::path module;
  Case c;
  nlohmann::json extra_spec;
  std::chrono::milliseconds timeout;
  std::size_t max_output_bytes;
};

/// Runs the module on `sets` (one or more input sets of the case, outputs poisoned) in a child
/// process, then judges every set's outputs against `expected()` (called once the child has
/// started, so the reference can be computed meanwhile). `reply`, if given, receives the runner's
/// JSON result.
CaseResult call_runner(const RunnerCall& call, const std::vector<std::vector<Buffer>>& sets,
                       const std::function<const std::vector<std::vector<Expected>>&()>& expected,
                       nlohmann::json* reply);

/// Independent seed for case `index` of exercise `number` under the run's seed.
std::uint64_t case_seed(std::uint64_t seed, int number, std::size_t index);

/// Runs one case of an already compiled module (used by check_exercise and the tests).
CaseResult run_case(const Task& task, const Toolchain& toolchain, const std::filesystem::path& module, const Case& c,
                    std::uint64_t case_seed, const CheckOptions& options);

}  // namespace cudalab
