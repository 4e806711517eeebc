// Speed-ladder discovery over a made-up solutions folder: steps in natural order, then the
// reference, then the TF32 tier where the task has one.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "cudalab/ladder.hpp"
#include "cudalab/registry.hpp"

namespace cudalab {
namespace {

namespace fs = std::filesystem;

class LadderTest : public testing::Test {
 protected:
  void SetUp() override {
    solutions_ = fs::path(testing::TempDir()) /
                 ("cudalab-ladder-" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(solutions_);
  }
  void TearDown() override { fs::remove_all(solutions_); }

  void touch(const std::string& exercise, const std::string& name) {
    fs::create_directories(solutions_ / exercise);
    std::ofstream(solutions_ / exercise / name) << "// " << name << "\n";
  }

  std::vector<std::string> names(const std::string& exercise) {
    std::vector<std::string> out;
    for (const auto& s : ladder_steps(*find_task(exercise), solutions_)) {
      out.push_back(s.file.filename().string() + (s.precision == Precision::tf32 ? " tf32" : ""));
      EXPECT_EQ(s.file.parent_path(), solutions_ / exercise);
    }
    return out;
  }

  fs::path solutions_;
};

TEST_F(LadderTest, StepsInNaturalOrderThenTheReferenceThenTheTf32Tier) {
  for (const char* f : {"tf32_b.cu", "step10_last.cu", "kernel.cu", "step2_shared.cu", "tf32_a.cu", "step1_naive.cu",
                        "notes.txt", "helper.cu", "step3.cuh"}) {
    touch("03_matmul", f);
  }
  fs::create_directories(solutions_ / "03_matmul" / "step9_folder.cu");  // a folder, not a step
  const std::vector<std::string> want = {"step1_naive.cu", "step2_shared.cu", "step10_last.cu",
                                         "kernel.cu",      "tf32_a.cu tf32",  "tf32_b.cu tf32"};
  EXPECT_EQ(names("03_matmul"), want);
}

TEST_F(LadderTest, NoTf32TierWhereTheTaskHasNoTf32Tolerance) {
  for (const char* f : {"kernel.cu", "step1_atomic.cu", "step2_tree.cu", "tf32_wrong_here.cu"}) touch("05_reduce", f);
  const std::vector<std::string> want = {"step1_atomic.cu", "step2_tree.cu", "kernel.cu"};
  EXPECT_EQ(names("05_reduce"), want);
}

TEST_F(LadderTest, AReferenceAloneIsNoLadder) {
  touch("03_matmul", "kernel.cu");
  touch("03_matmul", "tf32_tensor_cores.cu");
  EXPECT_TRUE(names("03_matmul").empty());
  EXPECT_TRUE(names("01_increment").empty()) << "no folder at all";
}

TEST(Ladder, TheProjectsLaddersEndWithTheirReference) {
  if (!fs::exists(fs::path(CUDALAB_SOURCE_DIR) / "solutions")) {
    GTEST_SKIP() << "no solutions/ in this distribution (cudalab export leaves it out)";
  }
  const auto steps = ladder_steps(*find_task("03_matmul"), fs::path(CUDALAB_SOURCE_DIR) / "solutions");
  ASSERT_GE(steps.size(), 3u);
  EXPECT_EQ(steps.front().file.filename(), "step1_naive.cu");
  EXPECT_EQ(steps.back().precision, Precision::tf32);
  // The FP32 steps end with the reference; the TF32 tiers come after it.
  const auto first_tier = std::ranges::find(steps, Precision::tf32, &LadderStep::precision);
  ASSERT_NE(first_tier, steps.begin());
  const fs::path reference = std::prev(first_tier)->file;
  EXPECT_EQ(reference.filename(), "kernel.cu");
  EXPECT_TRUE(fs::is_regular_file(reference)) << reference;
  EXPECT_TRUE(std::all_of(first_tier, steps.end(), [](const LadderStep& s) { return s.precision == Precision::tf32; }));
}

}  // namespace
}  // namespace cudalab
