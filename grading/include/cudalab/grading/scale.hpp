// Grading a large class: on several GPUs of one machine (`cudalab grade --gpus 0,1`), split into
// shards graded apart (`--shard K/N`, one per Slurm array task, all on one secret seed read from
// `--seed-file`), and the shards' gradebooks joined into one (`cudalab merge OUT SHARD_DIR...`).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/errors.hpp"
#include "cudalab/grading/model.hpp"

namespace cudalab::grading {

/// GPU numbers as `--gpus` takes them: "0,1,3" → {0, 1, 3}. Throws UsageError, in one
/// line, for an empty list, anything but decimal numbers, or a number listed twice.
std::vector<unsigned> parse_gpu_list(const std::string& text);

/// What CUDA_VISIBLE_DEVICES the runner gets for GPU number `gpu`: GPU numbers count the GPUs
/// cudalab itself sees, so under an inherited CUDA_VISIBLE_DEVICES ("2,3", as Slurm sets it) GPU 1
/// is its second entry ("3"); without one, GPU 1 is "1". `inherited` is that variable's value
/// (nullptr: unset). Throws UsageError when `gpu` is past the inherited list's end.
std::string visible_device_for(unsigned gpu, const char* inherited);

/// Who uses which GPU while a class is graded. Checks share a GPU (each runs in its own process)
/// and go to the one with the fewest checks running; a timed run takes a GPU alone. A worker that
/// waits to time reserves the GPU with the fewest checks, which then takes no new ones until the
/// timed run is done, so that timing is not put off until no check happens to run anywhere; a GPU
/// that is free meanwhile is taken instead. Whoever finishes takes the next free GPU. Thread-safe.
class GpuPool {
 public:
  explicit GpuPool(std::size_t count);
  /// A GPU for a check; waits while every GPU is timing or reserved.
  std::size_t share();
  /// A GPU to time on, alone; waits for one.
  std::size_t take_alone();
  /// GPU `gpu` alone, for a worker that times on that GPU only; waits until no check or timed run
  /// uses it.
  void take_alone(std::size_t gpu);
  /// Gives back what share() (`alone` false) or take_alone() (`alone` true) gave. Returns the
  /// seconds it was held alone (0 for a check).
  double release(std::size_t gpu, bool alone);
  /// Keeps GPU `gpu` for timed runs only (no check is given it) while `timing_only`: grading
  /// times on it while the other GPUs serve the checks.
  void keep_for_timing(std::size_t gpu, bool timing_only);
  /// Seconds GPU `gpu` has been held alone (timed runs) so far: how busy the timing kept it.
  [[nodiscard]] double seconds_alone(std::size_t gpu);

 private:
  using Clock = std::chrono::steady_clock;
  struct State {
    int checks = 0;      ///< checks running on it
    bool alone = false;  ///< a timed run has it
    Clock::time_point alone_since;
    double alone_s = 0;        ///< summed over the timed runs that have given it back
    bool reserved = false;     ///< a worker waits to time on it: no new checks
    bool timing_only = false;  ///< keep_for_timing(): no checks at all
  };
  [[nodiscard]] std::optional<std::size_t> fewest_checks() const;
  /// Marks `s` held alone from now (with the lock held).
  static void hold_alone(State& s);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<State> gpus_;
};

/// The attempts waiting to be timed, while checks still run and after. Grading with several GPUs
/// times on one of them beside the checks; a timed run there shares the cores with the checks, and
/// one whose clock batches came out untrusted (an honest one can, on a machine with every core
/// busy) is put back and timed again once the checks are over, when the machine is quiet: only
/// that second timing counts. Thread-safe.
class TimingQueue {
 public:
  /// An attempt to time: `index` as push() gave it; `beside_checks` when checks were still running.
  struct Turn {
    std::size_t index = 0;
    bool beside_checks = false;
  };
  /// Attempt `index` is checked and is to be timed.
  void push(std::size_t index);
  /// The next attempt to time; waits while there is none but checks or timed runs are going on
  /// (either may add one). Nothing once all is done, or after stop().
  std::optional<Turn> take();
  /// The end of the timing take() gave: `again` puts it back, to be timed once the checks are over.
  void done(const Turn& turn, bool again);
  /// No more checks: what was put back is handed out again.
  void end_checks();
  /// Wakes every take() with nothing (a fault stops the class).
  void stop();
  /// How many timings done() put back.
  [[nodiscard]] std::size_t put_back() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::size_t> ready_;
  std::vector<std::size_t> when_quiet_;  ///< timed beside the checks and not believed
  bool checks_over_ = false;
  bool stopped_ = false;
  unsigned timing_ = 0;  ///< turns taken and not done
  std::size_t put_back_ = 0;
};

/// One shard of a class: `index` of `count`, 0-based (a Slurm array `--array=0-(N-1)` gives
/// `$SLURM_ARRAY_TASK_ID/N`).
struct Shard {
  unsigned index = 0;
  unsigned count = 1;
};

/// Reads "K/N" (0 ≤ K < N, N ≥ 1, decimal); throws UsageError in one line otherwise.
Shard parse_shard(const std::string& text);

/// The shard (0 … count−1) a student belongs to: a 64-bit hash of the name mod `count`, stable
/// across builds, platforms and class sizes (adding a student moves nobody else). The hash is
/// FNV-1a 64 of the name's bytes followed by splitmix64's finalizer (docs in grading/README.md).
unsigned shard_of(const std::string& student, unsigned count);

/// The class seed in a file that holds one decimal number (surrounding white space allowed), so
/// that it stays off the command line where `ps` shows it. Throws UsageError naming the
/// file when it is missing, unreadable or holds anything else. `warning` is set when the file can
/// be read by other users (it should be mode 600), else cleared.
std::uint64_t read_seed_file(const std::filesystem::path& file, std::string& warning);

/// A merge that cannot be done, in one line: "shard-2/gradebook.sqlite was graded with another seed …".
struct MergeError : UsageError {
  using UsageError::UsageError;
};

struct MergeOptions {
  std::filesystem::path out_dir;              ///< gets gradebook.sqlite and the reports
  std::vector<std::filesystem::path> shards;  ///< folders holding gradebook.sqlite, or the files themselves
  bool force = false;                         ///< merge even when seeds, rubrics or backends differ
  bool write_reports = true;
};

struct MergeSummary {
  std::size_t shards = 0;      ///< shard gradebooks read
  bool had_gradebook = false;  ///< OUT had a gradebook (an earlier merge), kept and added to
  std::size_t attempts = 0;    ///< attempts in the merged gradebook
  std::size_t added = 0;       ///< of them, new to OUT's gradebook (all of them when it had none)
  std::size_t duplicates = 0;  ///< attempts found in more than one input (kept once)
  std::size_t students = 0;    ///< in the merged class
  std::vector<std::string>
      notes;             ///< one line each: a student in several shards, a missing shard, what --force let through
  ClassResults results;  ///< the merged class, as the reports show it
};

/// Joins the shards' gradebooks into `out_dir/gradebook.sqlite` and writes the reports there.
///
/// Every attempt, run and student note of every shard is kept (a student graded in two shards keeps
/// both attempts; the later graded counts, as in one gradebook). A gradebook already in `out_dir`
/// is one more input: its rows stay, and rows it already has are not added twice, so merging the
/// same shards again changes nothing and merging a re-graded shard adds what is new. The merged
/// file is written beside the old one and renamed over it, so a merge killed midway leaves the old
/// file whole.
///
/// Throws MergeError, before writing anything, when a shard has no gradebook, when `out_dir` is
/// one of the shards, or (unless `force`) when the inputs were graded with different seeds, with
/// different rubrics (content hash, or the points where a run has no hash) or on different
/// backends; GradebookError for an unreadable gradebook.
MergeSummary merge_gradebooks(const MergeOptions& options);

}  // namespace cudalab::grading
