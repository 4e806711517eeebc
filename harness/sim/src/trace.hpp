// `cudalab show`'s trace, in the checked build: with the checks and the trace on, every load and
// store that checks.cpp sees is also recorded here, with its thread, its block's barrier interval
// and the element it reached; a write's value is read once the thread's store is done (at its next
// access, a barrier, or the end of its block). Blocks run on the launching thread while the checks
// are on, so nothing here needs a lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cudalab/access_trace.hpp"
#include "cudalab_sim/device.hpp"

namespace cudalab::sim::trace {

/// Whether accesses are recorded (set by the runner through the control API).
extern bool active;

/// A launch starts.
void launch_begin(const cudalab_sim_launch_desc& desc);
/// The launch ended.
void launch_end();
/// Block `linear` of the launch starts (the block before it has ended).
void block_begin(unsigned long long linear);
/// The block's threads passed the barrier on source line `line`, ending interval `phase` - 1.
void barrier(int line, std::uint32_t phase);

/// The buffer or shared array an access reached, as the checks know it.
struct Target {
  const void* id = nullptr;           ///< the checks' region (one per allocation or shared array)
  const std::string* name = nullptr;  ///< its name, if named
  bool shared = false;
  std::uintptr_t begin = 0;  ///< its first byte
  std::uintptr_t end = 0;    ///< one past its last byte
  std::size_t element = 0;   ///< bytes per element; 0: unknown (taken as 4)
  std::size_t inner = 0;     ///< a 2D shared array's row length
};

/// Thread `thread` of block `block`, in its block's barrier interval `phase`, accessed
/// [a, a + size) of `target` at `pc`.
void access(std::uint32_t block, std::uint32_t thread, std::uint32_t phase, const Target& target, std::uintptr_t a,
            unsigned size, bool write, bool atomic, std::uintptr_t pc);

/// What was recorded since the last call; clears it.
protocol::AccessTrace take();

}  // namespace cudalab::sim::trace
