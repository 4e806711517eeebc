// 03_matmul: the float64 reference against a naive long double product, its tolerance against
// float32 products in several summation orders, and the transpose hint.
#include <cstdint>
#include <cstring>

#include <gtest/gtest.h>

#include "task_testing.hpp"

namespace cudalab {
namespace {

const Task& matmul() { return task_testing::task("03_matmul"); }

struct Dims {
  std::size_t M, N, K;
};

Dims dims(const Case& c) {
  return {static_cast<std::size_t>(c.dim("M")), static_cast<std::size_t>(c.dim("N")),
          static_cast<std::size_t>(c.dim("K"))};
}

/// C computed in float32, each element a dot product summed by `dot` (given the K products' terms).
template <typename Dot>
std::vector<float> float32_product(const std::vector<Buffer>& bufs, Dims d, Dot dot) {
  std::vector<float> C(d.M * d.N);
  std::vector<float> a(d.K), b(d.K);
  for (std::size_t i = 0; i < d.M; ++i) {
    for (std::size_t j = 0; j < d.N; ++j) {
      for (std::size_t k = 0; k < d.K; ++k) {
        a[k] = bufs[0].f32()[i * d.K + k];
        b[k] = bufs[1].f32()[k * d.N + j];
      }
      C[i * d.N + j] = dot(a, b);
    }
  }
  return C;
}

float dot_sequential(const std::vector<float>& a, const std::vector<float>& b) {
  float s = 0;
  for (std::size_t k = 0; k < a.size(); ++k) s += a[k] * b[k];
  return s;
}

float dot_fma(const std::vector<float>& a, const std::vector<float>& b) {
  float s = 0;
  for (std::size_t k = 0; k < a.size(); ++k) s = std::fma(a[k], b[k], s);
  return s;
}

/// Split-K: tiles of 32 summed separately, then the tile sums added (a tiled kernel that
/// accumulates per tile).
float dot_tiled(const std::vector<float>& a, const std::vector<float>& b) {
  float total = 0;
  for (std::size_t k0 = 0; k0 < a.size(); k0 += 32) {
    float tile = 0;
    for (std::size_t k = k0; k < std::min(a.size(), k0 + 32); ++k) tile = std::fma(a[k], b[k], tile);
    total += tile;
  }
  return total;
}

float dot_pairwise(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> p(a.size());
  for (std::size_t k = 0; k < a.size(); ++k) p[k] = a[k] * b[k];
  return task_testing::sum_pairwise(p);
}

TEST(Matmul, ReferenceMatchesANaiveLongDoubleProduct) {
  for (const Case& c : task_testing::small_cases(matmul())) {
    const Dims d = dims(c);
    if (d.M * d.N * d.K > 2'000'000) continue;  // keep the naive loop quick
    const auto bufs = task_testing::buffers(matmul(), c);
    const Expected e = matmul().reference(c, bufs).at(0);
    EXPECT_EQ(e.buffer, 2u);
    for (std::size_t i = 0; i < d.M; ++i) {
      for (std::size_t j = 0; j < d.N; ++j) {
        long double sum = 0, magnitude = 0;
        for (std::size_t k = 0; k < d.K; ++k) {
          const long double p = static_cast<long double>(bufs[0].f32()[i * d.K + k]) * bufs[1].f32()[k * d.N + j];
          sum += p;
          magnitude += std::abs(p);
        }
        const std::size_t at = i * d.N + j;
        ASSERT_NEAR(e.value[at], static_cast<double>(sum), 1e-13 * static_cast<double>(magnitude)) << c.label();
        // tolerance = 4·u·√K·Σ|A_ik·B_kj| (+ the smallest normal float)
        const double want = 4.0 * 0x1p-24 * std::sqrt(static_cast<double>(d.K)) * static_cast<double>(magnitude);
        ASSERT_NEAR(e.tolerance[at], want, 1e-9 * want + 0x1p-126) << c.label();
      }
    }
  }
}

TEST(Matmul, Float32ProductsInEveryOrderPass) {
  for (const Case& c : task_testing::small_cases(matmul())) {
    const Dims d = dims(c);
    const auto bufs = task_testing::buffers(matmul(), c);
    const Expected e = matmul().reference(c, bufs).at(0);
    EXPECT_EQ(task_testing::mismatches(e, float32_product(bufs, d, dot_sequential)), 0u) << c.label();
    EXPECT_EQ(task_testing::mismatches(e, float32_product(bufs, d, dot_fma)), 0u) << c.label();
    EXPECT_EQ(task_testing::mismatches(e, float32_product(bufs, d, dot_tiled)), 0u) << c.label();
    EXPECT_EQ(task_testing::mismatches(e, float32_product(bufs, d, dot_pairwise)), 0u) << c.label();
  }
}

TEST(Matmul, SimulatorLargeCasePassesSequentialFloat32) {
  const Case c = matmul().cases(CaseOptions{true}).back();
  ASSERT_TRUE(c.large);
  const auto bufs = task_testing::buffers(matmul(), c, 3);
  const Expected e = matmul().reference(c, bufs).at(0);
  EXPECT_EQ(task_testing::mismatches(e, float32_product(bufs, dims(c), dot_sequential)), 0u);
}

TEST(Matmul, MistakesFail) {
  const Case c = task_testing::case_labelled(matmul(), "M=33 N=31 K=65");
  const Dims d = dims(c);
  const auto bufs = task_testing::buffers(matmul(), c);
  const Expected e = matmul().reference(c, bufs).at(0);
  // One term missing from every dot product (a loop bound k < K - 1).
  auto drop_last = [](const std::vector<float>& a, const std::vector<float>& b) {
    return dot_sequential(std::vector<float>(a.begin(), a.end() - 1), std::vector<float>(b.begin(), b.end() - 1));
  };
  const auto missing = float32_product(bufs, d, drop_last);
  EXPECT_GT(task_testing::mismatches(e, missing), d.M * d.N * 9 / 10);
  // Half precision is not float32: round each result to 11 significant bits.
  auto half = float32_product(bufs, d, dot_sequential);
  for (float& v : half) {
    int exp;
    const float m = std::frexp(v, &exp);
    v = std::ldexp(std::round(std::ldexp(m, 11)), exp - 11);
  }
  EXPECT_GT(task_testing::mismatches(e, half), 0u);
  // Reference ± 10·tolerance, one element at a time.
  for (const std::size_t at : {std::size_t{0}, std::size_t{500}, d.M * d.N - 1}) {
    std::vector<double> shifted(e.value);
    shifted[at] += 10 * e.tolerance[at];
    EXPECT_EQ(task_testing::mismatches(e, shifted), 1u);
    shifted[at] -= 20 * e.tolerance[at];
    EXPECT_EQ(task_testing::mismatches(e, shifted), 1u);
  }
  // One element 0.1% off.
  auto one_off = float32_product(bufs, d, dot_sequential);
  std::size_t at = 0;
  while (std::abs(e.value[at]) < 1.0) ++at;
  one_off[at] *= 1.001f;
  EXPECT_EQ(task_testing::mismatches(e, one_off), 1u);
}

/// x rounded to TF32 (10 mantissa bits) toward zero, the coarser of the two roundings tensor cores see.
float tf32_truncated(float x) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  bits &= ~std::uint32_t{0x1fff};
  std::memcpy(&x, &bits, sizeof bits);
  return x;
}

float dot_tf32(const std::vector<float>& a, const std::vector<float>& b) {
  float s = 0;
  for (std::size_t k = 0; k < a.size(); ++k) s = std::fma(tf32_truncated(a[k]), tf32_truncated(b[k]), s);
  return s;
}

// A tensor-core product (inputs cut to 10 mantissa bits) fails the FP32 contract and passes at
// TF32 precision, whose tolerance adds 2^-9·1.01·Σ|A·B| and nothing else.
TEST(Matmul, Tf32ProductsPassOnlyAtTf32Precision) {
  Case c = task_testing::case_labelled(matmul(), "M=64 N=48 K=80");
  const Dims d = dims(c);
  const auto bufs = task_testing::buffers(matmul(), c);
  const auto tf32 = float32_product(bufs, d, dot_tf32);
  const Expected fp32_expected = matmul().reference(c, bufs).at(0);
  EXPECT_GT(task_testing::mismatches(fp32_expected, tf32), d.M * d.N / 2);
  c.precision = Precision::tf32;
  EXPECT_EQ(c.label(), "M=64 N=48 K=80 TF32");
  const Expected tf32_expected = matmul().reference(c, bufs).at(0);
  EXPECT_EQ(task_testing::mismatches(tf32_expected, tf32), 0u);
  for (std::size_t at = 0; at < tf32_expected.tolerance.size(); at += 97) {
    const double magnitude = (fp32_expected.tolerance[at] - 0x1p-126) / (4.0 * 0x1p-24 * std::sqrt(80.0));
    EXPECT_NEAR(tf32_expected.tolerance[at] - fp32_expected.tolerance[at], 1.01 * 0x1p-9 * magnitude, 1e-9 * magnitude);
  }
  // Still not a licence for wrong answers: one element 1% off fails.
  auto one_off = tf32;
  one_off[7] *= 1.01f;
  EXPECT_EQ(task_testing::mismatches(tf32_expected, one_off), 1u);
}

TEST(Matmul, HintWhenCIsTransposed) {
  for (const char* shape : {"M=16 N=16 K=16", "M=33 N=31 K=65", "M=15 N=33 K=31"}) {
    const Case c = task_testing::case_labelled(matmul(), shape);
    const Dims d = dims(c);
    const auto bufs = task_testing::buffers(matmul(), c);
    const Expected e = matmul().reference(c, bufs).at(0);
    const auto right = float32_product(bufs, d, dot_sequential);
    Buffer out = bufs[2];
    for (std::size_t i = 0; i < d.M; ++i) {
      for (std::size_t j = 0; j < d.N; ++j) out.f32()[j * d.M + i] = right[i * d.N + j];
    }
    const auto hint = matmul().diagnose(c, bufs, out, e);
    ASSERT_TRUE(hint) << shape;
    EXPECT_EQ(*hint, "C is transposed: C[row][col] is at C[row * N + col]");
  }
}

TEST(Matmul, NoHintWhenNothingMatches) {
  const Case c = task_testing::case_labelled(matmul(), "M=33 N=31 K=65");
  const auto bufs = task_testing::buffers(matmul(), c);
  const Expected e = matmul().reference(c, bufs).at(0);
  Buffer out = bufs[2];
  for (std::size_t i = 0; i < out.count(); ++i) out.f32()[i] = static_cast<float>(e.value[i]) + 1.0f;
  EXPECT_EQ(matmul().diagnose(c, bufs, out, e), std::nullopt);
  // A single row: the transposed layout is the same layout, so no transpose hint.
  const Case row = task_testing::case_labelled(matmul(), "M=1 N=100 K=100");
  const auto rbufs = task_testing::buffers(matmul(), row);
  const Expected re = matmul().reference(row, rbufs).at(0);
  Buffer rout = rbufs[2];
  for (std::size_t i = 0; i < rout.count(); ++i) rout.f32()[i] = static_cast<float>(re.value[i]);
  EXPECT_EQ(matmul().diagnose(row, rbufs, rout, re), std::nullopt);
}

}  // namespace
}  // namespace cudalab
