// What `cudalab show` draws, as the simulator's runner reports it: every load and store of device
// code during one call of solve, with the thread that made it, the barrier interval ("phase") of
// its block it fell in, the buffer and element it reached, and the value. Part of the protocol
// (protocol.hpp): read by the parent as untrusted input, every field range-checked.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace cudalab::protocol {

/// One launch of a kernel.
struct TraceLaunch {
  std::string kernel;               ///< the kernel's name, as launched
  std::array<unsigned, 3> grid{};   ///< gridDim
  std::array<unsigned, 3> block{};  ///< blockDim
  std::vector<int> barrier_lines;   ///< the `__syncthreads()` that ends each phase, in order (0: not known)
};

/// The widest element a trace names: a 16-byte vector (float4). Wider ones (a `__shared__`
/// struct) are traced by 4-byte words.
inline constexpr std::size_t kMaxTraceElementBytes = 16;

/// A buffer or shared array the trace's accesses reached.
struct TraceTarget {
  std::string name;               ///< the harness's buffer name ("A") or the shared array's ("tile"); "" unknown
  bool shared = false;            ///< a block's `__shared__` array (one per block)
  std::size_t element_bytes = 4;  ///< bytes per element, at most kMaxTraceElementBytes
  std::size_t elements = 0;       ///< its length in elements
  std::size_t row_elements = 0;   ///< a 2D shared array's row length (`tile[16][17]`: 17); else 0
};

/// What an access did.
enum class TraceKind : std::uint8_t {
  read,    ///< a load
  write,   ///< a store
  atomic,  ///< an atomic read-modify-write
};

/// One access by one thread.
struct TraceAccess {
  std::uint32_t launch = 0;          ///< index into AccessTrace::launches
  std::uint32_t block = 0;           ///< the block, linear in its grid
  std::uint32_t thread = 0;          ///< the thread, linear in its block
  std::uint32_t phase = 0;           ///< barriers the block had passed before it
  std::uint32_t target = 0;          ///< index into AccessTrace::targets
  std::int64_t element = 0;          ///< element index in the target; outside [0, elements): out of bounds
  TraceKind kind = TraceKind::read;  ///< a read, a write or an atomic update
  std::uint64_t pc = 0;              ///< module offset of the instruction; the parent maps it to a line
  std::uint32_t bits = 0;            ///< the 4 bytes read, or written (0 where unknown)
};

/// Every access of one call, in the order made (blocks one after another, threads interleaved as
/// the simulator ran them).
struct AccessTrace {
  std::vector<TraceLaunch> launches;  ///< every launch of the call, in order
  std::vector<TraceTarget> targets;   ///< every buffer or shared array reached, by first access
  std::vector<TraceAccess> accesses;  ///< every access, in the order made
  bool truncated = false;             ///< more than kMaxTraceAccesses: the rest were left out
};

/// At most this many accesses in a reply (a small case's kernels make a few thousand).
inline constexpr std::size_t kMaxTraceAccesses = 100'000;
/// At most this many launches in a reply.
inline constexpr std::size_t kMaxTraceLaunches = 64;
/// At most this many targets in a reply.
inline constexpr std::size_t kMaxTraceTargets = 256;
/// At most this many barrier intervals per launch.
inline constexpr std::size_t kMaxTracePhases = 4096;

/// The trace as the runner writes it (accesses as arrays of numbers, to stay small).
void to_json(nlohmann::json& j, const AccessTrace& t);
/// Validates every field (the runner is untrusted); throws ProtocolError with a one-line reason.
void from_json(const nlohmann::json& j, AccessTrace& t);

}  // namespace cudalab::protocol
