// explain: occupancy | 12 | limited by shared memory
// Each block of 64 threads stages 10240 floats (40 KB) in shared memory before adding them: 5
// blocks fill an H100 SM's 228 KB of shared memory, 10 of its 64 warps. Too few loads are in flight
// to keep the memory busy; the staging buys nothing a register accumulator would not do.
#include <cuda_runtime.h>

constexpr int THREADS = 64;
constexpr int PER_THREAD = 160;
constexpr int PER_BLOCK = THREADS * PER_THREAD;

__global__ void block_sums(const float* x, float* sum, int n) {
  __shared__ float staging[PER_BLOCK];
  __shared__ float partial[THREADS];
  const int base = blockIdx.x * PER_BLOCK;
  for (int k = threadIdx.x; k < PER_BLOCK; k += THREADS) staging[k] = base + k < n ? x[base + k] : 0.0f;
  __syncthreads();
  float total = 0.0f;
  for (int k = threadIdx.x; k < PER_BLOCK; k += THREADS) total += staging[k];
  partial[threadIdx.x] = total;
  __syncthreads();
  for (int stride = THREADS / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}

void solve(const float* x, float* sum, int n) {
  cudaMemset(sum, 0, sizeof(float));
  block_sums<<<(n + PER_BLOCK - 1) / PER_BLOCK, THREADS>>>(x, sum, n);
}
