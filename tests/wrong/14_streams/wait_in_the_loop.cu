// expect: requirement_unmet | no copy ran at the same time
// only on: gpu
// Bug: chunks on four streams, but the loop waits for each chunk's stream before issuing the next
// chunk: every copy and kernel runs alone, as with one stream. Only a GPU's timeline shows it; the
// simulator runs each call at once and cannot tell.
#include <cuda_runtime.h>

#include <algorithm>

constexpr int STREAMS = 4;
constexpr int CHUNK = 1 << 17;

__global__ void hypotenuse(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sqrtf(1.0f + x[i] * x[i]);
}

void solve(const float* x, float* y, int n) {
  cudaStream_t stream[STREAMS];
  float *d_x[STREAMS], *d_y[STREAMS];
  for (int s = 0; s < STREAMS; ++s) {
    cudaStreamCreate(&stream[s]);
    cudaMalloc(&d_x[s], CHUNK * sizeof(float));
    cudaMalloc(&d_y[s], CHUNK * sizeof(float));
  }
  for (int c = 0; c * CHUNK < n; ++c) {
    const int s = c % STREAMS;
    const int first = c * CHUNK;
    const int count = std::min(CHUNK, n - first);
    cudaMemcpyAsync(d_x[s], x + first, count * sizeof(float), cudaMemcpyHostToDevice, stream[s]);
    hypotenuse<<<(count + 255) / 256, 256, 0, stream[s]>>>(d_x[s], d_y[s], count);
    cudaMemcpyAsync(y + first, d_y[s], count * sizeof(float), cudaMemcpyDeviceToHost, stream[s]);
    cudaStreamSynchronize(stream[s]);  // the bug: nothing is left in flight
  }
  for (int s = 0; s < STREAMS; ++s) {
    cudaFree(d_x[s]);
    cudaFree(d_y[s]);
    cudaStreamDestroy(stream[s]);
  }
}
