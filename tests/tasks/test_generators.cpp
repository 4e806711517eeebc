// What every task promises about its cases and inputs: sizes around every boundary, seeded inputs that are never all
// zeros.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <set>
#include <utility>

#include "task_testing.hpp"

namespace cudalab {
namespace {

using task_testing::buffers;
using task_testing::small_cases;

bool all_zero(const Buffer& b) {
  return std::all_of(b.bytes.begin(), b.bytes.end(), [](std::byte v) { return v == std::byte{0}; });
}

std::set<std::string> labels(const std::vector<Case>& cases) {
  std::set<std::string> out;
  for (const Case& c : cases) out.insert(c.label());
  return out;
}

class EveryTask : public ::testing::TestWithParam<std::string> {
 protected:
  const Task& t = task_testing::task(GetParam());
};

TEST_P(EveryTask, CasesNameTheSignatureScalarsAndFitInt) {
  for (const bool sim : {false, true}) {
    const auto cases = t.cases(CaseOptions{sim});
    ASSERT_FALSE(cases.empty());
    // One large case on the simulator; a GPU may run more after its first (bench times that one).
    const auto large = std::count_if(cases.begin(), cases.end(), [](const Case& c) { return c.large; });
    if (sim) {
      EXPECT_EQ(large, 1);
    } else {
      EXPECT_GE(large, 1);
    }
    EXPECT_TRUE(cases.back().large) << "the large cases run last";
    EXPECT_EQ(labels(cases).size(), cases.size()) << "no case twice";
    for (const Case& c : cases) {
      std::vector<std::string> scalars;
      for (const Param& p : t.info().signature.params) {
        if (p.kind == Param::Kind::scalar_int) scalars.push_back(p.name);
      }
      ASSERT_EQ(c.dims.size(), scalars.size()) << c.label();
      for (std::size_t i = 0; i < scalars.size(); ++i) {
        EXPECT_EQ(c.dims[i].name, scalars[i]);
        EXPECT_GE(c.dims[i].value, 1);
        EXPECT_LE(c.dims[i].value, INT_MAX);
      }
    }
  }
}

TEST_P(EveryTask, GpuAndSimulatorShareTheSmallCasesAndDifferInTheLargeOnes) {
  const auto gpu = t.cases(CaseOptions{false});
  const auto sim = t.cases(CaseOptions{true});
  // The small cases first, the same on both; then the large ones, bigger on a GPU.
  const auto split = [](const std::vector<Case>& cases) {
    const auto first_large = std::ranges::find_if(cases, [](const Case& c) { return c.large; });
    EXPECT_TRUE(std::all_of(first_large, cases.end(), [](const Case& c) { return c.large; }))
        << "a small case after a large one";
    return std::pair{std::vector<Case>(cases.begin(), first_large), std::vector<Case>(first_large, cases.end())};
  };
  const auto [gpu_small, gpu_large] = split(gpu);
  const auto [sim_small, sim_large] = split(sim);
  ASSERT_EQ(gpu_small.size(), sim_small.size());
  for (std::size_t i = 0; i < gpu_small.size(); ++i) EXPECT_EQ(gpu_small[i].label(), sim_small[i].label());
  ASSERT_EQ(sim_large.size(), 1u) << "the simulator runs one large case";
  ASSERT_GE(gpu_large.size(), 1u);
  auto elements = [](const Case& c) {
    std::int64_t product = 1;
    for (const Dim& d : c.dims) product *= d.value;
    return product;
  };
  for (const Case& c : gpu_large) {
    EXPECT_NE(c.label(), sim_large.front().label());
    EXPECT_GT(elements(c), elements(sim_large.front())) << c.label();
  }
}

TEST_P(EveryTask, BuffersFollowTheSignature) {
  for (const Case& c : small_cases(t)) {
    const auto bufs = buffers(t, c);
    std::size_t b = 0;
    for (const Param& p : t.info().signature.params) {
      if (p.kind != Param::Kind::buffer) continue;
      ASSERT_LT(b, bufs.size());
      EXPECT_EQ(bufs[b].name, p.name);
      EXPECT_EQ(bufs[b].dtype, p.dtype);
      if (p.is_const) {
        EXPECT_EQ(bufs[b].role, Role::input) << p.name;
      } else {
        EXPECT_NE(bufs[b].role, Role::input) << p.name;
      }
      // Outputs are left zero for the harness to poison; inputs are never all zeros.
      EXPECT_EQ(all_zero(bufs[b]), bufs[b].role == Role::output) << p.name << " at " << c.label();
      ++b;
    }
    EXPECT_EQ(b, bufs.size());
  }
}

TEST_P(EveryTask, InputsAreNeverAllZerosEvenAtOneElement) {
  // The smallest case over many seeds: an increment input of one element is 0 once in 2001 draws.
  const Case tiny = t.cases(CaseOptions{true}).front();
  for (std::uint64_t seed = 0; seed < 20000; ++seed) {
    for (const Buffer& b : buffers(t, tiny, seed)) {
      if (b.role != Role::output) {
        ASSERT_FALSE(all_zero(b)) << b.name << " seed " << seed;
      }
    }
  }
}

TEST_P(EveryTask, SeedsReproduceAndDiffer) {
  const Case c = small_cases(t).back();
  const auto a = buffers(t, c, 1), again = buffers(t, c, 1), other = buffers(t, c, 2);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].bytes, again[i].bytes);
    if (a[i].role != Role::output) {
      EXPECT_NE(a[i].bytes, other[i].bytes) << a[i].name;
    }
  }
}

// Two inputs of one case are not copies of each other, and no input is a constant.
TEST_P(EveryTask, InputsVary) {
  const Case c = small_cases(t).back();
  const auto bufs = buffers(t, c);
  std::vector<const Buffer*> inputs;
  for (const Buffer& b : bufs) {
    if (b.role == Role::output) continue;
    std::set<double> distinct;
    for (std::size_t i = 0; i < b.count() && distinct.size() < 100; ++i) distinct.insert(b.value(i));
    EXPECT_EQ(distinct.size(), 100u) << b.name;
    for (const Buffer* other : inputs) EXPECT_NE(other->bytes, b.bytes);
    inputs.push_back(&b);
  }
}

TEST_P(EveryTask, ReferenceCoversEveryWrittenBuffer) {
  const Case c = small_cases(t)[3];
  const auto bufs = buffers(t, c);
  const auto expected = t.reference(c, bufs);
  std::set<std::size_t> covered;
  for (const Expected& e : expected) {
    ASSERT_LT(e.buffer, bufs.size());
    EXPECT_NE(bufs[e.buffer].role, Role::input);
    EXPECT_EQ(e.value.size(), bufs[e.buffer].count());
    if (!e.tolerance.empty()) {  // empty: every element exact
      EXPECT_EQ(e.tolerance.size(), bufs[e.buffer].count());
    }
    for (const double tol : e.tolerance) EXPECT_GE(tol, 0.0);
    covered.insert(e.buffer);
  }
  for (std::size_t i = 0; i < bufs.size(); ++i) {
    if (bufs[i].role != Role::input) {
      EXPECT_TRUE(covered.count(i)) << bufs[i].name;
    }
  }
}

TEST_P(EveryTask, DiagnoseSaysNothingAboutACorrectOutput) {
  for (const Case& c : small_cases(t)) {
    const auto bufs = buffers(t, c);
    for (const Expected& e : t.reference(c, bufs)) {
      Buffer actual = bufs[e.buffer];
      for (std::size_t i = 0; i < e.value.size(); ++i) {
        if (actual.dtype == DType::f32) {
          actual.f32()[i] = static_cast<float>(e.value[i]);
        } else {
          actual.i32()[i] = static_cast<std::int32_t>(e.value[i]);
        }
      }
      EXPECT_EQ(t.diagnose(c, bufs, actual, e), std::nullopt) << c.label();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Tasks, EveryTask,
                         ::testing::Values("increment", "vector_add", "matmul", "normalize", "reduce"),
                         [](const auto& param_info) { return param_info.param; });

// The 1D sizes: tiny, around warp and block boundaries, odd mid sizes, 2^26 / 2^20 + 3.
TEST(Cases, OneDimensionalSizes) {
  for (const char* name : {"increment", "vector_add", "normalize", "reduce"}) {
    const Task& t = task_testing::task(name);
    const auto sim = labels(t.cases(CaseOptions{true}));
    for (const int n : {1, 2, 3, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 1000, 4097, 65537, 100003}) {
      EXPECT_TRUE(sim.count("n=" + std::to_string(n))) << name << " n=" << n;
    }
    const auto gpu = t.cases(CaseOptions{false});
    EXPECT_EQ(gpu.back().dim("n"), std::int64_t{1} << 26) << name;
    EXPECT_EQ(t.cases(CaseOptions{true}).back().dim("n"), (std::int64_t{1} << 20) + 3) << name;
  }
}

TEST(Cases, MatmulShapes) {
  const Task& t = task_testing::task("matmul");
  const auto sim = labels(t.cases(CaseOptions{true}));
  for (const char* shape : {"M=1 N=1 K=1", "M=16 N=16 K=16", "M=17 N=17 K=17", "M=15 N=33 K=31", "M=32 N=32 K=32",
                            "M=33 N=31 K=65", "M=64 N=48 K=80", "M=100 N=1 K=100", "M=1 N=100 K=100",
                            "M=255 N=257 K=129", "M=256 N=256 K=256", "M=192 N=160 K=176"}) {
    EXPECT_TRUE(sim.count(shape)) << shape;
  }
  // On a GPU: 2048³ first among the large cases (bench times it), then odd edges past one tile per SM.
  const auto gpu = t.cases(CaseOptions{false});
  const auto first_large = std::ranges::find_if(gpu, [](const Case& c) { return c.large; });
  ASSERT_NE(first_large, gpu.end());
  EXPECT_EQ(first_large->label(), "M=2048 N=2048 K=2048");
  EXPECT_EQ(gpu.back().label(), "M=1029 N=2051 K=1031");
  EXPECT_TRUE(gpu.back().large);
  const auto bufs = buffers(t, task_testing::case_labelled(t, "M=15 N=33 K=31"));
  EXPECT_EQ(bufs[2].rows, 15);  // C is M×N: the checker names rows and columns
  EXPECT_EQ(bufs[2].cols, 33);
  EXPECT_EQ(bufs[0].count(), 15u * 31u);
  EXPECT_EQ(bufs[1].count(), 31u * 33u);
}

TEST(Inputs, RangesAndOffsets) {
  auto range = [](const Buffer& b) {
    double lo = b.value(0), hi = lo, sum = 0;
    for (std::size_t i = 0; i < b.count(); ++i) {
      lo = std::min(lo, b.value(i));
      hi = std::max(hi, b.value(i));
      sum += b.value(i);
    }
    return std::tuple{lo, hi, sum / static_cast<double>(b.count())};
  };
  const Case big{{{"n", 100003}}, false};
  {
    const auto [lo, hi, mean] = range(buffers(task_testing::task("increment"), big)[0]);
    EXPECT_EQ(lo, -1000);
    EXPECT_EQ(hi, 1000);
    EXPECT_NEAR(mean, 0.0, 10.0);
  }
  {
    const auto bufs = buffers(task_testing::task("vector_add"), big);
    const auto [alo, ahi, amean] = range(bufs[0]);
    const auto [blo, bhi, bmean] = range(bufs[1]);
    EXPECT_GT(alo, -4.0 + 1.0);  // offsets differ, so a + a and b + b are far from a + b
    EXPECT_LT(bhi, 4.0 - 2.0);
    EXPECT_GT(amean - bmean, 3.0);
  }
  {
    const auto [lo, hi, mean] = range(buffers(task_testing::task("reduce"), big)[0]);
    EXPECT_GE(lo, -0.5);
    EXPECT_LT(hi, 1.5);
    EXPECT_NEAR(mean, 0.5, 0.01);  // the sum grows with n: no constant answer passes
  }
  {
    const auto [lo, hi, mean] = range(buffers(task_testing::task("normalize"), big)[0]);
    EXPECT_GE(lo, -0.75);
    EXPECT_LT(hi, 1.25);
    EXPECT_NEAR(mean, 0.25, 0.01);
  }
}

TEST(Cost, Models) {
  const Case n1000{{{"n", 1000}}, false};
  auto cost = [](const char* name, const Case& c) { return task_testing::task(name).cost(c); };
  EXPECT_EQ(cost("increment", n1000).bytes, 8000.0);
  EXPECT_EQ(cost("increment", n1000).flops, 0.0);
  EXPECT_EQ(cost("vector_add", n1000).bytes, 12000.0);
  EXPECT_EQ(cost("vector_add", n1000).flops, 1000.0);
  EXPECT_EQ(cost("normalize", n1000).bytes, 12000.0);
  EXPECT_EQ(cost("normalize", n1000).flops, 3000.0);
  EXPECT_EQ(cost("reduce", n1000).bytes, 4004.0);
  EXPECT_EQ(cost("reduce", n1000).flops, 1000.0);
  const Case mm{{{"M", 33}, {"N", 31}, {"K", 65}}, false};
  EXPECT_EQ(cost("matmul", mm).bytes, 4.0 * (33 * 65 + 65 * 31 + 33 * 31));
  EXPECT_EQ(cost("matmul", mm).flops, 2.0 * 33 * 31 * 65);
  const Case big{{{"M", 2048}, {"N", 2048}, {"K", 2048}}, true};
  EXPECT_EQ(cost("matmul", big).flops, 2.0 * 2048.0 * 2048.0 * 2048.0);  // no int overflow
}

}  // namespace
}  // namespace cudalab
