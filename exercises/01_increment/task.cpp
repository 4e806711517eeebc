// 01_increment: data[i] += 1 on the GPU, with host pointers: the student allocates, copies in,
// launches, copies out and frees.
#include <cstdint>

#include "../task_support.hpp"

namespace cudalab::tasks {
namespace {

class IncrementTask final : public Task {
 public:
  IncrementTask() {
    info_.number = 1;
    info_.id = "01_increment";
    info_.name = "increment";
    info_.summary = "data[i] += 1: allocate, copy in, launch, copy out, free";
    info_.teaches = "kernels, threads and blocks; host-device copies";
    info_.pointers = PointerKind::host;
    info_.signature.params = {
        {Param::Kind::buffer, "data", DType::i32, false},
        {Param::Kind::scalar_int, "n", DType::i32, false},
    };
  }

  [[nodiscard]] const TaskInfo& info() const override { return info_; }

  [[nodiscard]] std::vector<Case> cases(const CaseOptions& options) const override { return cases_1d(options); }

  [[nodiscard]] std::vector<Buffer> make_buffers(const Case& c, Rng& rng) const override {
    Buffer data = Buffer::make("data", DType::i32, Role::inout, dim_size(c, "n"));
    // Negative and positive values: a kernel that writes 1, or i + 1, cannot pass.
    fill_uniform_int(data.i32(), -1000, 1000, rng);
    ensure_not_all_zero(data.i32(), std::int32_t{7});
    return {std::move(data)};
  }

  // Integer arithmetic is exact: the tolerance is 0 (left empty).
  [[nodiscard]] std::vector<Expected> reference(const Case& c, const std::vector<Buffer>& inputs) const override {
    const std::size_t n = dim_size(c, "n");
    const auto data = inputs.at(0).i32();
    Expected e;
    e.buffer = 0;
    e.value.resize(n);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {
      e.value[i] = static_cast<double>(data[i]) + 1.0;
    }
    return {std::move(e)};
  }

  // Each int32 read once and written once; integer adds are not floating-point operations.
  [[nodiscard]] Cost cost(const Case& c) const override { return {8.0 * static_cast<double>(c.dim("n")), 0.0}; }

  void cpu_solve(const Case& c, std::vector<Buffer>& buffers, [[maybe_unused]] int threads) const override {
    const auto n = static_cast<std::int64_t>(c.dim("n"));
    std::int32_t* data = buffers.at(0).i32().data();
#pragma omp parallel for simd num_threads(cpu_threads(threads)) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) data[i] += 1;
  }

  [[nodiscard]] std::string cpu_solve_name() const override { return cpu_loop_name("loop"); }

  [[nodiscard]] std::optional<std::string> diagnose(const Case& c, const std::vector<Buffer>& inputs,
                                                    const Buffer& actual, const Expected& expected) const override {
    (void)expected;
    const std::size_t n = dim_size(c, "n");
    const auto before = inputs.at(0).i32();
    const auto after = actual.i32();
    if (after.size() != n || before.size() != n) return std::nullopt;
    auto delta = [&](std::size_t i) {
      return static_cast<std::int64_t>(after[i]) - static_cast<std::int64_t>(before[i]);
    };

    // cudaMemcpy(..., n, ...) copies n bytes = n/4 ints: the first quarter comes back
    // incremented; the rest comes back unchanged (short copy out) or from uninitialised device
    // memory (short copy in). When n % 4 != 0 the element at n/4 is split (its low n % 4 bytes
    // made the round trip), so it is left out.
    const std::size_t quarter = n / 4;
    if (quarter >= 2) {  // at n < 8 one right element says little
      bool head_right = true;
      for (std::size_t i = 0; i < quarter && head_right; ++i) head_right = delta(i) == 1;
      const std::size_t tail_from = n % 4 == 0 ? quarter : quarter + 1;
      // Garbage + 1 can equal data + 1 by chance (zeroed memory, data == 0): allow 1 in 64.
      std::size_t tail_right = 0;
      for (std::size_t i = tail_from; i < n; ++i) tail_right += delta(i) == 1 ? 1 : 0;
      if (head_right && tail_right * 64 <= n - tail_from) {
        return "only the first n/4 elements changed: cudaMemcpy counts bytes, not elements — "
               "pass n * sizeof(int)";
      }
    }

    // Several threads mapped to one index (e.g. threadIdx.x + blockIdx.x without * blockDim.x)
    // add 1 several times: every change is a small non-negative count, some of them ≥ 2.
    bool small_counts = true;
    bool some_twice = false;
    for (std::size_t i = 0; i < n && small_counts; ++i) {
      const std::int64_t d = delta(i);
      small_counts = d >= 0 && d <= 1024;
      some_twice = some_twice || d >= 2;
    }
    if (small_counts && some_twice) {
      return "some elements were incremented more than once: do two threads compute the same "
             "index?";
    }
    return std::nullopt;
  }

 private:
  TaskInfo info_;
};

CUDALAB_REGISTER_TASK(IncrementTask);

}  // namespace
}  // namespace cudalab::tasks
