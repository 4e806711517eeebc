// expect: wrong_output | never written
// Bug: the number of chunks is n / CHUNK, rounded down: the short chunk at the end, or all of a
// small x, is never copied, computed or copied back.
#include <cuda_runtime.h>

constexpr int STREAMS = 4;
constexpr int CHUNK = 1 << 12;

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
  const int chunks = n / CHUNK;
  for (int c = 0; c < chunks; ++c) {
    const int s = c % STREAMS;
    cudaMemcpyAsync(d_x[s], x + c * CHUNK, CHUNK * sizeof(float), cudaMemcpyHostToDevice, stream[s]);
    hypotenuse<<<CHUNK / 256, 256, 0, stream[s]>>>(d_x[s], d_y[s], CHUNK);
    cudaMemcpyAsync(y + c * CHUNK, d_y[s], CHUNK * sizeof(float), cudaMemcpyDeviceToHost, stream[s]);
  }
  for (int s = 0; s < STREAMS; ++s) {
    cudaStreamSynchronize(stream[s]);
    cudaFree(d_x[s]);
    cudaFree(d_y[s]);
    cudaStreamDestroy(stream[s]);
  }
}
