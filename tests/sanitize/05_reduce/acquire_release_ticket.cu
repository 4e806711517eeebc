// finding: none
// Correct: as correct_fence_pattern.cu, with libcu++'s atomics in place of the fence: the ticket
// is a cuda::atomic_ref fetch_add with acquire-release order, which publishes this block's partial
// sum before the ticket and shows the last block every partial published before its own.
#include <cuda_runtime.h>
#include <cuda/atomic>

constexpr int THREADS = 128;

__device__ unsigned int blocks_done = 0;

__global__ void reduce(const float* x, float* partials, float* sum, int n) {
  __shared__ float s[THREADS];
  __shared__ bool last;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int stride = THREADS / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = s[0];
    cuda::atomic_ref<unsigned int, cuda::thread_scope_device> done(blocks_done);
    last = done.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    float total = 0.0f;
    for (unsigned b = 0; b < gridDim.x; ++b) total += partials[b];
    *sum = total;
    cuda::atomic_ref<unsigned int, cuda::thread_scope_device>(blocks_done).store(0u, cuda::memory_order_relaxed);
  }
}

void solve(const float* x, float* sum, int n) {
  const int blocks = (n + THREADS - 1) / THREADS;
  float* d_partials = nullptr;
  cudaMalloc(&d_partials, blocks * sizeof(float));
  reduce<<<blocks, THREADS>>>(x, d_partials, sum, n);
  cudaFree(d_partials);
}
