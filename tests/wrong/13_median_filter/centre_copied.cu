// expect: wrong_output | out equals image
// Bug: the window is gathered but never sorted, so window[4], which is the centre pixel itself
// (dy = 0, dx = 0), is written back: the image is copied, not filtered.
#include <cuda_runtime.h>

__global__ void median_filter(const float* image, float* out, int H, int W) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  float window[9];
  int k = 0;
  for (int dy = -1; dy <= 1; ++dy) {
    const int yy = min(max(y + dy, 0), H - 1);
    for (int dx = -1; dx <= 1; ++dx) window[k++] = image[yy * W + min(max(x + dx, 0), W - 1)];
  }
  // the bug: the sort is missing
  out[y * W + x] = window[4];
}

void solve(const float* image, float* out, int H, int W) {
  const dim3 block(16, 16);
  const dim3 grid((W + 15) / 16, (H + 15) / 16);
  median_filter<<<grid, block>>>(image, out, H, W);
}
