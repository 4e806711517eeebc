// finding: none
// Correct: every pair of operations that share a buffer is ordered, each in another way. The first
// half goes in on a blocking stream, its kernel runs on the legacy default stream (which waits for
// blocking streams' earlier work) and it comes back on the blocking stream (which waits for the
// legacy stream's). The second half goes in on a stream the host then waits for; its kernel runs on
// a third stream, and an event makes the copy back wait for that kernel.
#include <cuda_runtime.h>

__global__ void hypotenuse(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sqrtf(1.0f + x[i] * x[i]);
}

void solve(const float* x, float* y, int n) {
  cudaStream_t blocking;
  cudaStream_t in;
  cudaStream_t work;
  cudaStreamCreate(&blocking);
  cudaStreamCreateWithFlags(&in, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking);
  float* d_x;
  float* d_y;
  cudaMalloc(&d_x, static_cast<size_t>(n) * sizeof(float));
  cudaMalloc(&d_y, static_cast<size_t>(n) * sizeof(float));
  const int half = (n + 1) / 2;
  const int rest = n - half;

  cudaMemcpyAsync(d_x, x, half * sizeof(float), cudaMemcpyHostToDevice, blocking);
  hypotenuse<<<(half + 255) / 256, 256>>>(d_x, d_y, half);
  cudaMemcpyAsync(y, d_y, half * sizeof(float), cudaMemcpyDeviceToHost, blocking);

  if (rest > 0) {
    cudaEvent_t computed;
    cudaEventCreateWithFlags(&computed, cudaEventDisableTiming);
    cudaMemcpyAsync(d_x + half, x + half, rest * sizeof(float), cudaMemcpyHostToDevice, in);
    cudaStreamSynchronize(in);
    hypotenuse<<<(rest + 255) / 256, 256, 0, work>>>(d_x + half, d_y + half, rest);
    cudaEventRecord(computed, work);
    cudaStreamWaitEvent(in, computed, 0);
    cudaMemcpyAsync(y + half, d_y + half, rest * sizeof(float), cudaMemcpyDeviceToHost, in);
    cudaEventDestroy(computed);
  }
  cudaDeviceSynchronize();
  cudaFree(d_x);
  cudaFree(d_y);
  cudaStreamDestroy(blocking);
  cudaStreamDestroy(in);
  cudaStreamDestroy(work);
}
