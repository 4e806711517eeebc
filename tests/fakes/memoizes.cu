// 05_reduce, faked: the sum is computed once per input buffer and kept on the host; later calls
// copy the kept value into *sum. Every output is right, so only the speed gives it away: 4 bytes
// copied where n floats must be read. Expect impossible_speed.
#include <cuda_runtime.h>

#include <map>

__global__ void sum_all(const float* x, float* sum, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float s = 0;
    for (int i = 0; i < n; ++i) s += x[i];
    *sum = s;
  }
}

void solve(const float* x, float* sum, int n) {
  static std::map<const float*, float> kept;
  const auto it = kept.find(x);
  if (it != kept.end()) {
    cudaMemcpy(sum, &it->second, sizeof(float), cudaMemcpyHostToDevice);
    return;
  }
  sum_all<<<1, 1>>>(x, sum, n);
  float s = 0;
  cudaMemcpy(&s, sum, sizeof(float), cudaMemcpyDeviceToHost);
  kept[x] = s;
}
