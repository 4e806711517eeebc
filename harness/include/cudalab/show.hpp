// `cudalab show`: what each thread of a kernel did, drawn. One call of solve on the simulator's
// checked build at a small size, every load and store recorded (protocol::AccessTrace) beside the
// checks' findings; from that, per launch and buffer, which thread read and wrote which element
// between which barriers, the findings placed on those elements, each thread's and block's counts,
// and a warp's first load as memory sees it (sectors, banks). Drawn as a self-contained HTML page
// (SVG figures, no network), as one SVG figure, or as text for a terminal.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cudalab/exercise_check.hpp"
#include "cudalab/protocol.hpp"
#include "cudalab/report.hpp"
#include "cudalab/task.hpp"
#include "cudalab/toolchain.hpp"

namespace cudalab {

/// How `cudalab show` runs.
struct ShowOptions {
  std::uint64_t seed = 1;                     ///< the inputs' seed (case_seed)
  std::vector<std::int64_t> only_sizes;       ///< empty: the smallest failing case (else the smallest); else that size
  std::chrono::milliseconds timeout{60'000};  ///< per traced run
  std::optional<std::uint32_t> block;         ///< the block drawn in detail (linear); none: a finding's, else 0
  /// The SM count the simulated device reports (an H100's): a grid sized from it is drawn alike on
  /// every machine.
  unsigned sm_count = 132;
};

/// One access, as drawn: who, when, where in the source, what value.
struct ShownAccess {
  std::uint32_t block = 0;                               ///< linear in the grid
  std::uint32_t thread = 0;                              ///< linear in the block
  std::uint32_t phase = 0;                               ///< barriers its block had passed
  protocol::TraceKind kind = protocol::TraceKind::read;  ///< a read, a write or an atomic update
  int line = 0;                                          ///< source line of the access; 0 unknown
  std::uint32_t bits = 0;                                ///< the 4 bytes read or written
  bool finding = false;                                  ///< one of the accesses a finding names
};

/// One buffer or shared array of one launch, element by element.
struct ShownTarget {
  std::string name;             ///< "A", "tile"; "device memory 1" for memory solve allocated itself
  bool shared = false;          ///< a shared array: the chosen block's instance
  bool harness_buffer = false;  ///< one of the exercise's buffers (else memory solve allocated)
  bool output = false;          ///< a harness buffer that solve must write
  bool is_float = true;         ///< values shown as floats (else as ints)
  std::size_t rows = 1;         ///< the shape it is drawn in
  std::size_t cols = 0;         ///< elements per drawn row
  /// Per element, every access to it in order (the chosen block's, for a shared array).
  std::vector<std::vector<ShownAccess>> elements;
  /// Accesses outside it: the element index (negative: before the first) and the access.
  std::vector<std::pair<std::int64_t, ShownAccess>> outside;
};

/// How a warp's lanes met memory in one load or store instruction.
struct WarpAccessPicture {
  std::string target;                   ///< the buffer or shared array
  bool shared = false;                  ///< banks (shared) or 32-byte sectors (global)
  bool write = false;                   ///< a store
  int line = 0;                         ///< its source line
  std::vector<std::int64_t> lane_unit;  ///< per lane (32), the sector or bank it reached; -1: inactive
  std::size_t units = 0;                ///< sectors touched, or the wavefronts the banks cost
  std::size_t ideal = 0;                ///< the same for as many bytes laid out well
};

/// One launch of a kernel, with what its threads did.
struct ShownLaunch {
  std::string kernel;                ///< as launched
  std::array<unsigned, 3> grid{};    ///< gridDim
  std::array<unsigned, 3> block{};   ///< blockDim
  std::uint32_t phases = 1;          ///< barrier intervals (a kernel without __syncthreads has one)
  std::vector<int> barrier_lines;    ///< the barrier ending each phase but the last
  std::vector<ShownTarget> targets;  ///< every buffer and shared array touched, by first access
  /// Per thread of the chosen block: global reads, global writes, shared reads, shared writes.
  std::vector<std::array<std::size_t, 4>> thread_counts;
  /// Per block: the same four counts, summed over its threads.
  std::vector<std::array<std::size_t, 4>> block_counts;
  std::vector<WarpAccessPicture> warps;  ///< warp 0 of the chosen block, per load or store instruction
};

/// Everything `cudalab show` draws for one exercise.
struct ShowResult {
  const Task* task = nullptr;             ///< the exercise
  std::filesystem::path source;           ///< the file shown
  Case c;                                 ///< the size it ran at
  CompileResult compile;                  ///< nothing ran where this failed
  Verdict verdict = Verdict::passed;      ///< the run's verdict, findings first
  std::string message;                    ///< its one line
  std::vector<PlacedFinding> findings;    ///< as check words them
  std::vector<std::string> source_lines;  ///< the file, for the lines an access names
  std::uint32_t block = 0;                ///< the block drawn in detail
  std::vector<ShownLaunch> launches;      ///< in the order solve made them
  bool truncated = false;                 ///< the trace hit its limit: later accesses are missing
  /// The fewest global reads and writes solve needs (each input element read, each output written
  /// once), from the exercise's cost.
  double minimum_global_elements = 0;
  /// The command that draws this again.
  std::string command;

  /// Whether the kernels ran (the file compiled and solve was called).
  [[nodiscard]] bool ran() const { return compile.ok && !launches.empty(); }
};

/// Runs `source` once on the simulator's checked build (`toolchain`, ToolchainConfig::checked) at
/// a small size with every access recorded. Throws SelectionError for an unknown size.
ShowResult show_exercise(const Task& task, const Toolchain& toolchain, const std::filesystem::path& source,
                         const ShowOptions& options);

/// The page: self-contained HTML with one SVG figure per launch and buffer, a phase control, a
/// thread picker, the findings and the counts.
std::string show_page_html(const ShowResult& result);

/// One SVG figure: the first launch's buffers after it, coloured by the thread that wrote each
/// element, without tooltips (the exercise READMEs' pictures, the same on every machine).
std::string show_figure_svg(const ShowResult& result);

/// The terminal's rendering: per launch and buffer, the writing thread of each element, phase by
/// phase, for grids up to `max_cols` columns wide; the findings and counts as text.
void write_show_text(std::ostream& out, const ShowResult& result, const ReportStyle& style, std::size_t max_cols = 32);

}  // namespace cudalab
