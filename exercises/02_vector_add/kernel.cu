// 02_vector_add — element-wise addition of two vectors: c = a + b.
//
// Contract (the harness calls solve; keep the signature exactly as it is):
//   void solve(const float* a, const float* b, float* c, int n)
//   - a, b and c are HOST pointers to n floats each, n >= 1 (up to tens of millions).
//   - When solve returns, c[i] must equal a[i] + b[i] for every i; a and b must be unchanged.
//   - Move only what is needed: a and b to the device, c back to the host. c needs device
//     memory but no copy in; a and b need no copy back. Free every device allocation.
//
// Read exercises/02_vector_add/README.md first. Check your work with:
//   ./cudalab check 02_vector_add
#include <cuda_runtime.h>

#include <stdexcept>

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  // TODO(student): grid-stride loop. Start at this thread's global index and step by the total
  //   number of threads in the grid (blockDim.x * gridDim.x) while the index is < n. Then any
  //   grid size covers any n, and the loop condition doubles as the bounds check.
  // TODO(student): in the loop body, c[i] = a[i] + b[i].
}

void solve(const float* a, const float* b, float* c, int n) {
  // TODO(student): cudaMalloc three device buffers of n floats (sizes in bytes).
  // TODO(student): copy only a and b host to device.
  // TODO(student): choose the block size (a multiple of 32: 128 or 256 are good starts) and a
  //   grid that covers n (round up); with a grid-stride loop you may also cap it.
  // TODO(student): launch vector_add, copy only c device to host, free all three buffers.
  throw std::logic_error("not implemented yet: write vector_add and solve in exercises/02_vector_add/kernel.cu");
}
