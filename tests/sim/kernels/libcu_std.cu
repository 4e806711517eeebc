// libcu++'s cuda::std headers and <cuda/cmath> on the simulator, as a kernel would use them: the
// identity of a max (numeric_limits), min and max, an array in registers, swap, bit_width, and
// ceil_div for the grid.
#include <cuda_runtime.h>
#include <cuda/cmath>
#include <cuda/std/array>
#include <cuda/std/bit>
#include <cuda/std/cstdint>
#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <cuda/std/utility>

struct LibcuStd {
  float max;                 // the largest element, from numeric_limits<float>::lowest()
  float min;                 // the smallest, from infinity()
  int sorted_pairs;          // threads whose swapped pair came out in order
  cuda::std::uint32_t bits;  // bit_width(n), computed in device code
  unsigned blocks;           // ceil_div(n, threads), computed in device code
  unsigned rounded_up;       // round_up(n, 32)
  unsigned rounded_down;     // round_down(n, 32)
};

__global__ void libcu_std_kernel(const float* x, int n, LibcuStd* r) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  static_assert(cuda::std::is_same_v<cuda::std::int32_t, int>, "int32_t is int");
  cuda::std::array<float, 2> pair{x[i], x[(i + 1) % n]};
  if (pair[0] > pair[1]) cuda::std::swap(pair[0], pair[1]);
  if (pair[0] <= pair[1]) atomicAdd(&r->sorted_pairs, 1);
  // Each thread's own maximum and minimum, starting from each operator's identity.
  float hi = cuda::std::numeric_limits<float>::lowest();
  float lo = cuda::std::numeric_limits<float>::infinity();
  hi = cuda::std::max(hi, x[i]);
  lo = cuda::std::min(lo, x[i]);
  atomicMax(reinterpret_cast<int*>(&r->max), __float_as_int(hi));  // x > 0: ints order as floats
  atomicMin(reinterpret_cast<int*>(&r->min), __float_as_int(lo));
  if (i == 0) {
    r->bits = static_cast<cuda::std::uint32_t>(cuda::std::bit_width(static_cast<unsigned>(n)));
    r->blocks = cuda::ceil_div(n, blockDim.x);
    r->rounded_up = cuda::round_up(static_cast<unsigned>(n), 32u);
    r->rounded_down = cuda::round_down(static_cast<unsigned>(n), 32u);
  }
}

extern "C" int libcu_std(const float* x_host, int n, int threads, LibcuStd* r) {
  float* x;
  LibcuStd* d;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&d, sizeof(LibcuStd));
  cudaMemcpy(x, x_host, n * sizeof(float), cudaMemcpyHostToDevice);
  LibcuStd init{};
  init.max = 0.0f;
  init.min = cuda::std::numeric_limits<float>::max();
  cudaMemcpy(d, &init, sizeof init, cudaMemcpyHostToDevice);
  libcu_std_kernel<<<cuda::ceil_div(n, threads), threads>>>(x, n, d);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(r, d, sizeof *r, cudaMemcpyDeviceToHost);
  cudaFree(x);
  cudaFree(d);
  return err;
}
