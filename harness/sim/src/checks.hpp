// The simulator's checks of device code (`cudalab check --sanitize`): the checked build of a
// module calls the runtime before every load and store (GCC's -fsanitize=thread instrumentation:
// __tsan_read4(address) and the like, defined in checks.cpp instead of GCC's runtime), and the
// runtime keeps, per 4-byte word of device and shared memory, who last wrote and read it. From
// that it names out-of-bounds accesses (red zones around every allocation and shared variable),
// use after cudaFree, misaligned accesses, races (two threads of a block, one writing, no barrier
// between; two blocks writing one word), and reads of memory nothing wrote. The executor reports
// the barrier and warp findings it sees itself. Blocks run on the launching thread while the
// checks are on, so the shadow state needs no locks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cudalab/protocol.hpp"
#include "cudalab_sim/device.hpp"

namespace cudalab::sim::checks {

/// Whether the checks are on: set once by the runner, before the module loads.
extern bool active;

// ---- the runtime API (runtime.cpp) ----
/// Bytes of red zone on each side of a device allocation of `bytes`.
std::size_t red_zone(std::size_t bytes);
/// Whether a kernel's access to page-locked or managed host memory is a finding (kind
/// host_memory): set by the runner for exercises whose data stays on the device.
extern bool host_memory_is_finding;

/// A device (or managed, or pinned) allocation: [user, user + bytes) between red zones of `zone`
/// bytes; `real` is what to free. Its contents count as never written. `host_visible`: page-locked
/// or managed memory, which the host reads and writes directly.
void allocated(void* real, void* user, std::size_t bytes, std::size_t zone, bool host_visible);
/// cudaFree of a checked allocation: the memory is kept, marked freed (later accesses are use
/// after free), and released once enough freed memory has piled up. False when `user` is not a
/// checked allocation (made while the checks were off): the caller frees it.
bool released(void* user);
/// Whether `p` lies in a checked allocation that cudaFree released.
bool freed(const void* p);
/// A launch that passes freed memory (kind use_after_free): `argument` names it; `pc` is the
/// launch's return address in the module.
void report_launch(protocol::FindingKind kind, const char* kernel, const std::string& argument, std::uintptr_t pc);
/// A finding of the host side (no thread ran): `f` as made, at the submission's return address
/// `pc` and, where known, a second place `other_pc` (f.other is set from it).
void report_host(protocol::Finding f, std::uintptr_t pc, std::uintptr_t other_pc);
/// The host wrote [p, p + bytes) of device memory (a copy, a memset): it counts as written.
void host_wrote(const void* p, std::size_t bytes);
/// A copy read [p, p + bytes) of device memory.
void host_read(const void* p, std::size_t bytes);
/// Stream operation `id` (a copy, a memset, a launch: `what`, called at `pc`) begins. Of the
/// operations since the last full wait, ids `base` on, `ordered[id - base]` says which finished
/// before it may start; a word that one of the others wrote (or read, where this one writes) is a
/// finding of kind stream_order.
void stream_op_began(std::uint32_t id, std::uint32_t base, std::vector<std::uint8_t> ordered, std::string what,
                     std::uintptr_t pc);
void stream_op_ended();
/// The host waited for all work: every operation before `base` has finished.
void stream_ops_finished(std::uint32_t base);

// ---- the executor (exec.cpp) ----
void launch_begin(const cudalab_sim_launch_desc& desc);
void launch_end();
void block_begin(unsigned long long linear);
void thread_enter(unsigned linear);
/// A __syncthreads released: `arrived` of the block's `threads` were there (the rest had exited).
void barrier_released(unsigned arrived, unsigned threads, int line, std::uintptr_t pc, const uint3& thread);
/// A warp rendezvous completed: the lanes of `warp` are ordered with each other from here on.
void warp_synced(unsigned warp);
/// The block's dynamic shared memory, `bytes` of it, with a red zone after it.
void* dynamic_shared(std::size_t bytes);
/// A barrier or warp finding the executor saw (divergence, deadlock), in its words.
void report(protocol::FindingKind kind, const std::string& where, int line, std::uintptr_t pc, const uint3& block,
            const uint3& thread);

}  // namespace cudalab::sim::checks
