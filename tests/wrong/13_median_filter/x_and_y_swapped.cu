// expect: wrong_output | x and y are swapped
// Bug: the grid is sized with x across the W columns and y across the H rows, but the kernel takes
// the row from the x index and the column from the y index. Each pixel it does filter is right, but
// it reaches only rows below the x extent and columns below the y extent: a square image is
// covered, a wide or tall one only in part (right while both sides fit in one block).
#include <cuda_runtime.h>

__device__ void sort9(float* w) {
  for (int i = 0; i < 9; ++i) {
    for (int j = 0; j < 8 - i; ++j) {
      const float a = w[j], b = w[j + 1];
      w[j] = fminf(a, b);
      w[j + 1] = fmaxf(a, b);
    }
  }
}

__global__ void median_filter(const float* image, float* out, int H, int W) {
  const int y = blockIdx.x * blockDim.x + threadIdx.x;  // the bug: x is the column
  const int x = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  float window[9];
  int k = 0;
  for (int dy = -1; dy <= 1; ++dy) {
    const int yy = min(max(y + dy, 0), H - 1);
    for (int dx = -1; dx <= 1; ++dx) window[k++] = image[yy * W + min(max(x + dx, 0), W - 1)];
  }
  sort9(window);
  out[y * W + x] = window[4];
}

void solve(const float* image, float* out, int H, int W) {
  const dim3 block(16, 16);
  const dim3 grid((W + 15) / 16, (H + 15) / 16);
  median_filter<<<grid, block>>>(image, out, H, W);
}
