// finding: none
// Correct: each stream records an event after its last copy, a blocking stream waits for the
// events and the host waits for that stream alone; the legacy default stream's synchronous copy
// at the end would wait for blocking streams too. No stream is left with work nothing waited for.
#include <cuda_runtime.h>

constexpr int STREAMS = 2;
constexpr int CHUNK = 1 << 14;

__global__ void hypotenuse(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sqrtf(1.0f + x[i] * x[i]);
}

void solve(const float* x, float* y, int n) {
  cudaStream_t stream[STREAMS];
  cudaEvent_t done[STREAMS];
  float* d_x[STREAMS];
  float* d_y[STREAMS];
  cudaStream_t joined;
  cudaStreamCreate(&joined);
  for (int s = 0; s < STREAMS; ++s) {
    cudaStreamCreateWithFlags(&stream[s], cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming);
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
    cudaEventRecord(done[s], stream[s]);
    cudaStreamWaitEvent(joined, done[s], 0);
  }
  cudaStreamSynchronize(joined);
  for (int s = 0; s < STREAMS; ++s) {
    cudaFree(d_x[s]);
    cudaFree(d_y[s]);
    cudaEventDestroy(done[s]);
    cudaStreamDestroy(stream[s]);
  }
  cudaStreamDestroy(joined);
}
