// 03_matmul: C = A·B, row-major, A is M×K, B is K×N, device pointers; tiled through shared memory.
#include <cblas.h>  // OpenBLAS's: exercises/CMakeLists.txt finds it through pkg-config

#include <cmath>
#include <cstdint>
#include <mutex>
#include <sstream>

#include "../task_support.hpp"

namespace cudalab::tasks {
namespace {

struct Shape {
  std::int64_t M, N, K;
};

Case make_case(Shape s, bool large = false) { return Case{{{"M", s.M}, {"N", s.N}, {"K", s.K}}, large}; }

class MatmulTask final : public Task {
 public:
  MatmulTask() {
    info_.number = 3;
    info_.id = "03_matmul";
    info_.name = "matmul";
    info_.summary = "C = A·B, tiled through shared memory";
    info_.teaches = "2D grids; shared-memory tiling and data reuse";
    info_.pointers = PointerKind::device;
    info_.requires_shared_memory = true;  // the exercise is tiling through shared memory
    info_.supports_tf32 = true;           // the tensor-core tier (solutions/03_matmul/tf32_*.cu)
    info_.signature.params = {
        {Param::Kind::buffer, "A", DType::f32, true},      {Param::Kind::buffer, "B", DType::f32, true},
        {Param::Kind::buffer, "C", DType::f32, false},     {Param::Kind::scalar_int, "M", DType::i32, false},
        {Param::Kind::scalar_int, "N", DType::i32, false}, {Param::Kind::scalar_int, "K", DType::i32, false},
    };
  }

  [[nodiscard]] const TaskInfo& info() const override { return info_; }

  // Tiles are usually 16 or 32 wide: shapes at tile±1, thin rows and columns, K = 1 (an outer
  // product) and M = N = 1 (a dot product), non-square and non-power-of-two shapes. Three shapes
  // have exactly one of M, N, K off a multiple of 32 (33: off every power of two), beside a square
  // multiple of the tile, so that a failure tied to one dimension names that dimension.
  [[nodiscard]] std::vector<Case> cases(const CaseOptions& options) const override {
    std::vector<Case> out;
    for (const Shape s : {Shape{1, 1, 1}, Shape{1, 1, 64}, Shape{1, 33, 17}, Shape{31, 1, 33}, Shape{64, 64, 1},
                          Shape{16, 16, 16}, Shape{17, 17, 17}, Shape{15, 33, 31}, Shape{32, 32, 32}, Shape{33, 32, 32},
                          Shape{32, 33, 32}, Shape{32, 32, 33}, Shape{64, 64, 64}, Shape{33, 31, 65}, Shape{64, 48, 80},
                          Shape{100, 1, 100}, Shape{1, 100, 100}, Shape{255, 257, 129}, Shape{256, 256, 256}}) {
      out.push_back(make_case(s));
    }
    // The simulator runs every thread on a CPU; its large case stays within a second or so. The
    // first large case is the one `bench` times.
    out.push_back(make_case(options.simulator ? Shape{192, 160, 176} : Shape{2048, 2048, 2048}, true));
    // On a GPU, a second large case with odd edges and more tiles than SMs: kernels often take
    // another path for grids that fill the GPU (the reference pads unaligned rows there).
    if (!options.simulator) out.push_back(make_case(Shape{1029, 2051, 1031}, true));
    return out;
  }

  [[nodiscard]] std::vector<Buffer> make_buffers(const Case& c, Rng& rng) const override {
    const std::size_t M = dim_size(c, "M"), N = dim_size(c, "N"), K = dim_size(c, "K");
    Buffer A = Buffer::make("A", DType::f32, Role::input, M * K);
    A.rows = static_cast<int>(M);  // its shape, for `cudalab show`'s pictures
    A.cols = static_cast<int>(K);
    Buffer B = Buffer::make("B", DType::f32, Role::input, K * N);
    B.rows = static_cast<int>(K);  // its shape, for `cudalab show`'s pictures
    B.cols = static_cast<int>(N);
    // Small positive offsets keep the row·column sums away from zero (a zero result hides
    // everything) and differ between A and B so that A·A or B·B patterns stand out.
    fill_uniform(A.f32(), -1.0f + 0.125f, 1.0f + 0.125f, rng);
    fill_uniform(B.f32(), -1.0f + 0.0625f, 1.0f + 0.0625f, rng);
    ensure_not_all_zero(A.f32(), 0.125f);
    ensure_not_all_zero(B.f32(), 0.0625f);
    Buffer C = Buffer::make("C", DType::f32, Role::output, M * N);
    C.rows = static_cast<int>(M);
    C.cols = static_cast<int>(N);
    return {std::move(A), std::move(B), std::move(C)};
  }

  // A float32 dot product of length K, summed in any order (sequential, tiled, tree, with or
  // without FMA), has error Σ_k δ_k·s_k, where |δ_k| ≤ u and the s_k are partial sums bounded by
  // Σ_k |A_ik·B_kj|. The worst case grows like K·u, but the roundings are independent and
  // zero-mean, so the error grows like u·√K (Higham & Mary, "A New Approach to Probabilistic
  // Rounding Error Analysis", 2019): its standard deviation is at most u/√3·√K·Σ|A_ik·B_kj|.
  // The allowance 4·u·√K·Σ|A_ik·B_kj| is about 7 of those and, for K ≤ 16, above the worst
  // case K·u·Σ|A_ik·B_kj| as well. The float64 reference itself is exact to ~K·2^-53;
  // kTinyFloat covers flush-to-zero of tiny products.
  [[nodiscard]] std::vector<Expected> reference(const Case& c, const std::vector<Buffer>& inputs) const override {
    const auto M = static_cast<std::int64_t>(c.dim("M"));
    const auto N = static_cast<std::int64_t>(c.dim("N"));
    const auto K = static_cast<std::int64_t>(c.dim("K"));
    const auto A = inputs.at(0).f32();
    const auto B = inputs.at(1).f32();
    Expected e;
    e.buffer = 2;
    e.value.assign(static_cast<std::size_t>(M * N), 0.0);
    e.tolerance.assign(static_cast<std::size_t>(M * N), 0.0);
    // TF32 (tensor cores): each input may also be rounded to 10 mantissa bits, to nearest or
    // toward zero (|δ| ≤ 2^-10), so each product is off by at most 2·2^-10 + 2^-20 of itself. That
    // bound holds term by term, so it holds for the sum: allow 2^-9·1.01·Σ|A_ik·B_kj| on top.
    const double input_rounding = c.precision == Precision::tf32 ? 1.01 * std::ldexp(1.0, -9) : 0.0;
    const double scale = 4.0 * kUnitRoundoff * std::sqrt(static_cast<double>(K)) + input_rounding;
    // i-k-j order: the inner loop streams a row of B into a row of C (vectorises, cache
    // friendly); each thread owns whole rows, so no two threads write the same element.
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < M; ++i) {
      double* value = e.value.data() + i * N;
      double* magnitude = e.tolerance.data() + i * N;  // Σ_k |A_ik·B_kj|, scaled below
      for (std::int64_t k = 0; k < K; ++k) {
        const double a = A[static_cast<std::size_t>(i * K + k)];
        const float* b = B.data() + k * N;
        for (std::int64_t j = 0; j < N; ++j) {
          const double p = a * static_cast<double>(b[j]);
          value[j] += p;
          magnitude[j] += std::abs(p);
        }
      }
      for (std::int64_t j = 0; j < N; ++j) magnitude[j] = scale * magnitude[j] + kTinyFloat;
    }
    return {std::move(e)};
  }

  // A, B read once and C written once (what a perfectly tiled kernel would move); one multiply
  // and one add per (i, j, k).
  [[nodiscard]] Cost cost(const Case& c) const override {
    const auto M = static_cast<double>(c.dim("M"));
    const auto N = static_cast<double>(c.dim("N"));
    const auto K = static_cast<double>(c.dim("K"));
    return {4.0 * (M * K + K * N + M * N), 2.0 * M * N * K};
  }

  // The honest baseline for a matrix product is a tuned BLAS, not a loop nest: OpenBLAS picks
  // kernels for the CPU it runs on at load time (Debian builds it with DYNAMIC_ARCH). beta = 0
  // means C is written without being read, so the harness's poison in C does not leak through.
  void cpu_solve(const Case& c, std::vector<Buffer>& buffers, int threads) const override {
    const auto M = static_cast<blasint>(c.dim("M"));
    const auto N = static_cast<blasint>(c.dim("N"));
    const auto K = static_cast<blasint>(c.dim("K"));
    const float* A = buffers.at(0).f32().data();
    const float* B = buffers.at(1).f32().data();
    float* C = buffers.at(2).f32().data();
    // OpenBLAS's thread count is process-wide: setting it and calling sgemm is one step.
    static std::mutex openblas;
    const std::lock_guard lock(openblas);
    openblas_set_num_threads(cpu_threads(threads));
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, A, K, B, N, 0.0f, C, N);
  }

  // "OpenBLAS 0.3.21 sgemm (Haswell kernels)": the library actually loaded and the kernels it
  // chose for this CPU.
  [[nodiscard]] std::string cpu_solve_name() const override {
    std::istringstream config(openblas_get_config());  // "OpenBLAS 0.3.21 NO_LAPACKE ..."
    std::string library, version;
    config >> library >> version;
    std::string name = library + " " + version + " sgemm (" + openblas_get_corename() + " kernels)";
    // An OpenBLAS older than the CPU falls back to SSE3 kernels and makes the GPU look faster than it is.
    const std::string core = openblas_get_corename();
    if ((core == "Prescott" || core == "Core2" || core == "Nehalem") && __builtin_cpu_supports("avx2")) {
      name +=
          "; this OpenBLAS did not recognise the CPU: set OPENBLAS_CORETYPE=Haswell (or SkylakeX) for a fair baseline";
    }
    return name;
  }

  [[nodiscard]] std::optional<std::string> diagnose(const Case& c, const std::vector<Buffer>& inputs,
                                                    const Buffer& actual, const Expected& expected) const override {
    (void)inputs;
    const std::size_t M = dim_size(c, "M"), N = dim_size(c, "N");
    const auto out = actual.f32();
    if (out.size() != M * N || expected.value.size() != M * N) return std::nullopt;
    // With one row or one column, the transposed layout is the same layout.
    if (M < 2 || N < 2) return std::nullopt;
    // The kernel wrote C[col][row] = C[col * M + row] (row and col swapped in the index).
    for (std::size_t i = 0; i < M; ++i) {
      for (std::size_t j = 0; j < N; ++j) {
        const std::size_t at = i * N + j;
        if (!(std::abs(static_cast<double>(out[j * M + i]) - expected.value[at]) <= expected.tolerance[at])) {
          return std::nullopt;
        }
      }
    }
    return std::string("C is transposed: C[row][col] is at C[row * N + col]");
  }

 private:
  TaskInfo info_;
};

CUDALAB_REGISTER_TASK(MatmulTask);

}  // namespace
}  // namespace cudalab::tasks
