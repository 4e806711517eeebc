// 05_reduce, faked: the sum is computed once per input buffer and kept on the host; later calls
// copy the kept value into *sum. Every output is right, so only the speed gives it away: 4 bytes
// copied where n floats must be read. Expect impossible_speed.
#include "sum.cuh"

#include <map>

void solve(const float* x, float* sum, int n) {
  static std::map<const float*, float> kept;
  const auto it = kept.find(x);
  if (it != kept.end()) {
    cudaMemcpy(sum, &it->second, sizeof(float), cudaMemcpyHostToDevice);
    return;
  }
  cudaMemset(sum, 0, sizeof(float));
  sum_all<<<sum_blocks(n), 256>>>(x, sum, n);
  float s = 0;
  cudaMemcpy(&s, sum, sizeof(float), cudaMemcpyDeviceToHost);
  kept[x] = s;
}
