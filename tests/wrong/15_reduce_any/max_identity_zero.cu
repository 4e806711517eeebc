// expect: wrong_output | max is 0: the identity of max is -INFINITY, not 0
// Bug: Max's identity is 0, the identity of the sum. Threads with no element, and the unused
// lanes of the second pass, start from 0, and max(0, v) is 0 for every negative v: wherever all
// values are negative, the maximum comes out as 0.
#include <cuda_runtime.h>

#include <algorithm>

constexpr int THREADS = 256;
constexpr int MAX_BLOCKS = 1024;

struct Sum {
  static __device__ float identity() { return 0.0f; }
  static __device__ float apply(float a, float b) { return a + b; }
};

struct Max {
  static __device__ float identity() { return 0.0f; }  // the bug: -INFINITY
  static __device__ float apply(float a, float b) { return fmaxf(a, b); }
};

struct Min {
  static __device__ float identity() { return INFINITY; }
  static __device__ float apply(float a, float b) { return fminf(a, b); }
};

// Reduces in[0..count) with Op; each block writes its result to out[blockIdx.x].
template <class Op>
__global__ void reduce(const float* in, float* out, int count) {
  __shared__ float warp_parts[THREADS / 32];
  float v = Op::identity();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += blockDim.x * gridDim.x) v = Op::apply(v, in[i]);
  for (int offset = 16; offset > 0; offset /= 2) v = Op::apply(v, __shfl_down_sync(0xffffffffu, v, offset));
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  if (lane == 0) warp_parts[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < THREADS / 32 ? warp_parts[lane] : Op::identity();
    for (int offset = 16; offset > 0; offset /= 2) v = Op::apply(v, __shfl_down_sync(0xffffffffu, v, offset));
    if (lane == 0) out[blockIdx.x] = v;
  }
}

// Pass 1: a partial result per block; pass 2: one block combines them into *result.
template <class Op>
void reduce_into(const float* x, float* partials, float* result, int n) {
  const int blocks = std::min((n + THREADS - 1) / THREADS, MAX_BLOCKS);
  reduce<Op><<<blocks, THREADS>>>(x, partials, n);
  reduce<Op><<<1, THREADS>>>(partials, result, blocks);
}

void solve(const float* x, float* results, int n) {
  float* partials = nullptr;
  cudaMalloc(&partials, MAX_BLOCKS * sizeof(float));
  reduce_into<Sum>(x, partials, results + 0, n);
  reduce_into<Max>(x, partials, results + 1, n);
  reduce_into<Min>(x, partials, results + 2, n);
  cudaFree(partials);
}
