// Launches written inside #define bodies: the translator rewrites them in the body itself, on the
// macro's own continued lines, and the kernel's and arguments' text name what the macro was given.
#include <cuda_runtime.h>

#define LAUNCH(k, n) k<<<((n) + 255) / 256, 256>>>(d, n)

// A multi-line body, a template kernel through a parameter, and an empty variadic argument list.
#define LAUNCH_ON(k, grid, ...) \
  k<<<grid,                     \
      32>>>(__VA_ARGS__)

__global__ void add_one(int* d, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] += 1;
}

template <class T>
__global__ void scale(T* p, T factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= factor;
}

__device__ int touched = 0;
__global__ void touch() { atomicAdd(&touched, 1); }

/// host[i] = (host[i] + 1) * 3 * 2 through three macro launches; `*touches` = threads of `touch`.
extern "C" int macro_launches(int* host, int n, int* touches) {
  int* d = nullptr;
  const int zero = 0;
  cudaMemcpyToSymbol(touched, &zero, sizeof(int));
  cudaMalloc(&d, n * sizeof(int));
  cudaMemcpy(d, host, n * sizeof(int), cudaMemcpyHostToDevice);
  LAUNCH(add_one, n);
  LAUNCH_ON(scale, (n + 31) / 32, d, 3, n);
  LAUNCH_ON(scale<int>, (n + 31) / 32, d, 2, n);
  LAUNCH_ON(touch, 2);
  const cudaError_t err = cudaGetLastError();
  cudaMemcpy(host, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpyFromSymbol(touches, touched, sizeof(int));
  cudaFree(d);
  return err;
}

/// LAUNCH on a host pointer: the runtime's message names the kernel and argument the macro got.
extern "C" int macro_launch_on_host(int* host) {
  int* d = host;
  LAUNCH(add_one, 4);
  const cudaError_t err = cudaGetLastError();
  cudaDeviceReset();
  return err;
}
