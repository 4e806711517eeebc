// The one checker: poisons outputs, compares what a submission produced with the task's
// expected values, and explains a wrong answer (where, how many, and which mistake it looks like).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cudalab/case_data.hpp"
#include "cudalab/protocol.hpp"
#include "cudalab/task.hpp"
#include "cudalab/verdict.hpp"

namespace cudalab {

/// One wrong element.
struct Mismatch {
  std::size_t index = 0;   ///< element index in the buffer
  double expected = 0;     ///< the reference value
  double actual = 0;       ///< what the submission left there
  bool untouched = false;  ///< still the poison (outputs) or the input value (in-place buffers)
};

/// Where the wrong elements lie when they look like a grid that stopped early: the pattern
/// behind compare_output's "does your grid cover ...?" hint, kept so that hints_with_launches
/// can reword it once the launch records are known.
struct GridPattern {
  /// Which part of the output is wrong.
  enum class Kind {
    suffix,           ///< every element from `from` on (1D, or a 2D buffer read flat)
    rows,             ///< every row from `from` on
    columns,          ///< every column from `from_col` on
    rows_and_columns  ///< every row from `from` on and every column from `from_col` on (an L)
  };
  Kind kind = Kind::suffix;  ///< the shape
  std::size_t from = 0;      ///< first wrong element (suffix) or row (rows, rows_and_columns)
  std::size_t from_col = 0;  ///< first wrong column (columns, rows_and_columns)
  std::size_t hint = 0;      ///< index of its hint in OutputComparison::hints
};

/// The comparison of one output buffer.
struct OutputComparison {
  std::string buffer;              ///< the output buffer's name
  std::size_t count = 0;           ///< elements compared
  std::size_t wrong = 0;           ///< elements outside their tolerance
  std::size_t untouched = 0;       ///< wrong elements that were never written
  std::size_t nonfinite = 0;       ///< written elements that are NaN or ±Inf
  std::vector<Mismatch> first;     ///< the first few wrong elements, by index
  std::vector<std::string> hints;  ///< what the pattern of wrong elements suggests
  /// Set where one of `hints` asks whether the grid covers the output (a wrong suffix, wrong last
  /// rows or columns).
  std::optional<GridPattern> grid_pattern;

  /// Every element within its tolerance.
  [[nodiscard]] bool ok() const { return wrong == 0; }
};

/// Compares `actual` with `expected`. `before` is the buffer's content before the run for
/// in-place (inout) buffers, so that unchanged elements count as untouched; `host_pointers`
/// selects the wording of hints about copies.
OutputComparison compare_output(const Buffer& actual, const Expected& expected, const Buffer* before,
                                bool host_pointers);

/// Whether one launch of `records` ran a thread for every element of `output` (of case `c`): a
/// launch of at least count() threads, where the launch is 1D (y and z extents 1) or the output
/// is; for a 2D output (rows, cols) a 2D launch whose x extent (gridDim.x · blockDim.x) reaches
/// the columns and whose y extent the rows, the usual mapping (x: column, y: row). Where the
/// output is the input transposed (its rows named by the case's later dimension: 09's N×M B of
/// an M×N A), a launch over the input counts too. False where launches were not recorded.
bool launches_cover(const Buffer& output, const Case& c, const protocol::Records& records, bool launches_recorded);

/// The hints of one wrong output (compare_output's `cmp.hints`) with what the launch records say.
/// Where launches_cover(), no thread was missing, so the grid hint ("does your grid cover all n
/// elements?") points the wrong way: a host-pointer exercise's wrong suffix from n/4 on becomes the
/// copy-size hint (n bytes copied, not n elements), any other becomes a hint about the index and
/// the bound each thread tests. Otherwise the grid hint stays, naming rows and columns by the
/// case's dimension (the N rows of a transpose's N×M output, not "M rows"). `c` is the case,
/// `info` the exercise (its pointer kind).
std::vector<std::string> hints_with_launches(const OutputComparison& cmp, const Buffer& output, const Case& c,
                                             const TaskInfo& info, const protocol::Records& records,
                                             bool launches_recorded);

/// Names of the input buffers of `original` whose bytes differ from those at `after[b]` now
/// (where the runner had buffer b; null: unknown, counted as changed).
std::vector<std::string> modified_inputs(const std::vector<Buffer>& original,
                                         const std::vector<const std::byte*>& after);

/// One line per mismatch for reports: "c[256]: expected 3.25, got NaN (never written)", with
/// (row, col) for 2D buffers.
std::vector<std::string> describe_mismatches(const OutputComparison& cmp, const Buffer& actual);

/// Device-pointer exercises: the inputs stay on the device and kernels compute the outputs. A copy
/// of an input into memory the host can read (ordinary, page-locked or managed), or of host memory
/// over a whole output, moves the work to the CPU whatever kernels ran beside it; one sentence per
/// buffer and direction ("A was copied to host memory (cudaMemcpy, 64 bytes): …"). An input that
/// never reaches the host cannot be computed with there; a one-element output filled from the
/// host is how some zero an accumulator, and is left alone.
std::vector<std::string> host_work_failures(const std::vector<Buffer>& buffers, const protocol::Records& records);

/// What the launch and copy records say is missing or unnecessary, one sentence each: "no kernel
/// ran on the GPU", "03_matmul must use shared memory: ...", "b was copied back to the host but
/// never changed". `buffers` are the case's buffers (names and roles); `records` are the runner's;
/// `launches_recorded` is false where launches could not be traced (then no launch rule applies).
std::vector<std::string> requirement_failures(const TaskInfo& info, const std::vector<Buffer>& buffers,
                                              const protocol::Records& records, bool launches_recorded);

/// Whether `solve` filled a `__constant__` (or `__device__`) variable: a cudaMemcpyToSymbol record.
bool filled_constant_memory(const protocol::Records& records);

/// A one-line summary of the launches for reports: "2 launches: sum_of_squares<<<(132,1,1), (256,1,1)>>>
/// 1024 B shared, ...".
std::string describe_launches(const protocol::Records& records);

/// A case's dimensions and whether it passed, for hints across sizes.
struct CaseOutcome {
  Case c;               ///< the size
  bool passed = false;  ///< whether its check passed
  /// A launch covered every wrong output of this case (launches_cover): its grid was not short.
  bool covered = false;
};

/// A hint drawn from which sizes fail: "fails exactly when K is not a multiple of 16: ...", "right
/// only on multiples of 32: fails whenever one of M, N and K is not ...", "passes up to n=1000 and
/// fails from n=65537 on". The last asks about the grid only where some failing case's launches
/// did not cover its output.
std::optional<std::string> size_pattern_hint(const std::vector<CaseOutcome>& outcomes);

}  // namespace cudalab
