// The simulator's runtime API as plain host code sees it (this file is compiled like the runner:
// `#include <cuda_runtime.h>` with the host compiler, linked against libcudalab_sim.so).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "runner/records.hpp"

namespace {

class SimRuntime : public ::testing::Test {
 protected:
  void TearDown() override {
    cudaGetLastError();
    cudalab::runner::stop_recording();
    cudalab::runner::clear_records();
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
  namespace records = cudalab::runner;
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
  namespace records = cudalab::runner;
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
  namespace records = cudalab::runner;
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
