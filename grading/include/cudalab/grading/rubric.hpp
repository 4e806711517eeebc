// The rubric: how many points each exercise is worth, how they split between correctness and
// speed, what costs points, and the late rule. Read from TOML (grading/rubric.toml is the
// documented default); a malformed rubric is one line naming the key and the line, before any
// grading starts.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/errors.hpp"
#include "cudalab/grading/model.hpp"

namespace cudalab::grading {

/// A rubric that cannot be used: "rubric.toml:12: exercises.03_matmul.points must be a number > 0".
struct RubricError : UsageError {
  using UsageError::UsageError;
};

/// How correctness points are given.
enum class CorrectnessRule {
  all_checks,  ///< all of them when every check's output is right, else none
  per_check,   ///< shared evenly over the checks
};

/// Speed points from the time against the reference solution's on the same device (CS149-like):
/// full marks up to `full_at` × the reference time, `floor` × the points from `floor_at` × on, a
/// straight line between.
struct PerformanceRule {
  double full_at = 1.2;
  double floor_at = 4.0;
  double floor = 0.0;  ///< fraction of the performance points kept however slow
};

/// Points of one exercise.
struct ExerciseRule {
  double points = 0;             ///< the exercise's weight
  double performance_share = 0;  ///< part of `points` given for speed (0 … 1)
  CorrectnessRule correctness = CorrectnessRule::all_checks;
};

/// Fractions of an exercise's points taken away.
struct Penalties {
  double requirement_unmet = 0.25;  ///< right output, but a rule broken (no shared memory, extra copies)
  double device_leak = 0.10;        ///< device memory not freed
};

/// Lateness: `per_day` of the earned points per day (or part) after the deadline, nothing after
/// `max_days`.
struct LateRule {
  std::optional<std::string> deadline;  ///< ISO 8601 UTC; none: no late rule
  double per_day = 0.10;
  int max_days = 3;
};

struct Rubric {
  std::string source;                             ///< the file it was read from, for reports
  std::string hash;                               ///< of the file's content: tells rubrics apart (merge)
  std::map<std::string, ExerciseRule> exercises;  ///< by exercise id; only these are graded
  PerformanceRule performance;
  Penalties penalties;
  LateRule late;

  /// The points an attempt earns: `attempt` has its checks, verdict and timing (if speed was
  /// graded) filled in; the result says why in its notes.
  [[nodiscard]] Score score(const Attempt& attempt) const;
};

/// Reads a rubric; throws RubricError. `known_exercises` are the ids the registry has: a rubric
/// naming another is an error (a typo would otherwise grade nothing).
Rubric load_rubric(const std::filesystem::path& file, const std::vector<std::string>& known_exercises);

/// The same from TOML text (`name` is used in messages).
Rubric parse_rubric(const std::string& text, const std::string& name, const std::vector<std::string>& known_exercises);

/// Seconds since the epoch of an ISO 8601 UTC time ("2026-12-01T23:59:00Z"); nothing if malformed.
std::optional<double> parse_utc(const std::string& iso);

}  // namespace cudalab::grading
