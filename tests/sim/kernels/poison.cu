// Shared memory starts every block as garbage, as on a GPU: the simulator fills it with 0xFF bytes
// (NaN for float, -1 for int) before a block's threads can touch it, so a kernel that reads shared
// memory it never wrote sees it, in the first block and after other blocks wrote the same memory.
#include <cuda_runtime.h>

// ---- every block reads each slot before writing it: what an earlier block left would show -------
__shared__ float file_scope_tile[32];

__global__ void read_before_write(float* f_out, int* i_out, float* ns_out) {
  __shared__ float f[32];
  __shared__ int i[32];
  const int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  f_out[g] = f[t];
  i_out[g] = i[t];
  ns_out[g] = file_scope_tile[t];
  __syncthreads();
  f[t] = 1.0f;
  i[t] = 7;
  file_scope_tile[t] = 2.0f;
}

__global__ void read_before_write_dynamic(float* out) {
  extern __shared__ float dyn[];
  const int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  out[g] = dyn[t];
  __syncthreads();
  dyn[t] = 3.0f;
}

/// Runs both kernels on `blocks` blocks of 32 threads; every output slot gets what its thread read.
extern "C" int unwritten_shared(int blocks, float* f, int* i, float* ns, float* dyn) {
  const int n = blocks * 32;
  float *d_f, *d_ns, *d_dyn;
  int* d_i;
  cudaMalloc(&d_f, n * sizeof(float));
  cudaMalloc(&d_i, n * sizeof(int));
  cudaMalloc(&d_ns, n * sizeof(float));
  cudaMalloc(&d_dyn, n * sizeof(float));
  read_before_write<<<blocks, 32>>>(d_f, d_i, d_ns);
  read_before_write_dynamic<<<blocks, 32, 32 * sizeof(float)>>>(d_dyn);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(f, d_f, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(i, d_i, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(ns, d_ns, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(dyn, d_dyn, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d_f);
  cudaFree(d_i);
  cudaFree(d_ns);
  cudaFree(d_dyn);
  return err;
}

// ---- the same through a template, volatile, and a namespace-scope variable in a namespace -------
namespace tiles {
__shared__ int counts[32];
}

template <typename T>
__global__ void read_before_write_t(T* out, T* volatile_out, int* ns_out) {
  __shared__ T s[32];
  volatile __shared__ T v[32];
  const int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  out[g] = s[t];
  volatile_out[g] = v[t];
  ns_out[g] = tiles::counts[t];
  __syncthreads();
  s[t] = T(1);
  v[t] = T(2);
  tiles::counts[t] = 3;
}

/// `blocks` blocks of 32 threads of read_before_write_t<float> then <int>: f[2n] and i[2n] hold
/// what `s` and `v` read, ns[2n] what tiles::counts read in both launches.
extern "C" int unwritten_shared_templates(int blocks, float* f, int* i, int* ns) {
  const int n = blocks * 32;
  float* d_f;
  int *d_i, *d_ns;
  cudaMalloc(&d_f, 2 * n * sizeof(float));
  cudaMalloc(&d_i, 2 * n * sizeof(int));
  cudaMalloc(&d_ns, 2 * n * sizeof(int));
  read_before_write_t<<<blocks, 32>>>(d_f, d_f + n, d_ns);
  read_before_write_t<int><<<blocks, 32>>>(d_i, d_i + n, d_ns + n);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(f, d_f, 2 * n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(i, d_i, 2 * n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(ns, d_ns, 2 * n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_f);
  cudaFree(d_i);
  cudaFree(d_ns);
  return err;
}

// ---- the classic bug: a block reduction that leaves the tail of its shared array unwritten ------
__global__ void sum_without_padding(const float* in, float* out, int n) {
  __shared__ float sdata[128];
  const unsigned t = threadIdx.x;
  const unsigned i = blockIdx.x * blockDim.x + t;
  if (i < n) sdata[t] = in[i];  // missing: else sdata[t] = 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) sdata[t] += sdata[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = sdata[0];
}

extern "C" int buggy_reduction(const float* in, int n, float* sum) {
  float *d_in, *d_out;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, sizeof(float));
  cudaMemcpy(d_in, in, n * sizeof(float), cudaMemcpyHostToDevice);
  sum_without_padding<<<1, 128>>>(d_in, d_out, n);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(sum, d_out, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  return err;
}

// ---- poisoned once per block: reaching the declaration again (a loop) keeps what was written ---
__global__ void declaration_in_loop(int* out) {
  const int t = threadIdx.x;
  for (int round = 0; round < 3; ++round) {
    __shared__ int acc[64];
    if (round == 0) acc[t] = t;
    __syncthreads();
    if (round == 2) out[blockIdx.x * blockDim.x + t] = acc[(t + 1) % blockDim.x];
    __syncthreads();
  }
}

extern "C" int poisoned_once_per_block(int blocks, int* out) {
  int* d;
  cudaMalloc(&d, blocks * 64 * sizeof(int));
  declaration_in_loop<<<blocks, 64>>>(d);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(out, d, blocks * 64 * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return err;
}
