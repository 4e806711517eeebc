// Block-level constructs for the simulator tests: barriers, shared memory (static, dynamic),
// multi-dimensional grids and blocks, templated kernels. Each entry point runs one scenario and
// hands results back through host pointers; tests/sim/kernels_test.cpp checks them.
#include <cuda_runtime.h>

#include <cstdio>

// ---- 2D and 3D grids and blocks: every thread writes its global linear id ---------------------
__global__ void write_ids_3d(int* out, int nx, int ny, int nz) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) {
    out[(z * ny + y) * nx + x] = x + 1000 * y + 1000000 * z;
  }
}

extern "C" int grid_3d(int* host_out, int nx, int ny, int nz, unsigned bx, unsigned by, unsigned bz) {
  int* d_out = nullptr;
  const size_t bytes = sizeof(int) * nx * ny * nz;
  cudaMalloc(&d_out, bytes);
  cudaMemset(d_out, 0xff, bytes);
  dim3 block(bx, by, bz);
  dim3 grid((nx + bx - 1) / bx, (ny + by - 1) / by, (nz + bz - 1) / bz);
  write_ids_3d<<<grid, block>>>(d_out, nx, ny, nz);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(host_out, d_out, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_out);
  return err;
}

// ---- barriers with early-exiting threads ------------------------------------------------------
// Threads with i >= n return before the barrier; the others must still be released, and must see
// what every live thread of the block wrote before it.
__global__ void reverse_in_block(const int* in, int* out, int n) {
  __shared__ int tile[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  tile[threadIdx.x] = in[i];
  __syncthreads();
  const int live = min(static_cast<int>(blockDim.x), n - static_cast<int>(blockIdx.x * blockDim.x));
  out[i] = tile[live - 1 - threadIdx.x];
}

extern "C" int early_exit(const int* in, int* out, int n) {
  int *d_in, *d_out;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_out, n * sizeof(int));
  cudaMemcpy(d_in, in, n * sizeof(int), cudaMemcpyHostToDevice);
  reverse_in_block<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  cudaMemcpy(out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  return err;
}

// ---- __syncthreads_count / _and / _or -----------------------------------------------------------
__global__ void barrier_votes(int* out) {
  const int t = threadIdx.x;
  const int c = __syncthreads_count(t % 3 == 0);
  const int a = __syncthreads_and(t < 1000);
  const int a2 = __syncthreads_and(t != 5);
  const int o = __syncthreads_or(t == 77);
  const int o2 = __syncthreads_or(0);
  if (t == 0) {
    out[0] = c;
    out[1] = a;
    out[2] = a2;
    out[3] = o;
    out[4] = o2;
  }
}

extern "C" int syncthreads_votes(int* out5, int threads) {
  int* d;
  cudaMalloc(&d, 5 * sizeof(int));
  barrier_votes<<<1, threads>>>(d);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(out5, d, 5 * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return err;
}

// ---- static shared memory is per block, even with blocks running in parallel -------------------
// Every block fills its tile with its own id across many barriers; a tile shared between blocks
// would show another block's id.
__global__ void shared_is_per_block(int* bad) {
  __shared__ int tile[128];
  __shared__ int owner;
  for (int round = 0; round < 8; ++round) {
    if (threadIdx.x == 0) owner = blockIdx.x;
    tile[threadIdx.x] = blockIdx.x * 1000 + round;
    __syncthreads();
    const int other = tile[(threadIdx.x + 17) % blockDim.x];
    if (other != static_cast<int>(blockIdx.x) * 1000 + round || owner != static_cast<int>(blockIdx.x)) {
      atomicAdd(bad, 1);
    }
    __syncthreads();
  }
}

extern "C" int shared_per_block(int* bad_count, int blocks) {
  int* d;
  cudaMalloc(&d, sizeof(int));
  cudaMemset(d, 0, sizeof(int));
  shared_is_per_block<<<blocks, 128>>>(d);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(bad_count, d, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return err;
}

// ---- dynamic shared memory: namespace-scope and function-scope `extern __shared__` --------------
extern __shared__ float file_scope_dynamic[];

__global__ void block_sum_dynamic(const float* in, float* out, int n) {
  // Tree reduction in dynamic shared memory; blockDim.x is a power of two.
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  file_scope_dynamic[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) file_scope_dynamic[threadIdx.x] += file_scope_dynamic[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = file_scope_dynamic[0];
}

__global__ void split_dynamic(int* out) {
  // Two arrays carved out of one dynamic allocation, declared in the kernel.
  extern __shared__ __align__(16) unsigned char smem[];
  int* a = reinterpret_cast<int*>(smem);
  double* b = reinterpret_cast<double*>(smem + blockDim.x * sizeof(int));
  a[threadIdx.x] = threadIdx.x;
  b[threadIdx.x] = 0.5 * threadIdx.x;
  __syncthreads();
  const unsigned j = blockDim.x - 1 - threadIdx.x;
  out[blockIdx.x * blockDim.x + threadIdx.x] = a[j] + static_cast<int>(2.0 * b[j]);
}

extern "C" int dynamic_shared(const float* in, float* block_sums, int n, int threads, int* split_out) {
  float *d_in, *d_out;
  const int blocks = (n + threads - 1) / threads;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, blocks * sizeof(float));
  cudaMemcpy(d_in, in, n * sizeof(float), cudaMemcpyHostToDevice);
  block_sum_dynamic<<<blocks, threads, threads * sizeof(float)>>>(d_in, d_out, n);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(block_sums, d_out, blocks * sizeof(float), cudaMemcpyDeviceToHost);
  int* d_split;
  cudaMalloc(&d_split, 2 * 64 * sizeof(int));
  split_dynamic<<<2, 64, 64 * (sizeof(int) + sizeof(double))>>>(d_split);
  if (err == cudaSuccess) err = cudaGetLastError();
  cudaMemcpy(split_out, d_split, 2 * 64 * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_split);
  return err;
}

// ---- templated kernels: explicit and deduced template arguments --------------------------------
template <typename T, int SCALE>
__global__ void scale_kernel(T* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * static_cast<T>(SCALE);
}

template <typename T>
__global__ void add_kernel(T* data, T value, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    data[i] += value;
  }
}

template <typename T>
static int run_templates(T* host, int n) {
  T* d;
  cudaMalloc(&d, n * sizeof(T));
  cudaMemcpy(d, host, n * sizeof(T), cudaMemcpyHostToDevice);
  scale_kernel<T, 3><<<(n + 63) / 64, 64>>>(d, n);      // explicit: T*3
  add_kernel<<<2, 32>>>(d, static_cast<T>(1), n);          // deduced: +1
  ::add_kernel<T><<<dim3(1), dim3(64, 1, 1), 0, 0>>>(d, static_cast<T>(2), n);  // qualified: +2
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(host, d, n * sizeof(T), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return err;
}

extern "C" int templates_int(int* host, int n) { return run_templates(host, n); }
extern "C" int templates_double(double* host, int n) { return run_templates(host, n); }

// ---- faults the simulator reports instead of hanging --------------------------------------------
__global__ void divergent_barrier(int* out) {
  if (threadIdx.x < 16) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  out[threadIdx.x] = 1;
}

__global__ void barrier_in_loop_mismatch(int* out) {
  // Thread 0 waits at a barrier the others never reach (they wait at a warp rendezvous that
  // needs thread 0): a deadlock on a GPU.
  if (threadIdx.x == 0) {
    __syncthreads();
  } else {
    __syncwarp();
  }
  out[threadIdx.x] = 1;
}

extern "C" int faults(int which) {
  int* d;
  cudaMalloc(&d, 64 * sizeof(int));
  if (which == 0) divergent_barrier<<<1, 32>>>(d);
  if (which == 1) barrier_in_loop_mismatch<<<1, 32>>>(d);
  cudaError_t sync = cudaDeviceSynchronize();
  cudaError_t last = cudaGetLastError();
  cudaError_t later = cudaMalloc(&d, 4);  // sticky: every call fails until cudaDeviceReset
  cudaDeviceReset();
  return sync == last && later == sync ? sync : -1;
}
