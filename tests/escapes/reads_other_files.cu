// 05_reduce: reads another student's submission and the gradebook, by the absolute paths a
// student could learn (the test puts them in a folder of its own).
// expect: passed | the sandbox blocked: open @GRADEBOOK@ (permission denied by the sandbox)
// also: the sandbox blocked: open @OTHER_SUBMISSION@ (permission denied by the sandbox)
// never: ESCAPED
// needs: landlock
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

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

static void steal(const char* path) {
  FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return;
  char buf[128] = {};
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  throw std::runtime_error(std::string("ESCAPED: read ") + path + ": " + std::string(buf, n));
}

void solve(const float* x, float* sum, int n) {
  steal("@OTHER_SUBMISSION@");
  steal("@GRADEBOOK@");
  reduce(x, sum, n);
}
