// 02_vector_add: solve copies its result back with 4096 elements too many, past the end of c.
// Only the running case's buffers are reachable in the runner: the stray copy faults (or fails)
// at its own case instead of overwriting the inputs of the next one.
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void solve(const float* a, const float* b, float* c, int n) {
  const int padded = n + 4096;
  float *da, *db, *dc;
  cudaMalloc(&da, padded * sizeof(float));
  cudaMalloc(&db, padded * sizeof(float));
  cudaMalloc(&dc, padded * sizeof(float));
  cudaMemcpy(da, a, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, n * sizeof(float), cudaMemcpyHostToDevice);
  add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  for (int i = 0; i < padded; i += 1024) {  // host-side stores, element by element past the end
    const int count = padded - i < 1024 ? padded - i : 1024;
    cudaMemcpy(c + i, dc + i, count * sizeof(float), cudaMemcpyDeviceToHost);
  }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
}
