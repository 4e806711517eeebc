#include "cudalab/detail/case_judge.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudalab/judge.hpp"
#include "cudalab/text.hpp"

namespace cudalab {

namespace {

/// The input set of measured call `call`: the runner goes round the sets call by call, warm-ups
/// first (runner_main.cpp).
std::size_t witness_set(const protocol::Reply& reply, std::size_t call, std::size_t sets) {
  const std::size_t warmups = reply.calls - reply.samples_s.size();
  return (warmups + call) % sets;
}

}  // namespace

/// The outputs' values alone: a wrong one makes `r` wrong_output with its details and hints.
/// Returns whether all were right. `after`'s inputs are not read.
bool judge_values(const Task& task, const Case& c, const std::vector<Buffer>& originals,
                  const std::vector<Buffer>& after, const std::vector<Expected>& expected, CaseResult& r) {
  const bool host = task.info().pointers == PointerKind::host;
  std::vector<std::string> wrong_parts;
  for (const auto& e : expected) {
    const Buffer& actual = after.at(e.buffer);
    const Buffer* before = actual.role == Role::inout ? &originals.at(e.buffer) : nullptr;
    OutputComparison cmp = compare_output(actual, e, before, host);
    if (cmp.ok()) continue;
    wrong_parts.push_back(
        fmt::format("{} of {} element{} of {} wrong", cmp.wrong, cmp.count, cmp.count == 1 ? "" : "s", cmp.buffer));
    auto lines = describe_mismatches(cmp, actual);
    r.details.insert(r.details.end(), lines.begin(), lines.end());
    // The task's diagnosis matched the whole output against a known mistake; the generic hints
    // only guess from where and what the wrong values are, and would contradict it.
    if (auto specific = task.diagnose(c, originals, actual, e)) {
      r.hints.push_back(*specific);
      r.diagnosed = true;
    } else {
      // A grid hint only where the launches left elements without a thread.
      const auto hints = hints_with_launches(cmp, actual, c, task.info(), r.records, r.launches_recorded);
      r.hints.insert(r.hints.end(), hints.begin(), hints.end());
    }
    r.output_covered = r.output_covered && launches_cover(actual, c, r.records, r.launches_recorded);
  }
  if (!wrong_parts.empty()) {
    r.verdict = Verdict::wrong_output;
    std::string joined;
    for (const auto& p : wrong_parts) joined += (joined.empty() ? "" : "; ") + p;
    r.message = fmt::format("wrong output at {}: {}", c.label(), joined);
    // The launch configuration beside the wrong values: whether the grid could cover the output.
    if (r.launches_recorded) r.details.push_back("launched: " + describe_launches(r.records));
    return false;
  }
  return true;
}

/// Guard zones that solve wrote into (protocol::OutOfBounds): verdict out_of_bounds, each write
/// named by buffer, side and elements. Returns whether there were none.
bool judge_bounds(const Case& c, const std::vector<Buffer>& like, const protocol::Reply& reply, CaseResult& r) {
  if (reply.out_of_bounds.empty()) return true;
  std::vector<std::string> parts;
  bool single_value = false;  // a buffer of one element written past: partial results put there
  for (const auto& o : reply.out_of_bounds) {
    // The name comes from the runner, which ran student code: only the case's own names are shown.
    const auto buffer = std::ranges::find_if(like, [&](const Buffer& b) { return b.name == o.buffer; });
    const std::string name = buffer == like.end() ? "a buffer" : buffer->name;
    const std::size_t size = buffer == like.end() ? 4 : dtype_size(buffer->dtype);
    const std::size_t count = buffer == like.end() ? 0 : buffer->count();
    // One element at a size where every dimension is more: the buffer of a single result (a sum).
    single_value = single_value ||
                   (count == 1 && !o.before && std::ranges::all_of(c.dims, [](const auto& d) { return d.value > 1; }));
    const std::size_t first = o.first / size;
    const std::size_t last = o.last / size;
    std::string elements;
    if (buffer != like.end()) {
      elements = o.before ? fmt::format("{}[-{}]", name, last + 1) +
                                (last > first ? fmt::format(" to {}[-{}]", name, first + 1) : std::string())
                          : fmt::format("{}[{}]", name, count + first) +
                                (last > first ? fmt::format(" to {}[{}]", name, count + last) : std::string());
    }
    parts.push_back(fmt::format("{} {} {}{}", format_bytes(static_cast<double>(o.changed)),
                                o.before ? "before the start of" : "past the end of", name,
                                elements.empty() ? "" : " (" + elements + ")"));
  }
  r.verdict = Verdict::out_of_bounds;
  r.message = fmt::format("solve wrote outside its buffers at {}: {}", c.label(), fmt::join(parts, "; "));
  r.hints.push_back(single_value ? "a buffer of one element holds the one result: write it from one thread, or "
                                   "add into it with atomicAdd; partial results need memory of their own (cudaMalloc)"
                                 : "a thread whose index is past the last element must not write: check the index "
                                   "against the size (`if (i < n)`) before every store, or size the grid so that no "
                                   "thread is left over");
  r.details.push_back(
      "on a GPU such a write lands in whatever memory follows the buffer and may go unnoticed; here it "
      "landed in a guard zone the harness puts around every buffer");
  return false;
}

/// judge_values, then the inputs (where the runner had them: `inputs_now`), leaks and requirements.
void judge_outputs(const Task& task, const Case& c, const std::vector<Buffer>& originals,
                   const std::vector<Buffer>& after, const std::vector<const std::byte*>& inputs_now,
                   const std::vector<Expected>& expected, CaseResult& r) {
  if (!judge_values(task, c, originals, after, expected, r)) {
    // A __constant__ array never filled reads as zeros: that, not the pattern of zeros, is the cause.
    if (task.info().requires_constant_memory && !filled_constant_memory(r.records)) {
      r.hints = {
          "no cudaMemcpyToSymbol was made: a __constant__ array that is never filled holds zeros — copy the "
          "coefficients into it in solve, on every call"};
    }
    return;
  }
  const bool host = task.info().pointers == PointerKind::host;
  if (auto changed = modified_inputs(originals, inputs_now); !changed.empty()) {
    std::string names;
    for (const auto& n : changed) names += (names.empty() ? "" : ", ") + n;
    r.verdict = Verdict::input_modified;
    r.message = fmt::format("the input {} changed at {}: inputs are read-only", names, c.label());
    return;
  }
  if (host) {
    std::size_t leaked = 0;
    double leaked_bytes = 0;
    for (const auto& a : r.records.allocations) {
      if (!a.freed && a.kind != protocol::MemoryKind::pinned) {
        ++leaked;
        leaked_bytes += static_cast<double>(a.bytes);
      }
    }
    if (leaked > 0) {
      r.verdict = Verdict::device_leak;
      r.message = fmt::format("{} device allocation{} ({}) not freed at {}: call cudaFree for every cudaMalloc", leaked,
                              leaked == 1 ? "" : "s", format_bytes(leaked_bytes), c.label());
      return;
    }
  }
  if (auto unmet = requirement_failures(task.info(), originals, r.records, r.launches_recorded); !unmet.empty()) {
    r.verdict = Verdict::requirement_unmet;
    r.work_on_host = task.info().pointers != PointerKind::host && !host_work_failures(originals, r.records).empty();
    r.message = fmt::format("right output at {}, but {}", c.label(), unmet.front());
    r.hints.insert(r.hints.end(), unmet.begin() + 1, unmet.end());
    return;
  }
  r.verdict = Verdict::passed;
  r.message = "passed";
}

/// Bench: the outputs of the timed calls the parent chose to verify. False (with `r` filled in)
/// when one is wrong or missing.
bool judge_witnesses(const Task& task, const Case& c, const protocol::BenchRun& bench, const protocol::Reply& reply,
                     const SetViews& sets, const SharedBuffers& shared, const ExpectedFn& expected, CaseResult& r) {
  const std::size_t measured = reply.samples_s.size();
  if (!bench.witnesses.empty() && (measured == 0 || reply.calls < measured)) {
    r.verdict = Verdict::timing_mismatch;
    r.message = fmt::format("the runner's reply at {} counts {} timed calls of {} in all: it was not the runner's own",
                            c.label(), measured, reply.calls);
    return false;
  }
  for (std::size_t w = 0; w < bench.witnesses.size(); ++w) {
    const std::size_t call = bench.witnesses[w].call;
    if (call >= measured) continue;  // the sampler stopped before it
    if (std::ranges::find(reply.witnessed, call) == reply.witnessed.end()) {
      r.verdict = Verdict::timing_mismatch;
      r.message = fmt::format(
          "the outputs of timed call {} at {} never came back for checking: something in the runner's process "
          "interfered with it",
          call + 1, c.label());
      return false;
    }
    const std::size_t set = witness_set(reply, call, sets.size());
    const std::vector<Buffer> after = shared.read_witness(w, *sets[set]);
    CaseResult one;
    if (!judge_values(task, c, *sets[set], after, expected(set), one)) {
      r.verdict = one.verdict;
      r.message = fmt::format("timed call {} of {}: {}", call + 1, measured, one.message);
      r.details = one.details;
      r.hints = one.hints;
      r.hints.emplace_back(
          "every timed call starts with its outputs poisoned, and the parent checks some of them: each call must "
          "compute its result, not leave the one an earlier call wrote");
      return false;
    }
  }
  return true;
}

}  // namespace cudalab
