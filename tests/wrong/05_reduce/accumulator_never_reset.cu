// expect: wrong_output | left something behind
// never: not a multiple of
// Bug: the blocks add into a `__device__` accumulator that starts at zero when the module is
// loaded and is never reset, then copy it to *sum. The first call is right; every later call adds
// its sum onto the totals of all the calls before it.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>

constexpr int THREADS_PER_BLOCK = 256;

__device__ float g_total = 0.0f;

__global__ void accumulate(const float* x, int n) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
  for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(&g_total, acc);
}

__global__ void copy_total(float* sum) { *sum = g_total; }

void solve(const float* x, float* sum, int n) {
  const int blocks = std::min((n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, 1024);
  accumulate<<<blocks, THREADS_PER_BLOCK>>>(x, n);
  copy_total<<<1, 1>>>(sum);
}
