// 05_reduce: fills the disk: up to 1 GiB into a file in its working folder, 1 MiB at a time.
// The file size limit stops it at 64 MiB (SIGXFSZ), and the working folder goes afterwards.
// expect: crash | wrote a file larger than the 64 MiB the sandbox allows
// never: ESCAPED
// needs: sandbox
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

__global__ void reduce_sum(const float* x, float* sum, int n) {
  __shared__ float part[256];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += x[i];
  part[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, part[0]);
}

static void reduce(const float* x, float* sum, int n) {
  cudaMemset(sum, 0, sizeof(float));
  reduce_sum<<<std::min((n + 255) / 256, 64), 256>>>(x, sum, n);
}

void solve(const float* x, float* sum, int n) {
  std::FILE* f = std::fopen("fill.bin", "wb");
  if (f != nullptr) {
    const std::vector<char> block(1 << 20, 'x');
    std::size_t written = 0;
    for (int i = 0; i < 1024; ++i) {
      if (std::fwrite(block.data(), 1, block.size(), f) != block.size() || std::fflush(f) != 0) break;
      written += block.size();
    }
    std::fclose(f);
    if (written > (std::size_t{64} << 20)) {
      throw std::runtime_error("ESCAPED: wrote " + std::to_string(written >> 20) + " MiB");
    }
  }
  reduce(x, sum, n);
}
