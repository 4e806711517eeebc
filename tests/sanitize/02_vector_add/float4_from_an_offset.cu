// finding: out_of_bounds | 12 | reinterpret a pointer as a vector type only where
// Bug: element 0 is added on its own and the rest four at a time, through float4 pointers that
// start at element 1: 4 bytes past a 16-byte boundary. A float4 access must be 16-byte aligned
// (on a GPU this is cudaErrorMisalignedAddress).
#include <cuda_runtime.h>

__global__ void vector_add4(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) c[0] = a[0] + b[0];
  const int k = 1 + 4 * i;  // this thread's first element: 1, 5, 9, ...
  if (k + 3 < n) {
    const float4 x = *reinterpret_cast<const float4*>(a + k);
    const float4 y = *reinterpret_cast<const float4*>(b + k);
    *reinterpret_cast<float4*>(c + k) = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  } else {
    for (int j = k; j < n && j < k + 4; ++j) c[j] = a[j] + b[j];
  }
}

void solve(const float* a, const float* b, float* c, int n) {
  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  const size_t bytes = n * sizeof(float);
  cudaMalloc(&d_a, bytes);
  cudaMalloc(&d_b, bytes);
  cudaMalloc(&d_c, bytes);
  cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice);
  const int threads = (n + 3) / 4;
  vector_add4<<<(threads + 255) / 256, 256>>>(d_a, d_b, d_c, n);
  cudaMemcpy(c, d_c, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
}
