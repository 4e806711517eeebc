// Device code cannot use host memory: a launch whose pointer argument is not device-accessible
// fails as the kernel's first access would on a GPU (sticky cudaErrorIllegalAddress), while device,
// managed and pinned memory, symbols, null and one-past-the-end pointers are fine.
#include <cuda_runtime.h>

__global__ void increment_by_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (data != nullptr && i < n) data[i] += 1;
}

__global__ void increment_range(int* begin, const int* end) {
  int* p = begin + blockIdx.x * blockDim.x + threadIdx.x;
  if (p < end) *p += 1;
}

template <class T, int N>
__device__ __host__ T* offset(T* p) {
  return p + N;
}

__global__ void add_to(int* dst, const int* src) { *dst += *src; }

__managed__ int managed_counter = 5;
__device__ int device_counter = 11;

/// The error of `increment_by_one<<<1, 32>>>(data, n)` on a host pointer; the sticky error is
/// cleared by cudaDeviceReset before returning, so later tests start clean.
extern "C" int launch_on_host_pointer(int* data, int n, int* later_error) {
  increment_by_one<<<1, 32>>>(data, n);
  const cudaError_t err = cudaGetLastError();
  *later_error = cudaDeviceSynchronize();
  cudaDeviceReset();
  return err;
}

/// The second argument is a host pointer; the first goes through a template and commas.
extern "C" int second_argument_is_host(int* host) {
  int* d;
  cudaMalloc(&d, 4 * sizeof(int));
  add_to<<<1, 1>>>(offset<int, 2>(d), host);
  const cudaError_t err = cudaGetLastError();
  cudaDeviceReset();
  return err;
}

/// `&device_counter` in host code is the address of the host's copy, as with nvcc: not usable.
extern "C" int address_of_device_variable() {
  add_to<<<1, 1>>>(&device_counter, &device_counter);
  const cudaError_t err = cudaGetLastError();
  cudaDeviceReset();
  return err;
}

/// Every legitimate kind of pointer: returns the first error, and the values the kernels produced
/// (device, managed, pinned, one-past-the-end range, interior pointer, null, symbol, __managed__).
extern "C" int legitimate_pointers(int* values) {
  const int n = 64;
  int err = cudaSuccess;
  auto keep = [&err](cudaError_t e) {
    if (err == cudaSuccess) err = e;
  };
  int *d, *m, *h;
  keep(cudaMalloc(&d, n * sizeof(int)));
  keep(cudaMallocManaged(&m, n * sizeof(int)));
  keep(cudaMallocHost(&h, n * sizeof(int)));
  keep(cudaMemset(d, 0, n * sizeof(int)));
  for (int i = 0; i < n; ++i) m[i] = h[i] = 10;
  increment_by_one<<<2, 32>>>(d, n);
  increment_by_one<<<2, 32>>>(m, n);
  increment_by_one<<<2, 32>>>(h, n);
  increment_range<<<2, 32>>>(d, d + n);  // end: one past the end of the allocation
  increment_range<<<1, 32>>>(d + n, d + n);
  increment_by_one<<<1, 32>>>(d + 10, 1);  // interior pointer
  increment_by_one<<<1, 32>>>(nullptr, n);
  int* symbol = nullptr;
  keep(cudaGetSymbolAddress(reinterpret_cast<void**>(&symbol), device_counter));
  add_to<<<1, 1>>>(symbol, d);
  add_to<<<1, 1>>>(&managed_counter, m);
  keep(cudaGetLastError());
  keep(cudaDeviceSynchronize());
  keep(cudaMemcpy(values, d, 16 * sizeof(int), cudaMemcpyDeviceToHost));
  values[16] = m[0];
  values[17] = h[0];
  keep(cudaMemcpyFromSymbol(&values[18], device_counter, sizeof(int)));
  values[19] = managed_counter;
  cudaFree(d);
  cudaFree(m);
  cudaFreeHost(h);
  return err;
}
