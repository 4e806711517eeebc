// finding: data_race | 32 | cudaStreamSynchronize
// finding on gpu: skip: the runner synchronises the device after solve, which hides the bug
// Bug: solve queues each chunk's copies and kernel on its streams and returns without waiting for
// them: the last results may still be on their way to y when the caller reads it. The simulator
// runs the work at each call, and the harness waits for the device after solve, so the output
// is right; the checks name the last operation of the first stream nothing waited for.
#include <cuda_runtime.h>

constexpr int STREAMS = 2;
constexpr int CHUNK = 1 << 14;

__global__ void hypotenuse(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sqrtf(1.0f + x[i] * x[i]);
}

void solve(const float* x, float* y, int n) {
  cudaStream_t stream[STREAMS];
  float* d_x[STREAMS];
  float* d_y[STREAMS];
  for (int s = 0; s < STREAMS; ++s) {
    cudaStreamCreateWithFlags(&stream[s], cudaStreamNonBlocking);
    cudaMalloc(&d_x[s], CHUNK * sizeof(float));
    cudaMalloc(&d_y[s], CHUNK * sizeof(float));
  }
  for (int c = 0; c * CHUNK < n; ++c) {
    const int s = c % STREAMS;
    const int first = c * CHUNK;
    const int count = n - first < CHUNK ? n - first : CHUNK;
    cudaMemcpyAsync(d_x[s], x + first, count * sizeof(float), cudaMemcpyHostToDevice, stream[s]);
    hypotenuse<<<(count + 255) / 256, 256, 0, stream[s]>>>(d_x[s], d_y[s], count);
    cudaMemcpyAsync(y + first, d_y[s], count * sizeof(float), cudaMemcpyDeviceToHost, stream[s]);
  }
  for (int s = 0; s < STREAMS; ++s) {
    cudaFree(d_x[s]);
    cudaFree(d_y[s]);
    cudaStreamDestroy(stream[s]);
  }
}
