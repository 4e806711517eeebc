// finding: barrier_error | 36 | a shuffle may only read a lane that takes part
// finding on gpu: none (memcheck, synccheck, racecheck, initcheck: nothing; an H100 reads 0 there, the sum is right)
// In the manner of NVIDIA's reduce5 and reduce6 (cuda-samples' reduction): a grid-stride loop adds
// pairs of elements into each thread's register, the shared-memory tree is unrolled for the block
// size (a template parameter), and the first warp finishes with shuffles of a 32-thread tile.
// The host runs a fixed grid, then one block over the partial sums, sized down to the count: the
// small passes run blocks of fewer than 32 threads, whose tile has lanes that do not exist.
// Right on an H100 and on the simulator (a lane that does not exist reads 0 on both), but such a
// read is undefined in CUDA: the sanitized check names it.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

template <unsigned BLOCK>
__global__ void strided_unrolled(const float* in, float* out, unsigned n) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ float partial[BLOCK];
  const unsigned t = threadIdx.x;
  float acc = 0.0f;
  for (unsigned i = blockIdx.x * BLOCK * 2 + t; i < n; i += BLOCK * 2 * gridDim.x) {
    acc += in[i];
    if (i + BLOCK < n) acc += in[i + BLOCK];
  }
  partial[t] = acc;
  cg::sync(block);
  if (BLOCK >= 512 && t < 256) partial[t] = acc = acc + partial[t + 256];
  cg::sync(block);
  if (BLOCK >= 256 && t < 128) partial[t] = acc = acc + partial[t + 128];
  cg::sync(block);
  if (BLOCK >= 128 && t < 64) partial[t] = acc = acc + partial[t + 64];
  cg::sync(block);
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  if (block.thread_rank() < 32) {
    if (BLOCK >= 64) acc += partial[t + 32];
    for (int d = warp.size() / 2; d > 0; d /= 2) acc += warp.shfl_down(acc, d);
  }
  if (block.thread_rank() == 0) out[blockIdx.x] = acc;
}

template <unsigned BLOCK>
void pass(unsigned blocks, const float* in, float* out, unsigned n) {
  strided_unrolled<BLOCK><<<blocks, BLOCK>>>(in, out, n);
}

void run(unsigned threads, unsigned blocks, const float* in, float* out, unsigned n) {
  switch (threads) {
    case 512:
      pass<512>(blocks, in, out, n);
      break;
    case 256:
      pass<256>(blocks, in, out, n);
      break;
    case 128:
      pass<128>(blocks, in, out, n);
      break;
    case 64:
      pass<64>(blocks, in, out, n);
      break;
    case 32:
      pass<32>(blocks, in, out, n);
      break;
    case 16:
      pass<16>(blocks, in, out, n);
      break;
    case 8:
      pass<8>(blocks, in, out, n);
      break;
    case 4:
      pass<4>(blocks, in, out, n);
      break;
    case 2:
      pass<2>(blocks, in, out, n);
      break;
    default:
      pass<1>(blocks, in, out, n);
      break;
  }
}

unsigned threads_for(unsigned count) {
  if (count >= 1024) return 512;
  unsigned threads = 1;
  while (threads < (count + 1) / 2) threads *= 2;
  return threads;
}

void solve(const float* x, float* sum, int n) {
  const unsigned count = static_cast<unsigned>(n);
  const unsigned threads = threads_for(count);
  unsigned blocks = (count + threads * 2 - 1) / (threads * 2);
  if (blocks > 64) blocks = 64;
  if (blocks == 1) {
    run(threads, 1, x, sum, count);
    return;
  }
  float* partials = nullptr;
  cudaMalloc(&partials, blocks * sizeof(float));
  run(threads, blocks, x, partials, count);
  run(threads_for(blocks), 1, partials, sum, blocks);
  cudaFree(partials);
}
