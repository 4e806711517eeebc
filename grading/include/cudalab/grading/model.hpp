// What grading knows about a class: attempts (one student's kernel.cu for one exercise, checked,
// maybe timed, scored) and the class view the reports are written from. The gradebook stores
// attempts; every report reads a ClassResults, never the database itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cudalab::grading {

/// One check (one size) of an attempt.
struct CheckRow {
  std::string label;                 ///< "n=257", "M=33 N=17 K=65"
  std::string verdict;               ///< verdict_name(): "passed", "wrong_output", …
  std::string message;               ///< one line
  std::vector<std::string> details;  ///< mismatches, the program's output
  std::vector<std::string> hints;
  double solve_ms = 0;
};

/// The speed of an attempt on the GPU, against the reference solution timed in the same run.
struct Timing {
  std::string label;           ///< the timed size, "n=67108864"
  double median_s = 0;         ///< the submission's median time
  double reference_s = 0;      ///< the reference solution's median time; 0 when unknown
  double throughput = 0;       ///< GB/s or GFLOP/s
  std::string unit;            ///< "GB/s" or "GFLOP/s"
  double percent_of_peak = 0;  ///< of the device's bandwidth or FP32 peak
  /// Paired timing (rounds > 0): the median of the rounds' ratios of the submission's time to the
  /// reference's, timed in turn on one GPU, and its 95 % interval. Speed points follow `ratio`.
  double ratio = 0;
  double ratio_low = 0;
  double ratio_high = 0;
  std::size_t rounds = 0;

  /// The submission's time over the reference's: the paired ratio, or for an attempt timed alone
  /// (before paired timing) the ratio of the medians; 0 when unknown.
  [[nodiscard]] double slowdown() const {
    if (rounds > 0 && ratio > 0) return ratio;
    return reference_s > 0 && median_s > 0 ? median_s / reference_s : 0;
  }
};

/// Points of one attempt, as the rubric gave them.
struct Score {
  double correctness = 0;
  double performance = 0;
  double penalties = 0;            ///< subtracted: unmet requirements, leaks
  double late = 0;                 ///< subtracted: the late-day rule
  double total = 0;                ///< correctness + performance − penalties − late, never below 0
  double max = 0;                  ///< the exercise's weight in points
  std::vector<std::string> notes;  ///< why points were given or taken, one line each
};

/// One graded attempt of one exercise by one student.
struct Attempt {
  std::int64_t id = 0;      ///< gradebook row id
  std::int64_t run_id = 0;  ///< the gradebook run that graded it
  std::string student;
  std::string exercise;     ///< "03_matmul"
  std::string source_hash;  ///< content hash of the graded kernel.cu
  std::string source_path;  ///< where it was found in the submission
  std::string cudalab_version;
  std::string backend;             ///< "gpu" or "sim"
  std::string device;              ///< "NVIDIA H100 80GB HBM3", "CPU simulator"
  std::uint64_t seed = 0;          ///< secret: in the gradebook, never in a student's report
  std::string verdict;             ///< the exercise's verdict (its first failing check's)
  std::string message;             ///< the first failure's message, or "passed"
  std::vector<std::string> hints;  ///< across sizes
  std::vector<CheckRow> checks;
  std::optional<Timing> timing;  ///< absent when speed was not graded
  bool speed_graded = false;     ///< false on the simulator, or when the checks failed
  Score score;
  std::string submitted_at;  ///< ISO 8601, from the submission's time
  std::string graded_at;     ///< ISO 8601 UTC
  double seconds = 0;        ///< wall time spent grading it
};

/// The class as the reports see it: the newest attempt of every student for every exercise.
struct ClassResults {
  std::string cudalab_version;
  std::string device;                        ///< of the newest attempts
  bool speed_graded = false;                 ///< some attempt was timed on a GPU
  std::string graded_at;                     ///< newest graded_at
  std::vector<std::string> exercises;        ///< in exercise order
  std::vector<std::string> students;         ///< sorted
  std::map<std::string, double> max_points;  ///< per exercise: its weight
  /// (student, exercise) → newest attempt; a missing key is an exercise not submitted.
  std::map<std::pair<std::string, std::string>, Attempt> attempts;
  /// Lines about a student's submission as a whole: archive refusals, files not found.
  std::map<std::string, std::vector<std::string>> student_notes;

  /// The student's total over every exercise.
  [[nodiscard]] double total(const std::string& student) const;
  /// The sum of every exercise's maximum.
  [[nodiscard]] double max_total() const;
  /// The newest attempt, or nullptr when the exercise was not submitted.
  [[nodiscard]] const Attempt* find(const std::string& student, const std::string& exercise) const;
};

}  // namespace cudalab::grading
