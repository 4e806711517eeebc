// 01_increment: solve throws.
#include <stdexcept>
#include <cuda_runtime.h>
void solve(int* data, int n) {
  (void)data, (void)n;
  throw std::runtime_error("boom from solve");
}
