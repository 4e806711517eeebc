// A case's inputs and the reference's expected outputs, made once and shared. A grader checks
// hundreds of submissions on the same inputs (one secret seed per class); generating 67 million
// random inputs and running the CPU reference on them costs more than running the submission.
#pragma once

#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cudalab/task.hpp"

namespace cudalab {

/// Fills an output buffer with a pattern no correct kernel writes: a NaN with a recognisable
/// payload for floats, 0x7EADBEEF for ints.
void poison(Buffer& buffer);
/// Whether element `i` still holds the poison pattern.
bool is_poison(const Buffer& buffer, std::size_t i);

/// One input set of one case: its buffers (outputs poisoned) and, computed alongside, what a
/// correct submission produces from them.
struct CaseData {
  std::vector<Buffer> buffers;                         ///< every buffer of the signature, in parameter order
  std::shared_future<std::vector<Expected>> expected;  ///< the reference's outputs, ready once computed
};

/// Makes a case's data from its seed: the buffers now, the reference on another thread.
std::shared_ptr<const CaseData> make_case_data(const Task& task, const Case& c, std::uint64_t case_seed);

/// Case data by (exercise, case, seed), made on first use and kept for the cache's lifetime;
/// safe to share between threads. Each entry holds the buffers and the expected values in float64,
/// so a grader's cache holds a few GB for the large cases of every exercise.
class CaseDataCache {
 public:
  /// The data of `c` under `case_seed`, made by make_case_data() the first time it is asked for.
  std::shared_ptr<const CaseData> get(const Task& task, const Case& c, std::uint64_t case_seed);

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_future<std::shared_ptr<const CaseData>>> entries_;
};

/// From `cache` when there is one, else made now.
std::shared_ptr<const CaseData> case_data(CaseDataCache* cache, const Task& task, const Case& c,
                                          std::uint64_t case_seed);

}  // namespace cudalab
