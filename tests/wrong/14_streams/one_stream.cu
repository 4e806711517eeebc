// expect: requirement_unmet | the copies used 1 stream
// Bug: the work is split into chunks, but every chunk goes to the same stream, where each copy
// waits for the kernel before it: the chunks run one after another, as one big copy would.
#include <cuda_runtime.h>

#include <algorithm>

constexpr int CHUNK = 1 << 17;

__global__ void hypotenuse(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sqrtf(1.0f + x[i] * x[i]);
}

void solve(const float* x, float* y, int n) {
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  float *d_x, *d_y;
  cudaMalloc(&d_x, CHUNK * sizeof(float));
  cudaMalloc(&d_y, CHUNK * sizeof(float));
  for (int first = 0; first < n; first += CHUNK) {
    const int count = std::min(CHUNK, n - first);
    cudaMemcpyAsync(d_x, x + first, count * sizeof(float), cudaMemcpyHostToDevice, stream);
    hypotenuse<<<(count + 255) / 256, 256, 0, stream>>>(d_x, d_y, count);
    cudaMemcpyAsync(y + first, d_y, count * sizeof(float), cudaMemcpyDeviceToHost, stream);
  }
  cudaStreamSynchronize(stream);
  cudaFree(d_x);
  cudaFree(d_y);
  cudaStreamDestroy(stream);
}
