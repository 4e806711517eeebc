// The simulator's runtime API as plain host code sees it (this file is compiled like the runner:
// `#include <cuda_runtime.h>` with the host compiler, linked against libcudalab_sim.so).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "records/records.hpp"
#include "sim/control.hpp"

namespace {

class SimRuntime : public ::testing::Test {
 protected:
  void TearDown() override {
    cudaGetLastError();
    cudalab::records::stop_recording();
    cudalab::records::clear_records();
  }
};

TEST_F(SimRuntime, OneDocumentedDevice) {
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(count, 1);
  EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
  cudaDeviceProp p;
  ASSERT_EQ(cudaGetDeviceProperties(&p, 0), cudaSuccess);
  EXPECT_STREQ(p.name, "cudalab CPU simulator");
  EXPECT_EQ(p.warpSize, 32);
  EXPECT_EQ(p.maxThreadsPerBlock, 1024);
  EXPECT_EQ(p.sharedMemPerBlock, 48u * 1024);
  EXPECT_EQ(p.sharedMemPerBlockOptin, 232448u);
  EXPECT_GE(p.multiProcessorCount, 1);
  EXPECT_GT(p.totalGlobalMem, 0u);
  EXPECT_EQ(p.major, 9);
  int v = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  EXPECT_EQ(v, p.multiProcessorCount);
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0), cudaSuccess);
  EXPECT_EQ(v, 232448);
  EXPECT_EQ(cudaGetDeviceProperties(&p, 1), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaSetDevice(1), cudaErrorInvalidDevice);
}

TEST_F(SimRuntime, LastErrorIsKeptUntilRead) {
  EXPECT_EQ(cudaSetDevice(3), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_STREQ(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorInvalidConfiguration), "invalid configuration argument");
  EXPECT_STREQ(cudaGetErrorString(cudaSuccess), "no error");
}

TEST_F(SimRuntime, CopiesAreCheckedAgainstAllocations) {
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 100 * sizeof(float)), cudaSuccess);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(d) % 256, 0u);
  std::vector<float> h(200, 2.0f), back(200, 0.0f);
  EXPECT_EQ(cudaMemcpy(d, h.data(), 100 * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d + 50, h.data(), 50 * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  // One element too many, from an interior pointer too.
  EXPECT_EQ(cudaMemcpy(d, h.data(), 101 * sizeof(float), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(d + 50, h.data(), 51 * sizeof(float), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(back.data(), d, 101 * sizeof(float), cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  // Wrong direction / swapped pointers.
  EXPECT_EQ(cudaMemcpy(h.data(), d, 4, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(d, h.data(), 4, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(back.data(), h.data(), 4, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(back.data(), d, 100 * sizeof(float), cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(back[99], 2.0f);
  EXPECT_EQ(cudaMemset(d, 0, 100 * sizeof(float)), cudaSuccess);
  EXPECT_EQ(cudaMemset(d, 0, 100 * sizeof(float) + 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemset(h.data(), 0, 4), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(back.data(), d, 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back[0], 0.0f);
  EXPECT_EQ(cudaFree(d + 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaErrorInvalidValue);  // double free
  EXPECT_EQ(cudaFree(nullptr), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d, h.data(), 4, cudaMemcpyHostToDevice), cudaErrorInvalidValue);  // freed
}

TEST_F(SimRuntime, FreshDeviceMemoryIsPoisoned) {
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 16 * sizeof(float)), cudaSuccess);
  float h[16];
  ASSERT_EQ(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  for (float v : h) EXPECT_NE(v, v);  // NaN
  cudaFree(d);
}

TEST_F(SimRuntime, MemoryAccountingAndLimits) {
  size_t free0 = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free0, &total), cudaSuccess);
  EXPECT_LE(free0, total);
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 1 << 20), cudaSuccess);
  size_t free1 = 0;
  cudaMemGetInfo(&free1, &total);
  EXPECT_EQ(free0 - free1, size_t{1} << 20);
  cudaFree(p);
  EXPECT_EQ(cudaMalloc(&p, total + 1), cudaErrorMemoryAllocation);
  EXPECT_EQ(cudaMalloc(nullptr, 16), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMalloc(&p, 0), cudaSuccess);
}

TEST_F(SimRuntime, PinnedMemoryIsHostSide) {
  int* h = nullptr;
  ASSERT_EQ(cudaMallocHost(&h, 64 * sizeof(int)), cudaSuccess);
  EXPECT_EQ(cudaFree(h), cudaErrorInvalidValue);  // not device memory
  int* d = nullptr;
  cudaMalloc(&d, 64 * sizeof(int));
  EXPECT_EQ(cudaFreeHost(d), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpyAsync(d, h, 64 * sizeof(int), cudaMemcpyHostToDevice, 0), cudaSuccess);
  EXPECT_EQ(cudaMemcpyAsync(d, h, 65 * sizeof(int), cudaMemcpyHostToDevice, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFreeHost(h), cudaSuccess);
  cudaFree(d);
}

TEST_F(SimRuntime, RecordsOnlyWhileRecording) {
  namespace records = cudalab::records;
  using cudalab::protocol::CopyKind;
  using cudalab::protocol::MemoryKind;
  records::clear_records();
  void* before = nullptr;
  cudaMalloc(&before, 8);
  records::start_recording();
  void* d = nullptr;
  void* h = nullptr;
  char buf[32] = {};
  cudaMalloc(&d, 32);
  cudaMallocHost(&h, 16);
  cudaMemcpy(d, buf, 32, cudaMemcpyHostToDevice);
  cudaMemcpy(buf, d, 16, cudaMemcpyDeviceToHost);
  cudaMemcpy(d, buf, 64, cudaMemcpyHostToDevice);  // fails: not recorded as a copy
  cudaMemset(d, 0, 32);                            // not a copy
  cudaFree(d);
  cudaFree(before);  // allocated before recording: no record to mark
  records::stop_recording();
  cudaFreeHost(h);
  const auto rec = records::snapshot_records();
  ASSERT_EQ(rec.allocations.size(), 2u);
  EXPECT_EQ(rec.allocations[0].bytes, 32u);
  EXPECT_EQ(rec.allocations[0].kind, MemoryKind::device);
  EXPECT_TRUE(rec.allocations[0].freed);
  EXPECT_EQ(rec.allocations[1].kind, MemoryKind::pinned);
  EXPECT_FALSE(rec.allocations[1].freed);
  ASSERT_EQ(rec.copies.size(), 2u);
  EXPECT_EQ(rec.copies[0].kind, CopyKind::host_to_device);
  EXPECT_EQ(rec.copies[0].api, "cudaMemcpy");
  EXPECT_EQ(rec.copies[0].bytes, 32u);
  EXPECT_EQ(rec.copies[1].kind, CopyKind::device_to_host);
  EXPECT_EQ(rec.copies[1].dst, reinterpret_cast<std::uintptr_t>(buf));
  // The failing copy is the first failed call, with its cause.
  ASSERT_TRUE(rec.first_failed_call.has_value());
  EXPECT_EQ(rec.first_failed_call->error, "cudaErrorInvalidValue");
  EXPECT_NE(rec.first_failed_call->cause.find("64 bytes do not fit in the 32 bytes allocated at dst"),
            std::string::npos)
      << rec.first_failed_call->cause;
}

TEST_F(SimRuntime, SwappedCopyIsExplainedAsSwapped) {
  namespace records = cudalab::records;
  std::vector<float> host(100, 1.0f);
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 100 * sizeof(float)), cudaSuccess);
  records::clear_records();
  records::start_recording();
  // Destination and source the wrong way round for a host-to-device copy.
  EXPECT_EQ(cudaMemcpy(host.data(), d, 100 * sizeof(float), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  records::stop_recording();
  const auto rec = records::snapshot_records();
  ASSERT_TRUE(rec.first_failed_call.has_value());
  EXPECT_EQ(rec.first_failed_call->call.rfind("cudaMemcpy(dst=host ", 0), 0u) << rec.first_failed_call->call;
  EXPECT_NE(rec.first_failed_call->cause.find("the destination comes first"), std::string::npos)
      << rec.first_failed_call->cause;
  cudaFree(d);
}

TEST_F(SimRuntime, ManagedTwoDimensionalAndSymbolCopiesAreRecordedOnce) {
  namespace records = cudalab::records;
  using cudalab::protocol::MemoryKind;
  records::clear_records();
  records::start_recording();
  void* m = nullptr;
  ASSERT_EQ(cudaMallocManaged(&m, 64), cudaSuccess);
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 64), cudaSuccess);
  char host[64] = {};
  ASSERT_EQ(cudaMemcpy2D(d, 16, host, 16, 16, 4, cudaMemcpyHostToDevice), cudaSuccess);
  records::stop_recording();
  const auto rec = records::snapshot_records();
  ASSERT_EQ(rec.allocations.size(), 2u);
  EXPECT_EQ(rec.allocations[0].kind, MemoryKind::managed);
  EXPECT_EQ(rec.allocations[0].api, "cudaMallocManaged");
  ASSERT_EQ(rec.copies.size(), 1u);
  EXPECT_EQ(rec.copies[0].api, "cudaMemcpy2D");
  EXPECT_EQ(rec.copies[0].bytes, 64u);
  cudaFree(m);
  cudaFree(d);
}

TEST_F(SimRuntime, StreamAndEventHandlesAreValidated) {
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaErrorInvalidResourceHandle);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreateWithFlags(&b, cudaEventDisableTiming);
  cudaEventRecord(a);
  cudaEventRecord(b);
  float ms = 0;
  EXPECT_EQ(cudaEventElapsedTime(&ms, a, b), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventElapsedTime(&ms, a, a), cudaSuccess);
  EXPECT_EQ(ms, 0.0f);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
}

}  // namespace

namespace {

// Reads past a cudaMalloc allocation (on either side, and past the 256-byte rounding) land in a
// guard zone of 0xFF bytes: NaN for a float, so that a stray read poisons a sum instead of adding
// the heap's next bytes.
TEST_F(SimRuntime, ReadsPastAnAllocationAreNaN) {
  for (const std::size_t n : {std::size_t{16}, std::size_t{256}, std::size_t{1000}}) {
    float* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, n * sizeof(float)), cudaSuccess);
    std::vector<float> h(n, 1.0f);
    ASSERT_EQ(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    float* rounded_end = d + (n + 63) / 64 * 64;
    for (const float* p : {d + n, rounded_end, rounded_end + 63, d - 1, d - 64}) {
      EXPECT_TRUE(std::isnan(*p)) << "n=" << n << " offset " << (p - d);
    }
    EXPECT_EQ(cudaFree(d), cudaSuccess);
  }
}

TEST_F(SimRuntime, StreamOrderedAllocationsAreRecordedAndFreed) {
  cudalab::records::start_recording();
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  float* d = nullptr;
  ASSERT_EQ(cudaMallocAsync(&d, 64 * sizeof(float), s), cudaSuccess);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(cudaMemsetAsync(d, 0, 64 * sizeof(float), s), cudaSuccess);
  EXPECT_EQ(cudaFreeAsync(d, s), cudaSuccess);
  EXPECT_EQ(cudaFreeAsync(d, s), cudaErrorInvalidValue);  // freed twice
  EXPECT_EQ(cudaMallocAsync(reinterpret_cast<void**>(&d), 16, reinterpret_cast<cudaStream_t>(0x1234)),
            cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  const auto r = cudalab::records::snapshot_records();
  ASSERT_EQ(r.allocations.size(), 1u);
  EXPECT_EQ(r.allocations[0].api, "cudaMallocAsync");
  EXPECT_EQ(r.allocations[0].bytes, 64 * sizeof(float));
  EXPECT_TRUE(r.allocations[0].freed);
}

TEST_F(SimRuntime, TheDefaultMemPoolKeepsItsAttributesAndRefusesOthers) {
  cudaMemPool_t pool = nullptr;
  ASSERT_EQ(cudaDeviceGetDefaultMemPool(&pool, 0), cudaSuccess);
  ASSERT_NE(pool, nullptr);
  cudaMemPool_t again = nullptr;
  ASSERT_EQ(cudaDeviceGetDefaultMemPool(&again, 0), cudaSuccess);
  EXPECT_EQ(again, pool);  // one device, one default pool
  EXPECT_EQ(cudaDeviceGetDefaultMemPool(&again, 1), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaDeviceGetDefaultMemPool(nullptr, 0), cudaErrorInvalidValue);

  std::uint64_t threshold = 12345;
  ASSERT_EQ(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold), cudaSuccess);
  std::uint64_t read = 0;
  ASSERT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &read), cudaSuccess);
  EXPECT_EQ(read, 12345u);
  int reuse = 0;
  ASSERT_EQ(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &reuse), cudaSuccess);
  int reuse_read = 1;
  ASSERT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &reuse_read), cudaSuccess);
  EXPECT_EQ(reuse_read, 0);
  ASSERT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseFollowEventDependencies, &reuse_read), cudaSuccess);
  EXPECT_EQ(reuse_read, 1);  // the others keep CUDA's default

  EXPECT_EQ(cudaMemPoolGetAttribute(reinterpret_cast<cudaMemPool_t>(0x1234), cudaMemPoolAttrReleaseThreshold, &read),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemPoolGetAttribute(pool, static_cast<cudaMemPoolAttr>(0x9), &read), cudaErrorInvalidValue);
  threshold = 0;  // as it was, for the tests after this one
  EXPECT_EQ(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold), cudaSuccess);
  reuse = 1;
  EXPECT_EQ(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &reuse), cudaSuccess);
  (void)cudaGetLastError();
}

/// Copies 4 floats to `host` on `stream` (a copy a GPU may still be doing when the call returns).
void copy_out(float* host, const float* device, cudaStream_t stream) {
  ASSERT_EQ(cudaMemcpyAsync(host, device, 4 * sizeof(float), cudaMemcpyDeviceToHost, stream), cudaSuccess);
}

TEST_F(SimRuntime, WorkOnAStreamNothingWaitedForIsReported) {
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 4 * sizeof(float)), cudaSuccess);
  float h[4];
  (void)cudalab::sim::control::unfinished_stream_work();  // streams are numbered from solve's last return
  cudaStream_t blocking = nullptr, non_blocking = nullptr;
  ASSERT_EQ(cudaStreamCreate(&blocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&non_blocking, cudaStreamNonBlocking), cudaSuccess);
  cudalab::records::start_recording();

  // Nothing waited: named, with the stream's number; then everything counts as finished.
  copy_out(h, d, non_blocking);
  const std::string late = cudalab::sim::control::unfinished_stream_work();
  EXPECT_NE(late.find("stream 2"), std::string::npos) << late;
  EXPECT_NE(late.find("cudaMemcpyAsync"), std::string::npos) << late;
  EXPECT_NE(late.find("cudaStreamSynchronize"), std::string::npos) << late;
  const auto failed = cudalab::records::snapshot_records().first_failed_call;
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->error, "cudaErrorNotReady");
  EXPECT_EQ(cudalab::sim::control::unfinished_stream_work(), "");

  // Each of these waits for the copy.
  copy_out(h, d, non_blocking);
  ASSERT_EQ(cudaStreamSynchronize(non_blocking), cudaSuccess);
  EXPECT_EQ(cudalab::sim::control::unfinished_stream_work(), "");
  copy_out(h, d, blocking);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudalab::sim::control::unfinished_stream_work(), "");
  cudaEvent_t e = nullptr;
  ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
  copy_out(h, d, non_blocking);
  ASSERT_EQ(cudaEventRecord(e, non_blocking), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(e), cudaSuccess);
  EXPECT_EQ(cudalab::sim::control::unfinished_stream_work(), "");
  // A stream that waits for the event, then is synchronised.
  copy_out(h, d, non_blocking);
  ASSERT_EQ(cudaEventRecord(e, non_blocking), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(blocking, e, 0), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(blocking), cudaSuccess);
  EXPECT_EQ(cudalab::sim::control::unfinished_stream_work(), "");
  // A synchronous copy on the legacy default stream waits for a blocking stream's work...
  copy_out(h, d, blocking);
  ASSERT_EQ(cudaMemcpy(h, d, sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(cudalab::sim::control::unfinished_stream_work(), "");
  // ... not for a non-blocking stream's, and not a copy issued after it.
  copy_out(h, d, non_blocking);
  ASSERT_EQ(cudaMemcpy(h, d, sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_NE(cudalab::sim::control::unfinished_stream_work(), "");
  ASSERT_EQ(cudaMemcpy(h, d, sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  copy_out(h, d, blocking);
  EXPECT_NE(cudalab::sim::control::unfinished_stream_work(), "");
  // An event recorded before the work does not cover it.
  ASSERT_EQ(cudaEventRecord(e, non_blocking), cudaSuccess);
  copy_out(h, d, non_blocking);
  ASSERT_EQ(cudaEventSynchronize(e), cudaSuccess);
  EXPECT_NE(cudalab::sim::control::unfinished_stream_work(), "");
  // Destroying a stream does not wait for it.
  copy_out(h, d, blocking);
  ASSERT_EQ(cudaStreamDestroy(blocking), cudaSuccess);
  EXPECT_NE(cudalab::sim::control::unfinished_stream_work().find("since destroyed"), std::string::npos);
  // Work on the legacy default stream is the caller's to wait for (its next legacy call does).
  ASSERT_EQ(cudaMemsetAsync(d, 0, 4, 0), cudaSuccess);
  EXPECT_EQ(cudalab::sim::control::unfinished_stream_work(), "");

  cudaEventDestroy(e);
  cudaStreamDestroy(non_blocking);
  cudaFree(d);
}

TEST_F(SimRuntime, CopiesPastANamedHostBufferAreRefusedAndNamed) {
  std::vector<int> data(100, 7);
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 1000 * sizeof(int)), cudaSuccess);
  cudalab::records::name_host_buffers({{"data", data.data(), data.size() * sizeof(int)}});
  cudalab::records::start_recording();
  EXPECT_EQ(cudaMemcpy(d, data.data(), 100 * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d, data.data() + 50, 51 * sizeof(int), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  auto failed = cudalab::records::snapshot_records().first_failed_call;
  ASSERT_TRUE(failed.has_value());
  EXPECT_NE(failed->cause.find("cudaMemcpy reads 204 bytes from the host buffer `data` of 400 bytes"),
            std::string::npos)
      << failed->cause;
  cudalab::records::clear_records();
  EXPECT_EQ(cudaMemcpy(data.data(), d, 1000 * sizeof(int), cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  failed = cudalab::records::snapshot_records().first_failed_call;
  ASSERT_TRUE(failed.has_value());
  EXPECT_NE(failed->cause.find("writes 4000 bytes to the host buffer `data`"), std::string::npos) << failed->cause;
  EXPECT_EQ(data[99], 7);  // nothing was copied
  cudalab::records::name_host_buffers({});
  cudaGetLastError();
  cudaFree(d);
}

}  // namespace
