// Reference solution for 02_vector_add: c = a + b for host arrays, computed on the GPU.
//
// Contract: void solve(const float* a, const float* b, float* c, int n) — HOST pointers to
// n >= 1 floats each. Copy only a and b to the device and only c back.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(err));
  }
}

constexpr int THREADS_PER_BLOCK = 256;  // a multiple of 32: whole warps, no idle lanes
constexpr int MAX_BLOCKS = 4096;        // the grid-stride loop covers anything beyond this

}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

void solve(const float* a, const float* b, float* c, int n) {
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);

  float* d_a = nullptr;
  float* d_b = nullptr;
  float* d_c = nullptr;
  check(cudaMalloc(&d_a, bytes), "cudaMalloc(d_a)");
  check(cudaMalloc(&d_b, bytes), "cudaMalloc(d_b)");
  check(cudaMalloc(&d_c, bytes), "cudaMalloc(d_c)");  // written by the kernel: nothing to copy in

  check(cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice), "cudaMemcpy(a)");
  check(cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice), "cudaMemcpy(b)");

  const int blocks = std::min((n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, MAX_BLOCKS);
  vector_add<<<blocks, THREADS_PER_BLOCK>>>(d_a, d_b, d_c, n);
  check(cudaGetLastError(), "launch of vector_add");

  // Only c changed; copying a or b back would cost time and move nothing new.
  check(cudaMemcpy(c, d_c, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(c)");

  check(cudaFree(d_a), "cudaFree(d_a)");
  check(cudaFree(d_b), "cudaFree(d_b)");
  check(cudaFree(d_c), "cudaFree(d_c)");
}
