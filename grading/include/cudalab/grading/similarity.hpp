// Submissions of one exercise that are much more alike than the class: for the instructor, never
// a verdict. The comparison is Dick Grune's similarity tester (`sim_c++`, Debian's
// similarity-tester): C++ token runs, blind to layout, comments and identifiers' names, and to the
// order of functions. The skeleton's own lines are taken out of every file first, so that what all
// students were given does not make them alike.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace cudalab::grading {

/// Two submissions of one exercise, as alike as the tester found them.
struct SimilarPair {
  std::string exercise;
  std::string student_a;
  std::string student_b;
  std::filesystem::path file_a;
  std::filesystem::path file_b;
  int a_in_b = 0;        ///< percent of a's text (the skeleton's lines taken out) found in b
  int b_in_a = 0;        ///< and of b's in a
  bool flagged = false;  ///< much more alike than the exercise's other pairs (kFlagPercent, kFlagAboveMedian)
  /// The larger share: a file copied whole into a longer one is alike even where the other is not.
  [[nodiscard]] int percent() const { return a_in_b > b_in_a ? a_in_b : b_in_a; }
};

/// A pair is flagged when at least this share of one file is found in the other …
inline constexpr int kFlagPercent = 80;
/// … and that share is this many points above the median of the exercise's pairs.
inline constexpr int kFlagAboveMedian = 25;

struct SimilarityReport {
  std::string tool;                ///< the tester's command, "" when it is not installed
  std::string note;                ///< why nothing was compared, where nothing was
  std::vector<SimilarPair> pairs;  ///< every pair the tester reported: by exercise, most alike first
};

/// Per exercise (its id), each student's file.
using SubmittedFiles = std::map<std::string, std::map<std::string, std::filesystem::path>>;

/// Compares every two submissions of each exercise. `skeleton_of(exercise)` is the exercise's
/// skeleton kernel.cu (a missing file takes nothing out). Never throws for a missing tester: the
/// report's note says how to install it.
SimilarityReport find_similar(const SubmittedFiles& files,
                              const std::function<std::filesystem::path(const std::string&)>& skeleton_of);

/// similarity.csv: exercise, the two students, both percentages, flagged.
std::string similarity_csv(const SimilarityReport& report);

/// similarity.html: per exercise the pairs most alike, and each flagged pair's two files side by
/// side. Self-contained (no scripts, no network).
std::string similarity_html(const SimilarityReport& report);

/// similarity.csv and similarity.html into `out_dir`; throws std::system_error when one cannot be
/// written.
void write_similarity_reports(const SimilarityReport& report, const std::filesystem::path& out_dir);

}  // namespace cudalab::grading
