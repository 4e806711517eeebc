// 01_increment: exact reference and the two known mistakes.
#include <gtest/gtest.h>

#include <cstring>

#include "task_testing.hpp"

namespace cudalab {
namespace {

const Task& increment() { return task_testing::task("01_increment"); }

Case n_case(std::int64_t n) { return Case{{{"n", n}}, false}; }

// The data after a run, starting from the input.
Buffer copy_of_input(const std::vector<Buffer>& bufs) { return bufs[0]; }

TEST(Increment, ReferenceAddsOneExactly) {
  for (const Case& c : task_testing::small_cases(increment())) {
    const auto bufs = task_testing::buffers(increment(), c);
    const auto expected = increment().reference(c, bufs);
    ASSERT_EQ(expected.size(), 1u);
    EXPECT_EQ(expected[0].buffer, 0u);
    for (std::size_t i = 0; i < bufs[0].count(); ++i) {
      EXPECT_EQ(expected[0].value[i], bufs[0].i32()[i] + 1) << i;
      EXPECT_EQ(expected[0].tolerance_at(i), 0.0);
    }
    // Exact: no per-element zeros, which at the GPU's large case are 512 MB to fill and read.
    EXPECT_TRUE(expected[0].tolerance.empty()) << c.label();
  }
}

TEST(Increment, AnyDifferenceFails) {
  const Case c = n_case(257);
  const auto bufs = task_testing::buffers(increment(), c);
  const Expected e = increment().reference(c, bufs)[0];
  std::vector<double> out(e.value);
  EXPECT_EQ(task_testing::mismatches(e, out), 0u);
  out[100] += 1;  // one element incremented twice
  EXPECT_EQ(task_testing::mismatches(e, out), 1u);
  out[100] -= 2;  // not incremented
  EXPECT_EQ(task_testing::mismatches(e, out), 1u);
}

TEST(Increment, HintForDoubleIncrement) {
  const Case c = n_case(1000);
  const auto bufs = task_testing::buffers(increment(), c);
  const Expected e = increment().reference(c, bufs)[0];
  Buffer out = copy_of_input(bufs);
  for (std::size_t i = 0; i < 1000; ++i) out.i32()[i] += (i % 3 == 0) ? 2 : 1;
  const auto hint = increment().diagnose(c, bufs, out, e);
  ASSERT_TRUE(hint);
  EXPECT_NE(hint->find("some elements were incremented more than once: do two threads compute the same index?"),
            std::string::npos)
      << *hint;

  // Wildly wrong or decreased values are not "incremented more than once".
  Buffer wild = out;
  wild.i32()[5] = 123456789;
  EXPECT_EQ(increment().diagnose(c, bufs, wild, e), std::nullopt);
  Buffer decreased = out;
  decreased.i32()[7] -= 5;
  EXPECT_EQ(increment().diagnose(c, bufs, decreased, e), std::nullopt);
}

TEST(Increment, HintForBytesInsteadOfElements) {
  for (const std::int64_t n : {1000, 1024, 4097, 100003}) {
    const Case c = n_case(n);
    const auto bufs = task_testing::buffers(increment(), c);
    const Expected e = increment().reference(c, bufs)[0];
    const auto un = static_cast<std::size_t>(n);
    // Both copies with n bytes: the first n/4 ints and the low n % 4 bytes of the next one make
    // the round trip.
    Buffer out = copy_of_input(bufs);
    std::vector<std::byte> device(out.bytes);
    for (std::size_t i = 0; i < un; ++i) {
      std::int32_t v;
      std::memcpy(&v, device.data() + 4 * i, 4);
      ++v;
      std::memcpy(device.data() + 4 * i, &v, 4);
    }
    std::memcpy(out.bytes.data(), device.data(), un);
    const auto hint = increment().diagnose(c, bufs, out, e);
    ASSERT_TRUE(hint) << n;
    EXPECT_NE(hint->find("only the first n/4 elements changed: cudaMemcpy counts bytes, not elements"),
              std::string::npos)
        << *hint;
    EXPECT_NE(hint->find("n * sizeof(int)"), std::string::npos);

    // Copy in short, copy out full: the tail comes from zeroed device memory, plus one.
    Buffer garbage = copy_of_input(bufs);
    std::vector<std::byte> zeroed(out.bytes.size(), std::byte{0});
    std::memcpy(zeroed.data(), bufs[0].bytes.data(), un);
    for (std::size_t i = 0; i < un; ++i) {
      std::int32_t v;
      std::memcpy(&v, zeroed.data() + 4 * i, 4);
      ++v;
      std::memcpy(garbage.bytes.data() + 4 * i, &v, 4);
    }
    const auto hint2 = increment().diagnose(c, bufs, garbage, e);
    ASSERT_TRUE(hint2) << n;
    EXPECT_NE(hint2->find("cudaMemcpy counts bytes"), std::string::npos);

    // The plain picture: the first n/4 elements incremented, every other one unchanged.
    Buffer plain = copy_of_input(bufs);
    for (std::size_t i = 0; i < un / 4; ++i) plain.i32()[i] += 1;
    const auto hint3 = increment().diagnose(c, bufs, plain, e);
    ASSERT_TRUE(hint3) << n;
    EXPECT_NE(hint3->find("only the first n/4 elements changed"), std::string::npos);
  }
}

TEST(Increment, NoHintWhenNothingMatches) {
  const Case c = n_case(1000);
  const auto bufs = task_testing::buffers(increment(), c);
  const Expected e = increment().reference(c, bufs)[0];
  Buffer untouched = copy_of_input(bufs);
  EXPECT_EQ(increment().diagnose(c, bufs, untouched, e), std::nullopt);
  Buffer half = copy_of_input(bufs);  // the first half right: not the n/4 pattern
  for (std::size_t i = 0; i < 500; ++i) half.i32()[i] += 1;
  EXPECT_EQ(increment().diagnose(c, bufs, half, e), std::nullopt);
  Buffer decremented = copy_of_input(bufs);
  for (auto& v : decremented.i32()) v -= 1;
  EXPECT_EQ(increment().diagnose(c, bufs, decremented, e), std::nullopt);
}

}  // namespace
}  // namespace cudalab
