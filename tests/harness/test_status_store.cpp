// The status store behind `cudalab list`: what it keeps, what it refuses to keep (runs that did
// not check the whole file), and a damaged file.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "cudalab/registry.hpp"
#include "cudalab/status_store.hpp"

namespace cudalab {
namespace {

namespace fs = std::filesystem;

class StatusStoreTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) /
           ("cudalab-status-" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// A result for `source` with `cases` cases, each with `verdict`.
  static ExerciseResult result(const fs::path& source, Verdict verdict, std::size_t cases) {
    ExerciseResult r;
    r.task = find_task("01_increment");
    r.backend = Backend::sim;
    r.source = source;
    r.verdict = verdict;
    r.full_check = true;  // as `cudalab check` with no flags
    for (std::size_t i = 0; i < cases; ++i) {
      CaseResult c;
      c.verdict = verdict;
      r.cases.push_back(c);
    }
    return r;
  }

  fs::path dir_;
};

TEST_F(StatusStoreTest, RoundTripsAVerdictInANewFolder) {
  const StatusStore store(dir_ / "cache" / "status.json");
  const fs::path source = dir_ / "kernel.cu";
  EXPECT_FALSE(store.find(source).has_value());
  EXPECT_EQ(store.record({result(source, Verdict::wrong_output, 3)}, CheckOptions{}), 1u);
  const auto got = StatusStore(store.file()).find(source);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->verdict, "wrong_output");
  EXPECT_EQ(got->title, verdict_title(Verdict::wrong_output));
  EXPECT_EQ(got->backend, "sim");
  EXPECT_GT(got->time, 0);
  // Renamed into place: no temporary file is left beside it.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(store.file().parent_path())) ++files;
  EXPECT_EQ(files, 1u);
}

TEST_F(StatusStoreTest, ALaterRunReplacesTheVerdictAndKeepsOtherFiles) {
  const StatusStore store(dir_ / "status.json");
  const fs::path a = dir_ / "a.cu", b = dir_ / "b.cu";
  store.record({result(a, Verdict::wrong_output, 3), result(b, Verdict::passed, 3)}, CheckOptions{});
  store.record({result(a, Verdict::passed, 3)}, CheckOptions{});
  EXPECT_EQ(store.find(a)->verdict, "passed");
  EXPECT_EQ(store.find(b)->verdict, "passed");
}

// The course path's column: not started, failing, passing, passing and fast. A bench's speed
// survives a later check of the same file, and goes stale when the file changes.
TEST_F(StatusStoreTest, StandingFollowsTheChecksAndTheSpeedOfTheFileAsItIs) {
  fs::create_directories(dir_);
  const StatusStore store(dir_ / "status.json");
  const fs::path source = dir_ / "kernel.cu";
  std::ofstream(source) << "// version 1\n";
  EXPECT_EQ(standing_of(store.find(source)), Standing::not_started);
  store.record({result(source, Verdict::not_implemented, 1)}, CheckOptions{});
  EXPECT_EQ(standing_of(store.find(source)), Standing::not_started);
  store.record({result(source, Verdict::wrong_output, 3)}, CheckOptions{});
  EXPECT_EQ(standing_of(store.find(source)), Standing::failing);
  store.record({result(source, Verdict::passed, 3)}, CheckOptions{});
  EXPECT_EQ(standing_of(store.find(source)), Standing::passing);
  ASSERT_TRUE(store.record_speed(source, 0.5));
  EXPECT_EQ(standing_of(store.find(source)), Standing::passing);  // half the reference's speed
  ASSERT_TRUE(store.record_speed(source, 0.9));
  EXPECT_EQ(standing_of(store.find(source)), Standing::passing_and_fast);
  store.record({result(source, Verdict::passed, 3)}, CheckOptions{});  // checked again, unchanged
  ASSERT_TRUE(store.find(source)->speed_vs_reference.has_value());
  EXPECT_DOUBLE_EQ(*store.find(source)->speed_vs_reference, 0.9);
  std::ofstream(source) << "// version 2\n";  // edited: the speed was another kernel's
  EXPECT_FALSE(store.find(source)->speed_vs_reference.has_value());
  EXPECT_EQ(standing_of(store.find(source)), Standing::passing);
  EXPECT_STREQ(standing_name(Standing::passing_and_fast), "passing and fast");
}

// A pass of `check --fast` (no checked run) is not a pass yet: `list` and `next` say to check it
// fully; the full check that follows makes it one.
TEST_F(StatusStoreTest, AFastPassIsNotPassingUntilAFullCheckPasses) {
  const StatusStore store(dir_ / "status.json");
  const fs::path source = dir_ / "kernel.cu";
  ExerciseResult fast = result(source, Verdict::passed, 3);
  fast.full_check = false;
  store.record({fast}, CheckOptions{});
  ASSERT_TRUE(store.find(source).has_value());
  EXPECT_FALSE(store.find(source)->full_check);
  EXPECT_EQ(standing_of(store.find(source)), Standing::passed_fast_check);
  EXPECT_STREQ(standing_name(Standing::passed_fast_check), "passed a fast check");
  store.record({result(source, Verdict::passed, 3)}, CheckOptions{});
  EXPECT_TRUE(store.find(source)->full_check);
  EXPECT_EQ(standing_of(store.find(source)), Standing::passing);
  // A failure is a failure, fast or not.
  ExerciseResult failing = result(source, Verdict::wrong_output, 3);
  failing.full_check = false;
  store.record({failing}, CheckOptions{});
  EXPECT_EQ(standing_of(store.find(source)), Standing::failing);
}

TEST_F(StatusStoreTest, ARelativePathFindsTheSameEntry) {
  const StatusStore store(dir_ / "status.json");
  const fs::path before = fs::current_path();
  fs::create_directories(dir_);
  fs::current_path(dir_);
  store.record({result("./kernel.cu", Verdict::passed, 2)}, CheckOptions{});
  fs::current_path(before);
  EXPECT_TRUE(store.find(dir_ / "kernel.cu").has_value());
}

TEST_F(StatusStoreTest, ADamagedFileReadsAsEmptyAndIsReplaced) {
  fs::create_directories(dir_);
  const StatusStore store(dir_ / "status.json");
  std::ofstream(store.file()) << "{\"/x/kernel.cu\": {\"verdict\": \"pass";  // cut off mid-write
  const fs::path source = dir_ / "kernel.cu";
  EXPECT_FALSE(store.find(source).has_value());
  EXPECT_FALSE(store.find("/x/kernel.cu").has_value());
  EXPECT_EQ(store.record({result(source, Verdict::crash, 1)}, CheckOptions{}), 1u);
  EXPECT_EQ(store.find(source)->verdict, "crash");
}

TEST_F(StatusStoreTest, JsonThatIsNotAnObjectReadsAsEmpty) {
  fs::create_directories(dir_);
  const StatusStore store(dir_ / "status.json");
  std::ofstream(store.file()) << "[1, 2, 3]";
  EXPECT_FALSE(store.find(dir_ / "kernel.cu").has_value());
  EXPECT_EQ(store.record({result(dir_ / "kernel.cu", Verdict::passed, 1)}, CheckOptions{}), 1u);
  EXPECT_TRUE(store.find(dir_ / "kernel.cu").has_value());
}

// `cudalab check 2 --size 99999` runs nothing and says "passed 0/0": the skeleton must not
// become "passed" in `cudalab list`.
TEST_F(StatusStoreTest, ARunRestrictedToSizesIsNotRecorded) {
  const StatusStore store(dir_ / "status.json");
  const fs::path source = dir_ / "kernel.cu";
  store.record({result(source, Verdict::not_implemented, 1)}, CheckOptions{});
  CheckOptions only;
  only.only_sizes = {99999};
  EXPECT_EQ(store.record({result(source, Verdict::passed, 0)}, only), 0u);
  // Even a run of some sizes that passed them all says nothing of the others.
  only.only_sizes = {1};
  EXPECT_EQ(store.record({result(source, Verdict::passed, 1)}, only), 0u);
  EXPECT_EQ(store.find(source)->verdict, "not_implemented");
}

TEST_F(StatusStoreTest, ARunOfNoCaseIsNotRecordedButACompileErrorIs) {
  const StatusStore store(dir_ / "status.json");
  const fs::path source = dir_ / "kernel.cu";
  EXPECT_EQ(store.record({result(source, Verdict::passed, 0)}, CheckOptions{}), 0u);
  EXPECT_FALSE(store.find(source).has_value());
  EXPECT_FALSE(fs::exists(store.file())) << "nothing to record, nothing written";
  EXPECT_EQ(store.record({result(source, Verdict::compile_error, 0)}, CheckOptions{}), 1u);
  EXPECT_EQ(store.find(source)->verdict, "compile_error");
}

TEST_F(StatusStoreTest, AnUnwritableFolderLosesOnlyTheStatus) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "not a folder";
  const StatusStore store(dir_ / "file" / "status.json");
  EXPECT_EQ(store.record({result(dir_ / "kernel.cu", Verdict::passed, 1)}, CheckOptions{}), 0u);
  EXPECT_FALSE(store.find(dir_ / "kernel.cu").has_value());
}

}  // namespace
}  // namespace cudalab
