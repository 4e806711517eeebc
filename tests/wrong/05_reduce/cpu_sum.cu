// expect: requirement_unmet | no kernel ran on the GPU
// Bug: the sum is computed on the host (copy x down, add up, copy the answer up): right, and no
// GPU work at all.
#include <cuda_runtime.h>

#include <vector>

void solve(const float* x, float* sum, int n) {
  std::vector<float> h(static_cast<size_t>(n));
  cudaMemcpy(h.data(), x, h.size() * sizeof(float), cudaMemcpyDeviceToHost);
  double total = 0;
  for (float v : h) total += v;
  const float result = static_cast<float>(total);
  cudaMemcpy(sum, &result, sizeof(float), cudaMemcpyHostToDevice);
}
