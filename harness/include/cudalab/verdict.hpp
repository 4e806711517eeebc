// The one vocabulary of outcomes: every verdict a check, a bench or a grade can give, with its
// traits in one table that every stage and report reads.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace cudalab {

/// The outcome of one check, or of a whole exercise (its first failing check).
enum class Verdict {
  passed,
  wrong_output,        ///< ran, but the output differs from the reference
  input_modified,      ///< an input buffer changed
  out_of_bounds,       ///< device code accessed memory outside a buffer (a guard zone, a red zone, freed memory)
  data_race,           ///< two threads touched one word with no barrier between (check --sanitize)
  uninitialized_read,  ///< device code read memory nothing had written (check --sanitize)
  barrier_error,       ///< a __syncthreads or warp operation not every thread reached (check --sanitize)
  device_leak,         ///< host-pointer exercise left device memory allocated
  requirement_unmet,   ///< right output, but not as the exercise demands (no kernel, no shared memory, extra copies)
  not_implemented,     ///< the skeleton's "not implemented yet" exception
  exception,           ///< solve threw
  cuda_error,          ///< a CUDA call, launch or kernel failed
  crash,               ///< the runner died from a signal
  timeout,             ///< the runner ran past its time limit
  output_flood,        ///< the submission printed more than the output limit
  compile_error,
  wrong_signature,  ///< no `solve` with the contract's signature in the module
  load_error,       ///< the module could not be loaded
  runner_error,     ///< the harness's own child failed (a bug or a broken installation)
  skipped,          ///< not run, after an earlier check timed out
  // A benchmark's timing that cannot be trusted: named, never scored (docs/threat-model.md).
  impossible_speed,  ///< the times imply more than the device can do (its copy bandwidth, its FP32/TF32 peak)
  timing_mismatch,   ///< what the runner reports disagrees with what the parent saw (its clock, the witnesses)
};

/// Whose fault a verdict is.
enum class Fault {
  none,        ///< nobody's: passed, or not run
  submission,  ///< the student's file
  harness,     ///< cudalab's own child, or the installation
};

/// Everything the tools say about one verdict, in one table: the runner's client, `check`, the
/// status store, the grader, the gradebook and every report take their words and colours from it,
/// so `check` and `grade` name a verdict alike.
struct VerdictTraits {
  Verdict verdict;    ///< the verdict this row describes
  const char* name;   ///< snake_case, for JSON, the gradebook and the known-wrong corpus: "wrong_output"
  const char* title;  ///< words for people: "wrong output"
  /// Ends the check: the cases after it are skipped (a timeout, a missing solve, "not implemented",
  /// a runner error — none depends on the size).
  bool stops_check;
  /// The outputs were right (a leak, an unmet requirement): the speed can still be measured.
  bool output_right;
  Fault fault;        ///< whose fault it is
  const char* color;  ///< for reports: "#c8423b"
};

/// One row per verdict, in the enum's order.
const std::vector<VerdictTraits>& verdict_table();
/// The row of `v`.
const VerdictTraits& traits_of(Verdict v);
/// The verdict named `name` (VerdictTraits::name), if any.
std::optional<Verdict> verdict_from_name(std::string_view name);

/// snake_case name, as used in JSON and the known-wrong corpus: "wrong_output".
inline const char* verdict_name(Verdict v) { return traits_of(v).name; }
/// Words for people: "wrong output".
inline const char* verdict_title(Verdict v) { return traits_of(v).title; }

}  // namespace cudalab
