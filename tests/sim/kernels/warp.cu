// Warp-level constructs for the simulator tests: shuffles (full and partial masks, widths),
// votes, __syncwarp, match and reduce, including a partial last warp.
#include <cuda_runtime.h>

// out[t * 8 + k]: result k of thread t.
__global__ void shuffles(int* out, float* fout) {
  const unsigned t = threadIdx.x;
  const unsigned lane = t % 32;
  int* o = out + t * 8;
  o[0] = __shfl_sync(0xffffffffu, static_cast<int>(t * 10), 3);      // broadcast lane 3
  o[1] = __shfl_up_sync(0xffffffffu, static_cast<int>(t), 2);        // lane - 2, or own
  o[2] = __shfl_down_sync(0xffffffffu, static_cast<int>(t), 5, 16);  // within 16-lane halves
  o[3] = __shfl_xor_sync(0xffffffffu, static_cast<int>(t), 1);       // swap neighbours
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

// Shuffles whose source lane takes no part, in range of the width: an H100 reads 0 (measured;
// undefined in CUDA). Out of the width's range, the caller's own value, as CUDA defines.
// out[t * 8 + k]: result k of thread t; launched as <<<1, 32>>> (mode 0) and <<<1, 8>>> (mode 1).
__global__ void absent_sources(int* out, int mode) {
  const int t = static_cast<int>(threadIdx.x);
  const int v = 1000 + t;
  int* o = out + t * 8;
  if (mode == 0) {
    o[0] = t < 8 ? __shfl_down_sync(0x000000ffu, v, 8) : -1;  // lanes 8..15 are outside the mask
    o[1] = t < 8 ? __shfl_down_sync(0x000000ffu, v, 4) : -1;  // lanes 4..7 take part, 8..11 do not
    o[2] = __shfl_xor_sync(0xffffffffu, v, 16, 16);           // an earlier 16-lane segment is readable
    o[3] = __shfl_up_sync(0xffffffffu, v, 33);                // the offset's low 5 bits: 1
  } else {
    // A block of 8 threads: lanes 8..31 do not exist.
    o[0] = __shfl_down_sync(0xffffffffu, v, 4);
    o[1] = __shfl_sync(0xffffffffu, v, 20);
    o[2] = __shfl_xor_sync(0xffffffffu, v, 16);
    o[3] = __shfl_down_sync(0xffffffffu, v, 4, 8);  // within a width of 8: own value past lane 7
    o[4] = static_cast<int>(__ballot_sync(0xffffffffu, 1));
    o[5] = __all_sync(0xffffffffu, 1) * 10 + __any_sync(0xffffffffu, 0);
    __syncwarp();
  }
}

// Sums of a reduce7-style second stage: lanes below `active` add with a mask from __ballot_sync and
// shuffle down from lanes outside it. out[0] = lane 0's sum.
__global__ void ballot_stage(float* out, int active) {
  const unsigned t = threadIdx.x;
  float v = 100.0f * static_cast<float>(t);  // every lane holds a value, the lanes outside too
  const unsigned m = __ballot_sync(0xffffffffu, t < static_cast<unsigned>(active));
  if (t < static_cast<unsigned>(active)) {
    v = static_cast<float>(t + 1);
    for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(m, v, d);
  }
  if (t == 0) out[0] = v;
}

extern "C" int warp_absent_sources(int* out256, int mode) {
  int* d;
  cudaMalloc(&d, 256 * sizeof(int));
  cudaMemset(d, 0xff, 256 * sizeof(int));
  absent_sources<<<1, mode == 0 ? 32 : 8>>>(d, mode);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(out256, d, 256 * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return err;
}

extern "C" float warp_ballot_stage(int active) {
  float* d;
  float h = -1.0f;
  cudaMalloc(&d, sizeof(float));
  ballot_stage<<<1, 32>>>(d, active);
  cudaMemcpy(&h, d, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return h;
}

// Device-side fmaxf/fminf and the float max/min overloads with NaN operands, as an H100 gives
// them (measured): the other operand, NaN only if both are. out[0..9]; in = {sNaN, qNaN, -1}.
__global__ void nan_minmax(float* out, const float* in) {
  const float snan = in[0], qnan = in[1];
  out[0] = fmaxf(snan, 1.0f);
  out[1] = fmaxf(1.0f, snan);
  out[2] = fminf(snan, 2.0f);
  out[3] = fminf(2.0f, qnan);
  out[4] = max(snan, 3.0f);
  out[5] = min(4.0f, snan);
  out[6] = static_cast<float>(fmax(static_cast<double>(snan), 5.0));
  out[7] = static_cast<float>(fmin(6.0, static_cast<double>(qnan)));
  out[8] = fmaxf(snan, snan);
  out[9] = fminf(in[2], snan);  // -1
}

extern "C" int warp_nan_minmax(float* out10, const float* in3) {
  float *d, *i;
  cudaMalloc(&d, 10 * sizeof(float));
  cudaMalloc(&i, 3 * sizeof(float));
  cudaMemcpy(i, in3, 3 * sizeof(float), cudaMemcpyHostToDevice);
  nan_minmax<<<1, 1>>>(d, i);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(out10, d, 10 * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
  cudaFree(i);
  return err;
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
