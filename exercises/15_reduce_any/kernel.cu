// 15_reduce_any — one reduction template for any associative operator, used three times:
//   results[0] = x[0] + ... + x[n-1],  results[1] = max of x,  results[2] = min of x.
//
// Contract (the harness calls solve; keep the signature exactly as it is):
//   void solve(const float* x, float* results, int n)
//   - x is a DEVICE pointer to n floats, n >= 1 (up to tens of millions); it must stay unchanged.
//   - results is a DEVICE pointer to 3 floats. They start out holding garbage (the harness fills
//     them with NaN); solve must write all three.
//
// Read exercises/15_reduce_any/README.md first. Check your work with:
//   ./cudalab check 15_reduce_any
#include <cuda_runtime.h>

#include <stdexcept>

constexpr int THREADS_PER_BLOCK = 256;  // a multiple of 32: the reduction works warp by warp
constexpr int WARP_SIZE = 32;

// An operator is a struct with two functions: identity(), the value that changes nothing
// (apply(identity(), v) == v), and apply(a, b), which must be associative:
// apply(apply(a, b), c) == apply(a, apply(b, c)). Sum is written for you, as the model.
struct Sum {
  static __device__ float identity() { return 0.0f; }
  static __device__ float apply(float a, float b) { return a + b; }
};

struct Max {
  // TODO(student): identities. Which value v makes max(v, a) == a for EVERY float a? (Not 0:
  //   think of an array whose values are all negative.) INFINITY is defined in CUDA code.
  static __device__ float identity() { return 0.0f; }
  // TODO(student): the operator: fmaxf.
  static __device__ float apply(float a, float b) { return a; }
};

struct Min {
  // TODO(student): the identity of min, and fminf as the operator.
  static __device__ float identity() { return 0.0f; }
  static __device__ float apply(float a, float b) { return a; }
};

// Reduces in[0..count) with Op; each block writes its result to out[blockIdx.x]. Written once,
// for any operator: every `+` of a sum is Op::apply, and every `0` is Op::identity().
template <class Op>
__global__ void reduce(const float* in, float* out, int count) {
  // TODO(student): each thread combines its elements in a register, starting from Op::identity()
  //   (a grid-stride loop: i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += the grid size).
  // TODO(student): warp shuffles, as in 05_reduce, with Op::apply instead of +:
  //   v = Op::apply(v, __shfl_down_sync(0xffffffffu, v, offset)) for offset = 16, 8, 4, 2, 1.
  // TODO(student): lane 0 of each warp stores its value in a __shared__ array (one slot per warp);
  //   __syncthreads(); warp 0 combines the slots (lanes without a slot use Op::identity()), and
  //   thread 0 writes the block's result to out[blockIdx.x].
}

void solve(const float* x, float* results, int n) {
  // TODO(student): two passes per operator, no atomics (there is no atomicMax for floats):
  //   1. reduce<Op><<<blocks, THREADS_PER_BLOCK>>>(x, partials, n) with, say, at most 1024 blocks
  //      writes one partial result per block into scratch memory (cudaMalloc, cudaFree at the end);
  //   2. reduce<Op><<<1, THREADS_PER_BLOCK>>>(partials, results + k, blocks) combines them.
  //   Do it for Sum into results[0], Max into results[1] and Min into results[2].
  throw std::logic_error("not implemented yet: write Max, Min, reduce and solve in exercises/15_reduce_any/kernel.cu");
}
