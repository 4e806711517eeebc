// The student's loop on a machine without a GPU: save an edit of a 03_matmul kernel, run
// `cudalab check 3 --backend sim`, read the verdict. Each iteration edits the file (a new comment,
// so that nothing comes from the module cache) and runs the real CLI as a process: translation,
// compile, the runner, the judging, and — by default — the checked build compiled at the same time
// and its run at the small sizes. `_fast` is `check --fast` (no checked run). The budget: a median
// of at most 1.5 s for the default on a 2-core machine. Figures go to docs/performance.md.
#include <benchmark/benchmark.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void BM_EditToVerdict(benchmark::State& state, const char* exercise, const char* file, const char* extra) {
  const fs::path solution = fs::path(CUDALAB_SOURCE_DIR) / "solutions" / exercise / file;
  const std::string text = read(solution);
  if (text.empty()) {
    state.SkipWithError(("cannot read " + solution.string()).c_str());
    return;
  }
  const fs::path dir = fs::temp_directory_path() / ("cudalab-edit-bench-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path edited = dir / "kernel.cu";
  // A cache of its own: every edit compiles, as a student's does.
  const fs::path cache = dir / "cache";
  const std::string command = std::string("cd ") + CUDALAB_SOURCE_DIR + " && CUDALAB_CACHE_DIR=" + cache.string() +
                              " " + CUDALAB_PROGRAM + " check " + exercise + " --backend sim --seed 1 --file " +
                              edited.string() + " " + extra + " > " + (dir / "last.log").string() + " 2>&1";
  // A student's first check builds the precompiled prelude of the cache (once, for good): done
  // here, outside the timing, with an edit that is not timed.
  std::size_t edit = 0;
  std::ofstream(edited) << "// warm-up of run " << getpid() << "\n" << text;
  if (std::system(command.c_str()) != 0) {
    state.SkipWithError(("the check did not pass: " + command).c_str());
    return;
  }
  for (auto _ : state) {
    state.PauseTiming();
    std::ofstream(edited) << "// edit " << ++edit << " of run " << getpid() << "\n" << text;
    state.ResumeTiming();
    const int status = std::system(command.c_str());
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      state.SkipWithError(("the check did not pass: " + command).c_str());
      break;
    }
  }
  if (!state.error_occurred()) fs::remove_all(dir);  // kept with its log when a check failed
}

// Five edits each, the median reported (the budget is on the median). Two files: the reference
// (register-blocked, four instantiations of its kernel: the heaviest compile of the exercise) and
// the ladder's shared-memory tiling, the kernel the exercise asks a student to write.
#define CUDALAB_EDIT_BENCH(name, file, extra)                         \
  BENCHMARK_CAPTURE(BM_EditToVerdict, name, "03_matmul", file, extra) \
      ->Unit(benchmark::kMillisecond)                                 \
      ->UseRealTime()                                                 \
      ->Iterations(1)                                                 \
      ->Repetitions(5)
CUDALAB_EDIT_BENCH(matmul_default, "kernel.cu", "");
CUDALAB_EDIT_BENCH(matmul_fast, "kernel.cu", "--fast");
CUDALAB_EDIT_BENCH(matmul_shared_tiles_default, "step2_shared_tiles.cu", "");
CUDALAB_EDIT_BENCH(matmul_shared_tiles_fast, "step2_shared_tiles.cu", "--fast");

}  // namespace

BENCHMARK_MAIN();
