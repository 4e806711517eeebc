// finding: barrier_error | 31 | a shuffle may only read a lane that takes part
// finding on gpu: none (memcheck, synccheck, racecheck, initcheck: nothing; an H100 reads 0 there, the sum is right)
// In the manner of NVIDIA's reduce4 (cuda-samples' reduction): each thread adds two elements as
// it loads, a shared-memory tree halves the block down to 64 values, and the first warp finishes
// with shuffles of a 32-thread tile. The host halves the problem until one block is left, so the
// last passes run blocks of 16, 8, ... 1 threads, whose tile has lanes that do not exist.
// Right on an H100 and on the simulator (a lane that does not exist reads 0 on both), but such a
// read is undefined in CUDA: the sanitized check names it.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

template <unsigned BLOCK>
__global__ void pair_tree_tile(const float* in, float* out, unsigned n) {
  cg::thread_block block = cg::this_thread_block();
  extern __shared__ float partial[];
  const unsigned t = threadIdx.x;
  const unsigned i = blockIdx.x * (BLOCK * 2) + t;
  float acc = i < n ? in[i] : 0.0f;
  if (i + BLOCK < n) acc += in[i + BLOCK];
  partial[t] = acc;
  cg::sync(block);
  for (unsigned half = blockDim.x / 2; half > 32; half >>= 1) {
    if (t < half) partial[t] = acc = acc + partial[t + half];
    cg::sync(block);
  }
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  if (block.thread_rank() < 32) {
    if (BLOCK >= 64) acc += partial[t + 32];
    for (int d = warp.size() / 2; d > 0; d /= 2) acc += warp.shfl_down(acc, d);
  }
  if (block.thread_rank() == 0) out[blockIdx.x] = acc;
}

template <unsigned BLOCK>
void pass(unsigned blocks, const float* in, float* out, unsigned n) {
  pair_tree_tile<BLOCK><<<blocks, BLOCK, BLOCK * sizeof(float)>>>(in, out, n);
}

void solve(const float* x, float* sum, int n) {
  const unsigned first = (static_cast<unsigned>(n) + 511) / 512;
  float* buf[2] = {nullptr, nullptr};
  cudaMalloc(&buf[0], first * sizeof(float));
  cudaMalloc(&buf[1], first * sizeof(float));
  const float* in = x;
  unsigned count = static_cast<unsigned>(n);
  for (int k = 0;; k ^= 1) {
    unsigned threads = 256;
    if (count < 512) {
      threads = 1;
      while (threads < (count + 1) / 2) threads *= 2;
    }
    const unsigned blocks = (count + threads * 2 - 1) / (threads * 2);
    float* out = blocks == 1 ? sum : buf[k];
    switch (threads) {
      case 256:
        pass<256>(blocks, in, out, count);
        break;
      case 128:
        pass<128>(blocks, in, out, count);
        break;
      case 64:
        pass<64>(blocks, in, out, count);
        break;
      case 32:
        pass<32>(blocks, in, out, count);
        break;
      case 16:
        pass<16>(blocks, in, out, count);
        break;
      case 8:
        pass<8>(blocks, in, out, count);
        break;
      case 4:
        pass<4>(blocks, in, out, count);
        break;
      case 2:
        pass<2>(blocks, in, out, count);
        break;
      default:
        pass<1>(blocks, in, out, count);
        break;
    }
    if (blocks == 1) break;
    in = out;
    count = blocks;
  }
  cudaFree(buf[0]);
  cudaFree(buf[1]);
}
