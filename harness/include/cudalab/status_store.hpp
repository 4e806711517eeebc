// The last verdict of every checked source file, so that `cudalab list` can show where a
// student stands.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cudalab/exercise_check.hpp"

namespace cudalab {

/// One recorded verdict.
struct StoredStatus {
  std::string verdict;    ///< verdict_name(), "wrong_output"
  std::string title;      ///< verdict_title(), as `list` shows it
  std::string backend;    ///< "gpu" or "sim"
  std::int64_t time = 0;  ///< when it was recorded, seconds since the epoch
  /// Whether the check was a full one (ExerciseResult::full_check): a pass of `check --fast` is not.
  bool full_check = false;
  /// The last `bench`'s time of the reference solution over this file's (1: as fast; above: faster)
  /// at its largest size, while the file was as it is now; absent if never measured since.
  std::optional<double> speed_vs_reference;
};

/// Where a student stands on an exercise, from its last check and bench: the course path's column.
enum class Standing { not_started, failing, passed_fast_check, passing, passing_and_fast };

/// At least this much of the reference solution's speed (its time over yours) is "fast".
inline constexpr double kFastVsReference = 0.8;

/// The standing that `status` (of the student's kernel.cu; none if never checked) says.
Standing standing_of(const std::optional<StoredStatus>& status);
/// "not started", "failing", "passed a fast check", "passing", "passing and fast".
const char* standing_name(Standing s);

/// Whether `result` judges its whole source file: every case was selected (no `--size`), and the
/// check either ran a case or failed before any (a compile error). A run of no case says nothing.
bool is_complete_run(const ExerciseResult& result, const CheckOptions& options);

/// Verdicts per source file (by absolute path) in a JSON file. Writes replace the file by rename,
/// so a reader never sees half of one; a damaged or missing file reads as empty.
class StatusStore {
 public:
  /// A store in `file`, which need not exist yet.
  explicit StatusStore(std::filesystem::path file);

  /// The store `cudalab list` reads: status.json in the module cache (cache_dir()).
  static StatusStore in_cache();

  /// The JSON file it reads and writes.
  [[nodiscard]] const std::filesystem::path& file() const { return file_; }

  /// The last verdict recorded for `source`, if any.
  [[nodiscard]] std::optional<StoredStatus> find(const std::filesystem::path& source) const;

  /// Records the results of complete runs (is_complete_run) and leaves the others' entries as
  /// they were. Returns how many were recorded; a file that cannot be written loses only the
  /// status, so that is not an error.
  std::size_t record(const std::vector<ExerciseResult>& results, const CheckOptions& options) const;

  /// Records a bench of `source`: the reference solution's time over its own (`vs_reference`),
  /// kept with the file's content so that an edit makes it stale. Returns whether it was written.
  bool record_speed(const std::filesystem::path& source, double vs_reference) const;

 private:
  std::filesystem::path file_;
};

}  // namespace cudalab
