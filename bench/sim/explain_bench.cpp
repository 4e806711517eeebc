// The speed of `cudalab explain` on the simulator: one exercise at its representative size (the
// issue's budget: under 5 s on the 2-core machine). Warm: the checked module and nvcc's register
// counts cached, as on every run after the first; cold: a fresh cache, so the checked build is
// compiled (and nvcc asked, where it is installed). Figures go to docs/explain.md.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "cudalab/explain.hpp"
#include "cudalab/registry.hpp"
#include "cudalab/toolchain.hpp"

namespace {

namespace fs = std::filesystem;
using namespace cudalab;

std::unique_ptr<Toolchain> checked_toolchain(const fs::path& cache) {
  ToolchainConfig config;
  config.cache_dir = cache;
  config.runner_dir = CUDALAB_SIM_RUNNER_DIR;
  config.checked = true;
  return make_sim_toolchain(config);
}

ExplainOptions options_with(const fs::path& cache) {
  ExplainOptions options;
  options.cache_dir = cache;
  return options;
}

void check_explained(const ExplainResult& r, const std::string& what) {
  if (!r.ran()) throw std::runtime_error(what + " did not run: " + r.message);
}

/// `file` relative to the source tree, explained as exercise `exercise`.
void BM_ExplainWarm(benchmark::State& state, const char* exercise, const char* file) {
  const Task& task = *find_task(exercise);
  const fs::path source = fs::path(CUDALAB_SOURCE_DIR) / file;
  const fs::path cache = CUDALAB_SIM_BENCH_CACHE;
  const auto toolchain = checked_toolchain(cache);
  check_explained(explain_exercise(task, *toolchain, source, options_with(cache)), file);  // fills the caches
  for (auto _ : state) {
    const ExplainResult r = explain_exercise(task, *toolchain, source, options_with(cache));
    benchmark::DoNotOptimize(r.findings.size());
  }
}

void BM_ExplainCold(benchmark::State& state, const char* exercise, const char* file) {
  const Task& task = *find_task(exercise);
  const fs::path source = fs::path(CUDALAB_SOURCE_DIR) / file;
  const fs::path cache = fs::path(CUDALAB_SIM_BENCH_CACHE) / "explain-cold";
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove_all(cache);
    const auto toolchain = checked_toolchain(cache);
    state.ResumeTiming();
    const ExplainResult r = explain_exercise(task, *toolchain, source, options_with(cache));
    check_explained(r, file);
  }
  fs::remove_all(cache);
}

#define CUDALAB_EXPLAIN_BENCH(NAME, EX, FILE)                                                      \
  BENCHMARK_CAPTURE(BM_ExplainWarm, NAME, EX, FILE)->Unit(benchmark::kMillisecond)->UseRealTime(); \
  BENCHMARK_CAPTURE(BM_ExplainCold, NAME, EX, FILE)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
CUDALAB_EXPLAIN_BENCH(transpose_reference, "09_transpose", "solutions/09_transpose/kernel.cu")
CUDALAB_EXPLAIN_BENCH(transpose_unpadded, "09_transpose", "tests/explain/09_transpose/unpadded_tile.cu")
CUDALAB_EXPLAIN_BENCH(matmul_reference, "03_matmul", "solutions/03_matmul/kernel.cu")
CUDALAB_EXPLAIN_BENCH(matmul_naive, "03_matmul", "tests/explain/03_matmul/naive_no_tiles.cu")
CUDALAB_EXPLAIN_BENCH(reduce_reference, "05_reduce", "solutions/05_reduce/kernel.cu")

}  // namespace

BENCHMARK_MAIN();
