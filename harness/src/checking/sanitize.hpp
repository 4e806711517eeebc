// The checking stage's checks beyond the outputs (sanitize.cpp), for check_exercise.
#pragma once

#include <cstdint>
#include <filesystem>
#include <future>
#include <vector>

#include "cudalab/exercise_check.hpp"

namespace cudalab {

/// A case's size from the task's cost model: elements moved (reading and writing one counts once),
/// or multiply-adds where they are more (a matmul). Not the product of the dimensions, which for
/// n values into num_bins bins is neither.
std::int64_t work_of(const Task& task, const Case& c);

/// Whether a case is small enough for the checked runs: at most 2^16 elements, a few milliseconds
/// on the simulator with every access checked, well under a second under compute-sanitizer.
bool is_small(const Task& task, const Case& c);

/// The sanitize runs' last step on the simulator: the small cases of `cases` that passed run again
/// with each block's threads started in reverse and in shuffled order (`module`, its checks off).
/// A GPU promises no order, so a case that fails in another order has a race, even where no pair
/// of accesses showed it. Adds a finding to each such case.
void check_thread_orders(const Task& task, const Toolchain& toolchain, const std::filesystem::path& module,
                         const CheckOptions& options, std::vector<CaseResult>& cases);

/// `--sanitize` on a GPU: the small cases of `result` again under each of compute-sanitizer's
/// tools, their reports read into findings.
void check_with_compute_sanitizer(const Task& task, const Toolchain& toolchain, const std::filesystem::path& module,
                                  const CheckOptions& options, ExerciseResult& result);

/// The small cases of the checked run, in its sequence, run again with each block's threads started
/// in reverse and in shuffled order (two processes at once).
struct OrderRuns {
  std::vector<CaseResult> reversed;  ///< Threads started last to first.
  std::vector<CaseResult> shuffled;  ///< Threads started in a shuffled order.
};

/// The other thread orders of the checked run's cases, on `module` compiled by `toolchain`: the
/// simulator's plain build (no instrumentation to pay for, and ready before the checked build), or on
/// a GPU machine the checked build with its checks off. Only the order differs from the checked run.
OrderRuns run_in_other_orders(const Task& task, const Toolchain& toolchain, const std::filesystem::path& module,
                              const CheckOptions& options);

/// The default checked run: the task's small cases (as the simulator checks them) on `module`,
/// compiled by `checked` (the simulator's checked build), every access checked, then judged against
/// the other thread orders: `orders` where the caller runs them (from the plain build), else run
/// here from `module`. One result per case, with its findings.
std::vector<CaseResult> run_checked(const Task& task, const Toolchain& checked, const std::filesystem::path& module,
                                    const CheckOptions& options, std::shared_future<OrderRuns> orders = {});

/// Adds what the checked run found to the cases of `result` (which ran on `backend`), matched by
/// size: a finding replaces the case's verdict (it names the cause); on the simulator, a failure of
/// the checked build where the plain one passed is the case's failure too.
void merge_checked(std::vector<CaseResult>&& checked, Backend backend, ExerciseResult& result);

}  // namespace cudalab
