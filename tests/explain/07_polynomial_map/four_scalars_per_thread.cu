// explain: uncoalesced | 17 | read addresses 4 floats (16 bytes) apart
// explain: uncoalesced | 20 | write addresses 4 floats (16 bytes) apart
// Four neighbouring elements per thread, one float at a time: thread t does x[4t] … x[4t + 3].
// Right output, but at each step the 32 threads of a warp read floats 16 bytes apart, so a request
// spans 16 sectors of 32 bytes where 4 or 5 would hold its 128 bytes. The reference also gives each
// thread four neighbours, as ONE float4 load (16 bytes a thread, 512 contiguous bytes a warp); or
// keep one element per thread.
#include <cuda_runtime.h>

constexpr int PER_THREAD = 4;

__constant__ float c_coefficients[8];

__global__ void polynomial(const float* x, float* y, int n) {
  const int first = (blockIdx.x * blockDim.x + threadIdx.x) * PER_THREAD;
  for (int i = first; i < first + PER_THREAD && i < n; ++i) {
    const float v = x[i];
    float p = c_coefficients[7];
    for (int k = 6; k >= 0; --k) p = p * v + c_coefficients[k];
    y[i] = p;
  }
}

void solve(const float* coefficients, const float* x, float* y, int n) {
  cudaMemcpyToSymbol(c_coefficients, coefficients, 8 * sizeof(float), 0, cudaMemcpyDeviceToDevice);
  const int threads = (n + PER_THREAD - 1) / PER_THREAD;
  polynomial<<<(threads + 255) / 256, 256>>>(x, y, n);
}
