// The honest part of the 05_reduce fakes: a right and reasonably fast sum (a grid-stride loop,
// a warp-shuffle tree, one atomicAdd per warp into a zeroed *sum), so that the calls that do compute stay short and
// the timed calls are many, on the GPU as on the simulator.
#pragma once

#include <cuda_runtime.h>

__global__ void sum_all(const float* x, float* sum, int n) {
  float v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += x[i];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(sum, v);
}

// Blocks of 256 threads for sum_all: one per 256 elements, at most 1024 (the loop covers the rest).
// The launch itself stays in each fake's .cu: the simulator translates `<<<...>>>` there only.
inline int sum_blocks(int n) { return (n + 255) / 256 < 1024 ? (n + 255) / 256 : 1024; }
