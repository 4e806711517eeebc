// 01_increment — your first kernel: add one to every element of an array, on the GPU.
//
// Contract (the harness calls solve; keep the signature exactly as it is):
//   void solve(int* data, int n)
//   - data is a HOST pointer (ordinary CPU memory) to n ints, n >= 1.
//   - When solve returns, data[i] must hold its old value plus one, for every i.
//   - The addition must happen in a kernel on the GPU: allocate device memory, copy data in,
//     launch increment_by_one, copy the result back, free the device memory.
//
// Read exercises/01_increment/README.md first. Check your work with:
//   ./cudalab check 01_increment
#include <cuda_runtime.h>

#include <stdexcept>

// __global__ marks a kernel: a function the host launches and the device runs, once per thread.
// A kernel cannot return a value (its return type is void): it writes its results to memory.
__global__ void increment_by_one(int* data, int n) {
  // TODO(student): thread position. Compute this thread's index in the whole grid from
  //   blockIdx.x, blockDim.x and threadIdx.x.
  // TODO(student): bounds check. The last block is usually only partly needed: threads whose
  //   index is >= n must not touch memory.
  // TODO(student): add one to data[index].
}

void solve(int* data, int n) {
  // TODO(student): device memory. cudaMalloc room for n ints; sizes are in BYTES.
  // TODO(student): host to device. cudaMemcpy data into it (cudaMemcpyHostToDevice).
  // TODO(student): launch configuration. Pick threads per block (a multiple of 32, e.g. 256) and
  //   enough blocks to cover all n elements (round up), then launch:
  //   increment_by_one<<<blocks, threads>>>(d_data, n);
  // TODO(student): device to host. cudaMemcpy the result back into data, then cudaFree.
  throw std::logic_error("not implemented yet: write increment_by_one and solve in exercises/01_increment/kernel.cu");
}
