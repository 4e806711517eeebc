// Reference solution for 12_softmax: Y[r][c] = exp(X[r][c] - max_r) / sum over c' of exp(X[r][c'] - max_r).
//
// Contract: void solve(const float* X, float* Y, int M, int N) — DEVICE pointers to M×N row-major
// floats.
//
// Softmax moves 8 bytes per element (X in, Y out) and does a few flops: it is memory-bound, and a
// fused kernel reads X from memory once. Three separate kernels (max, sum of exponentials, scale)
// would read X three times and write and re-read two M-float temporaries: about 16 bytes per
// element instead of 8, half the speed. Every shape keeps the row on chip between reading and
// writing it:
//   1. Rows of up to 1024 floats: a group of G lanes (G = 1 … 32, from N) holds its row, K floats
//      per lane (at least 4 where N allows, for loads in flight); every step (max by shuffles, exp,
//      sum by shuffles, scale) works on registers. Several short rows share a warp, so loads stay
//      coalesced and no lane idles on a 3-float row.
//   2. Rows of up to 16384 floats (X and Y aligned alike, as the harness's buffers are): a block
//      per row, V float4s per thread in registers (128 threads up to 8192 floats, then 256). Each
//      thread finds its own max m and the sum s of exp(x − m) over its floats; the block combines
//      the (m, s) pairs (the sums rescaled by exp(m − m_row)) and each thread scales its
//      exponentials by exp(m − m_row) / s_row: one expf per element, and X read once. A row of
//      8193 floats starts 16-byte aligned only one time in four, so its head (up to 3 floats
//      before the first 16-byte boundary) and its tail are held one float per thread beside the
//      float4s. Rows of up to 512 · 40 = 20480 floats, or X and Y aligned differently: the same
//      with 512 threads and K single floats each.
//   3. Longer rows, up to 65536 floats, on a GPU with thread block clusters (Hopper and later): the
//      row is cut over a cluster of 2, 4 or 8 blocks that write their (m, s) into each other's
//      shared memory, so each scales the part it still holds: X read once, several blocks per SM.
//      Elsewhere (older GPUs, the simulator, which runs no clusters), rows of up to what one SM
//      holds (about 90000 floats on an H100) go to one block of 1024 threads per row, 32 floats
//      per thread in registers and the rest in shared memory (asked for with
//      cudaFuncSetAttribute); one block per SM, so while it reduces no other block's loads are in
//      flight. (256 rows of 65536 floats on an H100: 86 % of a copy with clusters, 77 % with one
//      block per SM; docs/performance.md.)
//   4. Longer rows still: a block per row and the online softmax. Pass 1 keeps, per thread, a
//      running maximum m and the sum s of exp(x − m), rescaling s by exp(m_old − m_new) when m
//      grows; pass 2 reads the row again (mostly from L2) and writes exp(x − m) / s.
// Shapes 1-3 are one pass (a block per row or rows, as many as the rows need): blocks start
// roughly in blockIdx order, so the blocks in flight read one contiguous stretch of X.
// (Measured on an H100, 8192 rows of 8193 floats: 99 % of a device-to-device copy with shape 2
// and float4s; with single floats, 89 %; a block of 256 threads that kept the row in shared
// memory instead reached 76 %, one that re-read it from L2 59 %.) expf, not __expf: the accurate
// function is hidden under the memory time, and keeps Y within a few ulp.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(err));
  }
}

// One attribute of the current device.
int device_attribute(cudaDeviceAttr attribute) {
  int device = 0;
  int value = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&value, attribute, device), "cudaDeviceGetAttribute");
  return value;
}

}  // namespace

constexpr int THREADS = 256;      // 8 warps per block
constexpr int BLOCKS_PER_SM = 8;  // 2048 threads per SM: the most loads in flight
constexpr int WARP_SIZE = 32;
constexpr int UNROLL = 4;                     // loads in flight per thread in the online passes
constexpr int ROW_THREADS = 512;              // threads of a block that holds one row in registers
constexpr int MAX_FLOAT4_ROW = 4 * 256 * 16;  // floats of a row softmax_block_float4 holds at most
constexpr int CLUSTER_THREADS = 128;          // a block of a cluster that holds a long row
constexpr int CLUSTER_VECTORS = 16;           // its float4s per thread: 8192 floats a block
constexpr int ON_CHIP_THREADS = 1024;         // one block per SM holds a long row
constexpr int ON_CHIP_VECTORS = 8;            // float4s per thread in registers (64 registers at most)
constexpr int MAX_PER_THREAD = 40;            // floats per thread at most in registers (K = 40: 64 registers)

// Rows of N <= G·K floats, G lanes per row, each lane holding columns lane, lane + G, ...: X is
// read once into registers. The loop bound is the same for the whole warp (its first row), so
// every lane reaches every shuffle; lanes past M or past N hold -inf and write nothing.
template <int G, int K>
__global__ void __launch_bounds__(THREADS)
    softmax_in_registers(const float* __restrict__ X, float* __restrict__ Y, int M, int N) {
  constexpr int ROWS_PER_WARP = WARP_SIZE / G;
  const int lane = threadIdx.x % G;
  const int group_in_warp = (threadIdx.x % WARP_SIZE) / G;
  const long long warp = (static_cast<long long>(blockIdx.x) * THREADS + threadIdx.x) / WARP_SIZE;
  const long long warps = static_cast<long long>(gridDim.x) * (THREADS / WARP_SIZE);
  for (long long first = warp * ROWS_PER_WARP; first < M; first += warps * ROWS_PER_WARP) {
    const long long row = first + group_in_warp;
    const bool valid = row < M;
    const float* x = X + row * N;
    float v[K];
    float m = -INFINITY;
#pragma unroll
    for (int k = 0; k < K; ++k) {  // K independent loads, all in flight before the first is used
      const int c = lane + k * G;
      v[k] = valid && c < N ? x[c] : -INFINITY;
    }
#pragma unroll
    for (int k = 0; k < K; ++k) m = fmaxf(m, v[k]);
#pragma unroll
    for (int offset = G / 2; offset > 0; offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
    if (!valid) m = 0.0f;  // a group past M: keep -inf - -inf (NaN) out of its arithmetic
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      v[k] = expf(v[k] - m);  // the max shift: every exponent is <= 0, so nothing overflows
      s += v[k];
    }
#pragma unroll
    for (int offset = G / 2; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
    const float inv = 1.0f / s;
    float* y = Y + row * N;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int c = lane + k * G;
      if (valid && c < N) y[c] = v[k] * inv;
    }
  }
}

// (m, s) for the union of two sets of values: s is the sum of exp(x - m) over the set.
struct MaxSum {
  float m, s;
};

__device__ MaxSum combine(MaxSum a, MaxSum b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return {m, 0.0f};  // both empty
  return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

__device__ MaxSum warp_combine(MaxSum v) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
    v = combine(v, {__shfl_xor_sync(0xffffffffu, v.m, offset), __shfl_xor_sync(0xffffffffu, v.s, offset)});
  }
  return v;
}

// The (m, s) of the whole block, for every thread: each warp's by shuffles, parked in `parts`,
// then combined by each thread.
template <int T>
__device__ __forceinline__ MaxSum block_combine(MaxSum part, MaxSum (&parts)[T / WARP_SIZE]) {
  part = warp_combine(part);
  if (threadIdx.x % WARP_SIZE == 0) parts[threadIdx.x / WARP_SIZE] = part;
  __syncthreads();  // every warp's (m, s) is in shared memory
  MaxSum total = parts[0];
#pragma unroll
  for (int w = 1; w < T / WARP_SIZE; ++w) total = combine(total, parts[w]);
  return total;
}

// Rows too long for registers: one block per row, the online softmax (pass 1), then the scale
// (pass 2), which reads the row again from L2.
__global__ void __launch_bounds__(THREADS)
    softmax_online(const float* __restrict__ X, float* __restrict__ Y, int M, int N) {
  __shared__ MaxSum warp_parts[THREADS / WARP_SIZE];
  for (int row = blockIdx.x; row < M; row += gridDim.x) {
    const float* x = X + static_cast<long long>(row) * N;
    float* y = Y + static_cast<long long>(row) * N;
    // Pass 1: a running max and a running sum, rescaled when the max grows; UNROLL loads issued
    // before they are used.
    MaxSum part{-INFINITY, 0.0f};
    int c = threadIdx.x;
    for (; c + (UNROLL - 1) * THREADS < N; c += UNROLL * THREADS) {
      float v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) v[u] = x[c + u * THREADS];
      float m = part.m;
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) m = fmaxf(m, v[u]);
      float s = part.s * expf(part.m - m);  // expf(-inf) = 0 on the first iteration
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) s += expf(v[u] - m);
      part = {m, s};
    }
    for (; c < N; c += THREADS) part = combine(part, {x[c], 1.0f});
    const MaxSum total = block_combine<THREADS>(part, warp_parts);
    const float inv = 1.0f / total.s;
    // Pass 2: the row again, from L2; Y is not read again: a streaming store.
    for (c = threadIdx.x; c < N; c += THREADS) y[c] = expf(__ldcg(x + c) - total.m) * inv;
    __syncthreads();  // everyone has read warp_parts before the next row overwrites them
  }
}

// Rows of up to ROW_THREADS · K floats: one block per row, K floats per thread in registers (see
// shape 2 above). Columns threadIdx.x, threadIdx.x + ROW_THREADS, ...: every load is coalesced.
template <int K>
__global__ void __launch_bounds__(ROW_THREADS)
    softmax_block_in_registers(const float* __restrict__ X, float* __restrict__ Y, int N) {
  __shared__ MaxSum parts[ROW_THREADS / WARP_SIZE];
  const long long row = blockIdx.x;
  const float* x = X + row * N;
  float v[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {  // K independent loads, all in flight before the first is used
    const int c = threadIdx.x + k * ROW_THREADS;
    v[k] = c < N ? x[c] : -INFINITY;
  }
  float m = v[0];
#pragma unroll
  for (int k = 1; k < K; ++k) m = fmaxf(m, v[k]);
  // A thread past the row's end holds only -inf: its shift is 0 and its sum 0.
  const float shift = m == -INFINITY ? 0.0f : m;
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    v[k] = expf(v[k] - shift);
    s += v[k];
  }
  const MaxSum total = block_combine<ROW_THREADS>({m, s}, parts);
  // v[k] = exp(x - m); the answer is exp(x - m_row) / s_row = v[k] · exp(m - m_row) / s_row.
  const float scale = (m == -INFINITY ? 0.0f : expf(m - total.m)) / total.s;
  float* y = Y + row * N;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int c = threadIdx.x + k * ROW_THREADS;
    if (c < N) y[c] = v[k] * scale;
  }
}

// The float of a row's head or tail that this thread holds beside its float4s: threads 0-2 hold
// the head's (up to 3 floats before the first 16-byte boundary), threads 4-6 the tail's (after the
// last whole float4). Its column, or -1.
__device__ __forceinline__ int head_or_tail_column(int head, int tail, int N) {
  if (static_cast<int>(threadIdx.x) < head) return threadIdx.x;
  if (threadIdx.x >= 4 && tail + static_cast<int>(threadIdx.x) - 4 < N) return tail + threadIdx.x - 4;
  return -1;
}

// Float4s threadIdx.x, threadIdx.x + T, ... of a row: V independent loads, all in flight before
// the first is used; -inf past the row's end.
template <int T, int V>
__device__ __forceinline__ void load_row_float4s(const float4* x4, int vectors, float4 (&v)[V]) {
#pragma unroll
  for (int k = 0; k < V; ++k) {
    const int i = threadIdx.x + k * T;
    v[k] = i < vectors ? x4[i] : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
  }
}

__device__ __forceinline__ float max4(float4 q) { return fmaxf(fmaxf(q.x, q.y), fmaxf(q.z, q.w)); }
__device__ __forceinline__ float sum4(float4 q) { return (q.x + q.y) + (q.z + q.w); }
__device__ __forceinline__ float4 exp_less(float4 q, float shift) {
  return make_float4(expf(q.x - shift), expf(q.y - shift), expf(q.z - shift), expf(q.w - shift));
}
// v[k] = exp(v[k] - shift) for every k; their sum.
template <int V>
__device__ __forceinline__ float exp_less_and_sum(float4 (&v)[V], float shift) {
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < V; ++k) {
    v[k] = exp_less(v[k], shift);
    s += sum4(v[k]);
  }
  return s;
}

// This thread's (m, s) over its float4s and its head-or-tail float e; v and e become exp(x - m).
template <int V>
__device__ __forceinline__ MaxSum thread_max_sum(float4 (&v)[V], float& e) {
  float m = e;
#pragma unroll
  for (int k = 0; k < V; ++k) m = fmaxf(m, max4(v[k]));
  // A thread past the row's end holds only -inf: its shift is 0 and its sum 0.
  const float shift = m == -INFINITY ? 0.0f : m;
  e = expf(e - shift);
  return {m, e + exp_less_and_sum(v, shift)};
}

// Writes v[k] · scale to float4s threadIdx.x + k·T of y4 that are below `count`.
template <int T, int V>
__device__ __forceinline__ void store_row_float4s(float4* y4, int count, const float4 (&v)[V], float scale) {
#pragma unroll
  for (int k = 0; k < V; ++k) {
    const int i = threadIdx.x + k * T;
    if (i < count) y4[i] = make_float4(v[k].x * scale, v[k].y * scale, v[k].z * scale, v[k].w * scale);
  }
}

// Rows of up to 4·T·V floats, X and Y aligned alike: one block of T threads per row, V float4s
// per thread in registers. A row starts 16-byte aligned only when N % 4 == 0: its head and tail
// floats are held one per thread beside the float4s (head_or_tail_column).
template <int T, int V>
__global__ void __launch_bounds__(T) softmax_block_float4(const float* __restrict__ X, float* __restrict__ Y, int N) {
  static_assert(T >= 8, "threads 0-2 hold the head, 4-6 the tail");
  __shared__ MaxSum parts[T / WARP_SIZE];
  const float* x = X + static_cast<long long>(blockIdx.x) * N;
  float* y = Y + static_cast<long long>(blockIdx.x) * N;
  const int head = min(N, static_cast<int>((16 - reinterpret_cast<uintptr_t>(x) % 16) % 16 / 4));
  const int vectors = (N - head) / 4;
  const int tail = head + 4 * vectors;  // first float of the tail
  const float4* x4 = reinterpret_cast<const float4*>(x + head);
  float4 v[V];
  load_row_float4s<T>(x4, vectors, v);
  const int c = head_or_tail_column(head, tail, N);
  float e = c >= 0 ? x[c] : -INFINITY;
  const MaxSum mine = thread_max_sum(v, e);
  const MaxSum total = block_combine<T>(mine, parts);
  const float scale = (mine.m == -INFINITY ? 0.0f : expf(mine.m - total.m)) / total.s;
  store_row_float4s<T>(reinterpret_cast<float4*>(y + head), vectors, v, scale);
  if (c >= 0) y[c] = e * scale;
}

// Rows too long for registers alone, X and Y aligned alike: one block of ON_CHIP_THREADS per row
// (one block per SM), ON_CHIP_VECTORS float4s per thread in registers and the rest of the row in
// dynamic shared memory (up to the device's opt-in maximum: about 90000 floats a row on an H100).
__global__ void __launch_bounds__(ON_CHIP_THREADS, 1)
    softmax_row_on_chip(const float* __restrict__ X, float* __restrict__ Y, int N) {
  constexpr int T = ON_CHIP_THREADS, V = ON_CHIP_VECTORS;
  extern __shared__ float4 rest[];  // float4s V·T and on of the row
  __shared__ float scratch[T / WARP_SIZE];
  const float* x = X + static_cast<long long>(blockIdx.x) * N;
  float* y = Y + static_cast<long long>(blockIdx.x) * N;
  const int head = min(N, static_cast<int>((16 - reinterpret_cast<uintptr_t>(x) % 16) % 16 / 4));
  const int vectors = (N - head) / 4;
  const int tail = head + 4 * vectors;
  const float4* x4 = reinterpret_cast<const float4*>(x + head);
  float4 v[V];
  load_row_float4s<T>(x4, vectors, v);
  float m = -INFINITY;
  for (int i = threadIdx.x + V * T; i < vectors; i += T) {
    const float4 q = x4[i];
    rest[i - V * T] = q;  // each thread reads back only what it wrote: no barrier needed
    m = fmaxf(m, max4(q));
  }
  const int c = head_or_tail_column(head, tail, N);
  float e = c >= 0 ? x[c] : -INFINITY;
  m = fmaxf(m, e);
#pragma unroll
  for (int k = 0; k < V; ++k) m = fmaxf(m, max4(v[k]));
    // The row's max, then the sum of exp(x - max): two block reductions, through `scratch`.
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
  if (threadIdx.x % WARP_SIZE == 0) scratch[threadIdx.x / WARP_SIZE] = m;
  __syncthreads();
  float row_max = scratch[0];
#pragma unroll
  for (int w = 1; w < T / WARP_SIZE; ++w) row_max = fmaxf(row_max, scratch[w]);
  __syncthreads();  // all have read the maxima before the sums overwrite them
  e = expf(e - row_max);
  float s = e + exp_less_and_sum(v, row_max);
  for (int i = threadIdx.x + V * T; i < vectors; i += T) {
    float4 q = rest[i - V * T];
    q = exp_less(q, row_max);
    rest[i - V * T] = q;
    s += sum4(q);
  }
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
  if (threadIdx.x % WARP_SIZE == 0) scratch[threadIdx.x / WARP_SIZE] = s;
  __syncthreads();
  float row_sum = 0.0f;
#pragma unroll
  for (int w = 0; w < T / WARP_SIZE; ++w) row_sum += scratch[w];
  const float inv = 1.0f / row_sum;
  float4* y4 = reinterpret_cast<float4*>(y + head);
#pragma unroll
  for (int k = 0; k < V; ++k) {
    const int i = threadIdx.x + k * T;
    if (i < vectors) y4[i] = make_float4(v[k].x * inv, v[k].y * inv, v[k].z * inv, v[k].w * inv);
  }
  for (int i = threadIdx.x + V * T; i < vectors; i += T) {
    const float4 q = rest[i - V * T];
    y4[i] = make_float4(q.x * inv, q.y * inv, q.z * inv, q.w * inv);
  }
  if (c >= 0) y[c] = e * inv;
}

#if defined(__NVCC__)
// Rows longer than a block holds, on a GPU with thread block clusters (compute capability 9.0,
// Hopper, and later): the row is cut over a cluster of C blocks, CLUSTER_VECTORS float4s per thread
// in registers. Each block finds its part's (m, s); the blocks of a cluster run at the same time and
// write into each other's shared memory (distributed shared memory), so each combines the C parts and
// scales its own part, which it still holds: the row is read once and written once, with several
// blocks per SM loading while others reduce. (The simulator runs no clusters: there, and on older
// GPUs, softmax_row_on_chip does this work.)
//
// One wait on the others, not two: each block writes its part into every block's `parts_of` and
// then reads only its own shared memory, so no block has to wait before it exits for the others
// to finish reading it. A block may write into another's shared memory only once that block has
// started: every block arrives at the cluster barrier as it starts and waits on it (long since
// complete, after its loads) just before writing. 128 threads of 16 float4s each measured 86 % of a
// copy around solve on an H100 for 256 rows of 65536 floats; 256 threads of 8 and two
// cluster.sync() 81 % (docs/performance.md).
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory"); }

template <int C>
__global__ void __launch_bounds__(CLUSTER_THREADS)
    softmax_row_cluster(const float* __restrict__ X, float* __restrict__ Y, int N) {
#if __CUDA_ARCH__ >= 900
  constexpr int T = CLUSTER_THREADS, V = CLUSTER_VECTORS;
  namespace cg = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  __shared__ MaxSum parts[T / WARP_SIZE];
  __shared__ MaxSum parts_of[C];  // block b's (m, s), written by block b
  cluster_arrive_relaxed();       // this block has started: the others may write its shared memory
  const int rank = static_cast<int>(cluster.block_rank());
  const long long row = blockIdx.x / C;
  const float* x = X + row * N;
  float* y = Y + row * N;
  const int head = min(N, static_cast<int>((16 - reinterpret_cast<uintptr_t>(x) % 16) % 16 / 4));
  const int vectors = (N - head) / 4;
  const int tail = head + 4 * vectors;
  const int per_block = (vectors + C - 1) / C;
  const int first = rank * per_block;
  const int last = min(vectors, first + per_block);
  const float4* x4 = reinterpret_cast<const float4*>(x + head) + first;
  float4 v[V];
  load_row_float4s<T>(x4, last - first, v);
  // The head's floats go to the first block, the tail's to the last.
  const int c = rank == 0 ? head_or_tail_column(head, head, 0) : rank == C - 1 ? head_or_tail_column(0, tail, N) : -1;
  float e = c >= 0 ? x[c] : -INFINITY;
  const MaxSum mine = thread_max_sum(v, e);
  const MaxSum block = block_combine<T>(mine, parts);
  cluster_wait();  // every block of the cluster has started
  if (threadIdx.x < C) *cluster.map_shared_rank(&parts_of[rank], static_cast<int>(threadIdx.x)) = block;
  cluster_arrive();  // release: this block's writes are seen by whoever waits after it
  cluster_wait();    // every block's part is in this block's shared memory
  MaxSum total = parts_of[0];
#pragma unroll
  for (int b = 1; b < C; ++b) total = combine(total, parts_of[b]);
  const float scale = (mine.m == -INFINITY ? 0.0f : expf(mine.m - total.m)) / total.s;
  store_row_float4s<T>(reinterpret_cast<float4*>(y + head) + first, last - first, v, scale);
  if (c >= 0) y[c] = e * scale;
#endif
}

// Launches softmax_row_cluster with clusters of C blocks, one cluster per row.
template <int C>
void launch_cluster(const float* X, float* Y, int M, int N) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(M) * C);
  config.blockDim = dim3(CLUSTER_THREADS);
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = C;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  check(cudaLaunchKernelEx(&config, softmax_row_cluster<C>, X, Y, N), "launch of softmax_row_cluster");
}

/// Whether this GPU runs clusters, and the row took them: up to 8 blocks of CLUSTER_VECTORS
/// float4s per thread (8 is the cluster size every such GPU supports).
bool softmax_by_cluster(const float* X, float* Y, int M, int N) {
  static const bool clusters = device_attribute(cudaDevAttrClusterLaunch) != 0;
  constexpr long long kPerBlock = static_cast<long long>(CLUSTER_THREADS) * CLUSTER_VECTORS;  // float4s
  const long long vectors = (N + 3LL) / 4;
  if (!clusters || vectors > 8 * kPerBlock || static_cast<long long>(M) * 8 > 0x7fffffffLL) return false;
  if (vectors <= 2 * kPerBlock) {
    launch_cluster<2>(X, Y, M, N);
  } else if (vectors <= 4 * kPerBlock) {
    launch_cluster<4>(X, Y, M, N);
  } else {
    launch_cluster<8>(X, Y, M, N);
  }
  return true;
}
#else
bool softmax_by_cluster(const float*, float*, int, int) { return false; }  // the simulator: no clusters
#endif

template <int G, int K>
void launch_in_registers(const float* X, float* Y, int M, int N) {
  constexpr int ROWS_PER_BLOCK = THREADS / G;
  // One pass: a group per row, as many blocks as the rows need (see 3 above).
  const int blocks = static_cast<int>((static_cast<long long>(M) + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK);
  softmax_in_registers<G, K><<<blocks, THREADS>>>(X, Y, M, N);
}

void solve(const float* X, float* Y, int M, int N) {
  // The SM count is asked for once: solve runs many times, and every host call before the first
  // launch adds to the time the caller waits.
  static const int sms = device_attribute(cudaDevAttrMultiProcessorCount);
  const int max_blocks = BLOCKS_PER_SM * sms;

  const bool alike = (reinterpret_cast<uintptr_t>(X) - reinterpret_cast<uintptr_t>(Y)) % 16 == 0;
  // The dynamic shared memory a block may have when it asks (cudaFuncSetAttribute, once): the
  // device's opt-in maximum less the kernel's own static shared memory.
  static const int on_chip_shared = [] {
    const int most = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    cudaFuncAttributes attributes{};
    check(cudaFuncGetAttributes(&attributes, softmax_row_on_chip), "cudaFuncGetAttributes");
    const int bytes = most - static_cast<int>(attributes.sharedSizeBytes);
    check(cudaFuncSetAttribute(softmax_row_on_chip, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes),
          "cudaFuncSetAttribute");
    return bytes;
  }();
  if (N > MAX_FLOAT4_ROW && alike && softmax_by_cluster(X, Y, M, N)) return;
  const long long rest_bytes =
      std::max(0LL, (N + 3LL) / 4 - ON_CHIP_THREADS * ON_CHIP_VECTORS) * static_cast<long long>(sizeof(float4));
  if (N > ROW_THREADS * MAX_PER_THREAD && alike && rest_bytes <= on_chip_shared) {
    softmax_row_on_chip<<<M, ON_CHIP_THREADS, rest_bytes>>>(X, Y, N);
    check(cudaGetLastError(), "launch of softmax_row_on_chip");
    return;
  }
  if (N > ROW_THREADS * MAX_PER_THREAD) {
    softmax_online<<<std::min(M, max_blocks), THREADS>>>(X, Y, M, N);
    check(cudaGetLastError(), "launch of softmax_online");
    return;
  }
  if (N > 1024 && N <= MAX_FLOAT4_ROW && alike) {
    // T threads of V float4s: 128 threads up to 8192 floats (measured best), then 256.
    const int vectors = (N + 3) / 4;
    if (vectors <= 128 * 4) {
      softmax_block_float4<128, 4><<<M, 128>>>(X, Y, N);
    } else if (vectors <= 128 * 8) {
      softmax_block_float4<128, 8><<<M, 128>>>(X, Y, N);
    } else if (vectors <= 128 * 16) {
      softmax_block_float4<128, 16><<<M, 128>>>(X, Y, N);
    } else {
      softmax_block_float4<256, 16><<<M, 256>>>(X, Y, N);
    }
    check(cudaGetLastError(), "launch of softmax_block_float4");
    return;
  }
  if (N > 1024) {
    // K: the floats per thread, rounded up to a multiple of 4 (fewer kernels to compile; a float
    // past the row costs a register, not a load).
    const int per_thread = (N + ROW_THREADS - 1) / ROW_THREADS;
    if (per_thread <= 4) {
      softmax_block_in_registers<4><<<M, ROW_THREADS>>>(X, Y, N);
    } else if (per_thread <= 8) {
      softmax_block_in_registers<8><<<M, ROW_THREADS>>>(X, Y, N);
    } else if (per_thread <= 12) {
      softmax_block_in_registers<12><<<M, ROW_THREADS>>>(X, Y, N);
    } else if (per_thread <= 16) {
      softmax_block_in_registers<16><<<M, ROW_THREADS>>>(X, Y, N);
    } else if (per_thread <= 20) {
      softmax_block_in_registers<20><<<M, ROW_THREADS>>>(X, Y, N);
    } else if (per_thread <= 24) {
      softmax_block_in_registers<24><<<M, ROW_THREADS>>>(X, Y, N);
    } else if (per_thread <= 32) {
      softmax_block_in_registers<32><<<M, ROW_THREADS>>>(X, Y, N);
    } else {
      softmax_block_in_registers<MAX_PER_THREAD><<<M, ROW_THREADS>>>(X, Y, N);
    }
    check(cudaGetLastError(), "launch of softmax_block_in_registers");
    return;
  }
  // G lanes per row, K floats per lane: G = N/4 rounded up to a power of two (at most 32), so
  // that each lane has about 4 loads in flight (a lone float per lane leaves the memory idle
  // between rows), and K = the rest, rounded up to a power of two.
  if (N <= 1) {
    launch_in_registers<1, 1>(X, Y, M, N);
  } else if (N <= 2) {
    launch_in_registers<1, 2>(X, Y, M, N);
  } else if (N <= 4) {
    launch_in_registers<1, 4>(X, Y, M, N);
  } else if (N <= 8) {
    launch_in_registers<2, 4>(X, Y, M, N);
  } else if (N <= 16) {
    launch_in_registers<4, 4>(X, Y, M, N);
  } else if (N <= 32) {
    launch_in_registers<8, 4>(X, Y, M, N);
  } else if (N <= 64) {
    launch_in_registers<16, 4>(X, Y, M, N);
  } else if (N <= 128) {
    launch_in_registers<32, 4>(X, Y, M, N);
  } else if (N <= 256) {
    launch_in_registers<32, 8>(X, Y, M, N);
  } else if (N <= 512) {
    launch_in_registers<32, 16>(X, Y, M, N);
  } else {
    launch_in_registers<32, 32>(X, Y, M, N);
  }
  check(cudaGetLastError(), "launch of softmax_in_registers");
}
