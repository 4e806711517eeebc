// `cudalab bench --profile`: the hardware's counters for a student's kernels, beside what the
// simulator predicts for them. The trusted parent runs the runner under Nsight Compute (`ncu`, which
// comes with the CUDA toolkit) for one call of solve at explain's representative size, reads its
// CSV, and runs explain on the simulator at the same size with the same inputs. Per kernel, both
// sides give sectors per request of global loads and stores, wavefronts per request of shared
// loads and stores, occupancy, active lanes and time; the GPU adds achieved occupancy, branch
// uniformity and device-memory traffic. docs/explain.md says which counter each number is.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudalab/explain.hpp"
#include "cudalab/report.hpp"
#include "cudalab/task.hpp"
#include "cudalab/toolchain.hpp"

namespace cudalab {

/// Warp-level requests of one kind of access (global loads, shared stores, …) and what they cost:
/// 32-byte sectors for global memory, wavefronts for shared memory.
struct AccessCount {
  double requests = 0;  ///< warp-level requests (memory instructions executed by a warp)
  double units = 0;     ///< sectors (global) or wavefronts (shared) they took
  double ideal = 0;     ///< units the same bytes would take done well (the simulator's; 0 from ncu)
  /// Shared memory: the wavefronts bank conflicts added (ncu's conflict counter; the simulator's
  /// wavefronts beyond the ideal).
  double conflicts = 0;

  /// Units per request; nullopt where there were no requests.
  [[nodiscard]] std::optional<double> per_request() const;
  /// Ideal units per request; nullopt where there were no requests or no ideal is known.
  [[nodiscard]] std::optional<double> ideal_per_request() const;
};

/// One kernel's counts in one call of solve, all of its launches together: counted by the GPU's
/// hardware under ncu, or by the simulator (explain). An empty optional: that side cannot say.
struct KernelCounters {
  std::string kernel;                           ///< the kernel's name, without parameters: "reduce<256>"
  std::size_t launches = 0;                     ///< launches in the call
  std::array<unsigned, 3> grid{1, 1, 1};        ///< the first launch's grid
  std::array<unsigned, 3> block{1, 1, 1};       ///< the first launch's block
  AccessCount global_loads;                     ///< global memory loads
  AccessCount global_stores;                    ///< global memory stores
  AccessCount shared_loads;                     ///< shared memory loads
  AccessCount shared_stores;                    ///< shared memory stores
  std::optional<unsigned> registers;            ///< registers per thread
  std::optional<double> theoretical_occupancy;  ///< resident warps per SM at most, as a fraction of the SM's maximum
  std::optional<double> achieved_occupancy;     ///< GPU: warps active on average, as that fraction
  /// Active lanes (of 32) per warp instruction: the GPU counts every instruction, the simulator
  /// its memory requests.
  std::optional<double> active_lanes;
  std::optional<double> branch_uniformity;  ///< GPU: share of branches whose lanes all went one way (none: no branch)
  std::optional<double> dram_bytes;         ///< GPU: device memory read and written
  std::optional<double> dram_peak_share;    ///< GPU: device-memory throughput as a share of its peak
  std::optional<double> duration_s;         ///< GPU: time under the profiler; simulator: explain's estimate
};

/// The counters ncu is asked for (`--metrics`), each as its CSV column names it.
const std::vector<std::string>& profile_metrics();

/// What an ncu log written with `--csv --page raw --print-units base` says.
struct NcuLog {
  std::vector<KernelCounters> kernels;  ///< one per kernel name, in the order first launched
  std::vector<std::string> errors;      ///< its ==ERROR== lines, without the prefix
  std::string problem;                  ///< one line for people when there are no counters; empty when there are
};

/// Reads an ncu log: the ==PROF==, ==WARNING== and ==ERROR== lines, then the CSV (a header row,
/// a units row, a row per profiled launch; numbers may hold thousands separators). Launches of one
/// kernel are added up (ratios weighted by their duration). Never throws: what cannot be read is
/// said in `problem`.
NcuLog parse_ncu_log(std::string_view text);

/// The simulator's counts per kernel from explain's result (its lines added up per kernel, its
/// occupancy and time estimate), in explain's order.
std::vector<KernelCounters> simulated_counters(const ExplainResult& explained);

/// The Nsight Compute command line: CUDALAB_NCU, else `ncu` on PATH, else the toolkit's usual
/// places (/usr/local/cuda/bin, /opt/nvidia/nsight-compute/*). Empty where there is none.
std::filesystem::path find_ncu();

/// explain's target for a GPU of this name ("NVIDIA H100 80GB HBM3" → "h100"); "h100" when none fits.
std::string target_for_device(std::string_view device_name);

/// How a profile runs.
struct ProfileOptions {
  std::uint64_t seed = 1;                      ///< the inputs' seed, as explain's
  std::vector<std::int64_t> only_sizes;        ///< as ExplainOptions::only_sizes
  std::chrono::milliseconds timeout{600'000};  ///< for the run under ncu (kernels are replayed once per counter pass)
  std::string device_name;                     ///< the GPU's name, for the report and the target
  std::filesystem::path ncu;                   ///< the tool; empty: find_ncu()
  std::filesystem::path cache_dir;             ///< explain's register cache
  std::string visible_devices;                 ///< CUDA_VISIBLE_DEVICES for the runner; empty: as inherited
};

/// One file profiled: the GPU's counters and the simulator's, kernel by kernel.
struct ProfileResult {
  const Task* task = nullptr;         ///< the exercise
  std::filesystem::path source;       ///< the file profiled
  Case c;                             ///< the size both sides ran at
  std::string device;                 ///< the GPU's name
  std::string tool;                   ///< "ncu" and its version line
  Verdict verdict = Verdict::passed;  ///< the GPU run's verdict (compile errors included)
  std::string message;                ///< why it failed, where it did
  std::string problem;                ///< why there are no counters (no ncu, not permitted, …); empty when there are
  std::vector<KernelCounters> measured;   ///< from the GPU, in launch order
  ExplainResult explained;                ///< explain's run of the same file on the simulator
  std::vector<KernelCounters> predicted;  ///< from the simulator, in its launch order

  /// Whether the GPU's counters were read.
  [[nodiscard]] bool profiled() const { return problem.empty() && verdict == Verdict::passed; }
};

/// Compiles `source` for the GPU and runs one call of solve under ncu at the representative size;
/// then runs explain with `sim` (the simulator's checked build) on the same size and inputs.
ProfileResult profile_exercise(const Task& task, const Toolchain& gpu, const Toolchain& sim,
                               const std::filesystem::path& source, const ProfileOptions& options);

/// The report for people: per exercise and kernel, the GPU's counters beside the simulator's and
/// the ideal, where the two differ by more than a tenth marked and said why if known.
void write_profile_report(std::ostream& out, const std::vector<ProfileResult>& results, const ReportStyle& style);

/// The same as JSON (docs/explain.md).
nlohmann::json profile_report_json(const std::vector<ProfileResult>& results);

/// One Markdown table row per kernel, for docs/performance.md's comparison (with its header when
/// `header` is set).
void write_profile_markdown(std::ostream& out, const std::vector<ProfileResult>& results, bool header);

}  // namespace cudalab
