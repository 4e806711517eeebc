// finding: data_race | 19 | combine their results with atomicAdd
// finding on gpu: wrong_output | - | of sum wrong
// Bug: each block adds its partial sum with `*sum += t`, a plain read and write. Blocks run at
// the same time on a GPU: two of them read the same old value and one addition is lost (the
// simulator runs blocks one after another, so the output alone looks right there).
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
  if (threadIdx.x == 0) *sum += partial[0];
}

void solve(const float* x, float* sum, int n) {
  cudaMemset(sum, 0, sizeof(float));
  block_sums<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, sum, n);
}
