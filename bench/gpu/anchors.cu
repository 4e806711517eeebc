// Library anchors on the GPU: what the exercises' tasks cost when a library does them, timed the
// way `cudalab bench` times solutions (CUDA events around the call, the L2 flushed before each
// iteration by the runner's own read-only flush, the whole device synchronised before the event
// is read).
//
//   cudalab-bench-gpu [--benchmark_format=json] [--benchmark_min_time=0.5]   (seconds, no unit: benchmark 1.7)
//
// JSON output (Google Benchmark's): one entry per benchmark with "real_time" (ms, manual time from
// events), "bytes_per_second" (bytes read + written), "items_per_second" where FLOPs apply
// (FLOP/s), and "label" naming the library call.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cub/device/device_reduce.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_support.hpp"  // harness/runner: the L2 flush `cudalab bench` uses

namespace {

constexpr int N = 1 << 26;         // the exercises' large 1D size

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
    std::exit(1);
  }
}

/// Device buffers and the events shared by all benchmarks.
struct Device {
  float* a = nullptr;
  float* b = nullptr;
  float* c = nullptr;
  float* sum = nullptr;
  cudaEvent_t start, stop;

  Device() {
    check(cudaMalloc(&a, N * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&b, N * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&c, N * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&sum, sizeof(float)), "cudaMalloc");
    std::vector<float> h(N);
    for (int i = 0; i < N; ++i) h[i] = 0.5f + static_cast<float>(i % 1000) * 1e-3f;
    check(cudaMemcpy(a, h.data(), N * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(b, h.data(), N * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaEventCreate(&start), "event");
    check(cudaEventCreate(&stop), "event");
  }
};

Device& device() {
  static Device d;
  return d;
}

/// Times `fn` once per benchmark iteration with events, the L2 flushed first.
template <typename Fn>
void time_with_events(benchmark::State& state, Fn&& fn) {
  Device& d = device();
  static cudalab::runner::L2Flush flush_l2;
  fn();  // warm-up: library initialisation, module loading
  check(cudaDeviceSynchronize(), "warm-up");
  for (auto _ : state) {
    flush_l2();
    check(cudaEventRecord(d.start), "event");
    fn();
    check(cudaEventRecord(d.stop), "event");
    check(cudaDeviceSynchronize(), "after the call");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, d.start, d.stop), "elapsed");
    state.SetIterationTime(ms * 1e-3);
  }
}

struct Increment {
  __device__ float operator()(float x) const { return x + 1.0f; }
};
struct Square {
  __device__ float operator()(float x) const { return x * x; }
};
struct Scale {
  float inv;
  __device__ float operator()(float x) const { return x * inv; }
};

void BM_CopyDeviceToDevice(benchmark::State& state) {
  Device& d = device();
  time_with_events(state, [&] { check(cudaMemcpyAsync(d.c, d.a, N * sizeof(float), cudaMemcpyDeviceToDevice), "copy"); });
  state.SetBytesProcessed(state.iterations() * 2LL * N * sizeof(float));
  state.SetLabel("cudaMemcpy device to device (anchor for 01, 02)");
}

void BM_ThrustIncrement(benchmark::State& state) {
  Device& d = device();
  auto p = thrust::device_pointer_cast(d.c);
  time_with_events(state, [&] { thrust::transform(thrust::device, p, p + N, p, Increment{}); });
  state.SetBytesProcessed(state.iterations() * 2LL * N * sizeof(float));
  state.SetLabel("thrust::transform x + 1 in place (anchor for 01)");
}

void BM_ThrustVectorAdd(benchmark::State& state) {
  Device& d = device();
  auto a = thrust::device_pointer_cast(d.a), b = thrust::device_pointer_cast(d.b), c = thrust::device_pointer_cast(d.c);
  time_with_events(state, [&] { thrust::transform(thrust::device, a, a + N, b, c, thrust::plus<float>()); });
  state.SetBytesProcessed(state.iterations() * 3LL * N * sizeof(float));
  state.SetLabel("thrust::transform a + b (anchor for 02)");
}

/// cuBLAS SGEMM of n×n×n (n = the benchmark's argument) on the first n² floats of a, b and c.
/// `math`: CUBLAS_PEDANTIC_MATH (FP32 throughout, as the exercise) or CUBLAS_TF32_TENSOR_OP_MATH
/// (the anchor of the tensor-core tier).
void cublas_sgemm(benchmark::State& state, cublasMath_t math, const char* label) {
  Device& d = device();
  static cublasHandle_t handle = [] {
    cublasHandle_t h;
    cublasCreate(&h);
    return h;
  }();
  cublasSetMathMode(handle, math);
  const int n = static_cast<int>(state.range(0));
  const float one = 1.0f, zero = 0.0f;
  // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: swap the operands.
  time_with_events(state, [&] { cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, d.b, n, d.a, n, &zero, d.c, n); });
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * n * n * n * state.iterations(), benchmark::Counter::kIsRate);
  state.SetBytesProcessed(state.iterations() * 3LL * n * n * sizeof(float));
  state.SetLabel(label);
}

void BM_CublasSgemm(benchmark::State& state) {
  cublas_sgemm(state, CUBLAS_PEDANTIC_MATH, "cuBLAS SGEMM n^3, pedantic FP32 (anchor for 03)");
}

void BM_CublasSgemmTF32(benchmark::State& state) {
  cublas_sgemm(state, CUBLAS_TF32_TENSOR_OP_MATH, "cuBLAS SGEMM n^3, TF32 tensor cores (anchor for the TF32 tier of 03)");
}

void BM_ThrustNormalize(benchmark::State& state) {
  Device& d = device();
  auto x = thrust::device_pointer_cast(d.a), y = thrust::device_pointer_cast(d.c);
  time_with_events(state, [&] {
    const float sumsq = thrust::transform_reduce(thrust::device, x, x + N, Square{}, 0.0f, thrust::plus<float>());
    thrust::transform(thrust::device, x, x + N, y, Scale{1.0f / std::sqrt(sumsq)});
  });
  state.SetBytesProcessed(state.iterations() * 3LL * N * sizeof(float));
  state.SetLabel("thrust transform_reduce + transform (anchor for 04; 12 bytes per element)");
}

void BM_CubReduce(benchmark::State& state) {
  Device& d = device();
  static void* temp = nullptr;
  static size_t temp_bytes = 0;
  if (temp == nullptr) {
    cub::DeviceReduce::Sum(nullptr, temp_bytes, d.a, d.sum, N);
    check(cudaMalloc(&temp, temp_bytes), "cub temp");
  }
  time_with_events(state, [&] { cub::DeviceReduce::Sum(temp, temp_bytes, d.a, d.sum, N); });
  state.SetBytesProcessed(state.iterations() * (static_cast<long long>(N) * sizeof(float) + sizeof(float)));
  state.SetLabel("cub::DeviceReduce::Sum (anchor for 05)");
}

}  // namespace

BENCHMARK(BM_CopyDeviceToDevice)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ThrustIncrement)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ThrustVectorAdd)->UseManualTime()->Unit(benchmark::kMicrosecond);
// The matmul exercise's large size (2048) and the issue's two targets (1024, 4096); 4096² floats
// fit in the 2^26 of each buffer.
BENCHMARK(BM_CublasSgemm)->Arg(1024)->Arg(2048)->Arg(4096)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CublasSgemmTF32)->Arg(1024)->Arg(2048)->Arg(4096)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ThrustNormalize)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CubReduce)->UseManualTime()->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
