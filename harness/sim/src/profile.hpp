// `cudalab explain`'s counting, in the checked build: with the checks on and counting on, every
// load and store that checks.cpp sees is counted here instead of checked. Per instruction (the
// return address of the check), the k-th execution by each lane of a warp is paired into one
// warp-level request; a request's addresses give its 32-byte sectors (global memory) or its
// wavefronts (shared memory: the most distinct 4-byte words in one of the 32 banks), against the
// ideal for as many bytes, and its active lanes. Requests are completed when every thread of the
// block has passed a barrier or the block has ended. Blocks run on the launching thread while
// the checks are on, so nothing here needs a lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cudalab/access_profile.hpp"
#include "cudalab_sim/device.hpp"

namespace cudalab::sim::profile {

/// Whether accesses are counted (set by the runner, with the checks on).
extern bool active;
/// Whether the block running now is one of the sample (counted); false: its accesses are skipped.
extern bool counting;
/// The SM count cudaGetDeviceProperties reports while counting (the target GPU's); 0: the host's.
extern unsigned posed_sm_count;
/// Count every block of a launch (`bench --profile`, beside a GPU's counters), not a sample.
extern bool every_block;

/// A launch starts: its blocks are sampled from here on.
void launch_begin(const cudalab_sim_launch_desc& desc);
/// The launch ended: its counts, scaled to the whole grid, go to the kernel's totals.
void launch_end();
/// Block `linear` of the launch starts (the block before it has ended).
void block_begin(unsigned long long linear);
/// Every live thread of the block has reached the barrier on source line `line`: the requests so
/// far are complete, and the block's next barrier interval begins.
void barrier(int line);

/// Where an access went, as the checks found it.
struct Place {
  bool shared = false;                ///< shared memory (else global)
  const std::string* name = nullptr;  ///< the buffer or shared array, if named
  std::size_t element = 0;            ///< bytes per element, where known
  std::size_t inner = 0;              ///< a 2D shared array's row length, else 0
  std::size_t bytes = 0;              ///< the buffer's or array's size
};

/// Thread `thread` (linear in its block) of a counted block accessed [a, a + size) at `pc`.
void access(std::uintptr_t a, unsigned size, bool write, bool atomic, std::uintptr_t pc, unsigned thread,
            const Place& place);

/// What was counted since the last call; clears it.
protocol::AccessProfile take();

}  // namespace cudalab::sim::profile
