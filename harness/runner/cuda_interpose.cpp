// Records what a submission does with the CUDA runtime while `solve` runs. The runner exports
// these definitions (-rdynamic), so the dynamic linker binds the student module's references
// to them ahead of libcudart; each forwards to the real entry point found with RTLD_NEXT.
// Only the public allocation and copy API is wrapped: the API-level view of what the student
// asked for, with host addresses. Kernel launches come from CUPTI (kernel_tracing_cupti.cpp).
#include <dlfcn.h>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

#include "records.hpp"

namespace cudalab::runner {

RunRecords& run_records() {
  static RunRecords records;
  return records;
}

}  // namespace cudalab::runner

namespace {

using cudalab::runner::run_records;

template <typename Fn>
Fn real(const char* name) {
  void* sym = dlsym(RTLD_NEXT, name);
  if (sym == nullptr) {
    std::fprintf(stderr, "cudalab runner: cannot find %s in the CUDA runtime\n", name);
    std::abort();
  }
  return reinterpret_cast<Fn>(sym);
}

void record_allocation(void* ptr, size_t bytes, bool host) {
  auto& r = run_records();
  if (r.recording && ptr != nullptr) {
    r.allocations.push_back({reinterpret_cast<std::uintptr_t>(ptr), bytes, host, false});
  }
}

void record_free(void* ptr) {
  auto& r = run_records();
  if (!r.recording || ptr == nullptr) return;
  for (auto& a : r.allocations) {
    if (a.address == reinterpret_cast<std::uintptr_t>(ptr) && !a.freed) {
      a.freed = true;
      return;
    }
  }
}

void record_copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  auto& r = run_records();
  if (r.recording) {
    r.copies.push_back({cudalab::runner::copy_kind_name(static_cast<int>(kind)), bytes,
                        reinterpret_cast<std::uintptr_t>(dst), reinterpret_cast<std::uintptr_t>(src)});
  }
}

}  // namespace

extern "C" {

cudaError_t CUDARTAPI cudaMalloc(void** ptr, size_t bytes) {
  static auto fn = real<cudaError_t (*)(void**, size_t)>("cudaMalloc");
  cudaError_t err = fn(ptr, bytes);
  if (err == cudaSuccess) record_allocation(*ptr, bytes, false);
  return err;
}

cudaError_t CUDARTAPI cudaMallocHost(void** ptr, size_t bytes) {
  static auto fn = real<cudaError_t (*)(void**, size_t)>("cudaMallocHost");
  cudaError_t err = fn(ptr, bytes);
  if (err == cudaSuccess) record_allocation(*ptr, bytes, true);
  return err;
}

cudaError_t CUDARTAPI cudaFree(void* ptr) {
  static auto fn = real<cudaError_t (*)(void*)>("cudaFree");
  cudaError_t err = fn(ptr);
  if (err == cudaSuccess) record_free(ptr);
  return err;
}

cudaError_t CUDARTAPI cudaFreeHost(void* ptr) {
  static auto fn = real<cudaError_t (*)(void*)>("cudaFreeHost");
  cudaError_t err = fn(ptr);
  if (err == cudaSuccess) record_free(ptr);
  return err;
}

cudaError_t CUDARTAPI cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  static auto fn = real<cudaError_t (*)(void*, const void*, size_t, cudaMemcpyKind)>("cudaMemcpy");
  cudaError_t err = fn(dst, src, bytes, kind);
  if (err == cudaSuccess) record_copy(dst, src, bytes, kind);
  return err;
}

cudaError_t CUDARTAPI cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                                      cudaStream_t stream) {
  static auto fn = real<cudaError_t (*)(void*, const void*, size_t, cudaMemcpyKind, cudaStream_t)>("cudaMemcpyAsync");
  cudaError_t err = fn(dst, src, bytes, kind, stream);
  if (err == cudaSuccess) record_copy(dst, src, bytes, kind);
  return err;
}

}  // extern "C"
