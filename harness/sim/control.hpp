// The simulator's control API: what its runner asks of it beyond the CUDA runtime — checking every
// access of device code, the order a block's threads start in, counting what accesses cost. The sim
// runner's platform layer (harness/runner/device_checks_sim.cpp) calls it; student code does not
// see this header (it is not on the modules' include path).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cudalab/protocol.hpp"

namespace cudalab::sim::control {

/// Turns the access checks on or off (the module must be the checked build): on, from the next
/// allocation and launch on; off, memory allocated from then on and kernels launched are not checked.
void enable_checks(bool on);

/// With the checks on: a kernel's access to page-locked or managed host memory is a finding.
void forbid_host_memory_in_kernels(bool on);

/// The order in which each block's threads start, and the seed of a shuffled order.
void set_thread_order(protocol::ThreadOrder order, std::uint64_t seed);

/// cudaMalloc for a harness buffer with guard zones: no red zones of the simulator's own around it
/// unless the checks are on, which use them.
cudaError_t allocate_guarded_buffer(void** ptr, std::size_t bytes);

/// Names a harness buffer to the checks: `buffer` (`bytes` long, elements of `element` bytes) inside
/// the allocation that starts at `allocation`, whose rest is guard zone; `initialized` false: its
/// contents count as never written.
void name_buffer(const void* allocation, const void* buffer, std::size_t bytes, std::size_t element,
                 const std::string& name, bool initialized);

/// Work still queued on a stream that nothing waited for, as a sentence (a finding with the checks
/// on), or empty; everything then counts as finished.
std::string unfinished_stream_work();

/// What the checks found since the last call, at most protocol::kMaxFindings (alike ones counted).
std::vector<protocol::Finding> take_findings();

/// Count what every access costs instead of checking it, posing as a device of `sm_count` SMs (0:
/// its own), every block of a launch counted or a sample; off: check again.
void count_accesses(bool on, unsigned sm_count, bool every_block);

/// What was counted since the last call.
protocol::AccessProfile take_access_profile();

/// With the checks on: record every access too (`cudalab show`), the simulated device reporting
/// `sm_count` SMs (0: its own), so that a grid sized from it is the same on every machine; off: stop.
void trace_accesses(bool on, unsigned sm_count);

/// What was recorded since the last call.
protocol::AccessTrace take_access_trace();

}  // namespace cudalab::sim::control
