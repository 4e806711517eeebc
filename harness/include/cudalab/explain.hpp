// `cudalab explain`: why a kernel is slow, from what its accesses cost at one representative size
// on the simulator, against what they would cost done well and against the task's minimum. The
// module is the checked build (`check --sanitize`'s), run with counting on (access_profile.hpp):
// per source line, the 32-byte sectors per warp-level request of global memory, the n-way bank
// conflicts of shared memory and the share of active lanes; per kernel, the theoretical occupancy
// on a target GPU and which limit binds; per call, the global traffic and a roofline estimate of
// the best time on the target. Each finding names the line, the number, the ideal and a fix, and
// the findings are ordered by the time they cost. docs/explain.md says how each number is made.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudalab/access_profile.hpp"
#include "cudalab/findings.hpp"
#include "cudalab/judge.hpp"
#include "cudalab/report.hpp"
#include "cudalab/task.hpp"
#include "cudalab/toolchain.hpp"

namespace cudalab {

/// A GPU whose limits and peaks explain estimates against.
struct GpuTarget {
  std::string key;                            ///< what `--target` takes: "h100"
  std::string name;                           ///< "NVIDIA H100 SXM"
  std::string arch;                           ///< nvcc's -arch for its register counts: "sm_90"
  unsigned sms = 0;                           ///< streaming multiprocessors
  unsigned max_warps_per_sm = 0;              ///< resident warps per SM
  unsigned max_blocks_per_sm = 0;             ///< resident blocks per SM
  unsigned registers_per_sm = 0;              ///< 32-bit registers per SM
  unsigned register_unit = 0;                 ///< registers are given to a warp in multiples of this
  std::size_t shared_per_sm = 0;              ///< bytes of shared memory per SM
  std::size_t shared_per_block = 0;           ///< the most one block may use (with opt-in)
  std::size_t shared_reserved_per_block = 0;  ///< bytes the runtime keeps per resident block
  std::size_t shared_unit = 0;                ///< shared memory is given to a block in multiples of this
  double dram_bytes_per_s = 0;                ///< device-memory bandwidth
  double fp32_flops_per_s = 0;                ///< FP32 peak (an FMA counts 2)
  double clock_hz = 0;                        ///< boost clock: one shared-memory wavefront per SM per cycle
};

/// The GPUs `--target` knows, the default (the H100) first.
const std::vector<GpuTarget>& gpu_targets();
/// The target named `key` ("h100", "a100", "rtx4090"; case and spaces ignored), or nullptr.
const GpuTarget* find_gpu_target(std::string_view key);

/// What bounds the blocks an SM holds at once.
enum class OccupancyLimit {
  warps,          ///< the SM's resident warps (the block size)
  blocks,         ///< the SM's resident blocks (small blocks)
  registers,      ///< the register file
  shared_memory,  ///< shared memory
  grid,           ///< the launch's own blocks: too few to give each SM more (a tiny grid)
};
/// "warps per SM", "blocks per SM", "registers", "shared memory", "blocks in the grid".
const char* occupancy_limit_name(OccupancyLimit limit);

/// The theoretical occupancy of a kernel on a target: resident blocks and warps per SM.
struct Occupancy {
  unsigned blocks_per_sm = 0;                    ///< blocks one SM holds at once
  unsigned warps_per_sm = 0;                     ///< their warps
  double fraction = 0;                           ///< warps_per_sm / the SM's maximum
  OccupancyLimit limit = OccupancyLimit::warps;  ///< the limit that binds (the first, where several do)
  /// The fraction with blocks enough to fill every SM, the grid aside: ncu's "theoretical
  /// occupancy", and what the time model uses. Equals `fraction` unless the limit is `grid`.
  double theoretical = 0;
};

/// The occupancy of blocks of `threads` threads, `registers` registers per thread and
/// `shared_bytes` of shared memory (static and dynamic) on `target`, for a launch of
/// `grid_blocks` blocks: its blocks spread over the SMs, so one SM holds at most
/// ceil(grid_blocks / SMs) of them (a kernel of one block of one thread keeps 1 of an H100 SM's 64
/// warps busy, not the 32 that 32 such blocks would). 0: as many blocks as the limits allow.
Occupancy theoretical_occupancy(const GpuTarget& target, unsigned threads, unsigned registers, std::size_t shared_bytes,
                                std::uint64_t grid_blocks = 0);

/// Registers per thread of each entry function in nvcc's `-Xptxas -v` output, by mangled name.
std::map<std::string, unsigned> parse_ptxas_registers(const std::string& output);

/// Registers per thread of the kernel named `kernel` (as launched: "k", "k<T, 4>") among ptxas's
/// entries: the most of any entry whose mangled name holds that identifier; nullopt if none does.
std::optional<unsigned> registers_of(const std::map<std::string, unsigned>& entries, const std::string& kernel);

/// What explain names.
enum class ExplainKind {
  uncoalesced,    ///< a global access touching more 32-byte sectors per request than its bytes need
  bank_conflict,  ///< a shared-memory access whose lanes hit one bank with different words
  divergence,     ///< a line that warps run with few of their lanes active
  occupancy,      ///< too few warps per SM to hide memory latency
  traffic,        ///< more global traffic than the task needs, even with every access coalesced
};
/// snake_case, as the JSON spells it: "uncoalesced".
const char* explain_kind_name(ExplainKind kind);

/// One problem: where, the number against its ideal, what it costs, what to do.
struct ExplainFinding {
  ExplainKind kind = ExplainKind::uncoalesced;  ///< what kind of problem
  std::string kernel;                           ///< the kernel's name
  SourcePlace place;                            ///< the line; line 0 for a kernel-wide finding
  std::string code;                             ///< the access as the source writes it: "A[col * K + k]"
  double value = 0;                             ///< the number: sectors per request, ways, % of lanes, …
  double ideal = 0;                             ///< what it would be done well
  std::string unit;                             ///< what `value` counts: "sectors per request"
  double cost_s = 0;                            ///< estimated time it costs on the target, per call of solve
  std::string message;                          ///< one sentence with the line, the number and the ideal
  std::string fix;                              ///< what to change, in the exercise's words
  std::string ncu_metric;                       ///< the Nsight Compute metric that measures it on a GPU
};

/// One source line's accesses of one kernel to one buffer, in one direction and memory.
struct LineCost {
  std::string kernel;                                           ///< the kernel's name
  SourcePlace place;                                            ///< the line (line 0: not found in the debug lines)
  std::string code;                                             ///< the access as the source writes it, where found
  protocol::MemorySpace space = protocol::MemorySpace::global;  ///< global or shared memory
  bool write = false;                                           ///< stores (else loads)
  bool atomic = false;                                          ///< atomics
  std::string target;                                           ///< the buffer or shared array, where known
  unsigned bytes = 0;                                           ///< bytes per lane
  std::size_t row_elements = 0;                                 ///< a 2D shared array's row length
  std::size_t element_bytes = 0;                                ///< bytes per element of the target, where known
  std::size_t target_bytes = 0;                                 ///< the target's size in bytes, where known
  double requests = 0;                                          ///< warp-level requests (whole grid, per call)
  double active_lanes = 0;                                      ///< lanes taking part, summed
  double units = 0;                                             ///< sectors (global) or wavefronts (shared)
  double ideal_units = 0;                                       ///< the same, done well
  unsigned worst_units = 0;                                     ///< the most in one request
  unsigned worst_ideal = 0;                                     ///< that request's ideal
  std::int64_t stride = 0;                                      ///< bytes between neighbouring lanes in that request
};

/// The time model's parts for one kernel's launches in one call of solve (docs/explain.md).
struct TimeEstimate {
  double dram_s = 0;    ///< global traffic at the bandwidth of the SMs the grid fills (slowed by low occupancy)
  double shared_s = 0;  ///< shared-memory wavefronts, one per SM and cycle, on the SMs the grid fills
  double issue_s = 0;   ///< memory requests, one per SM and cycle, on the SMs the grid fills
  double flops_s = 0;   ///< its share of the task's FLOPs at the FP32 peak of the SMs the grid fills
  /// The largest part: the estimated time.
  [[nodiscard]] double total() const;
};

/// One kernel: its launch, occupancy and what its accesses cost.
struct KernelExplain {
  std::string kernel;                      ///< the kernel's name
  std::array<unsigned, 3> grid{1, 1, 1};   ///< its (first) launch's grid
  std::array<unsigned, 3> block{1, 1, 1};  ///< its (first) launch's block
  std::size_t launches = 0;                ///< launches per call of solve
  std::size_t shared_bytes = 0;            ///< shared memory per block, static and dynamic
  std::optional<unsigned> registers;       ///< per thread, from nvcc; nullopt: unknown
  unsigned registers_used = 0;             ///< what occupancy assumed: `registers`, else kAssumedRegisters
  Occupancy occupancy;                     ///< on the target
  std::uint64_t blocks = 0;                ///< blocks of all its launches
  std::uint64_t counted_blocks = 0;        ///< blocks whose accesses were counted
  double global_bytes = 0;                 ///< sectors × 32 of its global accesses
  double shared_wavefronts = 0;            ///< wavefronts of its shared accesses
  double requests = 0;                     ///< warp-level memory requests
  double active_lanes = 0;                 ///< lanes taking part in them, summed
  unsigned active_sms = 0;                 ///< SMs its grid fills on the target (fewer blocks than SMs: that many)
  /// Its blocks' barrier intervals in order, with their requests' active lanes (empty ones left out).
  std::vector<protocol::BarrierInterval> intervals;
  TimeEstimate estimate;  ///< the time model's parts
};

/// Registers per thread assumed where nvcc cannot say.
inline constexpr unsigned kAssumedRegisters = 32;

/// What explain found for one exercise's source.
struct ExplainResult {
  const Task* task = nullptr;            ///< the exercise
  std::filesystem::path source;          ///< the file explained
  CompileResult compile;                 ///< its checked build
  Case c;                                ///< the representative size it ran at
  Verdict verdict = Verdict::passed;     ///< the run's own verdict (a failure stops explain)
  std::string message;                   ///< the run's message when it failed or was wrong
  GpuTarget target;                      ///< what the estimates are for
  std::string registers_note;            ///< where register counts came from, or why they are assumed
  std::vector<KernelExplain> kernels;    ///< in the order first launched
  std::vector<LineCost> lines;           ///< every counted line, the costliest first
  std::vector<ExplainFinding> findings;  ///< the problems, the costliest first
  Cost needed;                           ///< what the task needs at this size (Task::cost)
  double global_bytes = 0;               ///< global traffic counted (sectors × 32), all kernels
  double coalesced_bytes = 0;            ///< the same with every access coalesced
  double best_s = 0;                     ///< roofline: the needed bytes or FLOPs at the target's peak
  double estimated_s = 0;                ///< the kernels' estimates added up
  bool truncated = false;                ///< the runner left sites out (more than the protocol carries)

  /// Whether it ran and its output was right, so that the numbers describe a working kernel.
  [[nodiscard]] bool ran() const;
};

/// How explain runs.
struct ExplainOptions {
  std::string target = "h100";                 ///< a key of gpu_targets()
  std::uint64_t seed = 1;                      ///< the inputs' seed (case_seed)
  std::chrono::milliseconds timeout{120'000};  ///< for the run
  std::vector<std::int64_t> only_sizes;        ///< empty: the representative size; else the case of that first dim
  bool registers_from_nvcc = true;             ///< ask nvcc (-Xptxas -v) where it is installed
  std::filesystem::path cache_dir;             ///< where nvcc's answers are kept; empty: not kept
  /// Count every block of every launch (exact, as a GPU's counters are), not a sample of 48 per
  /// launch: slower, for `bench --profile`.
  bool count_every_block = false;
};

/// The size explain runs `task` at: its simulator's large case (about a million elements or
/// multiply-adds, sized to run in a second or so), or with `only_sizes` the largest case whose
/// first dimension is listed. Throws SelectionError when none is.
Case representative_case(const Task& task, const std::vector<std::int64_t>& only_sizes);

/// Compiles `source` with `toolchain` (the simulator's checked build), runs it once at the
/// representative size with counting on, and explains what its accesses cost on the target.
/// Throws UsageError for an unknown target, SelectionError for an unknown size.
ExplainResult explain_exercise(const Task& task, const Toolchain& toolchain, const std::filesystem::path& source,
                               const ExplainOptions& options);

/// The report for people: per exercise, the findings in order, then each kernel's launch and
/// occupancy, the traffic and the roofline.
void write_explain_report(std::ostream& out, const std::vector<ExplainResult>& results, const ReportStyle& style);

/// The same as JSON (docs/explain.md).
nlohmann::json explain_report_json(const std::vector<ExplainResult>& results, const std::string& backend_line);

}  // namespace cudalab
