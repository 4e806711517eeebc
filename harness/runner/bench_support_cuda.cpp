#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "bench_support.hpp"

namespace cudalab::runner {
namespace {

// Reads `count` 16-byte words of `buffer` in a grid-stride loop and stores to `sink` only if the
// XOR of all of them has a value the zeroed buffer cannot produce, so the loads are not removed.
constexpr const char* kFlushPtx = R"(
.version 6.0
.target sm_50
.address_size 64

.visible .entry cudalab_l2_flush(.param .u64 buffer, .param .u64 count, .param .u64 sink)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;

  ld.param.u64 %rd1, [buffer];
  ld.param.u64 %rd2, [count];
  ld.param.u64 %rd3, [sink];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  cvt.u64.u32 %rd4, %r3;
  mad.wide.u32 %rd4, %r1, %r2, %rd4;
  mul.wide.u32 %rd5, %r2, %r4;
  mov.u32 %r5, 0;
LOOP:
  setp.ge.u64 %p1, %rd4, %rd2;
  @%p1 bra DONE;
  shl.b64 %rd6, %rd4, 4;
  add.s64 %rd7, %rd1, %rd6;
  ld.global.v4.u32 {%r6, %r7, %r8, %r9}, [%rd7];
  xor.b32 %r5, %r5, %r6;
  xor.b32 %r5, %r5, %r7;
  xor.b32 %r5, %r5, %r8;
  xor.b32 %r5, %r5, %r9;
  add.s64 %rd4, %rd4, %rd5;
  bra LOOP;
DONE:
  setp.ne.u32 %p2, %r5, 0x7fc0ffee;
  @%p2 bra END;
  st.global.u32 [%rd3], %r5;
END:
  ret;
}
)";

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}

}  // namespace

L2Flush::L2Flush() {
  int device = 0, l2_bytes = 0, sms = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device), "L2 size");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
  bytes_ = 2 * static_cast<std::size_t>(std::max(l2_bytes, 1 << 20));
  blocks_ = 4 * std::max(sms, 1);
  check(cudaMalloc(&buffer_, bytes_), "allocating the L2 flush buffer");
  check(cudaMalloc(&sink_, sizeof(unsigned)), "allocating the L2 flush buffer");
  // Written once here, outside any timing; from then on the flush only reads.
  check(cudaMemset(buffer_, 0, bytes_), "clearing the L2 flush buffer");
  cudaLibrary_t library = nullptr;
  check(cudaLibraryLoadData(&library, kFlushPtx, nullptr, nullptr, 0, nullptr, nullptr, 0),
        "loading the L2 flush kernel");
  cudaKernel_t kernel = nullptr;
  check(cudaLibraryGetKernel(&kernel, library, "cudalab_l2_flush"), "finding the L2 flush kernel");
  library_ = library;
  kernel_ = reinterpret_cast<void*>(kernel);
  check(cudaDeviceSynchronize(), "clearing the L2 flush buffer");
}

L2Flush::~L2Flush() {
  (void)cudaFree(buffer_);
  (void)cudaFree(sink_);
  if (library_ != nullptr) (void)cudaLibraryUnload(static_cast<cudaLibrary_t>(library_));
}

void L2Flush::operator()() {
  unsigned long long count = bytes_ / 16;
  void* args[] = {&buffer_, &count, &sink_};
  check(cudaLaunchKernel(kernel_, dim3(blocks_), dim3(512), args, 0, nullptr), "flushing the L2");
  check(cudaDeviceSynchronize(), "flushing the L2");
}

bool host_memory_matters() { return true; }

bool page_lock(void* p, std::size_t bytes) {
  if (bytes == 0) return false;
  if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) != cudaSuccess) {
    (void)cudaGetLastError();  // not the submission's error
    return false;
  }
  return true;
}

void page_unlock(void* p) { (void)cudaHostUnregister(p); }

}  // namespace cudalab::runner
