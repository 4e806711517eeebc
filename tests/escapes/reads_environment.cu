// 05_reduce: looks in its environment for cudalab's variables (CUDALAB_ROOT names the project;
// a grader's secret could sit there too). Only the simulator's thread count, a number, may cross.
// expect: passed | passed
// never: ESCAPED
// needs: sandbox
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

extern char** environ;

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
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "CUDALAB_", 8) == 0 && std::strncmp(*e, "CUDALAB_SIM_THREADS=", 20) != 0) {
      throw std::runtime_error(std::string("ESCAPED: found ") + *e);
    }
  }
  reduce(x, sum, n);
}
