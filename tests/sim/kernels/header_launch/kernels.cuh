// Kernels in a header: a template launched with deduced arguments from the .cu file, dynamic
// shared memory declared at namespace scope, and static shared memory in a function.
#pragma once

constexpr int kBlock = 64;

extern __shared__ int partial[];

template <class T>
__global__ void scale_by(T* p, T factor, int n) {
  __shared__ T staged[kBlock];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  staged[threadIdx.x] = i < n ? p[i] * factor : T();
  __syncthreads();
  if (i < n) p[i] = staged[threadIdx.x];
}

/// Exclusive prefix sum within each block plus the element itself (an inclusive scan).
template <class T>
__global__ void block_prefix(T* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? p[i] : 0;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned k = 1; k < blockDim.x; ++k) partial[k] += partial[k - 1];
  }
  __syncthreads();
  if (i < n) p[i] = partial[threadIdx.x];
}
