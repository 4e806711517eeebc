// finding: data_race | 33 | cudaStreamWaitEvent
// finding on gpu: skip: compute-sanitizer does not order streams; whether the copy lands first is timing
// Bug: copies in go on one stream and kernels on another, but nothing orders a chunk's kernel after
// its copy in: the kernel's stream may run it while the copy is still on its way, and it reads
// what the buffer held before. The simulator runs each operation at its call, so the output is
// right there; the checks see that the two streams touched one buffer with nothing between them.
#include <cuda_runtime.h>

constexpr int CHUNK = 1 << 14;

__global__ void hypotenuse(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sqrtf(1.0f + x[i] * x[i]);
}

void solve(const float* x, float* y, int n) {
  cudaStream_t in;
  cudaStream_t work;
  cudaStreamCreateWithFlags(&in, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking);
  float* d_x;
  float* d_y;
  cudaMalloc(&d_x, static_cast<size_t>(n) * sizeof(float));
  cudaMalloc(&d_y, static_cast<size_t>(n) * sizeof(float));
  cudaEvent_t copied;
  cudaEventCreate(&copied);
  for (int first = 0; first < n; first += CHUNK) {
    const int count = n - first < CHUNK ? n - first : CHUNK;
    const size_t bytes = static_cast<size_t>(count) * sizeof(float);
    cudaMemcpyAsync(d_x + first, x + first, bytes, cudaMemcpyHostToDevice, in);
    cudaEventRecord(copied, in);
    // The fix: cudaStreamWaitEvent(work, copied, 0); here, so that the kernel waits for its copy.
    hypotenuse<<<(count + 255) / 256, 256, 0, work>>>(d_x + first, d_y + first, count);
    cudaMemcpyAsync(y + first, d_y + first, bytes, cudaMemcpyDeviceToHost, work);
  }
  cudaStreamSynchronize(in);
  cudaStreamSynchronize(work);
  cudaEventDestroy(copied);
  cudaFree(d_x);
  cudaFree(d_y);
  cudaStreamDestroy(in);
  cudaStreamDestroy(work);
}
