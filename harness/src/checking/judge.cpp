#include "cudalab/judge.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <set>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "cudalab/parallel.hpp"
#include "cudalab/text.hpp"
#include "cudalab/timeline.hpp"

namespace cudalab {

namespace {

constexpr std::size_t kMaxListedMismatches = 5;

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // Whole numbers in full (an int such as -16776961 read as -1.677696e+07 hides its bytes).
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{:.7g}", v);
}

// Hints from where the wrong elements are. `wrong` is the per-element mask.
void add_position_hints(OutputComparison& cmp, const Buffer& actual, const std::vector<bool>& wrong, bool inout,
                        bool host_pointers) {
  const std::size_t n = cmp.count;
  if (cmp.wrong == n && cmp.untouched == n) {
    if (inout) {
      cmp.hints.push_back(
          fmt::format("no element of {} changed: did the kernel run, and {}?", cmp.buffer,
                      host_pointers ? "was the result copied back to the host" : "does it write to " + cmp.buffer));
    } else if (host_pointers) {
      cmp.hints.push_back(
          fmt::format("no element of {} was written: is the result copied back to the host "
                      "(cudaMemcpy(..., cudaMemcpyDeviceToHost))?",
                      cmp.buffer));
    } else {
      cmp.hints.push_back(
          fmt::format("no element of {} was written: each still holds the NaN the harness filled "
                      "it with. Did the kernel run, and does it store to {} (=, not +=)?",
                      cmp.buffer, cmp.buffer));
    }
    return;
  }
  if (actual.rows > 0 && actual.cols > 0) {
    const auto rows = static_cast<std::size_t>(actual.rows);
    const auto cols = static_cast<std::size_t>(actual.cols);
    // Smallest row r0 such that every wrong element lies in rows ≥ r0, and are they all wrong?
    std::size_t first_bad_row = rows, first_bad_col = cols;
    for (std::size_t i = 0; i < n; ++i) {
      if (wrong[i]) {
        first_bad_row = std::min(first_bad_row, i / cols);
        first_bad_col = std::min(first_bad_col, i % cols);
      }
    }
    auto block_all_wrong = [&](std::size_t r0, std::size_t c0) {
      std::size_t count = 0;
      for (std::size_t r = r0; r < rows; ++r) {
        for (std::size_t c = c0; c < cols; ++c) {
          if (!wrong[r * cols + c]) return false;
          ++count;
        }
      }
      return count == cmp.wrong;
    };
    if (first_bad_row > 0 && block_all_wrong(first_bad_row, 0)) {
      cmp.grid_pattern = GridPattern{GridPattern::Kind::rows, first_bad_row, 0, cmp.hints.size()};
      cmp.hints.push_back(fmt::format("every row from {} on is wrong ({} rows): does your grid cover all M rows?",
                                      first_bad_row, rows));
      return;
    }
    if (first_bad_col > 0 && block_all_wrong(0, first_bad_col)) {
      cmp.grid_pattern = GridPattern{GridPattern::Kind::columns, 0, first_bad_col, cmp.hints.size()};
      cmp.hints.push_back(fmt::format(
          "every column from {} on is wrong ({} columns): does your grid cover all N columns?", first_bad_col, cols));
      return;
    }
    // An L shape: the last rows and the last columns.
    std::size_t l_count = 0;
    bool l_shape = first_bad_row > 0 && first_bad_col > 0;
    for (std::size_t i = 0; l_shape && i < n; ++i) {
      const bool in_l = (i / cols) >= first_bad_row || (i % cols) >= first_bad_col;
      if (in_l != wrong[i]) l_shape = false;
      l_count += in_l ? 1 : 0;
    }
    if (l_shape && l_count == cmp.wrong && first_bad_row < rows && first_bad_col < cols) {
      // Only report when both edges really are wrong, not just one element.
      bool rows_edge = false, cols_edge = false;
      for (std::size_t i = 0; i < n; ++i) {
        if (!wrong[i]) continue;
        if ((i / cols) >= first_bad_row && (i % cols) < first_bad_col) rows_edge = true;
        if ((i % cols) >= first_bad_col && (i / cols) < first_bad_row) cols_edge = true;
      }
      if (rows_edge && cols_edge) {
        cmp.grid_pattern =
            GridPattern{GridPattern::Kind::rows_and_columns, first_bad_row, first_bad_col, cmp.hints.size()};
        cmp.hints.push_back(
            fmt::format("every row from {} on and every column from {} on is wrong: does your grid cover all M rows? "
                        "does your grid cover all N columns?",
                        first_bad_row, first_bad_col));
        return;
      }
    }
  }
  // A wrong suffix: the grid stopped early.
  std::size_t first = 0;
  while (first < n && !wrong[first]) ++first;
  if (first > 0 && cmp.wrong == n - first) {
    cmp.grid_pattern = GridPattern{GridPattern::Kind::suffix, first, 0, cmp.hints.size()};
    cmp.hints.push_back(
        fmt::format("every element from index {} on is wrong ({} of {} are right): "
                    "does your grid cover all n elements?",
                    first, first, n));
  }
}

void add_value_hints(OutputComparison& cmp, const Buffer& actual, const Expected& expected) {
  const std::size_t n = cmp.count;
  const std::size_t written_wrong = cmp.wrong - cmp.untouched;
  if (cmp.nonfinite > 0) {
    cmp.hints.push_back(fmt::format("{} written element{} of {} {} NaN or infinite", cmp.nonfinite,
                                    cmp.nonfinite == 1 ? "" : "s", cmp.buffer, cmp.nonfinite == 1 ? "is" : "are"));
  }
  // Every element scaled by one common factor: a wrong norm or a partial sum.
  if (written_wrong == n && n >= 2 && cmp.nonfinite == 0) {
    double lo = INFINITY, hi = -INFINITY;
    std::size_t used = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double e = expected.value[i];
      if (std::abs(e) < 1e-30) continue;
      const double r = actual.value(i) / e;
      lo = std::min(lo, r), hi = std::max(hi, r);
      ++used;
    }
    if (used >= 2 && lo == 0 && hi == 0) {
      cmp.hints.push_back(
          fmt::format("every element of {} is 0: nothing was accumulated (does the loop run at all "
                      "for this size?)",
                      cmp.buffer));
    } else if (used >= 2 && std::isfinite(lo) && hi - lo <= 1e-3 * std::abs(hi) && std::abs(hi - 1.0) > 1e-3) {
      cmp.hints.push_back(fmt::format(
          "every element of {} is off by the same factor {:.6g} (actual / expected): the values are right up "
          "to a scale, so look at what you divide or multiply by",
          cmp.buffer, (lo + hi) / 2));
    }
  }
}

}  // namespace

OutputComparison compare_output(const Buffer& actual, const Expected& expected, const Buffer* before,
                                bool host_pointers) {
  OutputComparison cmp;
  cmp.buffer = actual.name;
  cmp.count = actual.count();
  if (expected.value.size() != cmp.count || (!expected.tolerance.empty() && expected.tolerance.size() != cmp.count) ||
      (before != nullptr && (before->dtype != actual.dtype || before->count() != cmp.count))) {
    throw std::logic_error("buffer '" + actual.name + "': the expected values do not match its elements");
  }
  // Whether element i is wrong, and why; the one rule for both passes below. The elements are
  // read through their type, chosen once: a call per element to Buffer::value cost more than the
  // comparison (a large case is 67 million elements, judged once per check and per timed run).
  const auto judge_elements = [&]<class Elem>(const Elem* got, const Elem* was, std::size_t i, bool& untouched,
                                              bool& nonfinite) {
    const auto a = static_cast<double>(got[i]);
    const double e = expected.value[i];
    untouched = was != nullptr ? (static_cast<double>(was[i]) == a && a != e) : is_poison_element(got[i]);
    nonfinite = !untouched && !std::isfinite(a);
    return untouched || nonfinite || !(std::abs(a - e) <= expected.tolerance_at(i));
  };
  const bool floats = actual.dtype == DType::f32;
  const float* got_f32 = floats ? actual.f32().data() : nullptr;
  const float* was_f32 = floats && before != nullptr ? before->f32().data() : nullptr;
  const std::int32_t* got_i32 = floats ? nullptr : actual.i32().data();
  const std::int32_t* was_i32 = !floats && before != nullptr ? before->i32().data() : nullptr;
  auto judge = [&](std::size_t i, bool& untouched, bool& nonfinite) {
    return floats ? judge_elements(got_f32, was_f32, i, untouched, nonfinite)
                  : judge_elements(got_i32, was_i32, i, untouched, nonfinite);
  };
  // Counting pass, on several threads: a large case's output is hundreds of millions of elements,
  // and a timed run's outputs are judged up to four times.
  struct Part {
    std::size_t wrong = 0, untouched = 0, nonfinite = 0;
    std::vector<Mismatch> first;
  };
  constexpr std::size_t kChunk = std::size_t{1} << 22;
  const std::size_t chunks = (cmp.count + kChunk - 1) / kChunk;
  std::vector<Part> parts(chunks);
  auto count_chunk = [&](std::size_t k) {
    Part& part = parts[k];
    for (std::size_t i = k * kChunk, end = std::min(cmp.count, (k + 1) * kChunk); i < end; ++i) {
      bool untouched = false, nonfinite = false;
      if (!judge(i, untouched, nonfinite)) continue;
      ++part.wrong;
      part.untouched += untouched ? 1 : 0;
      part.nonfinite += nonfinite ? 1 : 0;
      if (part.first.size() < kMaxListedMismatches) {
        part.first.push_back({i, expected.value[i], actual.value(i), untouched});
      }
    }
  };
  for_each_chunk(chunks, count_chunk);
  for (const Part& part : parts) {
    cmp.wrong += part.wrong;
    cmp.untouched += part.untouched;
    cmp.nonfinite += part.nonfinite;
    for (const auto& m : part.first) {
      if (cmp.first.size() < kMaxListedMismatches) cmp.first.push_back(m);
    }
  }
  if (cmp.wrong > 0) {
    // The hints read the pattern of wrong elements: a second pass for wrong outputs only.
    std::vector<bool> wrong(cmp.count, false);
    for (std::size_t i = 0; i < cmp.count; ++i) {
      bool untouched = false, nonfinite = false;
      wrong[i] = judge(i, untouched, nonfinite);
    }
    add_position_hints(cmp, actual, wrong, before != nullptr, host_pointers);
    add_value_hints(cmp, actual, expected);
  }
  return cmp;
}

std::vector<std::string> modified_inputs(const std::vector<Buffer>& original,
                                         const std::vector<const std::byte*>& after) {
  std::vector<std::string> names;
  for (std::size_t b = 0; b < original.size() && b < after.size(); ++b) {
    if (original[b].role != Role::input) continue;
    if (after[b] == nullptr || !parallel_equal(original[b].bytes.data(), after[b], original[b].bytes.size())) {
      names.push_back(original[b].name);
    }
  }
  return names;
}

std::vector<std::string> describe_mismatches(const OutputComparison& cmp, const Buffer& actual) {
  std::vector<std::string> lines;
  for (const auto& m : cmp.first) {
    std::string where = (actual.rows > 0 && actual.cols > 0)
                            ? fmt::format("{}[{}][{}]", cmp.buffer, m.index / static_cast<std::size_t>(actual.cols),
                                          m.index % static_cast<std::size_t>(actual.cols))
                            : fmt::format("{}[{}]", cmp.buffer, m.index);
    lines.push_back(fmt::format("{}: expected {}, got {}{}", where, format_value(m.expected),
                                m.untouched && std::isnan(m.actual) ? "the poison NaN" : format_value(m.actual),
                                m.untouched ? " (never written)" : ""));
  }
  return lines;
}

namespace {

/// The case's dimension whose value is `extent`, to name a buffer's rows or columns ("N" for the
/// rows of 09's N×M output), other than `taken` (a square case: the other side's); empty if none.
std::string dim_named(const Case& c, std::size_t extent, const std::string& taken) {
  std::string named;
  for (const Dim& d : c.dims) {
    if (d.value != static_cast<std::int64_t>(extent) || d.name == taken) continue;
    // Two dimensions of this size (a square transpose): which one it is cannot be told.
    if (!named.empty()) return "";
    named = d.name;
  }
  return named;
}

/// The names of a 2D output's rows and columns among the case's dimensions, and whether they
/// come in the other order (the output is the input transposed: rows named by the later one).
struct Sides {
  std::string rows, cols;
  bool transposed = false;
};

Sides sides_of(const Buffer& output, const Case& c) {
  Sides s;
  s.rows = dim_named(c, static_cast<std::size_t>(output.rows), "");
  s.cols = dim_named(c, static_cast<std::size_t>(output.cols), s.rows);
  if (!s.rows.empty() && !s.cols.empty()) {
    auto at = [&](const std::string& name) {
      return std::ranges::find_if(c.dims, [&](const Dim& d) { return d.name == name; }) - c.dims.begin();
    };
    s.transposed = at(s.rows) > at(s.cols);
  }
  return s;
}

const char* type_name(DType t) { return t == DType::f32 ? "float" : "int"; }

}  // namespace

bool launches_cover(const Buffer& output, const Case& c, const protocol::Records& records, bool launches_recorded) {
  if (!launches_recorded) return false;
  const bool two_d = output.rows > 0 && output.cols > 0;
  const auto rows = static_cast<std::uint64_t>(output.rows), cols = static_cast<std::uint64_t>(output.cols);
  const bool transposed = two_d && sides_of(output, c).transposed;
  for (const auto& l : records.launches) {
    const std::uint64_t x = std::uint64_t{l.grid[0]} * l.block[0];
    const std::uint64_t y = std::uint64_t{l.grid[1]} * l.block[1];
    const std::uint64_t z = std::uint64_t{l.grid[2]} * l.block[2];
    // A flat launch over a matrix indexes it row-major: its thread count is what matters.
    if (!two_d || (y == 1 && z == 1)) {
      if (x * y * z >= output.count()) return true;
      continue;
    }
    if (x >= cols && y >= rows) return true;
    if (transposed && x >= rows && y >= cols) return true;
  }
  return false;
}

std::vector<std::string> hints_with_launches(const OutputComparison& cmp, const Buffer& output, const Case& c,
                                             const TaskInfo& info, const protocol::Records& records,
                                             bool launches_recorded) {
  std::vector<std::string> hints = cmp.hints;
  if (!cmp.grid_pattern || cmp.grid_pattern->hint >= hints.size()) return hints;
  const GridPattern& g = *cmp.grid_pattern;
  std::string& hint = hints[g.hint];
  const Sides sides = output.rows > 0 && output.cols > 0 ? sides_of(output, c) : Sides{};
  // Where no dimension alone has the size (a square case), the count itself: "all 33 rows".
  const std::string row_dim = sides.rows.empty() ? std::to_string(output.rows) : sides.rows;
  const std::string col_dim = sides.cols.empty() ? std::to_string(output.cols) : sides.cols;
  const std::size_t n = cmp.count;
  if (!launches_cover(output, c, records, launches_recorded)) {
    // The grid may well be short; only the dimensions' names change.
    switch (g.kind) {
      case GridPattern::Kind::suffix:
        break;
      case GridPattern::Kind::rows:
        hint = fmt::format("every row from {} on is wrong ({} rows): does your grid cover all {} rows?", g.from,
                           output.rows, row_dim);
        break;
      case GridPattern::Kind::columns:
        hint = fmt::format("every column from {} on is wrong ({} columns): does your grid cover all {} columns?",
                           g.from_col, output.cols, col_dim);
        break;
      case GridPattern::Kind::rows_and_columns:
        hint = fmt::format(
            "every row from {} on and every column from {} on is wrong: does your grid cover all {} rows? does your "
            "grid cover all {} columns?",
            g.from, g.from_col, row_dim, col_dim);
        break;
    }
    return hints;
  }
  // A thread ran for every element: the grid is not what stopped early.
  switch (g.kind) {
    case GridPattern::Kind::suffix:
      if (info.pointers == PointerKind::host && n >= 2 && (g.from == n / 4 || g.from == (n + 3) / 4)) {
        // n bytes are n/4 elements (and a split one): the copy, not the grid, stopped there.
        hint = fmt::format(
            "only the first {} of {} elements of {} are right, and the launch ran a thread for every element: "
            "cudaMemcpy counts bytes, not elements — pass n * sizeof({})",
            g.from, n, cmp.buffer, type_name(output.dtype));
      } else if (info.pointers == PointerKind::host) {
        hint = fmt::format(
            "every element from index {} on is wrong ({} of {} are right), though the launch ran a thread for every "
            "element: check the size of each cudaMemcpy (in bytes, n * sizeof({})) and the bound each thread tests",
            g.from, g.from, n, type_name(output.dtype));
      } else {
        hint = fmt::format(
            "every element from index {} on is wrong ({} of {} are right), though the launch ran a thread for every "
            "element: check the index each thread computes and the bound it tests (if (i < n))",
            g.from, g.from, n);
      }
      break;
    case GridPattern::Kind::rows:
      hint = fmt::format(
          "every row from {} on is wrong ({} rows), though the grid's threads reach all {} rows: check the row index, "
          "its bound (row < {}) and the row stride (row r starts at r * {}, the row length)",
          g.from, output.rows, row_dim, row_dim, col_dim);
      break;
    case GridPattern::Kind::columns:
      hint = fmt::format(
          "every column from {} on is wrong ({} columns), though the grid's threads reach all {} columns: check the "
          "column index, its bound (col < {}) and what is indexed by it",
          g.from_col, output.cols, col_dim, col_dim);
      break;
    case GridPattern::Kind::rows_and_columns:
      hint = fmt::format(
          "every row from {} on and every column from {} on is wrong, though the grid's threads reach the whole "
          "matrix: check the last, partial tile — the bounds each thread tests, and that what lies outside the "
          "matrix is loaded as 0",
          g.from, g.from_col);
      break;
  }
  return hints;
}

std::string describe_launches(const protocol::Records& records) {
  const auto& launches = records.launches;
  if (launches.empty()) return "no launches";
  std::string out = fmt::format("{} launch{}: ", launches.size(), launches.size() == 1 ? "" : "es");
  constexpr std::size_t kShown = 3;
  for (std::size_t i = 0; i < launches.size() && i < kShown; ++i) {
    const auto& l = launches[i];
    const std::string name = kernel_display_name(l.kernel);
    out += fmt::format("{}{}<<<({},{},{}), ({},{},{})>>> {} B shared", i == 0 ? "" : ", ",
                       name.empty() ? "kernel" : name, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                       l.block[2], l.static_shared_bytes + l.dynamic_shared_bytes);
  }
  if (launches.size() > kShown) out += fmt::format(", … ({} more)", launches.size() - kShown);
  return out;
}

std::optional<std::string> size_pattern_hint(const std::vector<CaseOutcome>& outcomes) {
  std::size_t failing = 0;
  for (const auto& o : outcomes) failing += o.passed ? 0 : 1;
  if (failing == 0 || failing == outcomes.size() || outcomes.empty()) return std::nullopt;
  const auto& dims = outcomes.front().c.dims;
  // Fails exactly when one named dimension is not a multiple of P; then, with several
  // dimensions, exactly when any is. The largest such P is the likeliest tile or block size.
  for (const std::int64_t p : {256, 128, 64, 32, 16, 8, 4}) {
    auto fits = [&](auto misaligned) {
      return std::ranges::all_of(outcomes, [&](const CaseOutcome& o) { return misaligned(o.c) != o.passed; });
    };
    for (const auto& d : dims) {
      if (fits([&](const Case& c) { return c.dim(d.name) % p != 0; })) {
        return fmt::format(
            "fails exactly when {} is not a multiple of {} (right only on multiples of {} along {}): does the code "
            "handle the last, partial tile or block along {}?",
            d.name, p, p, d.name, d.name);
      }
    }
    if (dims.size() > 1 && fits([&](const Case& c) {
          return std::ranges::any_of(c.dims, [&](const Dim& d) { return d.value % p != 0; });
        })) {
      std::string names;
      for (std::size_t i = 0; i < dims.size(); ++i) {
        names += (i == 0 ? "" : i + 1 == dims.size() ? " and " : ", ") + dims[i].name;
      }
      return fmt::format(
          "right only on multiples of {}: fails whenever one of {} is not a multiple of {}, whichever it is — does "
          "the code handle a last, partial tile in every dimension?",
          p, names, p);
    }
  }
  // Fails exactly when the problem is larger than some size.
  auto volume = [](const Case& c) {
    double v = 1;
    for (const auto& d : c.dims) v *= static_cast<double>(d.value);
    return v;
  };
  double largest_pass = 0, smallest_fail = INFINITY;
  const Case* first_fail = nullptr;
  const Case* last_pass = nullptr;
  bool all_covered = true;  // every failing case's launches reached its whole output
  for (const auto& o : outcomes) {
    const double v = volume(o.c);
    if (o.passed && v > largest_pass) largest_pass = v, last_pass = &o.c;
    if (!o.passed && v < smallest_fail) smallest_fail = v, first_fail = &o.c;
    if (!o.passed) all_covered = all_covered && o.covered;
  }
  if (last_pass != nullptr && first_fail != nullptr && largest_pass < smallest_fail) {
    if (all_covered) {
      return fmt::format(
          "passes up to {} and fails from {} on, though the grid covered the output at every size: look for what "
          "does not follow the size — an index or stride taken from the wrong dimension, a loop bound, a fixed "
          "count",
          last_pass->label(), first_fail->label());
    }
    return fmt::format("passes up to {} and fails from {} on: does your grid (or loop) grow with the problem size?",
                       last_pass->label(), first_fail->label());
  }
  return std::nullopt;
}

}  // namespace cudalab
