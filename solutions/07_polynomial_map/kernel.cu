// Reference solution for 07_polynomial_map: y[i] = c[0] + c[1]·x[i] + … + c[7]·x[i]^7.
//
// Contract: void solve(const float* coefficients, const float* x, float* y, int n) — DEVICE
// pointers; coefficients holds 8 floats.
//
// - The coefficients go to __constant__ memory, once per call, by a device-to-device
//   cudaMemcpyToSymbolAsync on the launch's stream: no host round trip, and the copy is ordered
//   before the kernel. Every thread of a warp reads the same coefficient at the same time, which
//   the constant cache serves as one broadcast.
// - Horner's rule, 7 fmaf per element: fewer roundings than summing powers, and 14 flops per 8
//   bytes keeps the kernel memory-bound on any GPU, so the rest serves the memory system (on an
//   H100 the kernel moves its bytes as fast as a device-to-device copy, docs/performance.md):
//   float4 loads and stores where x and y are 16-byte aligned, and one pass: a thread per float4,
//   as many blocks as x needs. Blocks start roughly in blockIdx order, so the blocks in flight
//   read one contiguous stretch of x, which the DRAM serves best (a grid sized to the SMs with a
//   grid-stride loop reached 91 %).
// - The symbol copy is a second operation on the stream, a few microseconds that the caller waits
//   for too; the exercise is constant memory, and it is the price of it.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(err));
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

constexpr int DEGREE = 7;
constexpr int THREADS = 256;

__constant__ float c_coefficients[DEGREE + 1];

__device__ __forceinline__ float horner(float x) {
  float p = c_coefficients[DEGREE];
#pragma unroll
  for (int k = DEGREE - 1; k >= 0; --k) p = fmaf(p, x, c_coefficients[k]);
  return p;
}

__device__ __forceinline__ float4 horner4(float4 v) {
  return make_float4(horner(v.x), horner(v.y), horner(v.z), horner(v.w));
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS) polynomial(const float* __restrict__ x, float* __restrict__ y, int n) {
  const long long i = static_cast<long long>(blockIdx.x) * THREADS + threadIdx.x;
  if (VEC) {
    // Thread i maps float4 i; the n % 4 floats after the last whole float4 go to the first threads.
    const long long n4 = n / 4;
    if (i < n4) reinterpret_cast<float4*>(y)[i] = horner4(reinterpret_cast<const float4*>(x)[i]);
    if (i < n - 4 * n4) y[4 * n4 + i] = horner(x[4 * n4 + i]);
  } else if (i < n) {
    y[i] = horner(x[i]);
  }
}

void solve(const float* coefficients, const float* x, float* y, int n) {
  check(cudaMemcpyToSymbolAsync(c_coefficients, coefficients, sizeof(c_coefficients), 0, cudaMemcpyDeviceToDevice),
        "cudaMemcpyToSymbolAsync");
  const bool vec = aligned16(x) && aligned16(y);
  const long long per_block = vec ? 4LL * THREADS : THREADS;  // elements a block maps
  const int blocks = static_cast<int>(std::max(1LL, (static_cast<long long>(n) + per_block - 1) / per_block));
  if (vec) {
    polynomial<true><<<blocks, THREADS>>>(x, y, n);
  } else {
    polynomial<false><<<blocks, THREADS>>>(x, y, n);
  }
  check(cudaGetLastError(), "launch of polynomial");
}
