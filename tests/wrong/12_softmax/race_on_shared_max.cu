// expect: data_race | with no barrier between
// only on: sim
// finding: data_race | 32 | a data race on shared memory
// finding on gpu: skip: whether the early reads see a stale maximum depends on the warps' timing
// Bug: a block per row; thread 0 combines the warps' maxima into the shared row_max, but no
// __syncthreads() follows, so the other warps read row_max before it is written (on the simulator
// they read the NaN that shared memory starts with, on a GPU whatever an earlier block left).
#include <cuda_runtime.h>

#include <algorithm>

constexpr int THREADS = 64;
constexpr int MAX_BLOCKS = 1024;
constexpr int WARPS = THREADS / 32;

__global__ void softmax_rows(const float* X, float* Y, int M, int N) {
  __shared__ float warp_max[WARPS];
  __shared__ float warp_sum[WARPS];
  __shared__ float row_max;
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  for (int row = blockIdx.x; row < M; row += gridDim.x) {
    const float* x = X + static_cast<long long>(row) * N;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < N; c += THREADS) m = fmaxf(m, x[c]);
    for (int offset = 16; offset > 0; offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
    if (lane == 0) warp_max[warp] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
      float r = warp_max[0];
      for (int w = 1; w < WARPS; ++w) r = fmaxf(r, warp_max[w]);
      row_max = r;
    }
    // the bug: no __syncthreads() here
    m = row_max;
    float s = 0.0f;
    for (int c = threadIdx.x; c < N; c += THREADS) s += expf(x[c] - m);
    for (int offset = 16; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
    if (lane == 0) warp_sum[warp] = s;
    __syncthreads();
    float total = 0.0f;
    for (int w = 0; w < WARPS; ++w) total += warp_sum[w];
    for (int c = threadIdx.x; c < N; c += THREADS) Y[static_cast<long long>(row) * N + c] = expf(x[c] - m) / total;
    __syncthreads();  // warp_sum is read by all before the next row overwrites it
  }
}

void solve(const float* X, float* Y, int M, int N) { softmax_rows<<<std::min(M, MAX_BLOCKS), THREADS>>>(X, Y, M, N); }
