// Speed ladder for 05_reduce, step 2 of 4: a tree reduction in shared memory, one atomic per block.
//
// Contract: void solve(const float* x, float* sum, int n) — DEVICE pointers; x holds n >= 1
// floats, sum points to ONE float whose initial content is garbage.
//
// What this step teaches: cooperate inside a block first. Each block loads 256 elements into
// shared memory and adds them pairwise in log2(256) = 8 rounds: 128 threads add two values each,
// then 64, ..., then 1. Only the block's total goes to *sum, so there are 256× fewer atomics than
// in step 1, and the atomics stop being the bottleneck.
//
// What still limits it: every round needs a __syncthreads(), and the last rounds keep only a few
// threads busy while the whole block waits for them. Step 3 does those rounds with warp shuffles.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(err));
  }
}

}  // namespace

constexpr int THREADS_PER_BLOCK = 256;  // a power of two: the tree halves it every round

__global__ void reduce_shared_tree(const float* __restrict__ x, float* sum, int n) {
  __shared__ float partial[THREADS_PER_BLOCK];

  const int tid = threadIdx.x;
  const int i = blockIdx.x * THREADS_PER_BLOCK + tid;
  partial[tid] = i < n ? x[i] : 0.0f;  // past the end, a zero adds nothing
  __syncthreads();

  // Sequential addressing: in each round thread t adds partial[t + stride] into partial[t]. The
  // active threads are the first `stride`, so whole warps stay active or idle together (no
  // divergence inside a warp until stride < 32), and a warp reads 32 consecutive floats, one per
  // bank (no bank conflicts). Every thread reaches every barrier: the `if` is inside the loop.
  for (int stride = THREADS_PER_BLOCK / 2; stride > 0; stride /= 2) {
    if (tid < stride) partial[tid] += partial[tid + stride];
    __syncthreads();
  }

  // Blocks run in any order and cannot wait for each other: each adds its total atomically.
  if (tid == 0) atomicAdd(sum, partial[0]);
}

void solve(const float* x, float* sum, int n) {
  check(cudaMemset(sum, 0, sizeof(float)), "cudaMemset(sum)");  // *sum arrives as garbage

  const int blocks = (n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;  // one element per thread
  reduce_shared_tree<<<blocks, THREADS_PER_BLOCK>>>(x, sum, n);
  check(cudaGetLastError(), "launch of reduce_shared_tree");
}
