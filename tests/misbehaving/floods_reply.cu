// 01_increment: solve writes far more than any reply to the runner's reply pipe.
#include <unistd.h>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
void solve(int* data, int n) {
  (void)data, (void)n;
  std::vector<char> block(1 << 20, ' ');
  for (int i = 0; i < 64; ++i) (void)!write(4, block.data(), block.size());
}
