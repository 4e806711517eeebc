// The CPU baselines that GPU speedups are quoted against (Task::cpu_solve), at each task's large
// GPU size, on 1 thread and on every core. Before timing, each baseline's output is checked
// against the task's float64 reference once; a baseline that fails is reported as an error, not
// timed.
//
//   cudalab-bench-cpu [--benchmark_filter=matmul] [--benchmark_format=json] [--benchmark_out=F]
//
// Names are "<exercise>/threads:<T>/real_time", e.g. "03_matmul/threads:2/real_time".
// With --benchmark_format=json (or --benchmark_out=F --benchmark_out_format=json) Google
// Benchmark writes one object:
//   "context":    host facts: "date", "host_name", "num_cpus", "mhz_per_cpu", "caches" [...],
//                 "load_avg", "library_build_type"; plus ours: "baseline.<exercise>" = the
//                 cpu_solve_name() ("OpenBLAS 0.3.21 sgemm (Haswell kernels)") and
//                 "size.<exercise>" = the case label ("n=67108864", "M=2048 N=2048 K=2048").
//   "benchmarks": one entry per (exercise, threads) with
//       "name", "run_name", "iterations", "real_time", "cpu_time" (of the calling thread only:
//       read real_time), "time_unit": "ms",
//       "bytes_per_second": the task's cost-model bytes (each input read and each output written
//                           once, Task::cost) per second of real time,
//       "FLOP/s":           the cost model's floating-point operations per second (absent for
//                           01_increment, whose adds are integer),
//       "threads_used":     the thread count passed to cpu_solve; Google Benchmark's own
//                           "threads" is always 1 (one caller; OpenMP or OpenBLAS threads inside).
//   Debian's libbenchmark reports "library_build_type": "debug" (and warns so); that is the
//   library's own bookkeeping, not the code measured, which is built with -O3.
//   With --benchmark_repetitions=R each entry is repeated, followed by "_mean", "_median",
//   "_stddev" and "_cv" aggregates ("run_type": "aggregate").
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cudalab/registry.hpp"
#include "cudalab/task.hpp"

namespace {

using cudalab::Buffer;
using cudalab::Case;
using cudalab::Task;

/// One task's large case with its buffers, made (and checked) once and reused by every run.
struct Prepared {
  Case c;
  std::vector<Buffer> buffers;
  std::string error;  ///< non-empty when the baseline's output failed the check
};

/// Whether cpu_solve passes the task's own check at `c`; the reason when not.
std::string check(const Task& t, const Case& c, const std::vector<Buffer>& inputs, int threads) {
  auto buffers = inputs;
  t.cpu_solve(c, buffers, threads);
  for (const cudalab::Expected& e : t.reference(c, inputs)) {
    const Buffer& got = buffers.at(e.buffer);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < e.value.size(); ++i) {
      const double v = got.value(i);
      if (!std::isfinite(v) || !(std::abs(v - e.value[i]) <= e.tolerance[i])) ++bad;
    }
    if (bad != 0) {
      return std::to_string(bad) + " wrong elements in " + got.name + " on " + std::to_string(threads) + " thread(s)";
    }
  }
  return {};
}

/// The size the task fills a GPU with: the speedup over the CPU is quoted there.
Case large_case(const Task& t) {
  const auto cases = t.cases(cudalab::CaseOptions{false});
  return *std::find_if(cases.begin(), cases.end(), [](const Case& c) { return c.large; });
}

Prepared prepare(const Task& t) {
  Prepared p;
  p.c = large_case(t);
  cudalab::Rng rng(1);
  p.buffers = t.make_buffers(p.c, rng);
  for (const int threads : {1, static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))}) {
    if (p.error.empty()) p.error = check(t, p.c, p.buffers, threads);
  }
  return p;
}

void run(benchmark::State& state, const Task& t, Prepared& p) {
  if (!p.error.empty()) {
    state.SkipWithError(p.error.c_str());
    return;
  }
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    // 01_increment works in place: its data drifts by 1 per iteration, which costs the same.
    t.cpu_solve(p.c, p.buffers, threads);
    benchmark::ClobberMemory();
  }
  const cudalab::Cost cost = t.cost(p.c);
  state.SetBytesProcessed(static_cast<std::int64_t>(cost.bytes) * state.iterations());
  if (cost.flops > 0) {
    state.counters["FLOP/s"] =
        benchmark::Counter(cost.flops, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  }
  state.counters["threads_used"] = threads;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Kept alive until the runs end; prepared lazily, so a --benchmark_filter skips the others.
  const auto& tasks = cudalab::all_tasks();
  std::vector<std::unique_ptr<Prepared>> prepared(tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const Task& t = *tasks[i];
    std::unique_ptr<Prepared>& slot = prepared[i];
    auto* b = benchmark::RegisterBenchmark(t.info().id.c_str(), [&t, &slot](benchmark::State& s) {
      if (!slot) slot = std::make_unique<Prepared>(prepare(t));
      run(s, t, *slot);
    });
    b->ArgName("threads")->Arg(1);
    if (cores > 1) b->Arg(cores);
    b->UseRealTime()->Unit(benchmark::kMillisecond);
    benchmark::AddCustomContext("baseline." + t.info().id, t.cpu_solve_name());
    benchmark::AddCustomContext("size." + t.info().id, large_case(t).label());
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
