// expect: requirement_unmet | A was copied to host memory (cudaMemcpyAsync
// Bug (a dishonest one): the product is computed on the CPU, then laundered — copied into scratch
// device memory of the submission's own, from which a kernel with shared memory copies it into C —
// so that no copy from the host ever lands in C. A and B still had to reach the host.
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

__global__ void copy_through_shared(const float* from, float* to, int count) {
  __shared__ float stage[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) stage[threadIdx.x] = from[i];
  __syncthreads();
  if (i < count) to[i] = stage[threadIdx.x];
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  std::vector<float> a(static_cast<std::size_t>(M) * K), b(static_cast<std::size_t>(K) * N);
  std::vector<float> c(static_cast<std::size_t>(M) * N);
  cudaMemcpyAsync(a.data(), A, a.size() * sizeof(float), cudaMemcpyDefault);
  cudaMemcpyAsync(b.data(), B, b.size() * sizeof(float), cudaMemcpyDefault);
  cudaDeviceSynchronize();
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < K; ++k)
        acc += a[static_cast<std::size_t>(i) * K + k] * b[static_cast<std::size_t>(k) * N + j];
      c[static_cast<std::size_t>(i) * N + j] = acc;
    }
  }
  float* scratch = nullptr;
  cudaMalloc(&scratch, c.size() * sizeof(float));
  cudaMemcpy(scratch, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice);
  const int count = M * N;
  copy_through_shared<<<(count + 255) / 256, 256>>>(scratch, C, count);
  cudaFree(scratch);
}
