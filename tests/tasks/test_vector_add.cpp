// 02_vector_add: one rounding per element, and the "input ignored" and bytes hints.
#include <gtest/gtest.h>

#include <cstring>

#include "task_testing.hpp"

namespace cudalab {
namespace {

const Task& vector_add() { return task_testing::task("02_vector_add"); }

TEST(VectorAdd, ReferenceIsTheExactSumWithOneUlpAllowed) {
  for (const Case& c : task_testing::small_cases(vector_add())) {
    const auto bufs = task_testing::buffers(vector_add(), c);
    const auto expected = vector_add().reference(c, bufs);
    ASSERT_EQ(expected.size(), 1u);
    const Expected& e = expected[0];
    EXPECT_EQ(e.buffer, 2u);
    std::vector<float> device(e.value.size());
    for (std::size_t i = 0; i < e.value.size(); ++i) {
      const long double exact = static_cast<long double>(bufs[0].f32()[i]) + bufs[1].f32()[i];
      EXPECT_EQ(static_cast<long double>(e.value[i]), exact);
      EXPECT_EQ(e.tolerance[i], std::abs(e.value[i]) * 0x1p-23);
      device[i] = bufs[0].f32()[i] + bufs[1].f32()[i];  // what the GPU computes
    }
    EXPECT_EQ(task_testing::mismatches(e, device), 0u) << c.label();
  }
}

TEST(VectorAdd, OneWrongElementFails) {
  const Case c{{{"n", 4097}}, false};
  const auto bufs = task_testing::buffers(vector_add(), c);
  const Expected e = vector_add().reference(c, bufs)[0];
  std::vector<float> device(4097);
  for (std::size_t i = 0; i < device.size(); ++i) device[i] = bufs[0].f32()[i] + bufs[1].f32()[i];
  std::size_t i = 1234;
  while (std::abs(device[i]) < 0.5f) ++i;  // an element not near zero
  // Two ulps off fails, and so does reference ± 10·tolerance.
  float off = std::nextafter(std::nextafter(device[i], INFINITY), INFINITY);
  std::swap(device[i], off);
  EXPECT_EQ(task_testing::mismatches(e, device), 1u);
  std::swap(device[i], off);
  std::vector<double> shifted(e.value);
  shifted[i] += 10 * e.tolerance[i];
  EXPECT_EQ(task_testing::mismatches(e, shifted), 1u);
  shifted[i] -= 20 * e.tolerance[i];
  EXPECT_EQ(task_testing::mismatches(e, shifted), 1u);
}

struct Ignored {
  const char* what;
  int a_times;
  int b_times;
};

TEST(VectorAdd, HintWhenAnInputIsIgnored) {
  const Case c{{{"n", 1025}}, false};
  const auto bufs = task_testing::buffers(vector_add(), c);
  const Expected e = vector_add().reference(c, bufs)[0];
  for (const Ignored& pattern :
       {Ignored{"c equals a + a: b was ignored", 2, 0}, Ignored{"c equals b + b: a was ignored", 0, 2},
        Ignored{"c equals a: b was ignored", 1, 0}, Ignored{"c equals b: a was ignored", 0, 1}}) {
    Buffer out = bufs[2];
    for (std::size_t i = 0; i < 1025; ++i) {
      out.f32()[i] = static_cast<float>(pattern.a_times) * bufs[0].f32()[i] +
                     static_cast<float>(pattern.b_times) * bufs[1].f32()[i];
    }
    const auto hint = vector_add().diagnose(c, bufs, out, e);
    ASSERT_TRUE(hint) << pattern.what;
    EXPECT_EQ(*hint, pattern.what);
    EXPECT_NE(hint->find("ignored"), std::string::npos);
  }
}

TEST(VectorAdd, HintForBytesInsteadOfElements) {
  for (const std::int64_t n : {1000, 1025, 65537}) {
    const Case c{{{"n", n}}, false};
    const auto bufs = task_testing::buffers(vector_add(), c);
    const Expected e = vector_add().reference(c, bufs)[0];
    Buffer out = bufs[2];
    for (auto& v : out.f32()) v = std::numeric_limits<float>::quiet_NaN();  // the poison
    std::vector<float> device(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < device.size(); ++i) device[i] = bufs[0].f32()[i] + bufs[1].f32()[i];
    std::memcpy(out.bytes.data(), device.data(), static_cast<std::size_t>(n));  // n bytes back
    const auto hint = vector_add().diagnose(c, bufs, out, e);
    ASSERT_TRUE(hint) << n;
    EXPECT_NE(hint->find("cudaMemcpy counts bytes, not elements"), std::string::npos) << *hint;
    EXPECT_NE(hint->find("sizeof"), std::string::npos);
  }
}

TEST(VectorAdd, NoHintWhenNothingMatches) {
  const Case c{{{"n", 1000}}, false};
  const auto bufs = task_testing::buffers(vector_add(), c);
  const Expected e = vector_add().reference(c, bufs)[0];
  Buffer out = bufs[2];
  for (std::size_t i = 0; i < 1000; ++i) out.f32()[i] = bufs[0].f32()[i] - bufs[1].f32()[i];
  EXPECT_EQ(vector_add().diagnose(c, bufs, out, e), std::nullopt);
  for (auto& v : out.f32()) v = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(vector_add().diagnose(c, bufs, out, e), std::nullopt);
}

}  // namespace
}  // namespace cudalab
