// Warp-level constructs for the simulator tests: shuffles (full and partial masks, widths),
// votes, __syncwarp, match and reduce, including a partial last warp.
#include <cuda_runtime.h>

// out[t * 8 + k]: result k of thread t.
__global__ void shuffles(int* out, float* fout) {
  const unsigned t = threadIdx.x;
  const unsigned lane = t % 32;
  int* o = out + t * 8;
  o[0] = __shfl_sync(0xffffffffu, static_cast<int>(t * 10), 3);          // broadcast lane 3
  o[1] = __shfl_up_sync(0xffffffffu, static_cast<int>(t), 2);            // lane - 2, or own
  o[2] = __shfl_down_sync(0xffffffffu, static_cast<int>(t), 5, 16);      // within 16-lane halves
  o[3] = __shfl_xor_sync(0xffffffffu, static_cast<int>(t), 1);           // swap neighbours
  // Warp sum by butterfly: every lane gets the warp's total.
  int v = static_cast<int>(t);
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  o[4] = v;
  o[5] = static_cast<int>(__ballot_sync(0xffffffffu, lane % 3 == 0));
  o[6] = __any_sync(0xffffffffu, t == 40) * 10 + __all_sync(0xffffffffu, t < 1000);
  // Doubles and floats go through the same rendezvous.
  double d = 0.5 * t;
  d = __shfl_down_sync(0xffffffffu, d, 1);
  fout[t] = static_cast<float>(d);
  __syncwarp();
  o[7] = __reduce_add_sync(0xffffffffu, lane);
}

// Partial masks: the even lanes and the odd lanes of a warp shuffle separately and concurrently.
__global__ void partial_masks(int* out) {
  const unsigned lane = threadIdx.x % 32;
  const unsigned even = 0x55555555u, odd = 0xaaaaaaaau;
  const unsigned mask = (lane % 2 == 0) ? even : odd;
  int v = static_cast<int>(lane) + 1;
  // Sum over the 16 lanes of the same parity; the xor offsets keep parity.
  for (int off = 2; off < 32; off <<= 1) v += __shfl_xor_sync(mask, v, off);
  out[threadIdx.x] = v;
  // Lower half only: a mask of the first 16 lanes, the others skip it.
  if (lane < 16) {
    out[64 + threadIdx.x] = __shfl_sync(0x0000ffffu, static_cast<int>(lane) * 2, 15);
  } else {
    out[64 + threadIdx.x] = -1;
  }
}

// A block of 48 threads: the second warp has 16 lanes; a full mask means the lanes that exist.
__global__ void partial_warp(int* out) {
  int v = 1;
  for (int off = threadIdx.x < 32 ? 16 : 8; off > 0; off >>= 1) {
    v += __shfl_down_sync(0xffffffffu, v, off);
  }
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = v;
  out[2 + threadIdx.x] = static_cast<int>(__activemask());
}

__global__ void warp_exit_in_mask(int* out) {
  // Lane 3 has returned: a full-mask shuffle can never complete.
  if (threadIdx.x == 3) return;
  out[threadIdx.x] = __shfl_sync(0xffffffffu, 1, 0);
}

extern "C" int warp_shuffles(int* out, float* fout, int threads) {
  int* d;
  float* f;
  cudaMalloc(&d, threads * 8 * sizeof(int));
  cudaMalloc(&f, threads * sizeof(float));
  shuffles<<<2, threads>>>(d, f);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(out, d, threads * 8 * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(fout, f, threads * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
  cudaFree(f);
  return err;
}

extern "C" int warp_partial_masks(int* out128) {
  int* d;
  cudaMalloc(&d, 128 * sizeof(int));
  partial_masks<<<1, 64>>>(d);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(out128, d, 128 * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return err;
}

extern "C" int warp_partial_warp(int* out50) {
  int* d;
  cudaMalloc(&d, 50 * sizeof(int));
  partial_warp<<<1, 48>>>(d);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(out50, d, 50 * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return err;
}

extern "C" int warp_exit_fault() {
  int* d;
  cudaMalloc(&d, 32 * sizeof(int));
  warp_exit_in_mask<<<1, 32>>>(d);
  cudaError_t err = cudaDeviceSynchronize();
  cudaDeviceReset();
  return err;
}
