// Reference solution for 14_streams: y[i] = sqrt(1 + x[i]^2), chunk by chunk on several streams.
//
// Contract: void solve(const float* x, float* y, int n) — HOST pointers to page-locked memory.
//
// The time of this exercise is the PCIe (or NVLink-C2C) link, not the kernel: 8 bytes cross it per
// element. Done in one piece, the copy in, the kernel and the copy out run one after another.
// Split into chunks on STREAMS streams, chunk k's copy in runs while chunk k-1's kernel runs and
// chunk k-2's result comes back: the GPU has separate copy engines for each direction, so the
// total approaches the time of the larger copy alone.
//   - Work is issued breadth first: for each chunk its copy in, kernel and copy out, on the
//     chunk's stream. Within a stream they run in order; across streams the GPU overlaps them.
//   - Each stream owns one device buffer pair, reused by its chunks: a stream's next chunk is
//     copied in only after its previous chunk's copy out (same stream), so nothing is
//     overwritten early, and device memory stays at STREAMS chunks whatever n is.
//   - Chunks are a few MiB: large enough that each copy runs at the link's full speed, small
//     enough that the first copy in and the last copy out (the parts nothing overlaps) are short.
//   - One synchronisation at the end, not per chunk: a wait inside the loop would serialise it.
// Streams and buffers are created and freed on every call (the harness counts leaks); that costs
// a few tens of microseconds against milliseconds of copies.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(err));
}

}  // namespace

constexpr int STREAMS = 4;
constexpr int THREADS = 256;
constexpr long long MAX_CHUNK = 1 << 20;   // elements: 4 MiB per copy
constexpr long long MIN_CHUNK = 1 << 14;   // below this a copy's fixed cost dominates
constexpr long long CHUNKS_AT_LEAST = 16;  // pieces per call when n is small enough to allow it

__global__ void hypotenuse(const float* __restrict__ x, float* __restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    const float v = x[i];
    y[i] = sqrtf(fmaf(v, v, 1.0f));
  }
}

void solve(const float* x, float* y, int n) {
  const long long chunk = std::clamp((n + CHUNKS_AT_LEAST - 1) / CHUNKS_AT_LEAST, MIN_CHUNK, MAX_CHUNK);
  const long long chunks = (n + chunk - 1) / chunk;
  const int streams = static_cast<int>(std::min<long long>(STREAMS, chunks));

  cudaStream_t stream[STREAMS];
  float* d_x[STREAMS];
  float* d_y[STREAMS];
  const size_t buffer_bytes = static_cast<size_t>(std::min<long long>(chunk, n)) * sizeof(float);
  for (int s = 0; s < streams; ++s) {
    check(cudaStreamCreateWithFlags(&stream[s], cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    check(cudaMalloc(&d_x[s], buffer_bytes), "cudaMalloc");
    check(cudaMalloc(&d_y[s], buffer_bytes), "cudaMalloc");
  }
  for (long long c = 0; c < chunks; ++c) {
    const int s = static_cast<int>(c % streams);
    const long long first = c * chunk;
    const int count = static_cast<int>(std::min<long long>(chunk, n - first));
    const size_t bytes = static_cast<size_t>(count) * sizeof(float);
    check(cudaMemcpyAsync(d_x[s], x + first, bytes, cudaMemcpyHostToDevice, stream[s]), "cudaMemcpyAsync in");
    const int blocks = (count + THREADS - 1) / THREADS;
    hypotenuse<<<blocks, THREADS, 0, stream[s]>>>(d_x[s], d_y[s], count);
    check(cudaGetLastError(), "launch of hypotenuse");
    check(cudaMemcpyAsync(y + first, d_y[s], bytes, cudaMemcpyDeviceToHost, stream[s]), "cudaMemcpyAsync out");
  }
  for (int s = 0; s < streams; ++s) {
    check(cudaStreamSynchronize(stream[s]), "cudaStreamSynchronize");
    check(cudaFree(d_x[s]), "cudaFree");
    check(cudaFree(d_y[s]), "cudaFree");
    check(cudaStreamDestroy(stream[s]), "cudaStreamDestroy");
  }
}
