// Reference solution for 01_increment: add one to every element of a host array, on the GPU.
//
// Contract: void solve(int* data, int n) — `data` is a HOST pointer to n >= 1 ints.
//
// The copies dominate the end-to-end time; the kernel itself runs at the memory's speed (about
// 100 % of a device-to-device copy on an H100) because each thread moves 16 bytes at once.
#include <cuda_runtime.h>

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

}  // namespace

// One group of 4 ints per thread. An int4 load or store moves 16 bytes in one instruction: a warp
// moves 512 contiguous bytes at once, and the memory system sees a quarter of the instructions of
// a one-int-per-thread kernel. cudaMalloc returns 256-byte aligned memory, so every int4 is
// 16-byte aligned. The last group may be partial (n % 4 != 0): its thread goes element by element.
// One group per thread and no loop: all loads are issued as soon as the blocks start, and the
// block scheduler starts a new block as one finishes (measured faster than a grid-stride loop
// here, which suits kernels that need per-thread set-up).
__global__ void increment_by_one(int* data, int n) {
  const long long first = 4LL * (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x);
  if (first + 3 < n) {
    int4 v = reinterpret_cast<int4*>(data)[first / 4];
    v.x += 1;
    v.y += 1;
    v.z += 1;
    v.w += 1;
    reinterpret_cast<int4*>(data)[first / 4] = v;
  } else {
    for (long long i = first; i < n; ++i) data[i] += 1;
  }
}

void solve(int* data, int n) {
  const size_t bytes = static_cast<size_t>(n) * sizeof(int);  // cudaMemcpy counts bytes

  int* d_data = nullptr;
  check(cudaMalloc(&d_data, bytes), "cudaMalloc(d_data)");
  check(cudaMemcpy(d_data, data, bytes, cudaMemcpyHostToDevice), "cudaMemcpy(host to device)");

  // Round up twice (groups of 4, then blocks) so that the last, partly filled ones run too.
  const int groups = n / 4 + (n % 4 != 0);
  const int blocks = (groups + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;
  increment_by_one<<<blocks, THREADS_PER_BLOCK>>>(d_data, n);
  check(cudaGetLastError(), "launch of increment_by_one");  // a bad configuration shows here

  // This copy waits for the kernel to finish, and reports any error it raised while running.
  check(cudaMemcpy(data, d_data, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(device to host)");
  check(cudaFree(d_data), "cudaFree(d_data)");
}
