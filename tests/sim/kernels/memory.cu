// Memory constructs for the simulator tests: atomics from many blocks, __constant__ with
// cudaMemcpyToSymbol, __device__ variables, vector types and the math built-ins.
#include <cuda_runtime.h>

#include <cstdio>

// ---- atomics from many blocks (run in parallel on the host's cores) -----------------------------
__global__ void hammer(int* i, unsigned* u, unsigned long long* ull, float* f, double* d, int* mx,
                       int* mn, unsigned* bits, unsigned* wrap, int* cas_count, int* ticket_sum) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(i, 1);
  atomicSub(i, 2);
  atomicAdd(u, 3u);
  atomicAdd(ull, 1ull << 33);
  atomicAdd(f, 0.5f);
  atomicAdd(d, 0.25);
  atomicMax(mx, t);
  atomicMin(mn, -t);
  atomicOr(bits, 1u << (t % 32));
  atomicXor(bits + 1, 1u << (t % 7));
  atomicAnd(bits + 2, ~(1u << (t % 13)));
  atomicInc(wrap, 99u);  // counts modulo 100
  // A lock-free increment by compare-and-swap.
  int old = *cas_count, assumed;
  do {
    assumed = old;
    old = atomicCAS(cas_count, assumed, assumed + 1);
  } while (old != assumed);
  const int ticket = atomicExch(ticket_sum + 1, t);  // last writer wins; sum of old values below
  atomicAdd(ticket_sum, ticket >= 0 ? 1 : 0);
}

struct AtomicResults {
  int i;
  unsigned u;
  unsigned long long ull;
  float f;
  double d;
  int mx, mn;
  unsigned bits[3];
  unsigned wrap;
  int cas_count;
  int ticket[2];
};

extern "C" int atomics(AtomicResults* r, int blocks, int threads) {
  AtomicResults* d;
  cudaMalloc(&d, sizeof(AtomicResults));
  AtomicResults init{};
  init.mx = -1;
  init.mn = 1;
  init.bits[2] = 0xffffffffu;
  init.ticket[1] = 0;
  cudaMemcpy(d, &init, sizeof init, cudaMemcpyHostToDevice);
  hammer<<<blocks, threads>>>(&d->i, &d->u, &d->ull, &d->f, &d->d, &d->mx, &d->mn, d->bits,
                              &d->wrap, &d->cas_count, d->ticket);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(r, d, sizeof *r, cudaMemcpyDeviceToHost);
  cudaFree(d);
  return err;
}

// ---- __constant__ memory and __device__ variables ----------------------------------------------
__constant__ float coeffs[4];
__constant__ int offset_value;
__device__ int launches_seen = 0;

__global__ void polynomial(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) atomicAdd(&launches_seen, 1);
  if (i < n) {
    const float v = x[i];
    y[i] = coeffs[0] + v * (coeffs[1] + v * (coeffs[2] + v * coeffs[3])) + offset_value;
  }
}

extern "C" int constant_memory(const float* c4, int offset, const float* x, float* y, int n,
                               int* launches, int* bad_symbol_error) {
  const int zero = 0;
  cudaError_t err = cudaMemcpyToSymbol(launches_seen, &zero, sizeof zero);
  if (err == cudaSuccess) err = cudaMemcpyToSymbol(coeffs, c4, 4 * sizeof(float));
  if (err == cudaSuccess) err = cudaMemcpyToSymbol(offset_value, &offset, sizeof(int));
  // Too many bytes for the symbol: an error, not an overflow.
  *bad_symbol_error = cudaMemcpyToSymbol(coeffs, c4, 5 * sizeof(float));
  cudaGetLastError();
  float *dx, *dy;
  cudaMalloc(&dx, n * sizeof(float));
  cudaMalloc(&dy, n * sizeof(float));
  cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
  polynomial<<<(n + 127) / 128, 128>>>(dx, dy, n);
  polynomial<<<(n + 127) / 128, 128>>>(dx, dy, n);
  if (err == cudaSuccess) err = cudaGetLastError();
  cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  if (err == cudaSuccess) err = cudaMemcpyFromSymbol(launches, launches_seen, sizeof(int));
  cudaFree(dx);
  cudaFree(dy);
  return err;
}

// ---- vector types and math built-ins ------------------------------------------------------------
__device__ __forceinline__ float4 scale4(float4 v, float s) {
  return make_float4(v.x * s, v.y * s, v.z * s, v.w * s);
}

__global__ void vector_math(const float4* __restrict__ in, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 v = scale4(__ldg(in + i), 2.0f);
  const int2 p = make_int2(static_cast<int>(v.x), __float2int_rn(v.y));
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < 4; ++k) acc += (&v.x)[k];
  out[i * 8 + 0] = sqrtf(fabsf(v.x)) + rsqrtf(4.0f);
  out[i * 8 + 1] = fmaf(v.y, 2.0f, 1.0f) + __fdividef(1.0f, 4.0f);
  out[i * 8 + 2] = expf(0.0f) + __expf(0.0f) + __logf(1.0f);
  out[i * 8 + 3] = fminf(v.z, v.w) + fmaxf(v.z, v.w);
  out[i * 8 + 4] = static_cast<float>(min(p.x, p.y) + max(p.x, p.y));
  out[i * 8 + 5] = acc;
  out[i * 8 + 6] = __fmul_rn(v.x, 0.5f) + __fadd_rn(v.y, 0.0f) + static_cast<float>(__popc(0xf0u));
  out[i * 8 + 7] = __saturatef(v.w) + max(0.5f, -1.0f) + static_cast<float>(__clz(1) + __ffs(8));
}

extern "C" int vectors_and_math(const float* in4, float* out8, int n) {
  float4* d_in;
  float* d_out;
  cudaMalloc(&d_in, n * sizeof(float4));
  cudaMalloc(&d_out, n * 8 * sizeof(float));
  cudaMemcpy(d_in, in4, n * sizeof(float4), cudaMemcpyHostToDevice);
  vector_math<<<(n + 31) / 32, 32>>>(d_in, d_out, n);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(out8, d_out, n * 8 * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  return err;
}

// ---- printf in kernels ---------------------------------------------------------------------------
__global__ void hello(int tag) {
  if (threadIdx.x == 1) printf("hello from block %d thread %d tag %d\n", blockIdx.x, threadIdx.x, tag);
}

extern "C" int kernel_printf(int tag) {
  hello<<<2, 4>>>(tag);
  fflush(stdout);
  return cudaDeviceSynchronize();
}
