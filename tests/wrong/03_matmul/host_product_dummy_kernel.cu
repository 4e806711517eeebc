// expect: requirement_unmet | A was copied to host memory (cudaMemcpy
// also: C was written by a copy from the host
// Bug (a dishonest one): the product is computed on the CPU — A and B copied to the host,
// multiplied there, C copied back — and a kernel that declares shared memory but does nothing is
// launched beside it, so that "a kernel ran" and "it used shared memory" both hold.
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

__global__ void looks_busy(float* C) {
  __shared__ float tile[32][33];
  tile[threadIdx.y][threadIdx.x] = 0.0f;
  __syncthreads();
  if (tile[0][0] != 0.0f) C[0] = tile[0][0];  // never true: nothing written
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  std::vector<float> a(static_cast<std::size_t>(M) * K), b(static_cast<std::size_t>(K) * N);
  std::vector<float> c(static_cast<std::size_t>(M) * N);
  cudaMemcpy(a.data(), A, a.size() * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(b.data(), B, b.size() * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < K; ++k)
        acc += a[static_cast<std::size_t>(i) * K + k] * b[static_cast<std::size_t>(k) * N + j];
      c[static_cast<std::size_t>(i) * N + j] = acc;
    }
  }
  cudaMemcpy(C, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice);
  looks_busy<<<1, dim3(32, 32)>>>(C);
}
