// expect: wrong_output | out is the mean of each 3×3 window, not its median
// Bug: the window is gathered with clamped borders, but the kernel averages it instead of taking
// its median: an impulse (a ±8 pixel) is smeared over its 9 neighbours instead of dropped.
#include <cuda_runtime.h>

__global__ void median_filter(const float* image, float* out, int H, int W) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  float sum = 0.0f;
  for (int dy = -1; dy <= 1; ++dy) {
    const int yy = min(max(y + dy, 0), H - 1);
    for (int dx = -1; dx <= 1; ++dx) sum += image[yy * W + min(max(x + dx, 0), W - 1)];
  }
  out[y * W + x] = sum / 9.0f;  // the bug: a mean, not the median
}

void solve(const float* image, float* out, int H, int W) {
  const dim3 block(16, 16);
  const dim3 grid((W + 15) / 16, (H + 15) / 16);
  median_filter<<<grid, block>>>(image, out, H, W);
}
