// Cooperative groups for the simulator tests: the block and grid groups, static and dynamic tiles,
// their shuffles and votes, coalesced groups, cg::reduce and the tile scans.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

constexpr int kOut = 8;  // results per thread

// <<<2, (8,4,2)>>>: what the block and the grid say about the calling thread.
__global__ void groups(int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::grid_group grid = cg::this_grid();
  const unsigned g = static_cast<unsigned>(grid.thread_rank());
  int* o = out + g * kOut;
  o[0] = static_cast<int>(block.thread_rank());
  o[1] = static_cast<int>(block.size());
  block.sync();
  o[2] = static_cast<int>(block.group_index().x * 100 + block.thread_index().y * 10 + block.thread_index().z);
  cg::sync(block);
  o[3] = static_cast<int>(block.group_dim().x * 100 + block.dim_threads().y * 10 + block.group_dim().z);
  o[4] = static_cast<int>(grid.size());
  o[5] = static_cast<int>(block.num_threads());
}

// <<<1, threads>>>: static tiles of 32, 16 and 4 (of the 32), a dynamic tile of 8.
__global__ void tiles(int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  cg::thread_block_tile<16> half = cg::tiled_partition<16>(block);
  cg::thread_block_tile<4> quad = cg::tiled_partition<4>(warp);
  cg::thread_group eight = cg::tiled_partition(block, 8);
  const int t = static_cast<int>(block.thread_rank());
  int* o = out + t * kOut;
  o[0] = static_cast<int>(half.thread_rank() * 1000 + half.meta_group_rank() * 10 + half.meta_group_size());
  o[1] = half.shfl(t, 3);
  o[2] = half.shfl_down(t, 4);
  o[3] = half.shfl_up(t, 1) * 100 + half.shfl_xor(t, 5) - t * 100;
  o[4] = static_cast<int>(half.ballot(t % 3 == 0)) * 100 + half.any(t == 5) * 10 + half.all(t < 1000);
  // A tile's all() is true when every lane of the tile votes so; a tile reaching past the block's
  // last thread (a block of 8) has lanes that cannot (what CUDA's and an H100 give).
  o[5] = static_cast<int>(quad.thread_rank() * 100 + quad.meta_group_rank() * 10 + quad.meta_group_size()) +
         warp.all(1) * 10000 + quad.all(1) * 100000;
  eight.sync();
  o[6] = static_cast<int>(eight.thread_rank() * 1000 + eight.size() * 100);
  warp.sync();
  o[7] = static_cast<int>(warp.meta_group_rank() * 100 + warp.meta_group_size()) + warp.shfl(t, 31) * 1000;
}

// <<<1, 64>>>: cg::reduce and the scans over tiles; a coalesced group of every third thread.
__global__ void reductions(int* out, double* dout) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  cg::thread_block_tile<16> half = cg::tiled_partition<16>(block);
  cg::thread_block_tile<8> eight = cg::tiled_partition<8>(block);
  const int t = static_cast<int>(block.thread_rank());
  int* o = out + t * kOut;
  o[0] = cg::reduce(warp, t, cg::plus<int>());
  o[1] = cg::reduce(half, t, cg::greater<int>()) * 100 + cg::reduce(half, t, cg::less<int>());
  o[2] = static_cast<int>(cg::reduce(eight, 1u << (t % 8), cg::bit_or<unsigned>()));
  o[3] = cg::inclusive_scan(eight, t) * 1000 + cg::exclusive_scan(eight, 1);
  dout[t] = cg::reduce(warp, 0.5 * t, cg::plus<double>());  // 8-byte values
  if (t % 3 == 0) {
    cg::coalesced_group every_third = cg::coalesced_threads();
    o[4] = static_cast<int>(every_third.size() * 100 + every_third.thread_rank());
    o[5] = every_third.shfl(t, 1) * 1000 + every_third.shfl_down(t, 1);
    o[6] = static_cast<int>(every_third.ballot(t % 2 == 0));
    o[7] = cg::reduce(every_third, 1, cg::plus<int>());
  }
}

// A grid-wide barrier: not simulated, the launch fails with cudaErrorNotSupported.
__global__ void grid_barrier(int* out) {
  cg::grid_group grid = cg::this_grid();
  out[grid.thread_rank()] = 1;
  grid.sync();
}

extern "C" int cg_groups(int* out) {  // 2 blocks of 64 threads, kOut each
  int* d;
  cudaMalloc(&d, 128 * kOut * sizeof(int));
  cudaMemset(d, 0xff, 128 * kOut * sizeof(int));
  groups<<<2, dim3(8, 4, 2)>>>(d);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(out, d, 128 * kOut * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return err;
}

extern "C" int cg_tiles(int* out, int threads) {
  int* d;
  cudaMalloc(&d, threads * kOut * sizeof(int));
  cudaMemset(d, 0xff, threads * kOut * sizeof(int));
  tiles<<<1, threads>>>(d);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(out, d, threads * kOut * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return err;
}

extern "C" int cg_reductions(int* out, double* dout) {  // 64 threads
  int* d;
  double* dd;
  cudaMalloc(&d, 64 * kOut * sizeof(int));
  cudaMalloc(&dd, 64 * sizeof(double));
  cudaMemset(d, 0xff, 64 * kOut * sizeof(int));
  reductions<<<1, 64>>>(d, dd);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(out, d, 64 * kOut * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(dout, dd, 64 * sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(d);
  cudaFree(dd);
  return err;
}

extern "C" int cg_grid_sync() {
  int* d;
  cudaMalloc(&d, 64 * sizeof(int));
  grid_barrier<<<2, 32>>>(d);
  cudaError_t err = cudaDeviceSynchronize();
  cudaDeviceReset();
  return err;
}
