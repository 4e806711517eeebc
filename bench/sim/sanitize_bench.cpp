// The cost of the checked run on the simulator: a whole check of each exercise's reference solution
// (all its sizes, the modules cached) with `--fast` (plain), as `check` runs it by default (the
// plain build on every size, the checked build on the small ones, at the same time), and with
// `--sanitize` (the checked build for every size). Figures go to docs/performance.md.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>
#include <stdexcept>

#include "cudalab/exercise_check.hpp"
#include "cudalab/registry.hpp"
#include "cudalab/toolchain.hpp"

namespace {

namespace fs = std::filesystem;
using namespace cudalab;

const Toolchain& toolchain(bool checked) {
  static std::unique_ptr<Toolchain> made[2];
  auto& tc = made[checked ? 1 : 0];
  if (!tc) {
    ToolchainConfig config;
    config.cache_dir = CUDALAB_SIM_BENCH_CACHE;
    config.runner_dir = CUDALAB_SIM_RUNNER_DIR;
    config.checked = checked;
    tc = make_sim_toolchain(config);
  }
  return *tc;
}

enum class Mode { fast, by_default, sanitize };

void BM_Check(benchmark::State& state, const char* exercise, Mode mode) {
  const Task& task = *find_task(exercise);
  const fs::path source = fs::path(CUDALAB_SOURCE_DIR) / "solutions" / exercise / "kernel.cu";
  CheckOptions options;
  options.seed = 1;
  options.sanitize = mode == Mode::sanitize;
  if (mode == Mode::by_default) options.checked_toolchain = &toolchain(true);
  const Toolchain& main = toolchain(mode == Mode::sanitize);
  (void)check_exercise(task, main, source, options);  // compiles once, outside the timing
  for (auto _ : state) {
    const ExerciseResult r = check_exercise(task, main, source, options);
    if (r.verdict != Verdict::passed) throw std::runtime_error(std::string(exercise) + " did not pass");
  }
}

#define CUDALAB_CHECK_BENCH(EX)                                                                                   \
  BENCHMARK_CAPTURE(BM_Check, EX##_fast, #EX, Mode::fast)->Unit(benchmark::kMillisecond)->UseRealTime();          \
  BENCHMARK_CAPTURE(BM_Check, EX##_default, #EX, Mode::by_default)->Unit(benchmark::kMillisecond)->UseRealTime(); \
  BENCHMARK_CAPTURE(BM_Check, EX##_sanitize, #EX, Mode::sanitize)->Unit(benchmark::kMillisecond)->UseRealTime();
CUDALAB_CHECK_BENCH(01_increment)
CUDALAB_CHECK_BENCH(02_vector_add)
CUDALAB_CHECK_BENCH(03_matmul)
CUDALAB_CHECK_BENCH(04_normalize)
CUDALAB_CHECK_BENCH(05_reduce)

}  // namespace

BENCHMARK_MAIN();
