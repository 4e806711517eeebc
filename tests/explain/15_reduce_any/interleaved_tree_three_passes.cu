// explain: divergence | 36 | `if (tid < stride)` with the stride halving each step
// A first attempt at 15_reduce_any: one template for any operator, one thread per element, and the
// interleaved tree in shared memory. At stride s only threads whose index is a multiple of 2s
// combine, so every warp stays busy through every step with 16, 8, 4, 2, 1 of its 32 lanes
// working. The answers are right (max and min exactly). It also runs the template three times,
// once per operator, reading x three times: 3 × the bytes the task needs, under the traffic
// finding's 4 ×, so only the tree is named. The reference fuses the three operators into one pass.
#include <cuda_runtime.h>

constexpr int THREADS = 256;

struct Sum {
  static __device__ float identity() { return 0.0f; }
  static __device__ float apply(float a, float b) { return a + b; }
};
struct Max {
  static __device__ float identity() { return -INFINITY; }
  static __device__ float apply(float a, float b) { return fmaxf(a, b); }
};
struct Min {
  static __device__ float identity() { return INFINITY; }
  static __device__ float apply(float a, float b) { return fminf(a, b); }
};

// Each block writes its result to out[blockIdx.x]; the grid-stride loop lets one block take a
// whole array of partial results in the second pass.
template <class Op>
__global__ void reduce(const float* in, float* out, int count) {
  __shared__ float s[THREADS];
  const unsigned tid = threadIdx.x;
  float v = Op::identity();
  for (int i = blockIdx.x * THREADS + tid; i < count; i += gridDim.x * THREADS) v = Op::apply(v, in[i]);
  s[tid] = v;
  __syncthreads();
  for (unsigned stride = 1; stride < THREADS; stride *= 2) {
    if (tid % (2 * stride) == 0) s[tid] = Op::apply(s[tid], s[tid + stride]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

template <class Op>
void reduce_into(const float* x, float* partial, float* result, int n) {
  const int blocks = (n + THREADS - 1) / THREADS;  // one thread per element
  reduce<Op><<<blocks, THREADS>>>(x, partial, n);
  reduce<Op><<<1, THREADS>>>(partial, result, blocks);
}

void solve(const float* x, float* results, int n) {
  float* partial = nullptr;
  cudaMalloc(&partial, ((n + THREADS - 1) / THREADS) * sizeof(float));
  reduce_into<Sum>(x, partial, results + 0, n);
  reduce_into<Max>(x, partial, results + 1, n);
  reduce_into<Min>(x, partial, results + 2, n);
  cudaFree(partial);
}
