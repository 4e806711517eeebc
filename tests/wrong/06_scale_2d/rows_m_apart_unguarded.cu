// expect: out_of_bounds | past the end of A
// never: does your grid cover all M rows?
// only on: sim
// Bug: element (row, col) is at row * M + col, as if every row held M elements, with no other
// guard than row < M and col < N. A tall matrix (M > N) is read and written past the ends of A and
// B (the first failure, out of bounds); in a wide one (N > M) the rows overlap and B's tail is
// never written, which looks like a grid that stops early though the grid covers B: the sizes
// where only the values tell must name the row stride. Whether a GPU's guard zones see the first
// write past B's end depends on the allocation's padding: checked on the simulator.
#include <cuda_runtime.h>

__global__ void scale_rows(const float* A, const float* s, float* B, int M, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) B[row * M + col] = s[row] * A[row * M + col];
}

void solve(const float* A, const float* s, float* B, int M, int N) {
  const dim3 block(32, 8);
  const dim3 grid((N + 31) / 32, (M + 7) / 8);
  scale_rows<<<grid, block>>>(A, s, B, M, N);
}
