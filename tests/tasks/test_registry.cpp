// Task lookup by folder name, short name and number.
#include <gtest/gtest.h>

#include "task_testing.hpp"

namespace cudalab {
namespace {

TEST(Registry, ListsTheFiveExercisesInOrder) {
  const auto& tasks = all_tasks();
  ASSERT_EQ(tasks.size(), 5u);
  const char* ids[] = {"01_increment", "02_vector_add", "03_matmul", "04_normalize", "05_reduce"};
  const char* names[] = {"increment", "vector_add", "matmul", "normalize", "reduce"};
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    EXPECT_EQ(tasks[i]->info().number, static_cast<int>(i + 1));
    EXPECT_EQ(tasks[i]->info().id, ids[i]);
    EXPECT_EQ(tasks[i]->info().name, names[i]);
    EXPECT_FALSE(tasks[i]->info().summary.empty());
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
  for (const char* key : {"", "/", "0", "6", "99", "99999999999999999999", "-3", "3x", "matmu", "Matmul", "03_reduce",
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
