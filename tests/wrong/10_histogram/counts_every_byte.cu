// expect: wrong_output | exactly 3 for each of the
// never: bins held something before this call
// Bug: histogram256's packed-byte loop applied to ints: the values are read as 4n bytes and each
// byte counted as a value. A value below 256 is its low byte plus 3 zero bytes, so bin 0 gets 3n
// counts too many. The bins were zeroed: the extra is not left from an earlier call.
#include <cuda_runtime.h>

__global__ void count_bytes(const unsigned char* bytes, int* bins, long long count) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) atomicAdd(&bins[bytes[i]], 1);
}

void solve(const int* values, int* bins, int n, int num_bins) {
  cudaMemset(bins, 0, num_bins * sizeof(int));
  const long long count = 4LL * n;  // the bug: n ints, counted as 4n bytes
  count_bytes<<<static_cast<unsigned>((count + 255) / 256), 256>>>(reinterpret_cast<const unsigned char*>(values), bins,
                                                                   count);
}
