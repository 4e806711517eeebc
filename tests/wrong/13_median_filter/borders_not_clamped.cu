// expect: out_of_bounds | before the start of image
// finding: out_of_bounds | 17 | an index went below 0
// Bug: the neighbours' rows and columns are not clamped: at the border the window reads outside
// the image. Row -1 lies before the start of the buffer and row H after its end (out of bounds:
// on a GPU whatever memory is there, here the harness's guard zones), and column -1 or W wraps
// around to the other end of the neighbouring row. Interior pixels are right.
#include <cuda_runtime.h>

__global__ void median_filter(const float* image, float* out, int H, int W) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  float window[9];
  int k = 0;
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      window[k++] = image[(y + dy) * W + (x + dx)];  // the bug: no clamping to the image
    }
  }
  for (int i = 0; i < 9; ++i) {
    for (int j = 0; j < 8 - i; ++j) {
      const float a = window[j], b = window[j + 1];
      window[j] = fminf(a, b);
      window[j + 1] = fmaxf(a, b);
    }
  }
  out[y * W + x] = window[4];
}

void solve(const float* image, float* out, int H, int W) {
  const dim3 block(16, 16);
  const dim3 grid((W + 15) / 16, (H + 15) / 16);
  median_filter<<<grid, block>>>(image, out, H, W);
}
