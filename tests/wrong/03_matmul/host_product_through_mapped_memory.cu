// expect: requirement_unmet | in kernel 'to_host' wrote into a
// Bug (a dishonest one): the product is computed on the CPU without a single cudaMemcpy — a kernel
// copies A and B into page-locked host memory that the device can address (cudaHostAlloc with
// cudaHostAllocMapped), the host multiplies them there, and a kernel copies the product into C.
// (On a GPU the runner sees no copy; the simulator's checked run, which the default check makes
// there too, sees the kernels touch host memory.)
#include <cuda_runtime.h>

#include <cstddef>

__global__ void to_host(const float* from, float* to, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) to[i] = from[i];
}

__global__ void from_host(const float* from, float* to, int count) {
  __shared__ float stage[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) stage[threadIdx.x] = from[i];
  __syncthreads();
  if (i < count) to[i] = stage[threadIdx.x];
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  float *a = nullptr, *b = nullptr, *c = nullptr;
  cudaHostAlloc(&a, static_cast<std::size_t>(M) * K * sizeof(float), cudaHostAllocMapped);
  cudaHostAlloc(&b, static_cast<std::size_t>(K) * N * sizeof(float), cudaHostAllocMapped);
  cudaHostAlloc(&c, static_cast<std::size_t>(M) * N * sizeof(float), cudaHostAllocMapped);
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  cudaHostGetDevicePointer(reinterpret_cast<void**>(&da), a, 0);
  cudaHostGetDevicePointer(reinterpret_cast<void**>(&db), b, 0);
  cudaHostGetDevicePointer(reinterpret_cast<void**>(&dc), c, 0);
  to_host<<<(M * K + 255) / 256, 256>>>(A, da, M * K);
  to_host<<<(K * N + 255) / 256, 256>>>(B, db, K * N);
  cudaDeviceSynchronize();
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < K; ++k)
        acc += a[static_cast<std::size_t>(i) * K + k] * b[static_cast<std::size_t>(k) * N + j];
      c[static_cast<std::size_t>(i) * N + j] = acc;
    }
  }
  from_host<<<(M * N + 255) / 256, 256>>>(dc, C, M * N);
  cudaDeviceSynchronize();
  cudaFreeHost(a);
  cudaFreeHost(b);
  cudaFreeHost(c);
}
