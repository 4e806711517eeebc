// The error family (errors.hpp): each error carries its exit code, and report_error gives every
// exception that reaches a command's top one line and the code a script can act on.
#include <cerrno>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>

#include <gtest/gtest.h>

#include "cudalab/errors.hpp"
#include "cudalab/exercise_check.hpp"
#include "cudalab/files.hpp"
#include "cudalab/protocol.hpp"
#include "cudalab/registry.hpp"

namespace cudalab {
namespace {

template <typename E>
ErrorReport report_of(const E& error) {
  return report_error(std::make_exception_ptr(error));
}

bool says(const std::string& line, const std::string& part) { return line.find(part) != std::string::npos; }

TEST(ErrorFamily, EachKindCarriesItsExitCodeAndKeepsItsLine) {
  const ErrorReport usage = report_of(UsageError("unknown exercise 'matmull'; did you mean '03_matmul'?"));
  EXPECT_EQ(usage.code, ExitCode::not_run);
  EXPECT_EQ(usage.line, "unknown exercise 'matmull'; did you mean '03_matmul'?");
  const ErrorReport setup = report_of(SetupError("no host C++ compiler found"));
  EXPECT_EQ(setup.code, ExitCode::not_run);
  EXPECT_EQ(setup.line, "no host C++ compiler found");
  const ErrorReport internal = report_of(InternalError("a reply for a case that was not asked"));
  EXPECT_EQ(internal.code, ExitCode::internal);
  EXPECT_TRUE(says(internal.line, "internal error: a reply for a case that was not asked")) << internal.line;
  EXPECT_TRUE(says(internal.line, "please report")) << internal.line;
  // The numbers are the documented ones (docs/reports.md): scripts compare against them.
  EXPECT_EQ(static_cast<int>(ExitCode::done), 0);
  EXPECT_EQ(static_cast<int>(ExitCode::failed), 1);
  EXPECT_EQ(static_cast<int>(ExitCode::not_run), 2);
  EXPECT_EQ(static_cast<int>(ExitCode::internal), 3);
}

TEST(ErrorFamily, TheMachineRefusingIsASetUpErrorWithTheSystemsReason) {
  // read_file, as every system call of cudalab that fails, throws with errno.
  const std::filesystem::path missing = "/nonexistent-cudalab-test/kernel.cu";
  try {
    (void)read_file(missing);
    FAIL() << "read_file of a missing file returned";
  } catch (...) {
    const ErrorReport r = report_error(std::current_exception());
    EXPECT_EQ(r.code, ExitCode::not_run);
    EXPECT_TRUE(says(r.line, "cannot read " + missing.string())) << r.line;
    EXPECT_TRUE(says(r.line, std::generic_category().message(ENOENT))) << r.line;
  }
  const ErrorReport fs_error = report_of(std::filesystem::filesystem_error(
      "cannot create", "/ro/out", std::make_error_code(std::errc::read_only_file_system)));
  EXPECT_EQ(fs_error.code, ExitCode::not_run);
  EXPECT_TRUE(says(fs_error.line, "/ro/out")) << fs_error.line;
  const ErrorReport memory = report_of(std::bad_alloc());
  EXPECT_EQ(memory.code, ExitCode::not_run);
  EXPECT_TRUE(says(memory.line, "out of memory")) << memory.line;
}

TEST(ErrorFamily, AnythingElseIsABugThatAsksForAReport) {
  const ErrorReport logic = report_of(std::logic_error("the verdict table is out of order"));
  EXPECT_EQ(logic.code, ExitCode::internal);
  EXPECT_TRUE(says(logic.line, "internal error: the verdict table is out of order")) << logic.line;
  EXPECT_TRUE(says(logic.line, "please report")) << logic.line;
  const ErrorReport odd = report_error(std::make_exception_ptr(42));
  EXPECT_EQ(odd.code, ExitCode::internal);
  EXPECT_TRUE(says(odd.line, "please report")) << odd.line;
}

TEST(ErrorFamily, TheStagesErrorsBelongToIt) {
  // A size that no case has is the user's to fix: a usage error, with the sizes there are.
  const Task* task = find_task("01_increment");
  ASSERT_NE(task, nullptr);
  CheckOptions options;
  options.only_sizes = {99999};
  try {
    (void)select_cases(*task, Backend::sim, options);
    FAIL() << "a size that no case has was selected";
  } catch (...) {
    const ErrorReport r = report_error(std::current_exception());
    EXPECT_EQ(r.code, ExitCode::not_run);
    EXPECT_TRUE(says(r.line, "no check of 01_increment has n=99999; its sizes are")) << r.line;
  }
  // A spec the runner cannot read came from cudalab's own parent: a bug of its two halves.
  try {
    (void)protocol::parse_spec("{not json");
    FAIL() << "a malformed spec was parsed";
  } catch (...) {
    EXPECT_EQ(report_error(std::current_exception()).code, ExitCode::internal);
  }
}

}  // namespace
}  // namespace cudalab
