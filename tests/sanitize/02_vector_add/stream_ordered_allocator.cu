// finding: none
// Correct: the device buffers come from the stream-ordered allocator (cudaMallocAsync and
// cudaFreeAsync on one stream), which the leak accounting counts as cudaMalloc and cudaFree.
#include <cuda_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void solve(const float* a, const float* b, float* c, int n) {
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  const size_t bytes = n * sizeof(float);
  cudaMallocAsync(&d_a, bytes, stream);
  cudaMallocAsync(&d_b, bytes, stream);
  cudaMallocAsync(&d_c, bytes, stream);
  cudaMemcpyAsync(d_a, a, bytes, cudaMemcpyHostToDevice, stream);
  cudaMemcpyAsync(d_b, b, bytes, cudaMemcpyHostToDevice, stream);
  vector_add<<<(n + 255) / 256, 256, 0, stream>>>(d_a, d_b, d_c, n);
  cudaMemcpyAsync(c, d_c, bytes, cudaMemcpyDeviceToHost, stream);
  cudaFreeAsync(d_a, stream);
  cudaFreeAsync(d_b, stream);
  cudaFreeAsync(d_c, stream);
  cudaStreamSynchronize(stream);
  cudaStreamDestroy(stream);
}
