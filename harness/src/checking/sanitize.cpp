// The checks beyond the outputs: the default checked run on the simulator (every access of the
// small cases checked, then the same cases with each block's threads in other orders), and
// compute-sanitizer's tools on a GPU (`--sanitize`). What they find leads a case's report.
#include "sanitize.hpp"

#include <algorithm>
#include <future>
#include <map>
#include <numeric>
#include <sstream>

#include <fmt/format.h>

#include "cudalab/findings.hpp"
#include "cudalab/paths.hpp"

namespace cudalab {

namespace fs = std::filesystem;

bool is_small(const Task& task, const Case& c) { return work_of(task, c) <= (std::int64_t{1} << 16); }

namespace {

/// The small cases of `result` whose verdict `keep` accepts, and where each stands in it.
template <class Keep>
std::pair<std::vector<Case>, std::vector<std::size_t>> small_cases(const ExerciseResult& result, Keep keep) {
  std::pair<std::vector<Case>, std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < result.cases.size(); ++i) {
    if (is_small(*result.task, result.cases[i].c) && keep(result.cases[i].verdict)) {
      out.first.push_back(result.cases[i].c);
      out.second.push_back(i);
    }
  }
  return out;
}

/// compute-sanitizer: CUDALAB_COMPUTE_SANITIZER, else on PATH, else the toolkit's usual place.
fs::path find_compute_sanitizer() {
  return find_tool("CUDALAB_COMPUTE_SANITIZER", "compute-sanitizer",
                   {"/usr/local/cuda/bin/compute-sanitizer", "/usr/local/cuda/compute-sanitizer/compute-sanitizer"});
}

}  // namespace

namespace {

/// The options of the checked run's processes: on the simulator, with nothing of a GPU run's.
CheckOptions checked_run_options(const CheckOptions& options) {
  CheckOptions run = options;
  run.visible_devices.clear();
  run.runner_prefix.clear();
  run.runner_output = nullptr;
  return run;
}

/// The small cases the checked run runs, in its sequence.
std::vector<Case> checked_sequence(const Task& task, const CheckOptions& options) {
  std::vector<Case> small;
  for (const Case& c : select_cases(task, Backend::sim, options)) {
    if (is_small(task, c)) small.push_back(c);
  }
  return small;
}

/// The same sequence of cases again, once with each block's threads started in reverse and once
/// in shuffled order (two processes at once), from `module` with its checks off.
OrderRuns run_sequence_in_other_orders(const Task& task, const Toolchain& toolchain, const fs::path& module,
                                       const std::vector<Case>& sequence, const CheckOptions& options) {
  const auto run_in = [&](protocol::ThreadOrder order) {
    CheckOptions again = options;
    again.sanitize = false;  // only the order differs
    again.order = order;
    again.orders.clear();
    again.runner_output = nullptr;
    return run_cases(task, toolchain, module, sequence, again);
  };
  auto shuffled = std::async(std::launch::async, run_in, protocol::ThreadOrder::shuffled);
  OrderRuns runs;
  runs.reversed = run_in(protocol::ThreadOrder::reverse);
  runs.shuffled = shuffled.get();
  return runs;
}

/// A finding for each case `where[k]` of `cases` that passed in order and is wrong in another
/// order (the k-th case of the order runs): reported once, in reverse order if it fails there.
void judge_other_orders(const fs::path& module, const OrderRuns& runs, const std::vector<std::size_t>& where,
                        std::vector<CaseResult>& cases) {
  for (const protocol::ThreadOrder order : {protocol::ThreadOrder::reverse, protocol::ThreadOrder::shuffled}) {
    const std::vector<CaseResult>& other = order == protocol::ThreadOrder::reverse ? runs.reversed : runs.shuffled;
    for (std::size_t k = 0; k < other.size() && k < where.size(); ++k) {
      CaseResult& r = cases[where[k]];
      if (other[k].verdict != Verdict::wrong_output || r.verdict != Verdict::passed) continue;
      protocol::Finding f;
      f.kind = protocol::FindingKind::order;
      f.where =
          fmt::format("right with each block's threads started in order, wrong with them started in {} order ({})",
                      order == protocol::ThreadOrder::reverse ? "reverse" : "shuffled", other[k].message);
      r.findings.push_back(f);
      r.details.clear();
      judge_findings(r.findings, module, r);
    }
  }
}

}  // namespace

/// The sanitize runs' last step on the simulator: the small cases that passed run again with each
/// block's threads started in reverse and in shuffled order. A GPU promises no order, so a case
/// that fails in another order has a race, even where no pair of accesses showed it (a race
/// through a pointer the checks do not see, or one that only reordering exposes).
void check_thread_orders(const Task& task, const Toolchain& toolchain, const fs::path& module,
                         const CheckOptions& options, std::vector<CaseResult>& cases) {
  // The cases run again in the sequence they ran in (all the small ones that ran, passed or not),
  // each order in a process of its own: the k-th call of solve then meets the state the k-th call
  // met before, so a kernel that keeps state between calls (an accumulator never reset) is not
  // taken for a race. Only a case that passed in order and fails in another order is a finding.
  std::vector<Case> sequence;
  std::vector<std::size_t> where;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (is_small(task, cases[i].c) && cases[i].verdict != Verdict::skipped) {
      sequence.push_back(cases[i].c);
      where.push_back(i);
    }
  }
  if (std::ranges::none_of(where, [&](std::size_t i) { return cases[i].verdict == Verdict::passed; })) return;
  judge_other_orders(module, run_sequence_in_other_orders(task, toolchain, module, sequence, options), where, cases);
}

/// The sanitize runs on a GPU: the small cases again under each of compute-sanitizer's tools
/// (memcheck: out of bounds and misaligned; racecheck: shared-memory races; synccheck: barriers;
/// initcheck: uninitialised global memory), their reports read into findings.
void check_with_compute_sanitizer(const Task& task, const Toolchain& toolchain, const fs::path& module,
                                  const CheckOptions& options, ExerciseResult& result) {
  const fs::path tool = find_compute_sanitizer();
  // A case that ran out of time does not run again under a tool that slows it down further: the
  // check's time limit holds under compute-sanitizer too.
  if (std::ranges::any_of(result.cases, [](const CaseResult& c) { return c.verdict == Verdict::timeout; })) return;
  const auto [small, where] = small_cases(result, [](Verdict v) { return v != Verdict::skipped; });
  if (small.empty()) return;
  if (tool.empty()) {
    result.hints.push_back(
        "--sanitize on a GPU runs compute-sanitizer, which was not found (it comes with the CUDA toolkit: put its "
        "bin folder on PATH, or set CUDALAB_COMPUTE_SANITIZER)");
    return;
  }
  std::vector<std::vector<protocol::Finding>> found(small.size());
  std::map<std::uint64_t, SourcePlace> places;
  for (const char* name : {"memcheck", "racecheck", "synccheck", "initcheck"}) {
    CheckOptions again = options;
    again.sanitize = false;
    std::string output;
    again.runner_output = &output;
    again.runner_prefix = {tool.string(), "--tool", name, "--print-limit", "32", "--show-backtrace", "no"};
    // The tools slow kernels down many times; the small cases take milliseconds without them, so
    // three times the limit is room enough, and a kernel that never ends is stopped as promised.
    again.timeout = options.timeout * 3;
    (void)run_cases(task, toolchain, module, small, again);
    const auto parsed = parse_compute_sanitizer(output, places, result.source);
    for (const auto& [k, f] : parsed) {
      if (k < found.size()) found[k].push_back(f);
    }
    // A report this parser cannot read is still shown, rather than lost.
    const std::size_t summary = output.find("ERROR SUMMARY: ");
    if (parsed.empty() && summary != std::string::npos && output.compare(summary + 15, 2, "0 ") != 0) {
      std::string shown;
      std::istringstream lines(output);
      std::string line;
      for (int n = 0; n < 12 && std::getline(lines, line);) {
        if (line.rfind("=========", 0) == 0) {
          shown += "\n    " + line;
          ++n;
        }
      }
      result.hints.push_back(fmt::format("compute-sanitizer's {} reported errors:{}", name, shown));
    }
  }
  for (std::size_t k = 0; k < small.size(); ++k) {
    if (found[k].empty()) continue;
    CaseResult& r = result.cases[where[k]];
    r.findings = found[k];
    judge_findings(r.findings, module, r, &places, task.info().in_place_steps);
  }
}

OrderRuns run_in_other_orders(const Task& task, const Toolchain& toolchain, const fs::path& module,
                              const CheckOptions& options) {
  const std::vector<Case> small = checked_sequence(task, options);
  if (small.empty()) return {};
  return run_sequence_in_other_orders(task, toolchain, module, small, checked_run_options(options));
}

std::vector<CaseResult> run_checked(const Task& task, const Toolchain& checked, const fs::path& module,
                                    const CheckOptions& options, std::shared_future<OrderRuns> orders) {
  const std::vector<Case> small = checked_sequence(task, options);
  if (small.empty()) return {};
  CheckOptions run = checked_run_options(options);
  run.sanitize = true;  // every access of these cases checked
  // The other orders run at once with the checked run (three processes, not two after one): they
  // repeat the same sequence, and only the cases the checked run passed are judged, so cases it
  // never reached (a check stops at some failures) are work thrown away, nothing more.
  if (!orders.valid()) {
    orders = std::async(std::launch::async, run_sequence_in_other_orders, std::cref(task), std::cref(checked),
                        std::cref(module), std::cref(small), std::cref(run))
                 .share();
  }
  std::vector<CaseResult> cases = run_cases(task, checked, module, small, run);
  std::vector<std::size_t> where(cases.size());
  std::iota(where.begin(), where.end(), std::size_t{0});
  judge_other_orders(module, orders.get(), where, cases);
  return cases;
}

void merge_checked(std::vector<CaseResult>&& checked, Backend backend, ExerciseResult& result) {
  for (CaseResult& found : checked) {
    const auto same =
        std::ranges::find_if(result.cases, [&](const CaseResult& r) { return r.c.label() == found.c.label(); });
    if (same == result.cases.end() || same->verdict == Verdict::skipped) continue;
    CaseResult& r = *same;
    if (!found.findings.empty() && r.verdict == Verdict::cuda_error && r.records.first_failed_call &&
        r.records.first_failed_call->call.starts_with("cuda")) {
      // A runtime call that failed (a copy larger than its allocation) is the cause; what the
      // kernel then did wrong in the checked run follows from it. A failed launch, or work left
      // on a stream, is the kernel's or solve's own fault, which the finding names with its line.
      r.details.push_back("the checked run also found: " + found.message);
      continue;
    }
    if (!found.findings.empty() && r.findings.empty()) {
      // The finding names the cause: it leads, whatever the plain run's output was.
      const Verdict plain = r.verdict;
      r.verdict = found.verdict;
      r.message = found.message;
      r.details = std::move(found.details);
      r.hints = std::move(found.hints);
      r.findings = std::move(found.findings);
      r.placed = std::move(found.placed);
      r.diagnosed = false;
      r.work_on_host = found.work_on_host;
      if (backend == Backend::gpu && r.work_on_host) {
        r.details.push_back("found by the simulator's checked run: a GPU runner cannot see a kernel touch host memory");
      } else if (backend == Backend::gpu) {
        r.details.push_back(plain == Verdict::passed
                                ? "found by the simulator's checked run; the output on the GPU was right, by luck"
                                : "found by the simulator's checked run; on the GPU: " +
                                      std::string(verdict_title(plain)));
      }
      continue;
    }
    if (found.verdict == Verdict::passed || r.verdict != Verdict::passed || !found.findings.empty()) continue;
    if (backend == Backend::sim) {
      // Same inputs, same simulator: only the build differs (accesses as written, locals
      // poisoned), so its failure is the kernel's.
      const std::string label = r.c.label();
      r.verdict = found.verdict;
      r.message = found.message;
      r.details = std::move(found.details);
      r.details.push_back(
          "right in the plain build, wrong in the checked build: the result depends on a value "
          "nobody wrote, or on how the compiler happened to order the accesses");
      r.hints = std::move(found.hints);
      r.diagnosed = found.diagnosed;
    }
    // On a GPU a failure of the simulator's alone is not the student's (a feature the simulator
    // lacks): only findings cross over.
  }
}

}  // namespace cudalab
