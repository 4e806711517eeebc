// expect: uninitialized_read | local array window
// finding: uninitialized_read | 25 | write every slot of a local array
// finding on gpu: skip: compute-sanitizer does not look for reads of unwritten local memory (the default check finds it there with the simulator's checked run)
// Bug: neighbours outside the image are skipped instead of clamped to the border, but the sort
// still takes all 9 slots of the window: at the border, the slots of the missing neighbours are
// never written and hold whatever the thread's local memory held. On a GPU that is garbage from
// earlier code; on the simulator's plain run, the previous thread's values; the checked run starts
// every local as 0xFE bytes (a float reads -1.7e38), so the median is wrong at every border pixel,
// and names the first read of a slot the thread never wrote.
#include <cuda_runtime.h>

__global__ void median_filter(const float* image, float* out, int H, int W) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  float window[9];
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      const int yy = y + dy, xx = x + dx;
      if (yy < 0 || yy >= H || xx < 0 || xx >= W) continue;  // the bug: the slot stays unwritten
      window[(dy + 1) * 3 + (dx + 1)] = image[yy * W + xx];
    }
  }
  for (int i = 1; i < 9; ++i) {  // insertion sort of all 9 slots
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
  median_filter<<<grid, block>>>(image, out, H, W);
}
