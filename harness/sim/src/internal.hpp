// Pieces of the simulator runtime shared by the API (runtime.cpp) and the executor (exec.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cudalab_sim/device.hpp"

namespace cudalab::sim {

/// The simulated device's limits (documented in docs/performance.md and cudaGetDeviceProperties).
inline constexpr unsigned kMaxThreadsPerBlock = 1024;
inline constexpr unsigned kMaxBlockDimZ = 64;
inline constexpr unsigned kMaxGridDimX = 2147483647u;
inline constexpr unsigned kMaxGridDimYZ = 65535;
inline constexpr std::size_t kSharedPerBlock = 48 * 1024;        // without opt-in
inline constexpr std::size_t kSharedPerBlockOptin = 232448;      // 227 KiB, as sm_90
inline constexpr std::size_t kSharedPerMultiprocessor = 233472;  // 228 KiB, as sm_90

/// Records `e` as the calling host thread's last error (unless success) and returns it.
cudaError_t set_error(cudaError_t e);
/// A fault inside a kernel (deadlock, divergent barrier, ...): sticky until cudaDeviceReset.
void set_sticky(cudaError_t e);
/// The sticky error, or cudaSuccess.
cudaError_t sticky_error();
/// Host threads that run blocks (the simulated SM count).
unsigned host_workers();
/// Whether `stream` names a live stream (0 and the special handles included).
bool valid_stream(cudaStream_t stream);
/// Max dynamic shared memory a kernel may use (cudaFuncSetAttribute), kSharedPerBlock if unset.
std::size_t max_dynamic_shared(const void* fn);
/// Whether device code may use `p`: it lies in a device, managed or pinned allocation or a
/// registered symbol, or one past its end.
bool device_accessible(const void* p);
/// Ends the calling CUDA thread's kernel with `error` (sticky), as a GPU ends a kernel that makes a
/// misaligned access: the block stops, the launch fails with `what`. No-op outside a kernel.
void fault_in_kernel(cudaError_t error, const std::string& what);
/// A copy, memset or launch `what` is about to run on `stream` (called with the checks on only);
/// the checks learn which earlier operations are ordered before it (stream order, events, host waits).
void begin_stream_op(cudaStream_t stream, std::string what);
/// The operation begun last has run.
void end_stream_op();
/// Appends a launch record if recording.
void record_launch(const cudalab_sim_launch_desc& desc, std::size_t static_shared);
/// Records a launch whose grid or block the GPU refuses (cudaErrorInvalidConfiguration) as the
/// first failing call, naming the dimension at fault and its usual cause.
void record_invalid_configuration(const cudalab_sim_launch_desc& desc);
/// The module-relative offset of a return address in device code (for addr2line in the parent), or 0.
std::uint64_t module_offset(std::uintptr_t pc);

}  // namespace cudalab::sim

namespace cudalab::sim::checks {

/// Why a shuffle's source lane took no part in it.
enum class Absent { outside_mask, exited, beyond_block };
/// The checked build (checks.cpp): a shuffle (`op`, a cudalab_sim_warp_opcode) by `lane` of the
/// running block read lane `src` of its warp, in range of its width but taking no part (`why`):
/// the value is undefined in CUDA. Reported once per line.
void undefined_shuffle(int op, unsigned lane, unsigned src, unsigned mask, Absent why, int line, std::uintptr_t pc,
                       const uint3& thread);

}  // namespace cudalab::sim::checks
