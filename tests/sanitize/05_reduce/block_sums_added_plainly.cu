// finding: data_race | 22 | atomicAdd
// finding on gpu: skip: a lost update is a wrong sum at some size, or none, run by run (an H200: n=257)
// Bug: each block adds its sum into *sum with a plain `+=`: two blocks read one old value, one update
// is lost. On the simulator (blocks run in turn) the sum is often right; the checks name the race.
#include <cuda_runtime.h>

constexpr int THREADS = 256;

__global__ void block_sums(const float* x, float* sum, int n) {
  __shared__ float partial[THREADS];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int stride = THREADS / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    // Another block can read *sum here, before this block's store below: one sum is lost.
    const float before = *sum;
    const float mine = partial[0];
    *sum = before + mine;
  }
}

void solve(const float* x, float* sum, int n) {
  cudaMemset(sum, 0, sizeof(float));
  block_sums<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, sum, n);
}
