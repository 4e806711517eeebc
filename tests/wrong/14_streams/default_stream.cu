// expect: requirement_unmet | default stream
// Bug: the copies are asynchronous, but they go to stream 0, the default stream, which waits for
// all other work and which all other work waits for: asynchronous in name only.
#include <cuda_runtime.h>

__global__ void hypotenuse(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sqrtf(1.0f + x[i] * x[i]);
}

void solve(const float* x, float* y, int n) {
  float *d_x, *d_y;
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaMemcpyAsync(d_x, x, n * sizeof(float), cudaMemcpyHostToDevice, 0);
  hypotenuse<<<(n + 255) / 256, 256>>>(d_x, d_y, n);
  cudaMemcpyAsync(y, d_y, n * sizeof(float), cudaMemcpyDeviceToHost, 0);
  cudaDeviceSynchronize();
  cudaFree(d_x);
  cudaFree(d_y);
}
