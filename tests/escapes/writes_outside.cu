// 05_reduce: writes into the project and into /tmp, then leaves 8 MiB in its
// own working folder (allowed, and reported, then removed).
// expect: passed | the sandbox blocked: open @PROJECT@/escaped-@MARKER@.txt (permission denied by the sandbox)
// also: the sandbox blocked: open /tmp/@MARKER@.txt (permission denied by the sandbox)
// also: solve left 8.0 MiB of files in its working folder
// never: ESCAPED
// needs: landlock
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

static void plant(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return;
  std::fputs("planted\n", f);
  std::fclose(f);
  throw std::runtime_error("ESCAPED: wrote " + path);
}

void solve(const float* x, float* sum, int n) {
  plant("@PROJECT@/escaped-@MARKER@.txt");
  plant("/tmp/@MARKER@.txt");
  std::FILE* f = std::fopen("left-behind.bin", "wb");
  if (f != nullptr) {
    const std::vector<char> block(8 << 20, 'x');
    std::fwrite(block.data(), 1, block.size(), f);
    std::fclose(f);
  }
  reduce(x, sum, n);
}
