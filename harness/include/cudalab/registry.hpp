// Every exercise the harness knows, and lookup by the names a user types.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cudalab/task.hpp"

namespace cudalab {

/// Every task, ordered by exercise number.
const std::vector<std::unique_ptr<Task>>& all_tasks();

/// The task named by `key`: the folder name ("03_matmul"), the short name ("matmul") or the
/// number ("3" or "03"); a path ending in the folder ("exercises/03_matmul/") works too.
/// nullptr when no task matches.
const Task* find_task(std::string_view key);

/// One line listing the valid names, for "unknown exercise" errors.
std::string known_tasks_hint();

}  // namespace cudalab
