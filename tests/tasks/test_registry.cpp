// Task lookup by folder name, short name and number.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "task_testing.hpp"

namespace cudalab {
namespace {

// The build picks up every exercises/NN_name/ folder: the registry lists exactly those, in order,
// each complete (README, skeleton, task) with its reference solution.
TEST(Registry, ListsEveryExerciseFolderInOrder) {
  const std::filesystem::path source = CUDALAB_SOURCE_DIR;
  std::vector<std::string> folders;
  for (const auto& entry : std::filesystem::directory_iterator(source / "exercises")) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && name.size() > 3 && std::isdigit(static_cast<unsigned char>(name[0])) &&
        std::isdigit(static_cast<unsigned char>(name[1])) && name[2] == '_') {
      folders.push_back(name);
    }
  }
  std::ranges::sort(folders);
  const auto& tasks = all_tasks();
  ASSERT_GE(tasks.size(), 5u);
  ASSERT_EQ(tasks.size(), folders.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const TaskInfo& info = tasks[i]->info();
    EXPECT_EQ(info.id, folders[i]);
    EXPECT_EQ(info.number, std::stoi(folders[i].substr(0, 2))) << info.id;
    EXPECT_EQ(info.name, folders[i].substr(3)) << info.id;
    EXPECT_FALSE(info.summary.empty()) << info.id;
    EXPECT_FALSE(info.teaches.empty()) << info.id;
    for (const char* file : {"README.md", "kernel.cu", "task.cpp"}) {
      EXPECT_TRUE(std::filesystem::exists(source / "exercises" / info.id / file)) << info.id << "/" << file;
    }
    if (std::filesystem::exists(source / "solutions")) {  // a students' distribution has none
      EXPECT_TRUE(std::filesystem::exists(source / "solutions" / info.id / "kernel.cu")) << info.id;
    }
  }
  EXPECT_EQ(&all_tasks(), &tasks);  // one list, built once
}

TEST(Registry, FindsByFolderShortNameAndNumber) {
  const Task* matmul = all_tasks()[2].get();
  for (const char* key :
       {"03_matmul", "matmul", "3", "03", "exercises/03_matmul", "exercises/03_matmul/", "03_matmul/"}) {
    EXPECT_EQ(find_task(key), matmul) << key;
  }
  EXPECT_EQ(find_task("1"), all_tasks()[0].get());
  EXPECT_EQ(find_task("05"), all_tasks()[4].get());
  EXPECT_EQ(find_task("vector_add"), all_tasks()[1].get());
  EXPECT_EQ(find_task("04_normalize"), all_tasks()[3].get());
}

TEST(Registry, UnknownKeysGiveNull) {
  for (const char* key : {"", "/", "0", "98", "99", "99999999999999999999", "-3", "3x", "matmu", "Matmul", "03_reduce",
                          "3_matmul", "exercises/", " matmul"}) {
    EXPECT_EQ(find_task(key), nullptr) << "'" << key << "'";
  }
}

TEST(Registry, HintNamesEveryExercise) {
  const std::string hint = known_tasks_hint();
  for (const auto& t : all_tasks()) EXPECT_NE(hint.find(t->info().id), std::string::npos) << hint;
  EXPECT_EQ(hint.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace cudalab
