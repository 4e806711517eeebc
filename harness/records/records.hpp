// The record keeper: what a submission does to the device while `solve` runs (allocations, copies,
// launches, the first failing runtime call). One module, linked into both runtimes: the GPU runner
// calls it from its interposed CUDA entry points and from CUPTI's thread, the simulator from its
// runtime API and its executor's host threads; every append takes one lock. The runner turns a
// snapshot into the protocol's Records for the parent.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "cudalab/protocol.hpp"

namespace cudalab::records {

/// Records are kept only between start_recording() and stop_recording(): the runner's own calls
/// (uploading inputs, timing) are not the submission's.
void start_recording();
void stop_recording();
[[nodiscard]] bool recording();

/// An allocation succeeded. Live allocations are tracked whether or not recording is on, so that a
/// failing copy can be explained even when it involves the runner's own buffers.
void record_allocation(const char* api, protocol::MemoryKind kind, const void* address, std::size_t bytes);
/// A free succeeded.
void record_free(const void* address);
/// A copy succeeded. `kind` is the cudaMemcpyKind value the caller passed.
void record_copy(const char* api, int kind, const void* dst, const void* src, std::size_t bytes,
                 const void* stream = nullptr);
/// A copy ran on the GPU (from CUPTI's buffers), with its times.
void record_transfer(protocol::Transfer transfer);
/// A kernel ran (GPU: from CUPTI's buffers; simulator: after the launch).
void record_launch(protocol::Launch launch);
/// A runtime call failed; only the first one while recording is kept.
void record_failed_call(protocol::FailedCall call);

/// The records so far (copied under the lock); clears nothing.
[[nodiscard]] protocol::Records snapshot_records();
/// Forgets the records (not the live allocations); for tests that record several runs.
void clear_records();
/// How many launches are recorded; with truncate_launches, bench mode keeps one call's launches.
[[nodiscard]] std::size_t launch_count();
void truncate_launches(std::size_t count);

/// A live allocation containing an address.
struct LiveAllocation {
  const void* base = nullptr;
  std::size_t bytes = 0;
  protocol::MemoryKind kind = protocol::MemoryKind::device;
};

/// The live allocation holding `address` (one past its end counts as inside), or nothing.
[[nodiscard]] std::optional<LiveAllocation> find_allocation(const void* address);

/// A host buffer the harness hands solve (host-pointer exercises), by the contract's name.
struct HostBuffer {
  std::string name;
  const void* base = nullptr;
  std::size_t bytes = 0;
};
/// The harness's host buffers of the case about to run (replacing the previous case's).
void name_host_buffers(std::vector<HostBuffer> buffers);
/// The named host buffer holding `address`, or nothing.
[[nodiscard]] std::optional<HostBuffer> find_host_buffer(const void* address);
/// A copy of `bytes` at `p` runs past the end of the named host buffer `p` lies in: the cause, in
/// words ("cudaMemcpy reads 4004000 bytes from the host buffer `data` of 4000 bytes"), else empty.
[[nodiscard]] std::string host_buffer_overrun(const char* api, const void* p, std::size_t bytes, bool reads);

/// "cudaMemcpy(dst=host 0x7ffd…, src=device 0x7f12… (4000-byte allocation), 4000 bytes,
/// cudaMemcpyHostToDevice)" and the usual cause of its failure ("dst is a host pointer and src a
/// device pointer: the destination comes first"), from the live allocations.
[[nodiscard]] protocol::FailedCall explain_failed_copy(const char* api, const void* dst, const void* src,
                                                       std::size_t bytes, int kind, const char* error);
/// The same for a failing memset.
[[nodiscard]] protocol::FailedCall explain_failed_memset(const char* api, const void* ptr, int value, std::size_t bytes,
                                                         const char* error);

}  // namespace cudalab::records
