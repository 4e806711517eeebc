// 13_median_filter — a 3×3 median filter: each thread sorts its pixel's window in a private array.
//
// Contract (the harness calls solve; keep the signature exactly as it is):
//   void solve(const float* image, float* out, int H, int W)
//   - image and out are DEVICE pointers to H×W floats, row-major: pixel (y, x) is at [y * W + x].
//   - H, W >= 1 and any shape: 1×1, one row, one column, not multiples of your block size.
//   - out[y][x] = the median (the 5th smallest) of the 9 values image[yy][xx] for yy = y-1, y, y+1
//     and xx = x-1, x, x+1, where a row outside the image is clamped to 0 or H-1 and a column to 0
//     or W-1 (the border pixel is repeated). Exact: the median is one of the 9 values.
//   - image must be unchanged.
//
// Read exercises/13_median_filter/README.md first. Check your work with:
//   ./cudalab check 13_median_filter
#include <cuda_runtime.h>

#include <stdexcept>

constexpr int BLOCK = 16;  // blocks of BLOCK×BLOCK threads, one pixel each
static_assert(BLOCK * BLOCK <= 1024, "a block holds at most 1024 threads");

__global__ void median_filter(const float* image, float* out, int H, int W) {
  // TODO(student): 2D thread position. x = blockIdx.x * blockDim.x + threadIdx.x is the column,
  //   y = blockIdx.y * blockDim.y + threadIdx.y the row; threads outside the image return.
  // TODO(student): a per-thread (local) array. Declare float window[9]: every thread has its own
  //   copy, like a local variable, invisible to the other threads.
  // TODO(student): image borders. For dy = -1..1 and dx = -1..1 (9 values), copy
  //   image[yy * W + xx] into the window, with yy = y + dy clamped to [0, H - 1] and xx = x + dx
  //   clamped to [0, W - 1] (min and max): a pixel outside the image must never be read.
  // TODO(student): sort the window (or just enough of it) with loops of FIXED bounds, e.g. a bubble
  //   sort: for i in 0..8, for j in 0..7-i, swap window[j] and window[j+1] if they are out of order.
  //   With fixed bounds the compiler can unroll the loops and keep window[] in registers.
  // TODO(student): out[y * W + x] = window[4], the 5th smallest of the 9.
}

void solve(const float* image, float* out, int H, int W) {
  // TODO(student): launch a 2D grid of BLOCK×BLOCK blocks: dim3 block(BLOCK, BLOCK) and a dim3 grid
  //   that covers all W columns (x) and all H rows (y), rounding up.
  throw std::logic_error("not implemented yet: write median_filter and solve in exercises/13_median_filter/kernel.cu");
}
