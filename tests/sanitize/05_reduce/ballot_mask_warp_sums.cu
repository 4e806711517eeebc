// finding: barrier_error | 13 | a shuffle may only read a lane that takes part
// finding on gpu: none (memcheck, synccheck, racecheck, initcheck: nothing; an H100 reads 0 there, the sum is right)
// In the manner of NVIDIA's reduce7 (cuda-samples' reduction): a grid-stride loop per thread, a
// shuffle reduction in every warp with a mask of the block's lanes, one shared slot per warp, and
// the first warp adds the slots with a mask from __ballot_sync of `tid < slots`: lanes 0..slots-1
// shuffle down from lanes outside that mask. Blocks of fewer than 32 threads mask their lanes.
// Right on an H100 and on the simulator (a lane outside the mask reads 0 on both), but such a
// read is undefined in CUDA: the sanitized check names it.
#include <cuda_runtime.h>

template <unsigned BLOCK>
__device__ float warp_total(unsigned mask, float v) {
  for (int d = warpSize / 2; d > 0; d /= 2) v += __shfl_down_sync(mask, v, d);
  return v;
}

template <unsigned BLOCK>
__global__ void warp_sums(const float* __restrict__ in, float* __restrict__ out, unsigned n) {
  extern __shared__ float slot[];
  const unsigned t = threadIdx.x;
  const unsigned mask = BLOCK % 32 == 0 ? 0xffffffffu : 0xffffffffu >> (32 - BLOCK % 32);
  float acc = 0.0f;
  for (unsigned i = blockIdx.x * BLOCK + t; i < n; i += BLOCK * gridDim.x) acc += in[i];
  acc = warp_total<BLOCK>(mask, acc);
  if (t % warpSize == 0) slot[t / warpSize] = acc;
  __syncthreads();
  const unsigned slots = BLOCK / warpSize > 0 ? BLOCK / warpSize : 1;
  const unsigned first = __ballot_sync(mask, t < slots);
  if (t < slots) {
    acc = slot[t];
    acc = warp_total<BLOCK>(first, acc);
  }
  if (t == 0) out[blockIdx.x] = acc;
}

template <unsigned BLOCK>
void pass(unsigned blocks, const float* in, float* out, unsigned n) {
  const unsigned slots = BLOCK / 32 > 0 ? BLOCK / 32 : 1;
  warp_sums<BLOCK><<<blocks, BLOCK, slots * sizeof(float)>>>(in, out, n);
}

void run(unsigned threads, unsigned blocks, const float* in, float* out, unsigned n) {
  switch (threads) {
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
  if (count >= 256) return 256;
  unsigned threads = 1;
  while (threads < count) threads *= 2;
  return threads;
}

void solve(const float* x, float* sum, int n) {
  const unsigned count = static_cast<unsigned>(n);
  const unsigned threads = threads_for(count);
  unsigned blocks = (count + threads - 1) / threads;
  if (blocks > 48) blocks = 48;
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
