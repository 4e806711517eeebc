// expect: uninitialized_read | shared memory that no thread of this block had written
// finding: uninitialized_read | 19 | write 0 instead of skipping
// finding on gpu: skip: compute-sanitizer does not look for reads of unwritten shared memory, and what they read on a GPU depends on the kernels before
// only on: sim
// Bug: threads past n skip the store to their shared-memory slot, and the tree then adds those
// unwritten slots. Shared memory is not zeroed on a GPU: it holds whatever was there before, and
// the simulator fills it with NaN before every block, so even n = 1 fails. (On a GPU the result
// depends on what an earlier kernel left, so this kernel is checked on the simulator only.)
#include <cuda_runtime.h>

constexpr int THREADS_PER_BLOCK = 256;

__global__ void block_sums(const float* x, float* sum, int n) {
  __shared__ float partial[THREADS_PER_BLOCK];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) partial[threadIdx.x] = x[i];  // the bug: no `else partial[threadIdx.x] = 0.0f;`
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}

void solve(const float* x, float* sum, int n) {
  cudaMemset(sum, 0, sizeof(float));
  block_sums<<<(n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, THREADS_PER_BLOCK>>>(x, sum, n);
}
