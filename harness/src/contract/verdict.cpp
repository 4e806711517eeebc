#include "cudalab/verdict.hpp"

#include <cstddef>
#include <stdexcept>

namespace cudalab {

const std::vector<VerdictTraits>& verdict_table() {
  using enum Verdict;
  constexpr Fault kNobody = Fault::none;
  constexpr Fault kStudent = Fault::submission;
  // Greens for passed, reds for wrong results, warm tones for runs that broke, greys for the harness.
  static const std::vector<VerdictTraits> table = {
      {passed, "passed", "passed", false, true, kNobody, "#2e8b57"},
      {wrong_output, "wrong_output", "wrong output", false, false, kStudent, "#c8423b"},
      {input_modified, "input_modified", "input modified", false, false, kStudent, "#e06c5e"},
      {out_of_bounds, "out_of_bounds", "out of bounds", false, false, kStudent, "#b03060"},
      {data_race, "data_race", "data race", false, false, kStudent, "#d6336c"},
      {uninitialized_read, "uninitialized_read", "uninitialised read", false, false, kStudent, "#e8590c"},
      {barrier_error, "barrier_error", "barrier error", false, false, kStudent, "#862e9c"},
      {device_leak, "device_leak", "device memory leaked", false, true, kStudent, "#b5651d"},
      {requirement_unmet, "requirement_unmet", "requirement not met", false, true, kStudent, "#d49a1c"},
      {not_implemented, "not_implemented", "not implemented", true, false, kStudent, "#9aa5b1"},
      {exception, "exception", "exception", false, false, kStudent, "#8e44ad"},
      {cuda_error, "cuda_error", "CUDA error", false, false, kStudent, "#a93f6b"},
      {crash, "crash", "crashed", false, false, kStudent, "#7b2d26"},
      {timeout, "timeout", "timed out", true, false, kStudent, "#e08a2c"},
      {output_flood, "output_flood", "output flood", false, false, kStudent, "#c06c84"},
      {compile_error, "compile_error", "compile error", true, false, kStudent, "#5b3f8c"},
      {wrong_signature, "wrong_signature", "wrong signature", true, false, kStudent, "#6c5ce7"},
      {load_error, "load_error", "cannot load", true, false, kStudent, "#4a5568"},
      {runner_error, "runner_error", "harness error", true, false, Fault::harness, "#4a5568"},
      {skipped, "skipped", "skipped", false, false, kNobody, "#cbd2d9"},
      {impossible_speed, "impossible_speed", "impossible speed", false, false, kStudent, "#718096"},
      {timing_mismatch, "timing_mismatch", "untrusted timing", false, false, kStudent, "#718096"},
  };
  return table;
}

const VerdictTraits& traits_of(Verdict v) {
  const auto& table = verdict_table();
  const auto row = static_cast<std::size_t>(v);
  if (row >= table.size() || table[row].verdict != v) throw std::logic_error("the verdict table is out of order");
  return table[row];
}

std::optional<Verdict> verdict_from_name(std::string_view name) {
  for (const auto& row : verdict_table()) {
    if (name == row.name) return row.verdict;
  }
  return std::nullopt;
}

}  // namespace cudalab
