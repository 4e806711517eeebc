// Speed ladder for 05_reduce, step 1 of 4: one atomicAdd per element.
//
// Contract: void solve(const float* x, float* sum, int n) — DEVICE pointers; x holds n >= 1
// floats, sum points to ONE float whose initial content is garbage.
//
// The simplest correct reduction, and the slowest: every thread adds its element straight into
// *sum. An atomic makes each read-add-write indivisible, so no addition is lost, but atomics on
// ONE address cannot run in parallel: the memory system applies them one after another, and n
// of them take n times the latency of one, however many threads issue them. The rest of the
// ladder is about doing almost all additions in registers and issuing very few atomics.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(err));
  }
}

constexpr int THREADS_PER_BLOCK = 256;

}  // namespace

__global__ void reduce_atomic_per_element(const float* __restrict__ x, float* sum, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(sum, x[i]);
}

void solve(const float* x, float* sum, int n) {
  // atomicAdd adds to whatever *sum holds, and it holds garbage: start from zero.
  check(cudaMemset(sum, 0, sizeof(float)), "cudaMemset(sum)");

  const int blocks = (n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;  // one thread per element
  reduce_atomic_per_element<<<blocks, THREADS_PER_BLOCK>>>(x, sum, n);
  check(cudaGetLastError(), "launch of reduce_atomic_per_element");
}
