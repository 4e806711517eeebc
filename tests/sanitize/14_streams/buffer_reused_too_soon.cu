// finding: data_race | 37 | cudaStreamWaitEvent
// finding on gpu: skip: compute-sanitizer does not order streams; whether x is overwritten early is timing
// Bug: two device buffer pairs go round in a ring, copies in on one stream and each chunk's kernel
// and copy out on one of two more, with an event from each copy in to its kernel. But a chunk's
// copy in reuses the pair of the chunk two before without waiting for that chunk's kernel and copy
// out: on a GPU it may overwrite x while the kernel still reads it. (The fix: record an event after each
// copy out, and make the copy in of the chunk that reuses the pair wait for it.)
#include <cuda_runtime.h>

constexpr int CHUNK = 1 << 10;
constexpr int RING = 2;

__global__ void hypotenuse(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sqrtf(1.0f + x[i] * x[i]);
}

void solve(const float* x, float* y, int n) {
  cudaStream_t in;
  cudaStream_t work[2];
  cudaStreamCreateWithFlags(&in, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&work[0], cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&work[1], cudaStreamNonBlocking);
  float* d_x[RING];
  float* d_y[RING];
  cudaEvent_t copied_in[RING];
  for (int r = 0; r < RING; ++r) {
    cudaMalloc(&d_x[r], CHUNK * sizeof(float));
    cudaMalloc(&d_y[r], CHUNK * sizeof(float));
    cudaEventCreateWithFlags(&copied_in[r], cudaEventDisableTiming);
  }
  int c = 0;
  for (int first = 0; first < n; first += CHUNK, ++c) {
    const int r = c % RING;
    const int count = n - first < CHUNK ? n - first : CHUNK;
    const size_t bytes = static_cast<size_t>(count) * sizeof(float);
    cudaMemcpyAsync(d_x[r], x + first, bytes, cudaMemcpyHostToDevice, in);
    cudaEventRecord(copied_in[r], in);
    cudaStreamWaitEvent(work[c % 2], copied_in[r], 0);
    hypotenuse<<<(count + 255) / 256, 256, 0, work[c % 2]>>>(d_x[r], d_y[r], count);
    cudaMemcpyAsync(y + first, d_y[r], bytes, cudaMemcpyDeviceToHost, work[c % 2]);
  }
  cudaStreamSynchronize(in);
  cudaStreamSynchronize(work[0]);
  cudaStreamSynchronize(work[1]);
  for (int r = 0; r < RING; ++r) {
    cudaFree(d_x[r]);
    cudaFree(d_y[r]);
    cudaEventDestroy(copied_in[r]);
  }
  cudaStreamDestroy(in);
  cudaStreamDestroy(work[0]);
  cudaStreamDestroy(work[1]);
}
