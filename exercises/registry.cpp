// The list of exercises. A new exercise adds its factory here and its task.cpp to CMakeLists.txt.
#include "cudalab/registry.hpp"

#include <algorithm>
#include <charconv>

#include "task_support.hpp"

namespace cudalab {

const std::vector<std::unique_ptr<Task>>& all_tasks() {
  static const std::vector<std::unique_ptr<Task>> tasks = [] {
    std::vector<std::unique_ptr<Task>> v;
    v.push_back(tasks::make_increment_task());
    v.push_back(tasks::make_vector_add_task());
    v.push_back(tasks::make_matmul_task());
    v.push_back(tasks::make_normalize_task());
    v.push_back(tasks::make_reduce_task());
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a->info().number < b->info().number; });
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
