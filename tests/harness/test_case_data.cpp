// Case data made once and shared: the same (exercise, case, seed) gives the same entry, made once
// even when many threads ask at once; another seed gives other inputs.
#include <gtest/gtest.h>

#include <thread>

#include "cudalab/case_data.hpp"
#include "cudalab/registry.hpp"

namespace cudalab {
namespace {

TEST(CaseData, IsMadeOncePerCaseAndSeedAndShared) {
  const Task& task = *find_task("02_vector_add");
  const Case c = task.cases(CaseOptions{.simulator = true}).front();
  CaseDataCache cache;
  std::vector<std::shared_ptr<const CaseData>> seen(8);
  std::vector<std::thread> askers;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    askers.emplace_back([&, i] { seen[i] = cache.get(task, c, 42); });
  }
  for (auto& t : askers) t.join();
  for (const auto& d : seen) EXPECT_EQ(d.get(), seen.front().get());
  const auto other = cache.get(task, c, 43);
  EXPECT_NE(other.get(), seen.front().get());
  EXPECT_NE(other->buffers.front().bytes, seen.front()->buffers.front().bytes);
  // What the cache made is what a check without it makes, expected values included.
  const auto fresh = make_case_data(task, c, 42);
  ASSERT_EQ(fresh->buffers.size(), seen.front()->buffers.size());
  for (std::size_t i = 0; i < fresh->buffers.size(); ++i) {
    EXPECT_EQ(fresh->buffers[i].bytes, seen.front()->buffers[i].bytes) << fresh->buffers[i].name;
  }
  ASSERT_EQ(fresh->expected.get().size(), seen.front()->expected.get().size());
  EXPECT_EQ(fresh->expected.get().front().value, seen.front()->expected.get().front().value);
}

}  // namespace
}  // namespace cudalab
