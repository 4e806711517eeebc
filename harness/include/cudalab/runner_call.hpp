// One call of the untrusted runner as the execution stage makes it: which module, on which input
// sets, under which limits, and the outcome of one case as it comes back (CaseResult), before and
// after the checking stage judges it.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cudalab/protocol.hpp"
#include "cudalab/task.hpp"
#include "cudalab/toolchain.hpp"
#include "cudalab/verdict.hpp"

namespace cudalab {

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

}  // namespace cudalab
