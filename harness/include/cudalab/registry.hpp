// Every exercise the harness knows, and lookup by the names a user types.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cudalab/task.hpp"

namespace cudalab {

/// Makes one exercise's task.
using TaskFactory = std::unique_ptr<Task> (*)();

/// Adds an exercise to the registry (at static initialisation, through CUDALAB_REGISTER_TASK);
/// returns true so that it can initialise a variable.
bool register_task(TaskFactory factory);

/// Registers the Task subclass `Type` (default-constructible) defined in an exercise's task.cpp.
/// The build compiles every exercises/NN_name/task.cpp and keeps each whole, so this line is all
/// an exercise needs: adding one touches nothing outside its folder (and its solution's).
#define CUDALAB_REGISTER_TASK(Type)                            \
  [[maybe_unused]] const bool cudalab_task_registered_##Type = \
      ::cudalab::register_task([]() -> std::unique_ptr<::cudalab::Task> { return std::make_unique<Type>(); })

/// Every registered task, ordered by exercise number. Throws std::logic_error when two exercises
/// share a number, a folder name or a short name (a mistake in a new exercise's task.cpp).
const std::vector<std::unique_ptr<Task>>& all_tasks();

/// The task named by `key`: the folder name ("03_matmul"), the short name ("matmul") or the
/// number ("3" or "03"); a path ending in the folder ("exercises/03_matmul/") works too.
/// nullptr when no task matches.
const Task* find_task(std::string_view key);

/// One line listing the valid names, for "unknown exercise" errors.
std::string known_tasks_hint();

}  // namespace cudalab
