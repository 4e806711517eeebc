// libcu++'s atomics (<cuda/atomic>, <cuda/std/atomic>) on the simulator: cuda::atomic_ref with
// each scope and its fetch_min/fetch_max, a __device__ cuda::atomic counter, cuda::std::atomic_ref,
// and the last-block ticket taken with an acquire-release fetch_add instead of a fence.
#include <cuda_runtime.h>
#include <cuda/atomic>
#include <cuda/std/atomic>

struct LibcuResults {
  int sum;              // fetch_add at device scope
  int min, max;         // fetch_min, fetch_max of the thread indices (negated for min)
  float fmax;           // fetch_max on floats
  unsigned block_hits;  // fetch_add at block scope into shared memory, added up per block
  unsigned counter;     // a __device__ cuda::atomic, read back by the last block
  unsigned std_or;      // cuda::std::atomic_ref fetch_or
  int exchanged;        // compare_exchange_strong: threads that won a slot
  float total;          // the last block's sum of every block's partial, after the ticket
};

__device__ cuda::atomic<unsigned, cuda::thread_scope_device> g_counter{0};
__device__ unsigned g_tickets = 0;

__global__ void libcu_kernel(const float* x, float* partials, int* slots, LibcuResults* r) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  cuda::atomic_ref<int, cuda::thread_scope_device> sum(r->sum);
  sum.fetch_add(2, cuda::memory_order_relaxed);
  cuda::atomic_ref<int, cuda::thread_scope_device>(r->min).fetch_min(-t);
  cuda::atomic_ref<int, cuda::thread_scope_device>(r->max).fetch_max(t);
  cuda::atomic_ref<float, cuda::thread_scope_device>(r->fmax).fetch_max(x[t]);
  cuda::std::atomic_ref<unsigned>(r->std_or).fetch_or(1u << (t % 32), cuda::std::memory_order_relaxed);
  int expected = 0;
  if (cuda::atomic_ref<int, cuda::thread_scope_device>(slots[t % 16]).compare_exchange_strong(expected, t + 1)) {
    cuda::atomic_ref<int, cuda::thread_scope_device>(r->exchanged).fetch_add(1);
  }

  __shared__ unsigned hits;
  if (threadIdx.x == 0) hits = 0;
  __syncthreads();
  cuda::atomic_ref<unsigned, cuda::thread_scope_block>(hits).fetch_add(1, cuda::memory_order_relaxed);
  __syncthreads();
  if (threadIdx.x != 0) return;
  cuda::atomic_ref<unsigned, cuda::thread_scope_device>(r->block_hits).fetch_add(hits);
  g_counter.fetch_add(1, cuda::memory_order_relaxed);

  // The block's partial, published by the acquire-release ticket: the last block sees them all.
  float part = 0.0f;
  for (unsigned i = 0; i < blockDim.x; ++i) part += x[blockIdx.x * blockDim.x + i];
  partials[blockIdx.x] = part;
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> tickets(g_tickets);
  if (tickets.fetch_add(1, cuda::memory_order_acq_rel) != gridDim.x - 1) return;
  float total = 0.0f;
  for (unsigned b = 0; b < gridDim.x; ++b) total += partials[b];
  r->total = total;
  r->counter = g_counter.load(cuda::memory_order_relaxed);
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
  tickets.store(0, cuda::memory_order_relaxed);
  g_counter.store(0);
}

extern "C" int libcu_atomics(const float* x_host, int blocks, int threads, LibcuResults* r) {
  const int n = blocks * threads;
  float *x, *partials;
  int* slots;
  LibcuResults* d;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&partials, blocks * sizeof(float));
  cudaMalloc(&slots, 16 * sizeof(int));
  cudaMalloc(&d, sizeof(LibcuResults));
  cudaMemcpy(x, x_host, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(slots, 0, 16 * sizeof(int));
  LibcuResults init{};
  init.min = 1;
  init.max = -1;
  init.fmax = -1e30f;
  cudaMemcpy(d, &init, sizeof init, cudaMemcpyHostToDevice);
  libcu_kernel<<<blocks, threads>>>(x, partials, slots, d);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(r, d, sizeof *r, cudaMemcpyDeviceToHost);
  cudaFree(x);
  cudaFree(partials);
  cudaFree(slots);
  cudaFree(d);
  return err;
}
