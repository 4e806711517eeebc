// Speed of the CPU simulator (docs/performance.md). Kernels come from bench/sim/kernels/bench.cu,
// compiled once through the real sim toolchain.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <boost/context/detail/fcontext.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <vector>

#include "cudalab/toolchain.hpp"

namespace {

namespace ctx = boost::context::detail;

void* bench_module() {
  static void* handle = [] {
    cudalab::ToolchainConfig c;
    c.cache_dir = CUDALAB_SIM_BENCH_CACHE;
    c.runner_dir = CUDALAB_SIM_RUNNER_DIR;
    auto tc = cudalab::make_sim_toolchain(c);
    const auto r = tc->compile(std::filesystem::path(CUDALAB_SIM_BENCH_KERNELS) / "bench.cu");
    if (!r.ok) {
      std::fprintf(stderr, "cannot compile bench.cu:\n%s\n", r.diagnostics.c_str());
      std::exit(1);
    }
    void* h = dlopen(r.module.c_str(), RTLD_NOW);
    if (h == nullptr) {
      std::fprintf(stderr, "%s\n", dlerror());
      std::exit(1);
    }
    return h;
  }();
  return handle;
}

template <class F>
F* entry(const char* name) {
  return reinterpret_cast<F*>(dlsym(bench_module(), name));
}

// ---- raw fiber switch: two fcontexts ping-ponging (the floor under every barrier) ----------------
void pong(ctx::transfer_t t) {
  for (;;) t = ctx::jump_fcontext(t.fctx, nullptr);
}

void BM_FiberSwitch(benchmark::State& state) {
  std::vector<char> stack(64 * 1024);
  ctx::fcontext_t f = ctx::make_fcontext(stack.data() + stack.size(), stack.size(), pong);
  for (auto _ : state) {
    f = ctx::jump_fcontext(f, nullptr).fctx;  // there and back: two switches
  }
  state.SetItemsProcessed(2 * state.iterations());
  state.counters["ns_per_switch"] = benchmark::Counter(2.0 * static_cast<double>(state.iterations()),
                                                       benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_FiberSwitch);

// ---- __syncthreads: cost per thread per barrier (one fiber switch each) ---------------------------
void BM_Syncthreads(benchmark::State& state) {
  auto* run = entry<int(int*, int, int, int)>("bench_barriers");
  const int blocks = 1, threads = static_cast<int>(state.range(0)), rounds = 64;
  int* d = nullptr;
  cudaMalloc(&d, sizeof(int) * blocks * threads);
  for (auto _ : state) run(d, blocks, threads, rounds);
  cudaFree(d);
  const double waits = static_cast<double>(state.iterations()) * blocks * threads * rounds;
  state.counters["ns_per_thread_barrier"] =
      benchmark::Counter(waits, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Syncthreads)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);

void BM_WarpShuffle(benchmark::State& state) {
  auto* run = entry<int(int*, int, int, int)>("bench_shuffles");
  const int blocks = 1, threads = 256, rounds = 64;
  int* d = nullptr;
  cudaMalloc(&d, sizeof(int) * blocks * threads);
  for (auto _ : state) run(d, blocks, threads, rounds);
  cudaFree(d);
  const double ops = static_cast<double>(state.iterations()) * blocks * threads * rounds;
  state.counters["ns_per_thread_shuffle"] =
      benchmark::Counter(ops, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_WarpShuffle)->Unit(benchmark::kMicrosecond);

// ---- the course's tiled matmul (Numba's simulator: 77 s for 128x128) ----------------------------
void BM_TiledMatmul(benchmark::State& state) {
  auto* run = entry<int(const float*, const float*, float*, int, int, int)>("bench_matmul");
  const int n = static_cast<int>(state.range(0));
  std::vector<float> A(n * n), B(n * n), C(n * n);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& v : A) v = u(rng);
  for (auto& v : B) v = u(rng);
  float *dA, *dB, *dC;
  cudaMalloc(&dA, n * n * sizeof(float));
  cudaMalloc(&dB, n * n * sizeof(float));
  cudaMalloc(&dC, n * n * sizeof(float));
  cudaMemcpy(dA, A.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  for (auto _ : state) {
    if (run(dA, dB, dC, n, n, n) != cudaSuccess) state.SkipWithError("launch failed");
  }
  cudaMemcpy(C.data(), dC, n * n * sizeof(float), cudaMemcpyDeviceToHost);
  double err = 0;
  for (int i = 0; i < n; i += 7)
    for (int j = 0; j < n; j += 5) {
      double ref = 0;
      for (int k = 0; k < n; ++k) ref += static_cast<double>(A[i * n + k]) * B[k * n + j];
      err = std::max(err, std::abs(ref - C[i * n + j]));
    }
  if (err > 1e-3) state.SkipWithError("wrong result");
  state.counters["threads"] = static_cast<double>(n) * n;
  state.counters["speedup_vs_numba_77s"] =
      benchmark::Counter(77.0 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
}
BENCHMARK(BM_TiledMatmul)->Arg(128)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---- barrier-free kernel: per-thread overhead of the fast path ----------------------------------
void BM_VectorAdd(benchmark::State& state) {
  auto* run = entry<int(const float*, const float*, float*, int)>("bench_vector_add");
  const int n = static_cast<int>(state.range(0));
  float *a, *b, *c;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  cudaMemset(a, 0, n * sizeof(float));
  cudaMemset(b, 0, n * sizeof(float));
  for (auto _ : state) run(a, b, c, n);
  state.counters["ns_per_thread"] = benchmark::Counter(static_cast<double>(state.iterations()) * n,
                                                       benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}
BENCHMARK(BM_VectorAdd)->Arg(1 << 20)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
