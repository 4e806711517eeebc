// What `cudalab explain` counts on the simulator, as the runner reports it to the parent: per load
// or store instruction of each kernel, the warp-level requests it made and what they cost the
// memory system (32-byte sectors of global memory, wavefronts of shared memory), beside what the
// same bytes would cost laid out well. The runner pairs the k-th execution of an instruction by
// each lane of a warp into one request (lanes run one after another on the simulator; for code
// whose lanes stay together that is what a GPU issues as one instruction). Part of the protocol
// (protocol.hpp): read by the parent as untrusted input, every field range-checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace cudalab::protocol {

/// Lanes in a warp: the requests counted here are of one warp's lanes.
inline constexpr unsigned kWarpLanes = 32;
/// Bytes in a sector, the unit in which global memory is counted.
inline constexpr std::size_t kSectorBytes = 32;

/// Which memory an instruction reached.
enum class MemorySpace {
  global,  ///< device memory (a cudaMalloc, a harness buffer)
  shared,  ///< a block's `__shared__` memory
};

/// "global" or "shared".
const char* memory_space_name(MemorySpace space);

/// One load or store instruction of a kernel, over every request it made. The totals are
/// estimates for the whole grid: counted over a sample of blocks (KernelProfile) and scaled.
struct AccessSite {
  std::string kernel;                       ///< the kernel's name, as launched
  std::uint64_t pc = 0;                     ///< module offset of the instruction; the parent maps it to a line
  MemorySpace space = MemorySpace::global;  ///< global or shared memory
  bool write = false;                       ///< a store (else a load)
  bool atomic = false;                      ///< an atomic operation
  unsigned bytes = 0;                       ///< bytes per lane (4 for a float, 16 for a float4)
  std::string target;                       ///< the buffer or shared array reached ("A", "tile"); empty when unknown
  std::size_t element_bytes = 0;            ///< bytes per element of `target`, where known
  std::size_t row_elements = 0;             ///< elements per row of a 2D shared array (`tile[32][33]`: 33); else 0
  std::size_t target_bytes = 0;             ///< the size of `target` in bytes, where known
  double requests = 0;                      ///< warp-level requests
  double active_lanes = 0;                  ///< lanes that took part, summed over the requests (32 each at most)
  /// Global: 32-byte sectors touched; shared: wavefronts (the most distinct words in one bank).
  double units = 0;
  /// What `units` would be if each request's bytes were contiguous (global: the sectors of one span
  /// of as many bytes, from the same first address) or spread over distinct banks (shared).
  double ideal_units = 0;
  unsigned worst_units = 0;  ///< the most units of one request
  unsigned worst_ideal = 0;  ///< that request's ideal
  /// Bytes from one active lane's address to its neighbour's in that request (0: the same address;
  /// what the finding's "neighbouring threads read addresses … apart" says).
  std::int64_t stride = 0;
};

/// The stretch of a block's run between two barriers (the k-th of every block, counted together):
/// how many lanes its warps' requests had.
struct BarrierInterval {
  int from_line = 0;        ///< the `__syncthreads()` it starts at; 0: the kernel's start
  int to_line = 0;          ///< the `__syncthreads()` it ends at; 0: the kernel's end
  double requests = 0;      ///< warp-level requests in it (whole grid)
  double active_lanes = 0;  ///< lanes that took part in them, summed
};

/// At most this many barrier intervals per kernel; later ones are counted into the last.
inline constexpr std::size_t kMaxBarrierIntervals = 64;

/// One kernel's launches while explain counted.
struct KernelProfile {
  std::string kernel;                      ///< the kernel's name, as launched
  std::size_t launches = 0;                ///< launches of it
  std::uint64_t blocks = 0;                ///< blocks of all its launches
  std::uint64_t counted_blocks = 0;        ///< blocks whose accesses were counted (the rest are estimated from them)
  std::vector<BarrierInterval> intervals;  ///< in the order a block runs them
};

/// Everything counted during one call of solve.
struct AccessProfile {
  std::vector<KernelProfile> kernels;  ///< in the order first launched
  std::vector<AccessSite> sites;       ///< kernel by kernel, instruction by instruction
  bool truncated = false;              ///< more sites than kMaxAccessSites: the rest were left out
};

/// At most this many sites in a reply.
inline constexpr std::size_t kMaxAccessSites = 1024;
/// At most this many kernels in a reply.
inline constexpr std::size_t kMaxProfiledKernels = 64;

/// The profile as the runner writes it.
void to_json(nlohmann::json& j, const AccessProfile& p);
/// Validates every field (the runner is untrusted); throws ProtocolError with a one-line reason.
void from_json(const nlohmann::json& j, AccessProfile& p);

}  // namespace cudalab::protocol
