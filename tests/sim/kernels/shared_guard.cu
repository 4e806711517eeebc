// A write past the end of a __shared__ array (the plain build): the guard bytes after each static
// array and after the dynamic shared memory show it when the block ends, and the launch fails with
// a sticky cudaErrorLaunchFailure naming the kernel and the array, instead of corrupting the heap.
#include <cuda_runtime.h>

/// 64 bins indexed by a byte: bins 64..255 lie past the end.
__global__ void byte_histogram(const unsigned char* values, int n, int* out) {
  __shared__ int hist[64];
  for (int b = threadIdx.x; b < 64; b += blockDim.x) hist[b] = 0;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) atomicAdd(&hist[values[i]], 1);
  __syncthreads();
  for (int b = threadIdx.x; b < 64; b += blockDim.x) out[b] = hist[b];
}

/// Two arrays, one written in bounds and one past by `past` elements (a 2D tile: no element name).
__global__ void tile_past(int past, float* out) {
  __shared__ float tile[4][8];
  __shared__ float fine[32];
  fine[threadIdx.x] = 1.0f;
  tile[threadIdx.x / 8][threadIdx.x % 8] = 2.0f;
  if (threadIdx.x == 0) (&tile[0][0])[32 + past] = 3.0f;
  __syncthreads();
  out[threadIdx.x] = fine[threadIdx.x] + tile[threadIdx.x / 8][threadIdx.x % 8];
}

__global__ void dynamic_past(int count, int* out) {
  extern __shared__ int buffer[];
  for (int i = threadIdx.x; i < count; i += blockDim.x) buffer[i] = i;
  __syncthreads();
  out[threadIdx.x] = buffer[threadIdx.x];
}

namespace {
int* device_ints(int n) {
  int* d = nullptr;
  cudaMalloc(&d, n * sizeof(int));
  return d;
}
}  // namespace

/// Counts n bytes of value `value` into 64 bins; `later` gets the next call's error, `bins` bin 0.
/// Resets the device before returning (the error is sticky).
extern "C" int histogram_of(int value, int n, int* later, int* bin0) {
  unsigned char* values = nullptr;
  cudaMalloc(&values, n);
  cudaMemset(values, value, n);
  int* out = device_ints(64);
  byte_histogram<<<4, 32>>>(values, n, out);
  const cudaError_t err = cudaGetLastError();
  *later = cudaDeviceSynchronize();
  cudaMemcpy(bin0, out, sizeof(int), cudaMemcpyDeviceToHost);
  cudaDeviceReset();
  return err == cudaSuccess ? *later : err;
}

/// `tile_past<<<2, 32>>>(past)`; resets the device before returning.
extern "C" int tile_written_past(int past) {
  float* out = nullptr;
  cudaMalloc(&out, 32 * sizeof(float));
  tile_past<<<2, 32>>>(past, out);
  const cudaError_t err = cudaDeviceSynchronize();
  cudaDeviceReset();
  return err;
}

/// `dynamic_past<<<1, 32, bytes>>>(count)`; resets the device before returning.
extern "C" int dynamic_written_past(int count, int bytes) {
  int* out = device_ints(32);
  dynamic_past<<<1, 32, bytes>>>(count, out);
  const cudaError_t err = cudaDeviceSynchronize();
  cudaDeviceReset();
  return err;
}
