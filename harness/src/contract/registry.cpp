// The registry of exercises: each exercises/NN_name/task.cpp registers its task
// (CUDALAB_REGISTER_TASK), and lookup by the names a user types.
#include "cudalab/registry.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace cudalab {

namespace {

/// Filled during static initialisation, before main: a function-local static, so that the order
/// in which the task files are initialised does not matter.
std::vector<TaskFactory>& factories() {
  static std::vector<TaskFactory> list;
  return list;
}

}  // namespace

bool register_task(TaskFactory factory) {
  factories().push_back(factory);
  return true;
}

const std::vector<std::unique_ptr<Task>>& all_tasks() {
  static const std::vector<std::unique_ptr<Task>> tasks = [] {
    std::vector<std::unique_ptr<Task>> v;
    for (TaskFactory make : factories()) v.push_back(make());
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a->info().number < b->info().number; });
    for (std::size_t i = 1; i < v.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        const TaskInfo& a = v[j]->info();
        const TaskInfo& b = v[i]->info();
        if (a.number == b.number || a.id == b.id || a.name == b.name) {
          throw std::logic_error("exercises " + a.id + " and " + b.id + " share a number, folder or short name");
        }
      }
    }
    return v;
  }();
  return tasks;
}

const Task* find_task(std::string_view key) {
  // Accept a path to the folder ("exercises/03_matmul/"), as shell completion writes it.
  while (!key.empty() && key.back() == '/') key.remove_suffix(1);
  if (const auto slash = key.rfind('/'); slash != std::string_view::npos) key.remove_prefix(slash + 1);
  if (key.empty()) return nullptr;

  const bool all_digits = std::all_of(key.begin(), key.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  int number = -1;
  if (all_digits) {
    const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), number);
    if (ec != std::errc{} || end != key.data() + key.size()) return nullptr;
  }
  for (const auto& task : all_tasks()) {
    const TaskInfo& info = task->info();
    if (all_digits ? info.number == number : (key == info.id || key == info.name)) return task.get();
  }
  return nullptr;
}

std::string known_tasks_hint() {
  std::string out = "known exercises:";
  const auto& tasks = all_tasks();
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    out += (i == 0 ? " " : ", ") + tasks[i]->info().id;
  }
  out += " (a short name such as \"" + tasks.back()->info().name + "\" or a number such as \"" +
         std::to_string(tasks.back()->info().number) + "\" works too)";
  return out;
}

}  // namespace cudalab
