// The gradebook: every graded attempt, appended to an SQLite file (schema in docs/gradebook.md,
// versioned). Each attempt is one transaction, so a grader killed at any moment loses at most
// the attempts in flight; nothing is ever updated or deleted, so re-grading one student adds rows
// and leaves the others' alone. Reports read the newest attempt of each (student, exercise).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/errors.hpp"
#include "cudalab/grading/model.hpp"

namespace SQLite {
class Database;
}

namespace cudalab::grading {

/// The gradebook's schema version. A version 1 file is migrated when opened (version 2 adds
/// runs.rubric_hash); a file of any other version is refused, not misread.
inline constexpr int kGradebookSchemaVersion = 3;

/// A gradebook that cannot be used (not SQLite, another schema, unwritable): one line.
struct GradebookError : UsageError {
  using UsageError::UsageError;
};

/// One `cudalab grade` run, as recorded.
struct RunInfo {
  std::string started_at;
  std::string cudalab_version;
  std::string backend;
  std::string device;
  std::string command;
  std::string rubric_source;
  std::map<std::string, double> points;  ///< the rubric's points per exercise
  std::string rubric_hash;               ///< of the rubric file's content; "" for runs recorded by schema 1
  std::string sandbox;                   ///< the runners' protections (describe_sandbox); "" for runs of schema 1
};

/// A run as stored, with its row id.
struct RunRecord {
  std::int64_t id = 0;
  RunInfo info;
};

/// One line about a student's submission as a whole, with the run that wrote it.
struct StudentNote {
  std::int64_t run_id = 0;
  std::string student;
  std::string note;
};

class Gradebook {
 public:
  /// Opens `file`, creating it (and the class's secret seed, drawn at random unless `seed` is
  /// given) when absent. A `seed` that differs from an existing gradebook's is refused.
  explicit Gradebook(const std::filesystem::path& file, std::optional<std::uint64_t> seed = std::nullopt);
  ~Gradebook();
  Gradebook(const Gradebook&) = delete;
  Gradebook& operator=(const Gradebook&) = delete;

  /// The class's grading seed, drawn when the gradebook was created: every run grades with it, so
  /// a resumed or re-run grading gives every student the same inputs. Secret: reports never show it.
  [[nodiscard]] std::uint64_t seed() const;

  /// Records the start of a run; returns its id.
  std::int64_t begin_run(const RunInfo& run);
  /// Appends one attempt with its checks, in one transaction; returns its id.
  std::int64_t add_attempt(std::int64_t run, const Attempt& attempt);
  /// Appends lines about a student's submission as a whole (archive refusals, files not found).
  void add_student_notes(std::int64_t run, const std::string& student, const std::vector<std::string>& notes);

  /// The newest attempt of `student` at `exercise`, or nothing.
  [[nodiscard]] std::optional<Attempt> latest(const std::string& student, const std::string& exercise) const;
  /// Every attempt, oldest first.
  [[nodiscard]] std::vector<Attempt> attempts() const;
  /// Every run, oldest first.
  [[nodiscard]] std::vector<RunRecord> runs() const;
  /// Every student note, in the order written.
  [[nodiscard]] std::vector<StudentNote> student_notes() const;
  /// The class as the reports see it: newest attempts, points of the newest run's rubric, and the
  /// newest run's notes per student.
  [[nodiscard]] ClassResults class_results() const;

 private:
  std::vector<Attempt> read_attempts(const std::string& where, const std::vector<std::string>& binds) const;

  std::unique_ptr<SQLite::Database> db_;
  std::uint64_t seed_ = 0;
};

}  // namespace cudalab::grading
