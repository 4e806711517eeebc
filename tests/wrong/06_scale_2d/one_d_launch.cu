// expect: requirement_unmet | must launch a 2D grid or a 2D block
// Bug: the matrix is treated as one long vector of M*N elements with a 1D grid. The numbers are
// right (row = i / N), but the exercise is the 2D launch, and the launch records show none.
#include <cuda_runtime.h>

__global__ void scale_flat(const float* A, const float* s, float* B, int M, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < static_cast<long long>(M) * N) B[i] = s[i / N] * A[i];
}

void solve(const float* A, const float* s, float* B, int M, int N) {
  const long long total = static_cast<long long>(M) * N;
  scale_flat<<<static_cast<unsigned>((total + 255) / 256), 256>>>(A, s, B, M, N);
}
