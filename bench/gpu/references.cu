// Every reference solution against the limit that bounds it, measured in one process on one GPU:
// the memory-bound ones against a device-to-device copy, the host-pointer ones against the host
// link both ways at once, 03_matmul against cuBLAS SGEMM and its TF32 tiers against cuBLAS TF32 of
// the same shapes. Each solution is compiled into this program in its own namespace and timed as
// `cudalab bench` times it: the L2 flushed before every call, CUDA events around a device-pointer
// call, the host's clock around a host-pointer call (its copies included), the median of the calls.
// Shapes beyond the exercises' own: the long rows of 08 and 12, and odd matmul shapes.
//
//   cudalab-bench-refs [--calls N]      prints a Markdown table (docs/performance.md)
//
// The "around solve" times include the launch of the first kernel, a few microseconds that no
// kernel can avoid; the launch floor (an empty kernel timed the same way) is printed with them.
#include <cooperative_groups.h>  // before the solutions, which include these inside their namespaces
#include <cublas_v2.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_support.hpp"  // harness/runner: the L2 flush `cudalab bench` uses

// clang-format off
namespace ex01 {
#include "solutions/01_increment/kernel.cu"
}
namespace ex02 {
#include "solutions/02_vector_add/kernel.cu"
}
namespace ex03 {
#include "solutions/03_matmul/kernel.cu"
}
namespace ex03tf32 {
#include "solutions/03_matmul/tf32_tensor_cores.cu"
}
namespace ex03wgmma {
#include "solutions/03_matmul/tf32_wgmma_tma.cu"
}
namespace ex04 {
#include "solutions/04_normalize/kernel.cu"
}
namespace ex05 {
#include "solutions/05_reduce/kernel.cu"
}
namespace ex06 {
#include "solutions/06_scale_2d/kernel.cu"
}
namespace ex07 {
#include "solutions/07_polynomial_map/kernel.cu"
}
namespace ex08 {
#include "solutions/08_row_norms/kernel.cu"
}
namespace ex09 {
#include "solutions/09_transpose/kernel.cu"
}
namespace ex10 {
#include "solutions/10_histogram/kernel.cu"
}
namespace ex11 {
#include "solutions/11_scan/kernel.cu"
}
namespace ex12 {
#include "solutions/12_softmax/kernel.cu"
}
namespace ex13 {
#include "solutions/13_median_filter/kernel.cu"
}
namespace ex14 {
#include "solutions/14_streams/kernel.cu"
}
namespace ex15 {
#include "solutions/15_reduce_any/kernel.cu"
}
// clang-format on

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "cudalab-bench-refs: %s: %s\n", what, cudaGetErrorString(err));
    std::exit(1);
  }
}

void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cudalab-bench-refs: %s: cuBLAS status %d\n", what, static_cast<int>(status));
    std::exit(1);
  }
}

int g_calls = 30;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Flushes the L2 as `cudalab bench` does (one flush buffer for the whole program).
void flush_l2() {
  static cudalab::runner::L2Flush flush;
  flush();
}

/// Median seconds of `fn` with events around it (device-pointer calls), the L2 flushed first.
double time_device(const std::function<void()>& fn) {
  static cudaEvent_t start = nullptr, stop = nullptr;
  if (start == nullptr) {
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
  }
  fn();  // warm-up: module loading, first-call set-up
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<double> times;
  for (int i = 0; i < g_calls; ++i) {
    flush_l2();
    check(cudaEventRecord(start), "cudaEventRecord");
    fn();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaDeviceSynchronize(), "after the call");  // work on other streams counts too
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times.push_back(ms * 1e-3);
  }
  return median(times);
}

/// Median seconds of `fn` by the host's clock until the device is idle (host-pointer calls).
double time_host(const std::function<void()>& fn) {
  fn();
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<double> times;
  for (int i = 0; i < std::max(5, g_calls / 3); ++i) {
    flush_l2();
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    check(cudaDeviceSynchronize(), "after the call");
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(times);
}

__global__ void empty_kernel() {}

// Deterministic inputs: floats in [-1, 1), or ints in [0, range).
__global__ void fill_floats(float* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = static_cast<float>(h & 0xffffff) / 8388608.0f - 1.0f;
  }
}
__global__ void fill_ints(int* p, size_t n, int range) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u;
    h ^= h >> 15;
    p[i] = static_cast<int>(h % static_cast<unsigned>(range));
  }
}

struct Row {
  std::string what, shape;
  double seconds;
  double amount;      // bytes or flops of one call
  bool flops;         // amount is flops
  std::string limit;  // the limit's name
  double limit_rate;  // bytes/s or flop/s
};

std::vector<Row> g_rows;

void add(const std::string& what, const std::string& shape, double seconds, double amount, bool flops,
         const std::string& limit, double limit_rate) {
  g_rows.push_back({what, shape, seconds, amount, flops, limit, limit_rate});
  const double rate = amount / seconds;
  std::fprintf(stderr, "  %-28s %-22s %10.2f us  %6.1f %% of %s\n", what.c_str(), shape.c_str(), seconds * 1e6,
               100 * rate / limit_rate, limit.c_str());
}

std::string dims(long long a, long long b) { return std::to_string(a) + "×" + std::to_string(b); }
std::string dims(long long a, long long b, long long c) { return dims(a, b) + "×" + std::to_string(c); }

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--calls") == 0 && i + 1 < argc) {
      g_calls = std::max(5, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: cudalab-bench-refs [--calls N]\n");
      return 2;
    }
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int clock_khz = 0;
  check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0), "cudaDeviceGetAttribute");
  int driver = 0;
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");

  constexpr size_t kBuffer = size_t{1} << 30;  // bytes of each of three device buffers
  float *a = nullptr, *b = nullptr, *c = nullptr;
  check(cudaMalloc(&a, kBuffer), "cudaMalloc");
  check(cudaMalloc(&b, kBuffer), "cudaMalloc");
  check(cudaMalloc(&c, kBuffer), "cudaMalloc");
  fill_floats<<<1024, 256>>>(a, kBuffer / 4, 1);
  fill_floats<<<1024, 256>>>(b, kBuffer / 4, 2);
  check(cudaDeviceSynchronize(), "filling the inputs");

  // ---- anchors ----
  const double copy_s = time_device([&] { check(cudaMemcpy(c, a, kBuffer, cudaMemcpyDeviceToDevice), "copy"); });
  const double copy_bw = 2.0 * kBuffer / copy_s;
  const double floor_s = time_device([] { empty_kernel<<<1, 32>>>(); });
  constexpr size_t kLink = size_t{1} << 28;
  void *host_in = nullptr, *host_out = nullptr;
  check(cudaHostAlloc(&host_in, kLink, 0), "cudaHostAlloc");
  check(cudaHostAlloc(&host_out, kLink, 0), "cudaHostAlloc");
  std::memset(host_in, 1, kLink);
  cudaStream_t up = nullptr, down = nullptr;
  check(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking), "cudaStreamCreate");
  const double duplex_s = time_host([&] {
    check(cudaMemcpyAsync(a, host_in, kLink, cudaMemcpyHostToDevice, up), "copy in");
    check(cudaMemcpyAsync(host_out, b, kLink, cudaMemcpyDeviceToHost, down), "copy out");
  });
  const double duplex_bw = 2.0 * kLink / duplex_s;
  cublasHandle_t blas = nullptr;
  check(cublasCreate(&blas), "cublasCreate");
  std::fprintf(stderr, "anchors: copy %.0f GB/s, host link both ways %.1f GB/s, launch floor %.2f us\n", copy_bw / 1e9,
               duplex_bw / 1e9, floor_s * 1e6);

  // ---- host-pointer exercises: against the link both ways ----
  const int n = 1 << 26;
  {
    int* data = nullptr;
    float *x = nullptr, *y = nullptr, *z = nullptr;
    check(cudaHostAlloc(&data, n * sizeof(int), 0), "cudaHostAlloc");
    check(cudaHostAlloc(&x, n * sizeof(float), 0), "cudaHostAlloc");
    check(cudaHostAlloc(&y, n * sizeof(float), 0), "cudaHostAlloc");
    check(cudaHostAlloc(&z, n * sizeof(float), 0), "cudaHostAlloc");
    std::memset(data, 0, n * sizeof(int));
    for (int i = 0; i < n; ++i) x[i] = y[i] = static_cast<float>(i % 1000) * 1e-3f;
    add("01_increment", "n=2^26", time_host([&] { ex01::solve(data, n); }), 8.0 * n, false, "host link", duplex_bw);
    add("02_vector_add", "n=2^26", time_host([&] { ex02::solve(x, y, z, n); }), 12.0 * n, false, "host link",
        duplex_bw);
    add("14_streams", "n=2^26", time_host([&] { ex14::solve(x, z, n); }), 8.0 * n, false, "host link", duplex_bw);
    cudaFreeHost(data);
    cudaFreeHost(x);
    cudaFreeHost(y);
    cudaFreeHost(z);
  }

  // ---- device-pointer, memory-bound: against the copy ----
  const int M = 8192, N = 8193;
  const double mn = static_cast<double>(M) * N;
  add("04_normalize", "n=2^26", time_device([&] { ex04::solve(a, c, n); }), 12.0 * n, false, "copy", copy_bw);
  add("05_reduce", "n=2^26", time_device([&] { ex05::solve(a, c, n); }), 4.0 * n + 4, false, "copy", copy_bw);
  add("06_scale_2d", dims(M, N), time_device([&] { ex06::solve(a, b, c, M, N); }), 8.0 * mn, false, "copy", copy_bw);
  add("07_polynomial_map", "n=2^26", time_device([&] { ex07::solve(b, a, c, n); }), 8.0 * n, false, "copy", copy_bw);
  add("08_row_norms", dims(M, N), time_device([&] { ex08::solve(a, c, M, N); }), 4.0 * mn + 4.0 * M, false, "copy",
      copy_bw);
  add("08_row_norms", dims(64, 1 << 20), time_device([&] { ex08::solve(a, c, 64, 1 << 20); }),
      4.0 * 64 * (1 << 20) + 4.0 * 64, false, "copy", copy_bw);
  add("09_transpose", dims(M, N), time_device([&] { ex09::solve(a, c, M, N); }), 8.0 * mn, false, "copy", copy_bw);
  {
    int* values = reinterpret_cast<int*>(b);
    fill_ints<<<1024, 256>>>(values, n, 256);
    check(cudaDeviceSynchronize(), "filling the values");
    add("10_histogram", "n=2^26, 256 bins",
        time_device([&] { ex10::solve(values, reinterpret_cast<int*>(c), n, 256); }), 4.0 * n + 4.0 * 256, false,
        "copy", copy_bw);
    fill_ints<<<1024, 256>>>(values, n, 100);
    check(cudaDeviceSynchronize(), "filling the values");
    add("11_scan", "n=2^26", time_device([&] { ex11::solve(values, reinterpret_cast<int*>(c), n); }), 8.0 * n, false,
        "copy", copy_bw);
    fill_floats<<<1024, 256>>>(b, kBuffer / 4, 2);
    check(cudaDeviceSynchronize(), "filling the inputs");
  }
  add("12_softmax", dims(M, N), time_device([&] { ex12::solve(a, c, M, N); }), 8.0 * mn, false, "copy", copy_bw);
  add("12_softmax", dims(256, 65536), time_device([&] { ex12::solve(a, c, 256, 65536); }), 8.0 * 256 * 65536, false,
      "copy", copy_bw);
  add("13_median_filter", dims(M, N), time_device([&] { ex13::solve(a, c, M, N); }), 8.0 * mn, false, "copy", copy_bw);
  add("15_reduce_any", "n=2^26", time_device([&] { ex15::solve(a, c, n); }), 4.0 * n + 12, false, "copy", copy_bw);

  // ---- matmul: against cuBLAS on the same shapes ----
  const float one = 1.0f, zero = 0.0f;
  const long long shapes[][3] = {
      {1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {4095, 4095, 4095}, {4097, 4093, 4099}};
  for (const auto& s : shapes) {
    const int m = static_cast<int>(s[0]), nn = static_cast<int>(s[1]), k = static_cast<int>(s[2]);
    const double flops = 2.0 * m * nn * k;
    // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: the operands swap.
    check(cublasSetMathMode(blas, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
    const double sgemm_s = time_device([&] {
      check(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, nn, m, k, &one, b, nn, a, k, &zero, c, nn), "sgemm");
    });
    // 128 FP32 lanes per SM (compute capability 8.6 and later, Hopper included), an FMA each per clock.
    add("cuBLAS SGEMM", dims(m, nn, k), sgemm_s, flops, true, "peak FP32",
        2.0 * prop.multiProcessorCount * 128 * clock_khz * 1e3);
    add("03_matmul", dims(m, nn, k), time_device([&] { ex03::solve(a, b, c, m, nn, k); }), flops, true, "cuBLAS SGEMM",
        flops / sgemm_s);
    check(cublasSetMathMode(blas, CUBLAS_TF32_TENSOR_OP_MATH), "cublasSetMathMode");
    const double tf32_s = time_device([&] {
      check(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, nn, m, k, &one, b, nn, a, k, &zero, c, nn), "sgemm");
    });
    add("03_matmul TF32 tier", dims(m, nn, k), time_device([&] { ex03tf32::solve(a, b, c, m, nn, k); }), flops, true,
        "cuBLAS TF32", flops / tf32_s);
    if (prop.major == 9 && prop.minor == 0) {  // the wgmma tier needs a Hopper GPU
      add("03_matmul wgmma tier", dims(m, nn, k), time_device([&] { ex03wgmma::solve(a, b, c, m, nn, k); }), flops,
          true, "cuBLAS TF32", flops / tf32_s);
    }
  }

  std::printf("Device: %s · driver %d.%d · %d SMs · `cudalab-bench-refs --calls %d`\n\n", prop.name, driver / 1000,
              driver % 1000 / 10, prop.multiProcessorCount, g_calls);
  std::printf(
      "Anchors, in this process: device-to-device copy %.0f GB/s (1 GiB, read + write); host link %.1f GB/s "
      "(256 MiB each way at once, page-locked); launch floor %.2f µs (an empty kernel, timed as a call).\n\n",
      copy_bw / 1e9, duplex_bw / 1e9, floor_s * 1e6);
  std::printf(
      "| reference | shape | median around solve | throughput | limit | %% of the limit | less the launch floor |\n");
  std::printf("| --- | --- | ---: | ---: | --- | ---: | ---: |\n");
  for (const Row& r : g_rows) {
    const double rate = r.amount / r.seconds;
    const std::string throughput = r.flops ? std::to_string(static_cast<long long>(rate / 1e9)) + " GFLOP/s"
                                           : std::to_string(static_cast<long long>(rate / 1e9)) + " GB/s";
    // The same time less the launch floor: what the work took once the first kernel started.
    const double less_floor = r.seconds > floor_s ? r.amount / (r.seconds - floor_s) / r.limit_rate : 0;
    std::printf("| %s | %s | %.1f µs | %s | %s | %.1f %% | %.1f %% |\n", r.what.c_str(), r.shape.c_str(),
                r.seconds * 1e6, throughput.c_str(), r.limit.c_str(), 100 * rate / r.limit_rate, 100 * less_floor);
  }
  return 0;
}
