// finding: none
// Correct: cooperative groups. Each warp of a block adds its values with cg::reduce over a tile of
// 32 threads; the tile leaders write one slot per warp; the first tile of 16 threads adds the slots
// with shfl_down (within its 16 lanes, so every lane it reads takes part) and adds the block's sum
// to the output atomically.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

constexpr int THREADS = 256;

__global__ void tile_sums(const float* x, float* sum, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ float warp_totals[THREADS / 32];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += x[i];
  v = cg::reduce(warp, v, cg::plus<float>());
  if (warp.thread_rank() == 0) warp_totals[warp.meta_group_rank()] = v;
  block.sync();
  cg::thread_block_tile<16> half = cg::tiled_partition<16>(block);
  if (half.meta_group_rank() == 0) {
    float t = half.thread_rank() < warp.meta_group_size() ? warp_totals[half.thread_rank()] : 0.0f;
    for (int d = half.size() / 2; d > 0; d /= 2) t += half.shfl_down(t, d);
    if (half.thread_rank() == 0) atomicAdd(sum, t);
  }
}

void solve(const float* x, float* sum, int n) {
  cudaMemset(sum, 0, sizeof(float));
  int blocks = (n + THREADS - 1) / THREADS;
  if (blocks > 120) blocks = 120;
  tile_sums<<<blocks, THREADS>>>(x, sum, n);
}
