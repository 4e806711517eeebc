// 05_reduce, faked as a dishonest student would: the first call for a pair of buffers computes
// the sum; later calls with the same buffers launch an empty kernel and return, counting on the
// result left from the first call. Every timed call starts with its output poisoned, and the
// parent verifies some of them: expect wrong_output, "timed call".
#include "sum.cuh"

#include <set>
#include <utility>

__global__ void nothing() {}

void solve(const float* x, float* sum, int n) {
  static std::set<std::pair<const float*, float*>> seen;
  if (seen.insert({x, sum}).second) {
    cudaMemset(sum, 0, sizeof(float));
    sum_all<<<sum_blocks(n), 256>>>(x, sum, n);
  } else {
    nothing<<<1, 1>>>();
  }
}
