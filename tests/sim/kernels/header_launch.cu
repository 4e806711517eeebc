// Launches and shared memory inside headers included with quotes (and a header's header): the sim
// toolchain translates those headers too.
#include <cuda_runtime.h>

#include "header_launch/launch.cuh"

/// host[i] = sum of the block's values before it + host[i] * 2, through launches in the headers
/// and one here of a template kernel defined in a header (its arguments deduced).
extern "C" int header_launches(int* host, int n) {
  int* d = nullptr;
  cudaMalloc(&d, n * sizeof(int));
  cudaMemcpy(d, host, n * sizeof(int), cudaMemcpyHostToDevice);
  double_all(d, n);
  block_prefix<<<(n + kBlock - 1) / kBlock, kBlock, kBlock * sizeof(int)>>>(d, n);
  const cudaError_t err = cudaGetLastError();
  cudaMemcpy(host, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return err;
}
