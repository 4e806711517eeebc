// explain: uncoalesced | 17 | read addresses 5 elements (20 bytes) apart
// explain: uncoalesced | 18 | write addresses 5 elements (20 bytes) apart
// Each thread adds its own contiguous slice of the arrays, as a CPU thread would: thread i does
// elements i * chunk to i * chunk + chunk - 1. Right output, but at every step the 32 threads of a
// warp touch elements `chunk` apart (5 at explain's size: 1024 blocks of 256 threads for a million
// elements), so one request spans 20 sectors of 32 bytes where 4 or 5 would hold its 128 bytes.
// A grid-stride loop (i += blockDim.x * gridDim.x) keeps neighbouring threads on neighbouring
// elements.
#include <cuda_runtime.h>

constexpr int THREADS = 256;
constexpr int BLOCKS = 1024;

__global__ void vector_add(const float* a, const float* b, float* c, int n, int chunk) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = i * chunk; j < (i + 1) * chunk && j < n; ++j) {
    const float sum = a[j] + b[j];
    c[j] = sum;
  }
}

void solve(const float* a, const float* b, float* c, int n) {
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float* d_a = nullptr;
  float* d_b = nullptr;
  float* d_c = nullptr;
  cudaMalloc(&d_a, bytes);
  cudaMalloc(&d_b, bytes);
  cudaMalloc(&d_c, bytes);
  cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice);
  const int chunk = (n + THREADS * BLOCKS - 1) / (THREADS * BLOCKS);  // elements per thread
  vector_add<<<BLOCKS, THREADS>>>(d_a, d_b, d_c, n, chunk);
  cudaMemcpy(c, d_c, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
}
