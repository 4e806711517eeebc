// The exercise contract seen from the trusted side: what a task must define so that the harness
// can generate inputs, compute the expected outputs, judge a submission and report its cost.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudalab {

/// Element type of a buffer passed to `solve`.
enum class DType { f32, i32 };

/// Size in bytes of one element of `t`.
std::size_t dtype_size(DType t);

/// How `solve` uses a buffer: read only, write only, or read and write in place.
enum class Role { input, output, inout };

/// Whether `solve` receives host pointers (it must transfer data itself) or device pointers.
enum class PointerKind { host, device };

/// One parameter of `solve`: a pointer to a buffer, or an `int` taken from the case's dimensions.
struct Param {
  /// A pointer to a buffer, or an `int` dimension.
  enum class Kind { buffer, scalar_int };
  Kind kind = Kind::buffer;  ///< which of the two this parameter is
  std::string name;          ///< as written in the contract: "data", "n", "M"
  DType dtype = DType::f32;  ///< element type, for buffers
  bool is_const = false;     ///< `const T*`: the buffer is an input
};

/// The exact `solve` signature of an exercise (the contract in exercises/NN_name/kernel.cu and README.md).
struct Signature {
  std::vector<Param> params;  ///< in declaration order

  /// C++ spelling, e.g. `void solve(const float* a, const float* b, float* c, int n)`.
  [[nodiscard]] std::string text() const;
  /// Itanium-ABI mangled name of that function, e.g. `_Z5solvePKfS0_Pfi`.
  [[nodiscard]] std::string mangled_name() const;
};

/// One named problem dimension of a case, e.g. {"n", 257} or {"K", 17}.
struct Dim {
  std::string name;        ///< as in the signature: "n", "K"
  std::int64_t value = 0;  ///< its value in this case
};

/// The arithmetic a check allows for. fp32: the exercise's contract. tf32: the inputs of each
/// product may be rounded to TF32 (10 mantissa bits), as tensor cores do; only for tasks whose
/// TaskInfo says so (03_matmul's tensor-core tier).
enum class Precision { fp32, tf32 };

/// One check: the problem size the submission is run at.
struct Case {
  std::vector<Dim> dims;  ///< the problem dimensions, in the task's order
  bool large = false;     ///< the size meant to fill the device
  /// The arithmetic the check allows; the task's cases() leave fp32, the caller sets the option asked for.
  Precision precision = Precision::fp32;

  /// Value of dimension `name`; throws std::out_of_range if the case has none.
  [[nodiscard]] std::int64_t dim(const std::string& name) const;
  /// "n=257" or "M=33 N=17 K=65" ("M=33 N=17 K=65 TF32" when checked at TF32 precision).
  [[nodiscard]] std::string label() const;
};

/// A host-side buffer with its contract name and role.
struct Buffer {
  std::string name;              ///< the parameter's name in the signature: "a", "out"
  DType dtype = DType::f32;      ///< element type
  Role role = Role::input;       ///< how `solve` uses it
  std::vector<std::byte> bytes;  ///< the elements, as raw bytes
  int rows = 0;                  ///< for 2D buffers (row-major): the hints and `cudalab show` read it; 0 when 1D
  int cols = 0;                  ///< for 2D buffers: elements per row; 0 when 1D

  /// A buffer of `count` zeroed elements.
  static Buffer make(std::string name, DType dtype, Role role, std::size_t count);
  /// Number of elements.
  [[nodiscard]] std::size_t count() const { return bytes.size() / dtype_size(dtype); }
  /// The elements as floats; the dtype must be f32.
  [[nodiscard]] std::span<float> f32();
  /// The elements as floats; the dtype must be f32.
  [[nodiscard]] std::span<const float> f32() const;
  /// The elements as ints; the dtype must be i32.
  [[nodiscard]] std::span<std::int32_t> i32();
  /// The elements as ints; the dtype must be i32.
  [[nodiscard]] std::span<const std::int32_t> i32() const;
  /// Element `i` widened to double, whatever the dtype.
  [[nodiscard]] double value(std::size_t i) const;
};

/// What the harness fills float outputs with before solve runs (poison() in case_data.hpp): a
/// signalling NaN with a payload. Copies keep its bits, but any arithmetic on it (x86 and GPUs
/// alike) yields a quiet NaN, so an element that still holds exactly these bits was never written,
/// and `*sum += x` on a never-initialised poison reads as a written NaN, not as "never written".
inline constexpr std::uint32_t kPoisonF32Bits = 0x7FA0DEADu;
/// What the harness fills int outputs with.
inline constexpr std::int32_t kPoisonI32 = 0x7EADBEEF;

/// Whether one element holds the poison of its type (for loops that read a buffer's elements
/// through their type; is_poison reads one element of a Buffer).
inline bool is_poison_element(float v) { return std::bit_cast<std::uint32_t>(v) == kPoisonF32Bits; }
inline bool is_poison_element(std::int32_t v) { return v == kPoisonI32; }

/// What a correct submission must produce in one output buffer, with the allowed error per element.
struct Expected {
  std::size_t buffer = 0;     ///< index into the case's buffers
  std::vector<double> value;  ///< computed in float64
  /// |actual − value| ≤ tolerance, one per element; empty when every element must be exact (a
  /// large case's zeros would be half a gigabyte of fresh memory to fill and read).
  std::vector<double> tolerance;

  /// Element `i`'s tolerance (0 where the tolerance is empty).
  [[nodiscard]] double tolerance_at(std::size_t i) const { return tolerance.empty() ? 0.0 : tolerance[i]; }
};

/// Work a correct solution does at one size, for throughput reports.
struct Cost {
  double bytes = 0;  ///< fewest bytes moved through device memory (each input read, each output written once)
  double flops = 0;  ///< floating-point operations
};

/// Which sizes to check: the large size depends on the backend (the simulator runs on a CPU).
struct CaseOptions {
  bool simulator = false;  ///< checking on the simulator: a large case a CPU runs in seconds
};

/// Static facts about an exercise.
struct TaskInfo {
  int number = 0;                              ///< 1 for 01_increment
  std::string id;                              ///< folder name, "01_increment"
  std::string name;                            ///< short name, "increment"
  std::string summary;                         ///< one line for `cudalab list`
  std::string teaches;                         ///< the CUDA concept it practises, a few words: "shared-memory tiling"
  PointerKind pointers = PointerKind::device;  ///< whether `solve` gets host or device pointers
  Signature signature;                         ///< the exact `solve` a submission must define
  bool requires_shared_memory = false;         ///< some launch of `solve` must use shared memory
  bool requires_2d_launch = false;             ///< some launch of `solve` must have a 2D grid or block (`dim3`)
  /// `solve` must fill a `__constant__` variable (a cudaMemcpyToSymbol record)
  bool requires_constant_memory = false;
  /// Host pointers, page-locked by the harness: `solve` must move every element in and out once,
  /// by cudaMemcpyAsync in chunks on two or more streams, with kernels on those streams; on a GPU
  /// some copy must overlap a kernel (the copy and launch records show it).
  bool requires_streams = false;
  /// Its kernels update an array in place, step by step (a scan's tree): a race there is fixed by a
  /// barrier between reading and writing, or by double buffering, never by an atomic update.
  bool in_place_steps = false;
  bool supports_tf32 = false;  ///< reference() knows the tolerance of Precision::tf32
};

/// Random source for input generation, seeded per run and per case so that `--seed` reproduces.
using Rng = std::mt19937_64;

/// A number derived from the run's seed for one `purpose` (a keyed pseudo-random function): what
/// may reach a submission (a case's seed, which its inputs reveal; the thread-order seed the runner
/// receives) is always derived, so that a submission cannot compute the seed of a class, nor the
/// inputs of cases it never saw.
std::uint64_t derive_from_seed(std::uint64_t run_seed, std::string_view purpose);

/// The seed of one case's inputs: derived from the run's seed, the exercise and the case's
/// dimensions only (not from its position in a list), so that `check --size 257`, a full check,
/// `bench` and the grader give the n=257 case the same inputs under one seed. `input_set` numbers
/// bench's rotating input sets; set 0 is the one `check` runs.
std::uint64_t case_seed(std::uint64_t run_seed, const TaskInfo& info, const Case& c, std::size_t input_set = 0);

/// Fills `out` with uniform values in [lo, hi).
void fill_uniform(std::span<float> out, float lo, float hi, Rng& rng);

/// An exercise's task: inputs, reference, checking rule and cost model. Lives in the parent
/// process only; the student's code never sees it.
class Task {
 public:
  virtual ~Task() = default;

  /// The exercise's static facts: name, signature, requirements.
  [[nodiscard]] virtual const TaskInfo& info() const = 0;
  /// Sizes to check: tiny, around block and tile boundaries, odd shapes, one large.
  [[nodiscard]] virtual std::vector<Case> cases(const CaseOptions& options) const = 0;
  /// Every buffer of the signature, in parameter order, inputs filled from `rng` (never all
  /// zeros), outputs sized but left for the harness to poison.
  [[nodiscard]] virtual std::vector<Buffer> make_buffers(const Case& c, Rng& rng) const = 0;
  /// The expected content of every output and inout buffer, with per-element tolerances derived
  /// from the float32 arithmetic a correct kernel does.
  [[nodiscard]] virtual std::vector<Expected> reference(const Case& c, const std::vector<Buffer>& inputs) const = 0;
  /// Work a correct solution does at size `c`, for throughput and percent of peak.
  [[nodiscard]] virtual Cost cost(const Case& c) const = 0;
  /// The CPU implementation a user would otherwise run, the speedup baseline: float32, optimised
  /// and vectorised (a BLAS where one exists), on `threads` host threads. Fills the output and
  /// inout buffers of `buffers` (laid out as make_buffers returns them) in place.
  virtual void cpu_solve(const Case& c, std::vector<Buffer>& buffers, int threads) const = 0;
  /// What cpu_solve is, for reports: "OpenBLAS sgemm", "OpenMP + SIMD loop".
  [[nodiscard]] virtual std::string cpu_solve_name() const = 0;
  /// An exercise-specific explanation of a wrong output ("your sum equals the sum of the first
  /// 256 elements: ..."), or nothing when no known mistake matches.
  [[nodiscard]] virtual std::optional<std::string> diagnose(const Case& c, const std::vector<Buffer>& inputs,
                                                            const Buffer& actual, const Expected& expected) const {
    (void)c, (void)inputs, (void)actual, (void)expected;
    return std::nullopt;
  }
};

}  // namespace cudalab
