// Reference solution for 13_median_filter: out[y][x] = median of the 3×3 window around (y, x),
// rows clamped to [0, H − 1] and columns to [0, W − 1].
//
// Contract: void solve(const float* image, float* out, int H, int W) — DEVICE pointers, H×W
// row-major.
//
// Each pixel is read by 9 windows; the trick is to read it from memory once and share it on chip:
//   - a warp filters a strip of 32 columns × ROWS rows; each lane owns one column and reads the
//     ROWS + 2 rows its windows cover, one float per row: 32 consecutive floats per warp-load, one
//     coalesced request. Its left and right neighbours come from the adjacent lanes by shuffles
//     (__shfl_up_sync / __shfl_down_sync), so the only extra loads are the 2 columns just outside
//     the warp, read by lanes 0 and 31. Borders: the load addresses are clamped to the image, so
//     the filter itself needs no border case;
//   - the windows of vertically adjacent pixels share 2 of their 3 rows, and the median network
//     below starts by sorting each row of 3: a lane sorts ROWS + 2 rows for ROWS pixels instead of
//     3 per pixel. The median of 9 uses min and max only, on registers: with each row of the window
//     sorted (lo ≤ mid ≤ hi), the median is med3(max of the 3 lo, med3 of the 3 mid, min of the 3
//     hi), an exact result in about 19 min/max instructions per pixel here, no branches, no sort
//     loop. All arrays are indexed with constants after unrolling, so they live in registers: no
//     local memory (nvcc -Xptxas -v reports 0 bytes of stack frame);
//   - no shared memory and no barrier: warps never wait for each other, and all ROWS + 2 loads of
//     a lane are issued before the first is used. The rows above and below a strip are read by the
//     strips next to it too, and come from L2 the second time.
// On an H100 at 8192×8193: 83 % of a device-to-device copy's bandwidth for the 8 bytes per pixel
// (215 µs; ROWS = 6 or 8: 218–221 µs). A block that loaded a 32×32 tile with its halo into shared
// memory first reached 77 %: every thread waited at the barrier for the slowest load. What is
// left is not the DRAM (66 % busy) but two other limits, both over 80 % (Nsight Compute, H100):
// the ALU pipe at 82 %, where FP32 min and max run at half the FMA rate beside the integer and
// select instructions (about 37 instructions per pixel: sorting, shuffles, addresses), and L2 at
// 88 %, which serves the rows read a second time and, as rows of 8193 floats are not 128-byte
// aligned, 5 sectors for each warp's 128 bytes. That is this kernel's ceiling (docs/performance.md).
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(err));
}

}  // namespace

constexpr int WARP_SIZE = 32;
constexpr int WARPS = 8;  // per block, each on its own strip
constexpr int ROWS = 10;  // output pixels per lane: one column, consecutive rows
constexpr int MAX_GRID_Y = 65535;
constexpr unsigned FULL_MASK = 0xffffffffu;
static_assert(ROWS % 2 == 0, "the pixels are filtered in pairs");

// Sorts three values: a ≤ b ≤ c afterwards. Six min/max instructions.
__device__ __forceinline__ void sort3(float& a, float& b, float& c) {
  const float lo = fminf(a, b), hi = fmaxf(a, b);
  const float top = fmaxf(hi, c), m = fminf(hi, c);
  a = fminf(lo, m);
  b = fmaxf(lo, m);
  c = top;
}

__device__ __forceinline__ float med3(float a, float b, float c) { return fmaxf(fminf(a, b), fminf(fmaxf(a, b), c)); }

__global__ void __launch_bounds__(WARP_SIZE* WARPS)
    median3x3(const float* __restrict__ image, float* __restrict__ out, int H, int W) {
  const int lane = threadIdx.x;
  const int x_first = blockIdx.x * WARP_SIZE;  // the strip's first column
  const int x = x_first + lane;
  const int x_load = min(x, W - 1);  // lanes past the right edge read the last column (and write nothing)
  // Lane 0 also reads the column left of the strip, lane 31 the one right of it.
  const bool outer = lane == 0 || lane == WARP_SIZE - 1;
  const int x_outer = lane == 0 ? max(x_first - 1, 0) : min(x_first + WARP_SIZE, W - 1);
  const int strips = (H + ROWS - 1) / ROWS;
  // A grid-stride loop over strips: gridDim.y stops at 65535, H may need more.
  for (int strip = blockIdx.y * WARPS + threadIdx.y; strip < strips; strip += gridDim.y * WARPS) {
    const int y_first = strip * ROWS;
    // Window rows y_first − 1 … y_first + ROWS, clamped; every load issued before any is used.
    float centre[ROWS + 2], beside[ROWS + 2];
#pragma unroll
    for (int r = 0; r < ROWS + 2; ++r) {
      const float* row = image + static_cast<size_t>(min(max(y_first - 1 + r, 0), H - 1)) * W;
      centre[r] = __ldg(row + x_load);
      beside[r] = outer ? __ldg(row + x_outer) : 0.0f;
    }
    // Each window row as (left, centre, right), sorted. Every lane takes part in the shuffles.
    float lo[ROWS + 2], mid[ROWS + 2], hi[ROWS + 2];
#pragma unroll
    for (int r = 0; r < ROWS + 2; ++r) {
      const float from_left = __shfl_up_sync(FULL_MASK, centre[r], 1);
      const float from_right = __shfl_down_sync(FULL_MASK, centre[r], 1);
      lo[r] = lane == 0 ? beside[r] : from_left;
      mid[r] = centre[r];
      // The last column's right neighbour is itself (clamped); lane 31's comes from its own load.
      hi[r] = x + 1 >= W ? centre[r] : (lane == WARP_SIZE - 1 ? beside[r] : from_right);
      sort3(lo[r], mid[r], hi[r]);
    }
#pragma unroll
    for (int k = 0; k < ROWS; k += 2) {
      // Pixels k and k + 1 share window rows k + 1 and k + 2: their max, min and the two middles'
      // order are computed once for both.
      const float lo_shared = fmaxf(lo[k + 1], lo[k + 2]);
      const float hi_shared = fminf(hi[k + 1], hi[k + 2]);
      const float mid_small = fminf(mid[k + 1], mid[k + 2]), mid_large = fmaxf(mid[k + 1], mid[k + 2]);
      const float first =
          med3(fmaxf(lo[k], lo_shared), fmaxf(mid_small, fminf(mid_large, mid[k])), fminf(hi[k], hi_shared));
      const float second = med3(fmaxf(lo_shared, lo[k + 3]), fmaxf(mid_small, fminf(mid_large, mid[k + 3])),
                                fminf(hi_shared, hi[k + 3]));
      // Plain stores: streaming ones (__stcs) measured slower on an H100.
      const int y = y_first + k;
      if (x < W && y < H) out[static_cast<size_t>(y) * W + x] = first;
      if (x < W && y + 1 < H) out[static_cast<size_t>(y + 1) * W + x] = second;
    }
  }
}

void solve(const float* image, float* out, int H, int W) {
  const int strips = (H + ROWS - 1) / ROWS;
  const dim3 grid((W + WARP_SIZE - 1) / WARP_SIZE, std::min((strips + WARPS - 1) / WARPS, MAX_GRID_Y));
  median3x3<<<grid, dim3(WARP_SIZE, WARPS)>>>(image, out, H, W);
  check(cudaGetLastError(), "launch of median3x3");
}
