// Judging one case's run in the trusted parent: the outputs against the reference, the guard
// zones, the inputs left unchanged, leaks, the requirements; in a bench, the witnessed calls.
#pragma once

#include <cstddef>
#include <vector>

#include "cudalab/detail/runner_session.hpp"

namespace cudalab {

/// The outputs' values alone: a wrong one makes `r` wrong_output with its details and hints.
/// Returns whether all were right. `after`'s inputs are not read.
bool judge_values(const Task& task, const Case& c, const std::vector<Buffer>& originals,
                  const std::vector<Buffer>& after, const std::vector<Expected>& expected, CaseResult& r);

/// Guard zones that solve wrote into (protocol::OutOfBounds): verdict out_of_bounds, each write
/// named by buffer, side and elements. Returns whether there were none.
bool judge_bounds(const Case& c, const std::vector<Buffer>& like, const protocol::Reply& reply, CaseResult& r);

/// judge_values, then the inputs (where the runner had them: `inputs_now`), leaks and requirements.
void judge_outputs(const Task& task, const Case& c, const std::vector<Buffer>& originals,
                   const std::vector<Buffer>& after, const std::vector<const std::byte*>& inputs_now,
                   const std::vector<Expected>& expected, CaseResult& r);

/// Bench: the outputs of the timed calls the parent chose to verify. False (with `r` filled in)
/// when one is wrong or missing.
bool judge_witnesses(const Task& task, const Case& c, const protocol::BenchRun& bench, const protocol::Reply& reply,
                     const SetViews& sets, const SharedBuffers& shared, const ExpectedFn& expected, CaseResult& r);

}  // namespace cudalab
