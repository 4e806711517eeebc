// Reference solution for 01_increment: add one to every element of a host array, on the GPU.
//
// Contract: void solve(int* data, int n) — `data` is a HOST pointer to n >= 1 ints.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace {

// Every runtime call returns an error code; turning a failure into an exception means it is
// reported where it happened instead of surfacing later as a wrong answer.
void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(err));
  }
}

constexpr int THREADS_PER_BLOCK = 256;  // a multiple of the warp size (32)
constexpr int MAX_BLOCKS = 4096;        // enough to fill any current GPU; the loop does the rest

}  // namespace

// Grid-stride loop: each thread starts at its global index and jumps by the total number of
// threads in the grid, so any grid size covers any n, and `i < n` guards the last partial pass.
__global__ void increment_by_one(int* data, int n) {
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    data[i] += 1;
  }
}

void solve(int* data, int n) {
  const size_t bytes = static_cast<size_t>(n) * sizeof(int);  // cudaMemcpy counts bytes

  int* d_data = nullptr;
  check(cudaMalloc(&d_data, bytes), "cudaMalloc(d_data)");
  check(cudaMemcpy(d_data, data, bytes, cudaMemcpyHostToDevice), "cudaMemcpy(host to device)");

  // Round up so that the last, partly filled block is launched too.
  const int blocks = std::min((n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, MAX_BLOCKS);
  increment_by_one<<<blocks, THREADS_PER_BLOCK>>>(d_data, n);
  check(cudaGetLastError(), "launch of increment_by_one");  // a bad configuration shows here

  // This copy waits for the kernel to finish, and reports any error it raised while running.
  check(cudaMemcpy(data, d_data, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(device to host)");
  check(cudaFree(d_data), "cudaFree(d_data)");
}
