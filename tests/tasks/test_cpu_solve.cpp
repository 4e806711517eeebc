// The CPU baselines (Task::cpu_solve): on 1 and 2 threads, at tiny, boundary and mid sizes, they
// pass each task's own check against its float64 reference, fill every output (the harness
// poisons outputs with NaN first), and leave the inputs alone.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <limits>

#include "task_testing.hpp"

namespace cudalab {
namespace {

struct CpuCase {
  std::string task;
  std::vector<Dim> dims;
};

// 1D: tiny, around a warp and the 16 lanes of a CPU sum, odd mid sizes, several 2^14-element
// blocks of a CPU sum with a ragged last one, and the simulator's large size.
std::vector<CpuCase> cases_1d(const std::string& task) {
  std::vector<CpuCase> out;
  for (const std::int64_t n : {1, 2, 15, 17, 33, 1025, 16383, 16385, 100003, (1 << 20) + 3}) {
    out.push_back({task, {{"n", n}}});
  }
  return out;
}

std::vector<CpuCase> all_cases() {
  std::vector<CpuCase> out;
  for (const char* task : {"01_increment", "02_vector_add", "04_normalize", "05_reduce"}) {
    const auto more = cases_1d(task);
    out.insert(out.end(), more.begin(), more.end());
  }
  // A dot product, an outer product, odd shapes, and sizes where OpenBLAS goes multi-threaded.
  for (const auto& [M, N, K] : std::vector<std::array<std::int64_t, 3>>{{1, 1, 1},
                                                                        {1, 1, 64},
                                                                        {64, 64, 1},
                                                                        {1, 33, 17},
                                                                        {17, 17, 17},
                                                                        {33, 31, 65},
                                                                        {255, 257, 129},
                                                                        {192, 160, 176},
                                                                        {256, 256, 256}}) {
    out.push_back({"03_matmul", {{"M", M}, {"N", N}, {"K", K}}});
  }
  return out;
}

/// Outputs filled with NaN (the harness's poison), inout buffers kept.
void poison_outputs(std::vector<Buffer>& bufs) {
  for (Buffer& b : bufs) {
    if (b.role == Role::output && b.dtype == DType::f32) {
      std::fill(b.f32().begin(), b.f32().end(), std::numeric_limits<float>::quiet_NaN());
    } else if (b.role == Role::output) {
      std::fill(b.i32().begin(), b.i32().end(), 0x7EADBEEF);
    }
  }
}

class CpuSolve : public ::testing::TestWithParam<std::tuple<CpuCase, int>> {};

/// cpu_solve at one case on `threads` threads: every output right, every input unchanged.
void expect_cpu_solve_passes(const Task& t, const Case& c, int threads);

TEST_P(CpuSolve, PassesTheTasksOwnCheck) {
  const auto& [cpu_case, threads] = GetParam();
  expect_cpu_solve_passes(task_testing::task(cpu_case.task), Case{cpu_case.dims, false}, threads);
}

// The later exercises at every size their simulator check runs, one test per exercise.
class CpuSolveEverySize : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuSolveEverySize, PassesTheTasksOwnCheck) {
  const Task& t = task_testing::task(GetParam());
  for (const Case& c : t.cases(CaseOptions{true})) {
    for (const int threads : {1, 2}) expect_cpu_solve_passes(t, c, threads);
  }
}

std::vector<std::string> later_exercises() {
  std::vector<std::string> ids;
  for (const auto& t : all_tasks()) {
    if (t->info().number >= 6) ids.push_back(t->info().id);
  }
  return ids;
}

INSTANTIATE_TEST_SUITE_P(Tasks, CpuSolveEverySize, ::testing::ValuesIn(later_exercises()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

void expect_cpu_solve_passes(const Task& t, const Case& c, int threads) {
  const auto inputs = task_testing::buffers(t, c, 7);
  const auto expected = t.reference(c, inputs);

  auto bufs = inputs;
  poison_outputs(bufs);
  t.cpu_solve(c, bufs, threads);

  ASSERT_EQ(bufs.size(), inputs.size());
  for (std::size_t i = 0; i < bufs.size(); ++i) {
    if (inputs[i].role != Role::input) continue;
    EXPECT_TRUE(bufs[i].bytes == inputs[i].bytes) << "input " << inputs[i].name << " changed";
  }
  for (const Expected& e : expected) {
    const Buffer& got = bufs.at(e.buffer);
    ASSERT_EQ(got.count(), e.value.size());
    std::vector<double> wide(got.count());
    for (std::size_t i = 0; i < wide.size(); ++i) wide[i] = got.value(i);
    EXPECT_EQ(task_testing::mismatches(e, wide), 0u)
        << got.name << " at " << c.label() << " on " << threads << " thread(s)";
  }
}

std::string case_name(const ::testing::TestParamInfo<CpuSolve::ParamType>& info) {
  const auto& [cpu_case, threads] = info.param;
  std::string name = cpu_case.task;
  for (const Dim& d : cpu_case.dims) name += "_" + d.name + std::to_string(d.value);
  return name + "_threads" + std::to_string(threads);
}

INSTANTIATE_TEST_SUITE_P(Tasks, CpuSolve, ::testing::Combine(::testing::ValuesIn(all_cases()), ::testing::Values(1, 2)),
                         case_name);

TEST(CpuSolveName, EveryTaskNamesItsBaseline) {
  for (const auto& t : all_tasks()) {
    EXPECT_FALSE(t->cpu_solve_name().empty()) << t->info().id;
  }
  EXPECT_NE(task_testing::task("03_matmul").cpu_solve_name().find("OpenBLAS"), std::string::npos);
  EXPECT_NE(task_testing::task("05_reduce").cpu_solve_name().find("-O3"), std::string::npos);
}

// The float32 sums stay inside the tolerance for a reason: blocks and lanes. One float
// accumulating 2^24 squares in sequence does not (04_normalize's reference() says why: once the
// sum's ulp outgrows the small squares they round away), so the check above can tell a careless
// baseline from a careful one.
TEST(CpuSolveSum, ASingleFloatChainOfSquaresFailsWhereTheBaselinePasses) {
  const Task& t = task_testing::task("04_normalize");
  const Case c{{{"n", std::int64_t{1} << 24}}, false};
  const auto inputs = task_testing::buffers(t, c, 3);
  const Expected e = t.reference(c, inputs).at(0);
  const auto x = inputs[0].f32();

  float squares = 0.0f;
  for (const float v : x) squares += v * v;
  const float norm = std::sqrt(squares);
  std::vector<float> naive(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) naive[i] = x[i] / norm;
  EXPECT_GT(task_testing::mismatches(e, naive), x.size() / 2);

  auto bufs = inputs;
  t.cpu_solve(c, bufs, 2);
  EXPECT_EQ(task_testing::mismatches(e, bufs[1].f32()), 0u);
}

TEST(CpuSolveInfo, SharedMemoryIsRequiredWhereTheExerciseTeachesIt) {
  EXPECT_TRUE(task_testing::task("03_matmul").info().requires_shared_memory);
  EXPECT_TRUE(task_testing::task("04_normalize").info().requires_shared_memory);
  EXPECT_FALSE(task_testing::task("01_increment").info().requires_shared_memory);
  EXPECT_FALSE(task_testing::task("02_vector_add").info().requires_shared_memory);
  EXPECT_FALSE(task_testing::task("05_reduce").info().requires_shared_memory);
}

}  // namespace
}  // namespace cudalab
