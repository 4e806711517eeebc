// The speed ladder of an exercise: versions of its solution from naive to fast, measured in order
// by `cudalab bench --ladder`.
#pragma once

#include <filesystem>
#include <vector>

#include "cudalab/task.hpp"

namespace cudalab {

/// One rung of a speed ladder and the precision it is checked at.
struct LadderStep {
  std::filesystem::path file;             ///< the step's kernel source
  Precision precision = Precision::fp32;  ///< tf32 for the tensor-core tier
};

/// The ladder of `task` in `solutions_dir` (the project's solutions/ folder): NAME/step*.cu in
/// natural order (step2 before step10), then the reference NAME/kernel.cu, then the tensor-core
/// tier NAME/tf32_*.cu at TF32 precision where the task supports it. Empty when there is no
/// step*.cu: a reference alone is no ladder.
std::vector<LadderStep> ladder_steps(const Task& task, const std::filesystem::path& solutions_dir);

}  // namespace cudalab
