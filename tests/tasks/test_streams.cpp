// 14_streams: the reference is sqrt(1 + x²); float32 with and without FMA passes, |x| does not.
#include <gtest/gtest.h>

#include "task_testing.hpp"

namespace cudalab {
namespace {

const Task& streams() { return task_testing::task("14_streams"); }

TEST(Streams, Float32HypotenusePassesAndNearMissesDoNot) {
  EXPECT_EQ(streams().info().pointers, PointerKind::host);
  EXPECT_TRUE(streams().info().requires_streams);
  for (const Case& c : task_testing::small_cases(streams())) {
    const auto bufs = task_testing::buffers(streams(), c);
    const Expected e = streams().reference(c, bufs).at(0);
    const auto x = bufs[0].f32();
    std::vector<float> plain(x.size()), fused(x.size()), absolute(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      plain[i] = std::sqrt(1.0f + x[i] * x[i]);
      fused[i] = std::sqrt(std::fma(x[i], x[i], 1.0f));
      absolute[i] = std::abs(x[i]);
      EXPECT_NEAR(e.value[i], std::sqrt(1.0 + static_cast<double>(x[i]) * x[i]), 1e-15 * e.value[i]);
    }
    EXPECT_EQ(task_testing::mismatches(e, plain), 0u) << c.label();
    EXPECT_EQ(task_testing::mismatches(e, fused), 0u) << c.label();
    EXPECT_EQ(task_testing::mismatches(e, absolute), x.size()) << c.label();
  }
}

TEST(Streams, HintNamesTheDroppedLastChunk) {
  const Case c = task_testing::case_labelled(streams(), "n=4097");
  const auto bufs = task_testing::buffers(streams(), c);
  const Expected e = streams().reference(c, bufs).at(0);
  Buffer y = Buffer::make("y", DType::f32, Role::output, 4097);
  for (std::size_t i = 0; i < 4097; ++i) y.f32()[i] = i < 4096 ? static_cast<float>(e.value[i]) : NAN;
  EXPECT_NE(streams().diagnose(c, bufs, y, e).value_or("").find("never written from 4096 on: the last 1 elements"),
            std::string::npos);
  for (float& v : y.f32()) v = NAN;
  EXPECT_NE(streams().diagnose(c, bufs, y, e).value_or("").find("no element of y came back"), std::string::npos);
  y.f32()[4096] = 0.0f;  // written and wrong: another mistake
  EXPECT_FALSE(streams().diagnose(c, bufs, y, e).has_value());
}

}  // namespace
}  // namespace cudalab
