// Kernel launches from CUPTI's activity buffers. CUPTI may hand buffers over on its own thread:
// launches go to the record keeper (which locks) and durations to an atomic sum.
#include <cupti.h>

#include <cxxabi.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "kernel_tracing.hpp"
#include "records/records.hpp"

namespace cudalab::runner {
namespace {

constexpr std::size_t kTraceBufferBytes = 1 << 20;
std::atomic<double> traced_seconds{0};
bool callbacks_registered = false;

std::string demangle(const char* name) {
  if (name == nullptr) return {};
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(name);
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kTraceBufferBytes));
  *size = kTraceBufferBytes;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      protocol::Transfer t;
      t.kind = m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD   ? protocol::CopyKind::host_to_device
               : m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH ? protocol::CopyKind::device_to_host
               : m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOD ? protocol::CopyKind::device_to_device
                                                                : protocol::CopyKind::by_pointer;
      t.bytes = static_cast<std::size_t>(m->bytes);
      t.stream = m->streamId;
      t.start_ns = m->start;
      t.end_ns = m->end;
      records::record_transfer(t);
      continue;
    }
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    protocol::Launch l;
    l.kernel = demangle(k->name);
    l.grid[0] = static_cast<unsigned>(k->gridX), l.grid[1] = static_cast<unsigned>(k->gridY),
    l.grid[2] = static_cast<unsigned>(k->gridZ);
    l.block[0] = static_cast<unsigned>(k->blockX), l.block[1] = static_cast<unsigned>(k->blockY),
    l.block[2] = static_cast<unsigned>(k->blockZ);
    l.static_shared_bytes = static_cast<std::size_t>(k->staticSharedMemory);
    l.dynamic_shared_bytes = static_cast<std::size_t>(k->dynamicSharedMemory);
    l.duration_s = static_cast<double>(k->end - k->start) * 1e-9;
    l.stream = k->streamId;
    l.start_ns = k->start;
    l.end_ns = k->end;
    traced_seconds.fetch_add(l.duration_s);
    records::record_launch(std::move(l));
  }
  std::free(buffer);
}

}  // namespace

bool kernel_tracing_available() { return callbacks_registered; }

void start_kernel_tracing() {
  if (!callbacks_registered) {
    if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS) {
      std::fprintf(stderr, "cudalab runner: CUPTI is unavailable; kernel launches are not recorded\n");
      return;
    }
    callbacks_registered = true;
  }
  traced_seconds.store(0);  // the previous trace was flushed when it stopped
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);  // the copies' times: does a copy overlap a kernel?
}

double stop_kernel_tracing() {
  if (!callbacks_registered) return 0;
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  return traced_seconds.load();
}

}  // namespace cudalab::runner
