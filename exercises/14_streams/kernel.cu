// 14_streams — y[i] = sqrt(1 + x[i]^2), with the copies overlapping the kernels.
//
// Contract (the harness calls solve; keep the signature exactly as it is):
//   void solve(const float* x, float* y, int n)
//   - x and y are HOST pointers to n floats each, n >= 1 (up to tens of millions), in
//     page-locked (pinned) memory: the copy engines can read and write them directly.
//   - When solve returns, y[i] must equal sqrtf(1 + x[i] * x[i]); x unchanged.
//   - Copy with cudaMemcpyAsync on streams you create, every element in once and out once. From
//     1 MiB of x on (262144 floats), split the work into chunks on two or more streams, kernels
//     included; on a GPU some copy must run while a kernel runs (the check reads when each ran).
//   - Free what you allocate and destroy the streams you create.
//
// Read exercises/14_streams/README.md first. Check your work with:
//   ./cudalab check 14_streams
#include <cuda_runtime.h>

#include <stdexcept>

constexpr int STREAMS = 4;      // how many chunks are in flight at once
constexpr int CHUNK = 1 << 17;  // elements per chunk (512 KiB)

__global__ void hypotenuse(const float* x, float* y, int n) {
  // TODO(student): an element-wise kernel over ONE chunk: i < n is the chunk's length here.
  //   y[i] = sqrtf(1.0f + x[i] * x[i]).
}

void solve(const float* x, float* y, int n) {
  // TODO(student): streams. Create STREAMS streams with cudaStreamCreate, and for each stream a
  //   device buffer pair of CHUNK floats (cudaMalloc): a stream's chunks reuse its buffers, which
  //   is safe because work on one stream runs in order.
  // TODO(student): the pipeline. For chunk c (elements c * CHUNK up to n), on stream s = c % STREAMS:
  //     cudaMemcpyAsync(d_x[s], x + first, bytes, cudaMemcpyHostToDevice, stream[s]);
  //     hypotenuse<<<blocks, threads, 0, stream[s]>>>(d_x[s], d_y[s], count);
  //     cudaMemcpyAsync(y + first, d_y[s], bytes, cudaMemcpyDeviceToHost, stream[s]);
  //   The last chunk is usually shorter: count = min(CHUNK, n - first). Do not wait inside the
  //   loop: the calls return at once, and the GPU overlaps the streams' work.
  // TODO(student): after the loop, wait for every stream (cudaStreamSynchronize), then cudaFree
  //   the buffers and cudaStreamDestroy the streams.
  throw std::logic_error("not implemented yet: write hypotenuse and solve in exercises/14_streams/kernel.cu");
}
