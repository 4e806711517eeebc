// expect: wrong_output | middle of 8 of the 9 window values
// Bug: an off-by-one in the sort: its loops run over window[0..7] only (i < 8, j < 8), so the
// bottom-right neighbour, window[8], never takes part, and window[4] is the upper middle of the
// other 8 values, not the median of 9.
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
  for (int i = 0; i < 8; ++i) {  // the bug: i < 9 and j < 9
    for (int j = i + 1; j < 8; ++j) {
      if (window[j] < window[i]) {
        const float t = window[i];
        window[i] = window[j];
        window[j] = t;
      }
    }
  }
  out[y * W + x] = window[4];
}

void solve(const float* image, float* out, int H, int W) {
  const dim3 block(16, 16);
  const dim3 grid((W + 15) / 16, (H + 15) / 16);
  median_filter<<<grid, block>>>(image, out, H, W);
}
