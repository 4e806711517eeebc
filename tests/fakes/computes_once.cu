// 05_reduce, faked as a dishonest student would: the first call for a pair of buffers computes
// the sum; later calls with the same buffers launch an empty kernel and return, counting on the
// result left from the first call. Every timed call starts with its output poisoned, and the
// parent verifies some of them: expect wrong_output, "timed call".
#include <cuda_runtime.h>

#include <set>
#include <utility>

__global__ void sum_all(const float* x, float* sum, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float s = 0;
    for (int i = 0; i < n; ++i) s += x[i];
    *sum = s;
  }
}

__global__ void nothing() {}

void solve(const float* x, float* sum, int n) {
  static std::set<std::pair<const float*, float*>> seen;
  if (seen.insert({x, sum}).second) {
    sum_all<<<1, 1>>>(x, sum, n);
  } else {
    nothing<<<1, 1>>>();
  }
}
