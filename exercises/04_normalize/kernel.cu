// 04_normalize — scale a vector to unit length: y = x / ||x||, where ||x|| = sqrt(sum of x[i]^2).
//
// Contract (the harness calls solve; keep the signature exactly as it is):
//   void solve(const float* x, float* y, int n)
//   - x and y are DEVICE pointers to n floats each, n >= 1 (up to tens of millions).
//   - When solve returns, y[i] must equal x[i] / sqrt(x[0]^2 + ... + x[n-1]^2); x unchanged.
//   - The sum of squares must be a block reduction in __shared__ memory.
//   - You may cudaMalloc scratch space (for partial sums); cudaFree it before returning.
//
// Read exercises/04_normalize/README.md first. Check your work with:
//   ./cudalab check 04_normalize
#include <cuda_runtime.h>

#include <stdexcept>

constexpr int THREADS_PER_BLOCK = 256;  // a power of two makes the halving reduction simple
static_assert((THREADS_PER_BLOCK & (THREADS_PER_BLOCK - 1)) == 0, "the halving needs a power of two");

// Pass 1: each block adds up x[i]^2 over its elements and writes one partial sum.
__global__ void sum_of_squares(const float* x, float* partials, int n) {
  // TODO(student): shared memory. Declare __shared__ float cache[THREADS_PER_BLOCK].
  // TODO(student): each thread squares and adds its elements (a grid-stride loop), keeping the
  //   running sum in a register; threads past the end contribute 0.
  // TODO(student): block reduction. Store the thread's sum in cache[threadIdx.x],
  //   __syncthreads(), then halve: for (s = blockDim.x / 2; s > 0; s /= 2) threads below s add
  //   cache[threadIdx.x + s] into cache[threadIdx.x], with __syncthreads() after every step.
  // TODO(student): thread 0 writes cache[0] to partials[blockIdx.x].
}

// Pass 2: y[i] = x[i] / sqrt(total). It must run after ALL blocks of pass 1 have finished:
// blocks cannot wait for each other inside a kernel, but a second launch waits for the first.
__global__ void scale(const float* x, float* y, const float* total, int n) {
  // TODO(student): read the total sum of squares, take sqrtf once, divide every element by it.
}

void solve(const float* x, float* y, int n) {
  // TODO(student): cudaMalloc scratch for the per-block partial sums (and the total).
  // TODO(student): launch sum_of_squares, then combine the partial sums into one total: a second
  //   reduction launch with a single block, or atomicAdd of each block's sum onto a zeroed float.
  // TODO(student): launch scale, then cudaFree the scratch.
  throw std::logic_error("not implemented yet: write sum_of_squares, scale and solve in exercises/04_normalize/kernel.cu");
}
