// What the runner's `check --sanitize` needs from the platform: the simulator checks every access
// of device code itself (harness/sim/src/checks.cpp: bounds, races, uninitialised reads, barriers)
// and can start a block's threads in another order; a GPU runner has neither (the parent runs it
// under compute-sanitizer instead), and device_checks_none.cpp says so.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cudalab/protocol.hpp"

namespace cudalab::runner {

/// Whether this runner checks device code's accesses itself.
bool device_checks_available();

/// Turns the checks on or off (the module must be the checked build): on, from the next allocation
/// and launch on; off, memory allocated from then on and kernels launched are not checked.
void enable_device_checks(bool on);

/// With the checks on: a kernel's access to page-locked or managed host memory is a finding
/// (the exercises whose data stays on the device; a GPU runner cannot see it).
void forbid_host_memory_in_kernels(bool on);

/// The order in which each block's threads start (the simulator; a GPU ignores it).
void set_thread_order(protocol::ThreadOrder order, std::uint64_t seed);

/// cudaMalloc for a harness buffer with its guard zones (the runner fills and checks them): the
/// simulator adds no red zones of its own around it unless the checks are on, which use them.
cudaError_t allocate_guarded_buffer(void** ptr, std::size_t bytes);

/// Names a harness buffer to the checks: `buffer` (`bytes` long, elements of `element` bytes)
/// inside the device allocation that starts at `allocation`, whose rest is guard zone. An
/// output's contents count as never written (`initialized` false): reading it before writing it
/// is reading garbage.
void name_device_buffer(const void* allocation, const void* buffer, std::size_t bytes, std::size_t element,
                        const std::string& name, bool initialized);

/// solve returned: on the simulator, work still queued on a stream that nothing waited for
/// (cudaStreamSynchronize, cudaDeviceSynchronize, an event, a synchronous copy) is reported, as a
/// finding with the checks on, else as the first failing call; the answer is the sentence, or
/// empty. Everything then counts as finished. A GPU runner answers empty (the runner synchronises).
std::string unfinished_stream_work();

/// What the checks found since the last call, at most protocol::kMaxFindings (alike ones counted).
std::vector<protocol::Finding> take_findings();

/// `cudalab explain` (with the checks on): count what every access costs instead of checking it,
/// the simulated device reporting `sm_count` SMs (the target GPU's; 0: its own), every block of a
/// launch counted or a sample of them; off: check again.
void count_accesses(bool on, unsigned sm_count, bool every_block);

/// What was counted since the last call (protocol::AccessProfile); empty where nothing counts.
protocol::AccessProfile take_access_profile();

/// `cudalab show` (with the checks on): record every access as well, the device reporting
/// `sm_count` SMs (0: its own); off: stop.
void trace_accesses(bool on, unsigned sm_count);

/// What was recorded since the last call (protocol::AccessTrace); empty where nothing records.
protocol::AccessTrace take_access_trace();

}  // namespace cudalab::runner
