// explain: traffic | 13 | B is read 192 times over (M=192)
// The naive matmul: coalesced (threadIdx.x moves the column), but every thread reads a whole row
// of A and a whole column of B from global memory. Each element of A is read N times and each
// element of B M times: about K·M·N·8 bytes where the task needs 4·(MK + KN + MN).
#include <cuda_runtime.h>

__global__ void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float sum = 0.0f;
  for (int k = 0; k < K; ++k) {
    sum += A[row * K + k] * B[k * N + col];
  }
  C[row * N + col] = sum;
}

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(32, 8);
  const dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
  matmul_naive<<<grid, block>>>(A, B, C, M, N, K);
}
