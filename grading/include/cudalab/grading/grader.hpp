// `cudalab grade`: every student's kernels checked in isolated child processes (compiled and
// checked in parallel; on a GPU, timed one at a time with the GPU to themselves, on each of the
// GPUs of --gpus at once), scored by the rubric, appended to the gradebook attempt by attempt, and
// written up as reports. --shard grades one part of the class (scale.hpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cudalab/grading/model.hpp"
#include "cudalab/grading/scale.hpp"

namespace cudalab::grading {

struct GradeOptions {
  std::filesystem::path submissions;          ///< one entry (folder or archive) per student
  std::filesystem::path out_dir;              ///< gradebook.sqlite, work/ (unpacked archives) and the reports
  std::filesystem::path rubric;               ///< empty: the project's grading/rubric.toml
  unsigned jobs = 0;                          ///< students' exercises graded at once; 0: one per CPU core
  bool resume = false;                        ///< skip what the gradebook already has for the same kernel.cu
  std::vector<std::string> only;              ///< grade these students only (the others' rows stay as they are)
  std::string backend = "auto";               ///< auto, gpu or sim
  std::chrono::milliseconds timeout{20'000};  ///< per check
  double time_cap_s = 1;                      ///< per timed kernel, on a GPU: a quarter per round, 4× for all rounds
  std::string command;                        ///< the command line, for the gradebook's run record
  /// The class's seed when the gradebook is created (to replay a grading); default: drawn at random
  /// and kept secret in the gradebook.
  std::optional<std::uint64_t> seed;
  bool write_reports = true;
  /// GPUs to grade on, numbered as cudalab sees them (CUDA_VISIBLE_DEVICES applies first): each
  /// times one submission at a time with the GPU to itself, and checks are spread over all of them.
  /// Empty: the first GPU, as the runner finds it. Only with the GPU backend.
  std::vector<unsigned> gpus;
  /// Grade only the students of this shard (shard_of); the class's seed must then be given, so that
  /// every shard grades on the same one.
  std::optional<Shard> shard;
};

/// Where grading stands, after each attempt.
struct GradeProgress {
  std::size_t done = 0;
  std::size_t total = 0;
  std::string current;  ///< "alice 03_matmul"
  double eta_s = 0;     ///< from the mean time per attempt so far; 0 while unknown
};
using GradeProgressFn = std::function<void(const GradeProgress&)>;

struct GradeSummary {
  std::string backend_line;   ///< which backend graded, and why
  std::size_t graded = 0;     ///< attempts graded now
  std::size_t unchanged = 0;  ///< skipped by --resume: the gradebook has them for the same kernel.cu
  std::size_t students = 0;
  std::vector<std::string> skipped;  ///< entries of the folder that are not submissions, one line each
  std::vector<std::string> devices;  ///< one line per GPU graded on (name, CUDA_VISIBLE_DEVICES, peaks)
  std::string shard_line;            ///< "shard 1/4: 6 of the 23 students", with --shard
  ClassResults results;              ///< the class after this run, as the reports show it
  /// Where the time went, summed over the attempts graded now (workers overlap, so the sum of
  /// the three exceeds the wall time): compiling, checking (runs and comparisons), timing (with
  /// the GPU alone, reference solutions included).
  double compile_s = 0;
  double check_s = 0;
  double timing_s = 0;
  /// The wall time of the two phases: compiling and checking (many workers at once), then timing
  /// (one attempt per GPU at a time). Together about wall_s, unless `timed_beside_checks`: with
  /// several GPUs the last one times from the start, beside the checks.
  double check_phase_s = 0;
  double timing_phase_s = 0;
  bool timed_beside_checks = false;
  /// Attempts timed beside the checks whose clock batches were not believed, timed again after.
  std::size_t timed_again = 0;
  /// Per GPU graded on, the seconds it was held alone by timed runs: against timing_phase_s, how
  /// busy the timing kept it.
  std::vector<double> gpu_timing_s;
  unsigned check_workers = 0;  ///< workers of the first phase
  double wall_s = 0;
  std::string sandbox_line;  ///< which protections the runners had (sandbox.hpp)
  /// How many pairs of submissions similarity.html flags, or why none were compared.
  std::string similarity_line;
};

/// Grades a class. Throws (before grading anything) on a set-up problem: no such folder, a
/// malformed rubric (RubricError), an unusable gradebook (GradebookError), no backend (SetupError),
/// a GPU of `gpus` that is not there, listed twice or of another architecture than the first, `gpus`
/// on the simulator, a bad `shard` or one without a seed (UsageError).
GradeSummary grade_class(const GradeOptions& options, const GradeProgressFn& progress = {});

}  // namespace cudalab::grading
