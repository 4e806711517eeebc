// Launch configuration errors, launch and copy records, streams and events, and launch syntax
// the translator must handle (comments and strings with <<<, multi-line launches, expressions).
#include <cuda_runtime.h>

#include <cstring>

__global__ void touch(int* p) {
  if (p != nullptr && blockIdx.x == 0 && threadIdx.x == 0) *p += 1;
}

__global__ void tiled_copy(const float* in, float* out, int n) {
  __shared__ float tile[64];
  __shared__ float spare[16], extra[8];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 16) spare[threadIdx.x] = 0.0f;
  if (threadIdx.x < 8) extra[threadIdx.x] = 0.0f;
  tile[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = tile[threadIdx.x] + spare[threadIdx.x % 16] + extra[threadIdx.x % 8];
}

__global__ void big_dynamic(int* p) {
  extern __shared__ int dyn[];
  dyn[threadIdx.x] = 1;
  __syncthreads();
  if (threadIdx.x == 0) *p = dyn[0] + 41;
}

/// Launch configurations that CUDA rejects; returns the error of each, in order.
extern "C" void launch_errors(int* errors, int* counter_after) {
  int* d;
  cudaMalloc(&d, sizeof(int));
  cudaMemset(d, 0, sizeof(int));
  int k = 0;
  touch<<<1, 1025>>>(d);                 errors[k++] = cudaGetLastError();
  touch<<<1, dim3(32, 32, 2)>>>(d);      errors[k++] = cudaGetLastError();
  touch<<<1, dim3(1, 1, 65)>>>(d);       errors[k++] = cudaGetLastError();
  touch<<<0, 32>>>(d);                   errors[k++] = cudaGetLastError();
  touch<<<dim3(1, 65536), 32>>>(d);      errors[k++] = cudaGetLastError();
  touch<<<1, 0>>>(d);                    errors[k++] = cudaGetLastError();
  big_dynamic<<<1, 32, 64 * 1024>>>(d);  errors[k++] = cudaGetLastError();  // > 48 KiB, no opt-in
  errors[k++] = cudaFuncSetAttribute(big_dynamic, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     96 * 1024);
  big_dynamic<<<1, 32, 64 * 1024>>>(d);  errors[k++] = cudaGetLastError();  // opted in
  big_dynamic<<<1, 32, 300 * 1024>>>(d); errors[k++] = cudaGetLastError();  // over the device max
  touch<<<1, 1, 0, reinterpret_cast<cudaStream_t>(0x1234)>>>(d); errors[k++] = cudaGetLastError();
  // Peek does not clear; Get does.
  touch<<<1, 2000>>>(d);
  errors[k++] = cudaPeekAtLastError();
  errors[k++] = cudaGetLastError();
  errors[k++] = cudaGetLastError();
  touch<<<1, 1>>>(d);                    errors[k++] = cudaGetLastError();
  cudaMemcpy(counter_after, d, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
}

/// What the records must show: allocations, copies, launches with their shared memory.
extern "C" int recorded_run(const float* in, float* out, int n) {
  float *d_in, *d_out;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_in, in, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_out, d_in, n * sizeof(float), cudaMemcpyDeviceToDevice);
  tiled_copy<<<(n + 63) / 64, 64>>>(d_in, d_out, n);
  int* d_counter;
  cudaMalloc(&d_counter, sizeof(int));
  big_dynamic<<<1, 32, 32 * sizeof(int)>>>(d_counter);
  cudaMemcpy(out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  return cudaGetLastError();
}

/// Launch syntax: every form here must launch `touch` exactly once; the count comes back.
extern "C" int launch_syntax() {
  int* d;
  cudaMalloc(&d, sizeof(int));
  cudaMemset(d, 0, sizeof(int));
  const char* decoy = "touch<<<1, 1>>>(d); // not a launch";
  const char decoy_char = '<';
  /* touch<<<1, 1>>>(d); a comment is not a launch either */
  // touch<<<1, 1>>>(d);
  const char* raw = R"x(touch<<<1, 1>>>(d);)x";
  (void)decoy;
  (void)decoy_char;
  (void)raw;
  cudaStream_t s;
  cudaStreamCreate(&s);
  touch<<<1, 1>>>(d);
  touch <<< dim3(1, 1, 1), dim3((2 > 1) ? 1 : 2) >>> (d);
  touch<<<
      1,
      1,
      0,
      s>>>(
      d);
  int n = 64;
  touch<<<(n >> 6), static_cast<int>(sizeof(int)) / 4, 0 * (n >> 1)>>>(d);
  if (n > 0) touch<<<1, 1>>>(d); else touch<<<1, 1>>>(nullptr);
  cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
  int count = 0;
  cudaMemcpy(&count, d, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return cudaGetLastError() == cudaSuccess ? count : -1;
}

/// Events measure something, streams exist, async copies land.
extern "C" int streams_and_events(float* elapsed_ms, int* value) {
  cudaStream_t s;
  cudaEvent_t start, stop;
  if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return 1;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  int* h;
  int* d;
  cudaMallocHost(&h, sizeof(int));
  cudaMalloc(&d, sizeof(int));
  *h = 41;
  cudaEventRecord(start, s);
  cudaMemcpyAsync(d, h, sizeof(int), cudaMemcpyHostToDevice, s);
  touch<<<1, 1, 0, s>>>(d);
  cudaMemcpyAsync(h, d, sizeof(int), cudaMemcpyDeviceToHost, s);
  cudaEventRecord(stop, s);
  cudaEventSynchronize(stop);
  cudaError_t err = cudaEventElapsedTime(elapsed_ms, start, stop);
  *value = *h;
  cudaEvent_t never;
  cudaEventCreate(&never);
  float dummy;
  if (cudaEventElapsedTime(&dummy, start, never) != cudaErrorInvalidResourceHandle) err = cudaErrorUnknown;
  cudaGetLastError();
  cudaEventDestroy(never);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(s);
  cudaFreeHost(h);
  cudaFree(d);
  return err;
}
