// The parent survives whatever the child does: each misbehaviour becomes a status.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "cudalab/process.hpp"

namespace cudalab {
namespace {

ProcessResult run_child(const std::string& mode, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  ProcessOptions opts;
  opts.argv = {CUDALAB_TEST_CHILD, mode};
  opts.timeout = timeout;
  opts.max_output_bytes = 256 << 10;
  return run_process(opts);
}

TEST(Process, CrashBecomesSignalStatus) {
  auto r = run_child("crash");
  EXPECT_EQ(r.status, ProcessResult::Status::signaled);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_NE(describe_signal(r.signal).find("SIGSEGV"), std::string::npos);
}

TEST(Process, HangIsKilledAtTheTimeout) {
  auto r = run_child("hang", std::chrono::milliseconds(300));
  EXPECT_EQ(r.status, ProcessResult::Status::timed_out);
  EXPECT_GE(r.wall_ms, 290);
  EXPECT_LT(r.wall_ms, 5000);
}

TEST(Process, FloodIsStoppedAndOnlyTheStartKept) {
  auto r = run_child("flood");
  EXPECT_EQ(r.status, ProcessResult::Status::output_flood);
  EXPECT_GT(r.output_bytes, 256u << 10);
  EXPECT_LE(r.output.size(), 16u << 10);
  EXPECT_EQ(r.output.rfind("spam", 0), 0u);
}

TEST(Process, ExitCodeAndResultPipeAreCollected) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  ProcessOptions opts;
  opts.argv = {CUDALAB_TEST_CHILD, "result", "{\"status\":\"ok\"}"};
  opts.inherit = {{fds[1], 4}};
  opts.result_fd = fds[0];
  opts.close_after_spawn = {fds[1]};
  auto r = run_process(opts);
  close(fds[0]);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.result, "{\"status\":\"ok\"}");
  EXPECT_EQ(r.output, "hello from the child\n");
}

TEST(Process, NonZeroExitIsReported) {
  auto r = run_child("exit3");
  EXPECT_EQ(r.status, ProcessResult::Status::exited);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.ok());
}

TEST(Process, MissingProgramFailsCleanly) {
  ProcessOptions opts;
  opts.argv = {"/nonexistent/program"};
  auto r = run_process(opts);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.exit_code, 127);
}

}  // namespace
}  // namespace cudalab
