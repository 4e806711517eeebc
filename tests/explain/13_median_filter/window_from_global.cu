// explain: traffic | 18 | image is read 11 times over
// The straightforward median filter: one thread per pixel reads its 9 neighbours from global
// memory (clamped at the borders) and sorts them. Neighbouring threads read neighbouring pixels
// (coalesced), but each pixel is read by 9 threads: about 11 times the image's bytes where once
// would do (the loads at x − 1 and x + 1 straddle an extra sector). On a GPU the caches serve
// many of the repeats, so the estimate is an upper bound; a tile with a halo reads each pixel once.
#include <cuda_runtime.h>

__global__ void median3x3(const float* image, float* out, int H, int W) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  float window[9];
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      const int yy = min(max(y + dy, 0), H - 1);
      const int xx = min(max(x + dx, 0), W - 1);
      window[(dy + 1) * 3 + (dx + 1)] = image[yy * W + xx];
    }
  }
  for (int i = 1; i < 9; ++i) {  // insertion sort
    const float v = window[i];
    int j = i - 1;
    while (j >= 0 && window[j] > v) {
      window[j + 1] = window[j];
      --j;
    }
    window[j + 1] = v;
  }
  out[y * W + x] = window[4];
}

void solve(const float* image, float* out, int H, int W) {
  const dim3 block(16, 16);
  const dim3 grid((W + block.x - 1) / block.x, (H + block.y - 1) / block.y);
  median3x3<<<grid, block>>>(image, out, H, W);
}
