// Records what a submission does with the CUDA runtime while `solve` runs. The runner exports
// these definitions (-rdynamic), so the dynamic linker binds the student module's references
// to them ahead of libcudart; each forwards to the real entry point found with RTLD_NEXT and
// tells the record keeper (records.hpp) what happened, or which call failed and why.
// The wrapped set is the one the simulator records too: allocations (device, stream-ordered,
// managed, pinned), frees, copies (plain, async, 2D, to and from symbols) and memsets. Kernel
// launches come from CUPTI (kernel_tracing_cupti.cpp).
#include <dlfcn.h>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

#include "records/records.hpp"

namespace {

namespace records = cudalab::records;
using cudalab::protocol::MemoryKind;

template <typename Fn>
Fn real(const char* name) {
  void* sym = dlsym(RTLD_NEXT, name);
  if (sym == nullptr) {
    std::fprintf(stderr, "cudalab runner: cannot find %s in the CUDA runtime\n", name);
    std::abort();
  }
  return reinterpret_cast<Fn>(sym);
}

cudaError_t allocated(cudaError_t err, const char* api, MemoryKind kind, void** ptr, size_t bytes) {
  if (err == cudaSuccess && ptr != nullptr) {
    records::record_allocation(api, kind, *ptr, bytes);
  } else if (err != cudaSuccess) {
    records::record_failed_call({std::string(api) + "(&ptr, " + std::to_string(bytes) + " bytes)",
                                 cudaGetErrorName(err),
                                 err == cudaErrorMemoryAllocation ? "more memory than the device has free" : ""});
  }
  return err;
}

cudaError_t freed(cudaError_t err, const char* api, void* ptr) {
  if (err == cudaSuccess) {
    records::record_free(ptr);
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "(%p)", ptr);
    records::record_failed_call({std::string(api) + buf, cudaGetErrorName(err),
                                 "not a pointer that is still allocated: freed twice, or never allocated?"});
  }
  return err;
}

cudaError_t copied(cudaError_t err, const char* api, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                   cudaStream_t stream = nullptr) {
  if (err == cudaSuccess) {
    records::record_copy(api, static_cast<int>(kind), dst, src, bytes, stream);
  } else {
    records::record_failed_call(
        records::explain_failed_copy(api, dst, src, bytes, static_cast<int>(kind), cudaGetErrorName(err)));
  }
  return err;
}

/// The error of a copy refused here, until cudaGetLastError returns it (per host thread, as the
/// runtime keeps its own): the runner reads it after solve, as it would the runtime's.
thread_local cudaError_t refused_error = cudaSuccess;

/// A copy whose host side runs past the end of one of the harness's host buffers is refused and
/// named, as the simulator does, before it crashes the runner or writes over another case's data.
cudaError_t refuse_host_overrun(const char* api, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  std::string overrun = records::find_allocation(dst) ? "" : records::host_buffer_overrun(api, dst, bytes, false);
  if (overrun.empty() && !records::find_allocation(src)) overrun = records::host_buffer_overrun(api, src, bytes, true);
  if (overrun.empty()) return cudaSuccess;
  cudalab::protocol::FailedCall call = records::explain_failed_copy(api, dst, src, bytes, static_cast<int>(kind),
                                                                    cudaGetErrorName(cudaErrorInvalidValue));
  call.cause = std::move(overrun);
  records::record_failed_call(std::move(call));
  refused_error = cudaErrorInvalidValue;
  return cudaErrorInvalidValue;
}

cudaError_t set(cudaError_t err, const char* api, void* ptr, int value, size_t bytes) {
  if (err != cudaSuccess) {
    records::record_failed_call(records::explain_failed_memset(api, ptr, value, bytes, cudaGetErrorName(err)));
  }
  return err;
}

}  // namespace

extern "C" {

cudaError_t CUDARTAPI cudaMalloc(void** ptr, size_t bytes) {
  static auto fn = real<cudaError_t (*)(void**, size_t)>("cudaMalloc");
  return allocated(fn(ptr, bytes), "cudaMalloc", MemoryKind::device, ptr, bytes);
}

// The stream-ordered allocator: recorded at the call, as the simulator records it.
cudaError_t CUDARTAPI cudaMallocAsync(void** ptr, size_t bytes, cudaStream_t stream) {
  static auto fn = real<cudaError_t (*)(void**, size_t, cudaStream_t)>("cudaMallocAsync");
  return allocated(fn(ptr, bytes, stream), "cudaMallocAsync", MemoryKind::device, ptr, bytes);
}

cudaError_t CUDARTAPI cudaMallocManaged(void** ptr, size_t bytes, unsigned int flags) {
  static auto fn = real<cudaError_t (*)(void**, size_t, unsigned int)>("cudaMallocManaged");
  return allocated(fn(ptr, bytes, flags), "cudaMallocManaged", MemoryKind::managed, ptr, bytes);
}

cudaError_t CUDARTAPI cudaMallocHost(void** ptr, size_t bytes) {
  static auto fn = real<cudaError_t (*)(void**, size_t)>("cudaMallocHost");
  return allocated(fn(ptr, bytes), "cudaMallocHost", MemoryKind::pinned, ptr, bytes);
}

cudaError_t CUDARTAPI cudaHostAlloc(void** ptr, size_t bytes, unsigned int flags) {
  static auto fn = real<cudaError_t (*)(void**, size_t, unsigned int)>("cudaHostAlloc");
  return allocated(fn(ptr, bytes, flags), "cudaHostAlloc", MemoryKind::pinned, ptr, bytes);
}

cudaError_t CUDARTAPI cudaFree(void* ptr) {
  static auto fn = real<cudaError_t (*)(void*)>("cudaFree");
  return freed(fn(ptr), "cudaFree", ptr);
}

cudaError_t CUDARTAPI cudaFreeAsync(void* ptr, cudaStream_t stream) {
  static auto fn = real<cudaError_t (*)(void*, cudaStream_t)>("cudaFreeAsync");
  return freed(fn(ptr, stream), "cudaFreeAsync", ptr);
}

cudaError_t CUDARTAPI cudaFreeHost(void* ptr) {
  static auto fn = real<cudaError_t (*)(void*)>("cudaFreeHost");
  return freed(fn(ptr), "cudaFreeHost", ptr);
}

cudaError_t CUDARTAPI cudaGetLastError() {
  static auto fn = real<cudaError_t (*)()>("cudaGetLastError");
  const cudaError_t err = fn();
  const cudaError_t refused = refused_error;
  refused_error = cudaSuccess;
  return err != cudaSuccess ? err : refused;
}

cudaError_t CUDARTAPI cudaPeekAtLastError() {
  static auto fn = real<cudaError_t (*)()>("cudaPeekAtLastError");
  const cudaError_t err = fn();
  return err != cudaSuccess ? err : refused_error;
}

cudaError_t CUDARTAPI cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  static auto fn = real<cudaError_t (*)(void*, const void*, size_t, cudaMemcpyKind)>("cudaMemcpy");
  if (const cudaError_t refused = refuse_host_overrun("cudaMemcpy", dst, src, bytes, kind)) return refused;
  return copied(fn(dst, src, bytes, kind), "cudaMemcpy", dst, src, bytes, kind);
}

cudaError_t CUDARTAPI cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                                      cudaStream_t stream) {
  static auto fn = real<cudaError_t (*)(void*, const void*, size_t, cudaMemcpyKind, cudaStream_t)>("cudaMemcpyAsync");
  if (const cudaError_t refused = refuse_host_overrun("cudaMemcpyAsync", dst, src, bytes, kind)) return refused;
  return copied(fn(dst, src, bytes, kind, stream), "cudaMemcpyAsync", dst, src, bytes, kind, stream);
}

cudaError_t CUDARTAPI cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                   size_t height, cudaMemcpyKind kind) {
  static auto fn =
      real<cudaError_t (*)(void*, size_t, const void*, size_t, size_t, size_t, cudaMemcpyKind)>("cudaMemcpy2D");
  return copied(fn(dst, dpitch, src, spitch, width, height, kind), "cudaMemcpy2D", dst, src, width * height, kind);
}

namespace {

/// A copy to or from a `__device__`/`__constant__` symbol: recorded, or its failure explained.
cudaError_t symbol_copied(cudaError_t err, const char* api, const void* dst, const void* src, size_t bytes,
                          size_t offset, cudaMemcpyKind kind, cudaStream_t stream) {
  if (err == cudaSuccess) {
    records::record_copy(api, static_cast<int>(kind), dst, src, bytes, stream);
  } else {
    records::record_failed_call(
        {std::string(api) + "(…, " + std::to_string(bytes) + " bytes, offset " + std::to_string(offset) + ")",
         cudaGetErrorName(err),
         "offset + bytes must fit in the symbol, and the symbol must be a __device__ or "
         "__constant__ variable"});
  }
  return err;
}

}  // namespace

cudaError_t CUDARTAPI cudaMemcpyToSymbol(const void* symbol, const void* src, size_t bytes, size_t offset,
                                         cudaMemcpyKind kind) {
  static auto fn =
      real<cudaError_t (*)(const void*, const void*, size_t, size_t, cudaMemcpyKind)>("cudaMemcpyToSymbol");
  return symbol_copied(fn(symbol, src, bytes, offset, kind), "cudaMemcpyToSymbol", symbol, src, bytes, offset, kind,
                       nullptr);
}

cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t bytes, size_t offset,
                                              cudaMemcpyKind kind, cudaStream_t stream) {
  static auto fn = real<cudaError_t (*)(const void*, const void*, size_t, size_t, cudaMemcpyKind, cudaStream_t)>(
      "cudaMemcpyToSymbolAsync");
  return symbol_copied(fn(symbol, src, bytes, offset, kind, stream), "cudaMemcpyToSymbolAsync", symbol, src, bytes,
                       offset, kind, stream);
}

cudaError_t CUDARTAPI cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t bytes, size_t offset,
                                           cudaMemcpyKind kind) {
  static auto fn = real<cudaError_t (*)(void*, const void*, size_t, size_t, cudaMemcpyKind)>("cudaMemcpyFromSymbol");
  return symbol_copied(fn(dst, symbol, bytes, offset, kind), "cudaMemcpyFromSymbol", dst, symbol, bytes, offset, kind,
                       nullptr);
}

cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t bytes, size_t offset,
                                                cudaMemcpyKind kind, cudaStream_t stream) {
  static auto fn = real<cudaError_t (*)(void*, const void*, size_t, size_t, cudaMemcpyKind, cudaStream_t)>(
      "cudaMemcpyFromSymbolAsync");
  return symbol_copied(fn(dst, symbol, bytes, offset, kind, stream), "cudaMemcpyFromSymbolAsync", dst, symbol, bytes,
                       offset, kind, stream);
}

cudaError_t CUDARTAPI cudaMemset(void* ptr, int value, size_t bytes) {
  static auto fn = real<cudaError_t (*)(void*, int, size_t)>("cudaMemset");
  return set(fn(ptr, value, bytes), "cudaMemset", ptr, value, bytes);
}

cudaError_t CUDARTAPI cudaMemsetAsync(void* ptr, int value, size_t bytes, cudaStream_t stream) {
  static auto fn = real<cudaError_t (*)(void*, int, size_t, cudaStream_t)>("cudaMemsetAsync");
  return set(fn(ptr, value, bytes, stream), "cudaMemsetAsync", ptr, value, bytes);
}

}  // extern "C"
