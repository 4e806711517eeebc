// Shared by the task tests: lookup, the checker's rule, and float32 computations in the orders a
// correct GPU kernel may use (sequential, reversed, pairwise, block trees combined in any order).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cudalab/registry.hpp"
#include "cudalab/task.hpp"

namespace cudalab::task_testing {

inline const Task& task(std::string_view key) {
  const Task* t = find_task(key);
  if (t == nullptr) throw std::runtime_error("no task " + std::string(key));
  return *t;
}

/// The case of `t` with this label ("n=257"), from the simulator's list (it has every small case).
inline Case case_labelled(const Task& t, const std::string& label, bool simulator = true) {
  for (const Case& c : t.cases(CaseOptions{simulator})) {
    if (c.label() == label) return c;
  }
  throw std::runtime_error(t.info().id + " has no case " + label);
}

/// Every case that is not the large one.
inline std::vector<Case> small_cases(const Task& t) {
  std::vector<Case> out;
  for (const Case& c : t.cases(CaseOptions{true})) {
    if (!c.large) out.push_back(c);
  }
  return out;
}

/// The small cases and the largest the simulator checks (2^20 + 3 elements, 1027×1021): what a
/// test walks through to cover every shape of the check.
inline std::vector<Case> checked_cases(const Task& t) {
  auto out = small_cases(t);
  out.push_back(t.cases(CaseOptions{true}).back());
  return out;
}

/// The sum of `x` with a compensated (Kahan) long double: the exact sum for the tests' purposes.
inline long double kahan_sum(std::span<const float> x) {
  long double sum = 0, carry = 0;
  for (const float v : x) {
    const long double y = static_cast<long double>(v) - carry;
    const long double t = sum + y;
    carry = (t - sum) - y;
    sum = t;
  }
  return sum;
}

/// An output buffer named `name` holding `values`, as a kernel would have left it.
inline Buffer output_buffer(const std::string& name, const std::vector<float>& values) {
  Buffer b = Buffer::make(name, DType::f32, Role::output, values.size());
  std::ranges::copy(values, b.f32().begin());
  return b;
}

/// The checker's rule: |actual − value| ≤ tolerance, NaN and Inf never pass.
/// Returns the number of failing elements.
inline std::size_t mismatches(const Expected& e, std::span<const double> actual) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < e.value.size(); ++i) {
    const double a = actual[i];
    if (!std::isfinite(a) || !(std::abs(a - e.value[i]) <= e.tolerance_at(i))) ++bad;
  }
  return bad;
}

inline std::size_t mismatches(const Expected& e, std::span<const float> actual) {
  std::vector<double> wide(actual.begin(), actual.end());
  return mismatches(e, wide);
}

/// Buffers for a case, from a fixed seed.
inline std::vector<Buffer> buffers(const Task& t, const Case& c, std::uint64_t seed = 42) {
  Rng rng(seed);
  return t.make_buffers(c, rng);
}

// ---- float32 sums in the orders GPU kernels use ----------------------------------------------

inline float sum_sequential(std::span<const float> x) {
  float s = 0.0f;
  for (const float v : x) s += v;
  return s;
}

inline float sum_reversed(std::span<const float> x) {
  float s = 0.0f;
  for (std::size_t i = x.size(); i-- > 0;) s += x[i];
  return s;
}

inline float sum_pairwise(std::span<const float> x) {
  if (x.empty()) return 0.0f;
  if (x.size() == 1) return x[0];
  const std::size_t half = x.size() / 2;
  return sum_pairwise(x.first(half)) + sum_pairwise(x.subspan(half));
}

/// A grid-stride kernel: `threads` threads each sum x[t], x[t + threads], ... sequentially
/// (so each partial has up to n / threads terms), then a shared-memory tree of `block` threads
/// per block (stride halving), then the block partials added in a scrambled order (atomicAdd).
inline float sum_blocked(std::span<const float> x, std::size_t block, std::size_t threads) {
  std::vector<float> per_thread(threads, 0.0f);
  for (std::size_t i = 0; i < x.size(); ++i) per_thread[i % threads] += x[i];
  std::vector<float> partials;
  for (std::size_t b = 0; b < threads; b += block) {
    std::vector<float> shared(block, 0.0f);
    for (std::size_t t = 0; t < block && b + t < threads; ++t) shared[t] = per_thread[b + t];
    for (std::size_t stride = block / 2; stride > 0; stride /= 2) {
      for (std::size_t t = 0; t < stride; ++t) shared[t] += shared[t + stride];
    }
    partials.push_back(shared[0]);
  }
  // Atomics finish in any order: a fixed shuffle.
  std::mt19937 order(12345);
  std::shuffle(partials.begin(), partials.end(), order);
  float s = 0.0f;
  for (const float p : partials) s += p;
  return s;
}

/// Every order above, as (name, sum) pairs.
inline std::vector<std::pair<std::string, float>> sums_in_every_order(std::span<const float> x) {
  return {
      {"sequential", sum_sequential(x)},
      {"reversed", sum_reversed(x)},
      {"pairwise", sum_pairwise(x)},
      {"warp tree, 1 block of 32", sum_blocked(x, 32, 32)},
      {"blocks of 256, one thread per element", sum_blocked(x, 256, std::max<std::size_t>(x.size(), 1))},
      {"grid-stride, 4 blocks of 256", sum_blocked(x, 256, 1024)},
      {"grid-stride, 1 block of 1024", sum_blocked(x, 1024, 1024)},
  };
}

}  // namespace cudalab::task_testing
