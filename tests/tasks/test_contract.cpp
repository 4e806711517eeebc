// The contract helpers of task.hpp: signature spelling and mangling, case labels, buffers and the
// uniform generator.
#include <gtest/gtest.h>

#include <set>

#include "task_testing.hpp"

namespace cudalab {
namespace {

Param buf(const char* name, DType t, bool is_const) { return {Param::Kind::buffer, name, t, is_const}; }
Param scalar(const char* name) { return {Param::Kind::scalar_int, name, DType::i32, false}; }

TEST(Contract, DtypeSize) {
  EXPECT_EQ(dtype_size(DType::f32), 4u);
  EXPECT_EQ(dtype_size(DType::i32), 4u);
}

TEST(Signature, TextSpellsTheContract) {
  const Signature s{{buf("a", DType::f32, true), buf("b", DType::f32, true), buf("c", DType::f32, false), scalar("n")}};
  EXPECT_EQ(s.text(), "void solve(const float* a, const float* b, float* c, int n)");
  const Signature inc{{buf("data", DType::i32, false), scalar("n")}};
  EXPECT_EQ(inc.text(), "void solve(int* data, int n)");
  EXPECT_EQ(Signature{}.text(), "void solve()");
}

// Strings printed by `nm` on a file compiled with g++ 12.2 (x86-64) that defines these overloads.
TEST(Signature, MangledNamesOfTheFiveExercisesMatchGxx) {
  EXPECT_EQ((Signature{{buf("data", DType::i32, false), scalar("n")}}.mangled_name()), "_Z5solvePii");
  EXPECT_EQ(
      (Signature{{buf("a", DType::f32, true), buf("b", DType::f32, true), buf("c", DType::f32, false), scalar("n")}}
           .mangled_name()),
      "_Z5solvePKfS0_Pfi");
  EXPECT_EQ((Signature{{buf("A", DType::f32, true), buf("B", DType::f32, true), buf("C", DType::f32, false),
                        scalar("M"), scalar("N"), scalar("K")}}
                 .mangled_name()),
            "_Z5solvePKfS0_Pfiii");
  EXPECT_EQ((Signature{{buf("x", DType::f32, true), buf("y", DType::f32, false), scalar("n")}}.mangled_name()),
            "_Z5solvePKfPfi");
}

// More substitution patterns, each checked against g++ 12.2 with nm: a repeated non-const
// pointer (S_), a const pointer reusing its `const T` (S1_ in the fourth), and candidates of
// both element types interleaved.
TEST(Signature, SubstitutionsMatchGxx) {
  struct Row {
    std::vector<Param> params;
    const char* mangled;
  };
  const std::vector<Row> rows = {
      {{}, "_Z5solvev"},
      {{scalar("n")}, "_Z5solvei"},
      {{buf("a", DType::f32, false), buf("b", DType::f32, false), scalar("n")}, "_Z5solvePfS_i"},
      {{buf("a", DType::f32, false), buf("b", DType::f32, true), buf("c", DType::f32, false),
        buf("d", DType::f32, true), scalar("n")},
       "_Z5solvePfPKfS_S1_i"},
      {{buf("a", DType::i32, true), buf("b", DType::i32, false), scalar("n")}, "_Z5solvePKiPii"},
      {{buf("a", DType::i32, true), buf("b", DType::f32, true), buf("c", DType::i32, false),
        buf("d", DType::f32, false), buf("e", DType::i32, true), scalar("n")},
       "_Z5solvePKiPKfPiPfS0_i"},
      {{buf("a", DType::i32, false), buf("b", DType::f32, false), buf("c", DType::i32, false),
        buf("d", DType::f32, false), scalar("n")},
       "_Z5solvePiPfS_S0_i"},
      {{buf("a", DType::f32, true), buf("b", DType::f32, true), buf("c", DType::f32, true), buf("d", DType::f32, false),
        buf("e", DType::f32, false), scalar("n")},
       "_Z5solvePKfS0_S0_PfS1_i"},
      {{buf("a", DType::i32, true), buf("b", DType::i32, true), buf("c", DType::i32, false),
        buf("d", DType::i32, false), buf("e", DType::f32, false), scalar("n")},
       "_Z5solvePKiS0_PiS1_Pfi"},
  };
  for (const Row& r : rows) {
    const Signature s{r.params};
    EXPECT_EQ(s.mangled_name(), r.mangled) << s.text();
  }
}

TEST(Signature, TasksDeclareTheContractSignatures) {
  using task_testing::task;
  EXPECT_EQ(task("increment").info().signature.text(), "void solve(int* data, int n)");
  EXPECT_EQ(task("vector_add").info().signature.text(), "void solve(const float* a, const float* b, float* c, int n)");
  EXPECT_EQ(task("matmul").info().signature.text(),
            "void solve(const float* A, const float* B, float* C, int M, int N, int K)");
  EXPECT_EQ(task("normalize").info().signature.text(), "void solve(const float* x, float* y, int n)");
  EXPECT_EQ(task("reduce").info().signature.text(), "void solve(const float* x, float* sum, int n)");
  EXPECT_EQ(task("increment").info().signature.mangled_name(), "_Z5solvePii");
  EXPECT_EQ(task("vector_add").info().signature.mangled_name(), "_Z5solvePKfS0_Pfi");
  EXPECT_EQ(task("matmul").info().signature.mangled_name(), "_Z5solvePKfS0_Pfiii");
  EXPECT_EQ(task("normalize").info().signature.mangled_name(), "_Z5solvePKfPfi");
  EXPECT_EQ(task("reduce").info().signature.mangled_name(), "_Z5solvePKfPfi");
  EXPECT_EQ(task("increment").info().pointers, PointerKind::host);
  EXPECT_EQ(task("vector_add").info().pointers, PointerKind::host);
  EXPECT_EQ(task("matmul").info().pointers, PointerKind::device);
  EXPECT_EQ(task("normalize").info().pointers, PointerKind::device);
  EXPECT_EQ(task("reduce").info().pointers, PointerKind::device);
}

TEST(Case, LabelAndDim) {
  const Case c{{{"M", 33}, {"N", 17}, {"K", 65}}, false};
  EXPECT_EQ(c.label(), "M=33 N=17 K=65");
  EXPECT_EQ(c.dim("N"), 17);
  EXPECT_THROW((void)c.dim("n"), std::out_of_range);
  EXPECT_EQ((Case{{{"n", 257}}, false}.label()), "n=257");
}

TEST(Buffer, MakeViewsAndValue) {
  Buffer f = Buffer::make("x", DType::f32, Role::input, 5);
  EXPECT_EQ(f.name, "x");
  EXPECT_EQ(f.role, Role::input);
  EXPECT_EQ(f.bytes.size(), 20u);
  EXPECT_EQ(f.count(), 5u);
  for (const float v : f.f32()) EXPECT_EQ(v, 0.0f);
  f.f32()[3] = -2.5f;
  EXPECT_EQ(f.value(3), -2.5);
  EXPECT_THROW((void)f.value(5), std::out_of_range);
  EXPECT_THROW((void)f.i32(), std::logic_error);

  Buffer i = Buffer::make("data", DType::i32, Role::inout, 3);
  i.i32()[0] = -7;
  EXPECT_EQ(i.value(0), -7.0);
  EXPECT_EQ(std::as_const(i).i32().size(), 3u);
  EXPECT_THROW((void)std::as_const(i).f32(), std::logic_error);
}

TEST(FillUniform, StaysInRangeCoversItAndReproduces) {
  std::vector<float> a(100000), b(100000);
  Rng r1(7), r2(7);
  fill_uniform(a, -1.5f, 2.5f, r1);
  fill_uniform(b, -1.5f, 2.5f, r2);
  EXPECT_EQ(a, b);
  const auto [lo, hi] = std::minmax_element(a.begin(), a.end());
  EXPECT_GE(*lo, -1.5f);
  EXPECT_LT(*hi, 2.5f);
  EXPECT_LT(*lo, -1.49f);  // the whole range is reached
  EXPECT_GT(*hi, 2.49f);
  const double mean = std::accumulate(a.begin(), a.end(), 0.0) / static_cast<double>(a.size());
  EXPECT_NEAR(mean, 0.5, 0.02);
  EXPECT_GT(std::set<float>(a.begin(), a.end()).size(), 99000u);  // not a few repeated values

  Rng r3(8);
  fill_uniform(b, -1.5f, 2.5f, r3);
  EXPECT_NE(a, b);
}

// The generator must not depend on the standard library's distributions: pin its first values.
TEST(FillUniform, IsPinnedToRawDraws) {
  Rng rng(1);
  std::vector<float> v(3);
  fill_uniform(v, 0.0f, 1.0f, rng);
  Rng raw(1);
  for (const float x : v) EXPECT_EQ(x, static_cast<float>(static_cast<double>(raw() >> 40) * 0x1p-24));
}

}  // namespace
}  // namespace cudalab
