// explain's report: text for people, JSON for tools (explain.hpp; docs/explain.md).
#include <algorithm>

#include <fmt/color.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudalab/explain.hpp"
#include "cudalab/text.hpp"
#include "units.hpp"

namespace cudalab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// Lines the report lists with -v, the costliest first.
constexpr std::size_t kMaxLinesShown = 16;
/// Barrier intervals a kernel's line lists.
constexpr std::size_t kMaxIntervalsShown = 10;

std::string blocks_text(std::uint64_t blocks) { return fmt::format("{} block{}", blocks, blocks == 1 ? "" : "s"); }

std::string flops_text(double flops) {
  if (flops >= 1e9) return fmt::format("{:.2f} GFLOP", flops / 1e9);
  if (flops >= 1e6) return fmt::format("{:.2f} MFLOP", flops / 1e6);
  return fmt::format("{:.0f} FLOP", flops);
}

/// Lines of a barrier interval: "start–14", "14–19", "19–end".
std::string interval_lines(const protocol::BarrierInterval& i) {
  return fmt::format("{}–{}", i.from_line == 0 ? std::string("start") : std::to_string(i.from_line),
                     i.to_line == 0 ? std::string("end") : std::to_string(i.to_line));
}

/// "lanes active between barriers (lines): start–14 100 %, 14–19 50 %, …".
std::string intervals_text(const KernelExplain& k) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < k.intervals.size() && i < kMaxIntervalsShown; ++i) {
    const auto& iv = k.intervals[i];
    parts.push_back(fmt::format("{} {:.0f} %", interval_lines(iv), 100 * iv.active_lanes / (32 * iv.requests)));
  }
  return fmt::format("lanes active between barriers (by line): {}{}", fmt::join(parts, ", "),
                     k.intervals.size() > kMaxIntervalsShown ? fmt::format(", … ({} in all)", k.intervals.size()) : "");
}

/// "kernel.cu:12", or "?" where the line is unknown (a table's column is never empty).
std::string place_or_question_mark(const SourcePlace& place) {
  if (place.line <= 0) return "?";
  return fmt::format("{}:{}", fs::path(place.file).filename().string(), place.line);
}

/// "1.6 × the best time", or "at the best time".
std::string factor_text(const ExplainResult& r) {
  if (r.best_s <= 0) return "";
  return fmt::format("{:.1f} × the best time", r.estimated_s / r.best_s);
}

/// Why the roofline's best is what it is: bytes or FLOPs.
std::string bound_text(const ExplainResult& r) {
  const double memory = r.needed.bytes / r.target.dram_bytes_per_s;
  const double compute = r.needed.flops / r.target.fp32_flops_per_s;
  return memory >= compute
             ? fmt::format("{} at {:.2f} TB/s", bytes_text(r.needed.bytes), r.target.dram_bytes_per_s / 1e12)
             : fmt::format("{} at {:.1f} TFLOP/s", flops_text(r.needed.flops), r.target.fp32_flops_per_s / 1e12);
}

/// A verdict's name in the JSON: the run's failure, else "slow" (findings) or "no_problem".
std::string verdict_of(const ExplainResult& r) {
  if (!r.ran()) return verdict_name(r.verdict);
  return r.findings.empty() ? "no_problem" : "slow";
}

}  // namespace

void write_explain_report(std::ostream& out, const std::vector<ExplainResult>& results, const ReportStyle& style) {
  const auto bad = fmt::fg(fmt::terminal_color::red) | fmt::emphasis::bold;
  const auto good = fmt::fg(fmt::terminal_color::green) | fmt::emphasis::bold;
  const auto cyan = fmt::fg(fmt::terminal_color::cyan);
  bool first = true;
  for (const auto& r : results) {
    if (!first) out << '\n';
    first = false;
    out << paint(style.color, fmt::emphasis::bold, r.task->info().id) << " at " << r.c.label() << "  ("
        << display_path(r.source) << ")\n";
    if (r.verdict == Verdict::compile_error) {
      out << "  " << paint(style.color, bad, "✗") << " the file does not compile:\n" << r.compile.diagnostics;
      if (!r.compile.diagnostics.empty() && r.compile.diagnostics.back() != '\n') out << '\n';
      continue;
    }
    if (!r.ran()) {
      out << "  " << paint(style.color, bad, "✗") << ' ' << verdict_title(r.verdict) << ": " << r.message << '\n'
          << "    explain measures a kernel that works: `cudalab check " << r.task->info().number
          << "` says what is wrong first\n";
      if (r.kernels.empty()) continue;
    }
    if (r.findings.empty()) {
      out << "  " << paint(style.color, good, "✓")
          << fmt::format(
                 " no problem found: an estimated {} a call where the "
                 "task needs {} at the least ({})\n",
                 estimate_seconds(r.estimated_s), estimate_seconds(r.best_s), factor_text(r));
    } else {
      out << "  " << paint(style.color, bad, "✗")
          << fmt::format(" {} problem{}: an estimated {} a call where the task needs {} at the least ({})\n",
                         r.findings.size(), r.findings.size() == 1 ? "" : "s", estimate_seconds(r.estimated_s),
                         estimate_seconds(r.best_s), factor_text(r));
    }
    for (std::size_t i = 0; i < r.findings.size(); ++i) {
      const ExplainFinding& f = r.findings[i];
      out << fmt::format("  {}. {} ({}, costs about {} a call)\n", i + 1, f.message, explain_kind_name(f.kind),
                         estimate_seconds(f.cost_s));
      out << "     " << paint(style.color, cyan, "fix:") << ' ' << f.fix << '\n';
    }
    for (const auto& k : r.kernels) {
      out << fmt::format(
          "  kernel '{}' <<<{}, {}>>>{}: occupancy {:.0f} % ({} of {} warps per SM, limited by {}), {} "
          "registers per thread{}, {}\n",
          k.kernel, triple(k.grid), triple(k.block), k.launches > 1 ? fmt::format(" ×{}", k.launches) : "",
          100 * k.occupancy.fraction, k.occupancy.warps_per_sm, r.target.max_warps_per_sm,
          occupancy_limit_name(k.occupancy.limit), k.registers_used, k.registers ? "" : " (assumed)",
          k.shared_bytes == 0 ? "no shared memory" : kib_text(k.shared_bytes) + " of shared memory per block");
      out << fmt::format(
          "    estimated {}: global memory {}, shared memory {}, memory requests {}, FLOPs {}{}\n",
          estimate_seconds(k.estimate.total()), estimate_seconds(k.estimate.dram_s),
          estimate_seconds(k.estimate.shared_s), estimate_seconds(k.estimate.issue_s),
          estimate_seconds(k.estimate.flops_s),
          k.active_sms < r.target.sms
              ? fmt::format(" (a grid of {} keeps {} of the {} SMs busy)",
                            blocks_text(k.blocks / std::max<std::size_t>(k.launches, 1)), k.active_sms, r.target.sms)
              : "");
      if (k.requests > 0) {
        out << fmt::format("    its loads and stores run with {:.0f} % of their lanes active\n",
                           100 * k.active_lanes / (32 * k.requests));
      }
      // Only where a stretch between barriers leaves half of the lanes or more idle, unless asked.
      const bool idle_stretch = std::ranges::any_of(
          k.intervals, [](const protocol::BarrierInterval& i) { return i.active_lanes <= 0.5 * 32 * i.requests; });
      if (k.intervals.size() > 1 && (idle_stretch || style.verbose)) out << "    " << intervals_text(k) << '\n';
      if (k.counted_blocks < k.blocks) {
        out << fmt::format("    counted {} of its {} blocks, the rest estimated from them\n", k.counted_blocks,
                           k.blocks);
      }
    }
    out << fmt::format("  traffic: {} of global memory ({} if every access were coalesced); the task needs {}{}\n",
                       bytes_text(r.global_bytes), bytes_text(r.coalesced_bytes), bytes_text(r.needed.bytes),
                       r.needed.flops > 0
                           ? fmt::format(" and {} (FLOPs are not counted on the simulator)", flops_text(r.needed.flops))
                           : "");
    out << fmt::format("  roofline on the {}: at best {} ({}); estimated {}\n", r.target.name,
                       estimate_seconds(r.best_s), bound_text(r), estimate_seconds(r.estimated_s));
    if (!r.registers_note.empty()) out << "  " << r.registers_note << '\n';
    if (r.truncated) out << "  (the run had more access sites than a reply carries: some are left out)\n";
    if (style.verbose) {
      out << "  lines, the costliest first:\n";
      for (std::size_t i = 0; i < r.lines.size() && i < kMaxLinesShown; ++i) {
        const LineCost& l = r.lines[i];
        const bool shared = l.space == protocol::MemorySpace::shared;
        out << fmt::format(
            "    {} {} {} {}{}: {:.1f} {} per request (ideal {:.1f}), {:.0f} % of lanes active, {:.3g} "
            "requests\n",
            place_or_question_mark(l.place), l.write ? (l.atomic ? "updates" : "stores") : "loads",
            shared ? "shared" : "global", l.code.empty() ? l.target : "`" + l.code + "`",
            l.kernel.empty() ? "" : fmt::format(" in '{}'", l.kernel), l.units / l.requests,
            shared ? "wavefronts" : "sectors", l.ideal_units / l.requests, 100 * l.active_lanes / (32 * l.requests),
            l.requests);
      }
    }
  }
}

json explain_report_json(const std::vector<ExplainResult>& results, const std::string& backend_line) {
  json exercises = json::array();
  for (const auto& r : results) {
    json dims = json::object();
    for (const auto& d : r.c.dims) dims[d.name] = d.value;
    json findings = json::array();
    for (const auto& f : r.findings) {
      findings.push_back({{"kind", explain_kind_name(f.kind)},
                          {"kernel", f.kernel},
                          {"file", f.place.file},
                          {"line", f.place.line},
                          {"code", f.code},
                          {"value", f.value},
                          {"ideal", f.ideal},
                          {"unit", f.unit},
                          {"cost_s", f.cost_s},
                          {"message", f.message},
                          {"fix", f.fix},
                          {"ncu_metric", f.ncu_metric}});
    }
    json kernels = json::array();
    for (const auto& k : r.kernels) {
      kernels.push_back(
          {{"kernel", k.kernel},
           {"grid", k.grid},
           {"block", k.block},
           {"launches", k.launches},
           {"shared_bytes", k.shared_bytes},
           {"registers", k.registers ? json(*k.registers) : json(nullptr)},
           {"registers_used", k.registers_used},
           {"occupancy",
            {{"fraction", k.occupancy.fraction},
             {"warps_per_sm", k.occupancy.warps_per_sm},
             {"blocks_per_sm", k.occupancy.blocks_per_sm},
             {"limit", occupancy_limit_name(k.occupancy.limit)},
             {"ncu_metric", "sm__maximum_warps_per_active_cycle_pct (theoretical), launch__occupancy_limit_*"}}},
           {"blocks", k.blocks},
           {"counted_blocks", k.counted_blocks},
           {"active_sms", k.active_sms},
           {"global_bytes", k.global_bytes},
           {"shared_wavefronts", k.shared_wavefronts},
           {"requests", k.requests},
           {"active_lanes_per_request", k.requests > 0 ? k.active_lanes / k.requests : 0.0},
           {"intervals",
            [&] {
              json list = json::array();
              for (const auto& i : k.intervals) {
                list.push_back({{"from_line", i.from_line},
                                {"to_line", i.to_line},
                                {"requests", i.requests},
                                {"active_lanes_per_request", i.active_lanes / i.requests}});
              }
              return list;
            }()},
           {"estimate",
            {{"dram_s", k.estimate.dram_s},
             {"shared_s", k.estimate.shared_s},
             {"issue_s", k.estimate.issue_s},
             {"flops_s", k.estimate.flops_s},
             {"total_s", k.estimate.total()}}}});
    }
    json lines = json::array();
    for (const auto& l : r.lines) {
      const bool shared = l.space == protocol::MemorySpace::shared;
      const std::string op = l.write ? "st" : "ld";
      lines.push_back(
          {{"kernel", l.kernel},
           {"file", l.place.file},
           {"line", l.place.line},
           {"code", l.code},
           {"memory", protocol::memory_space_name(l.space)},
           {"write", l.write},
           {"atomic", l.atomic},
           {"target", l.target},
           {"bytes_per_lane", l.bytes},
           {"requests", l.requests},
           {"active_lanes_per_request", l.requests > 0 ? l.active_lanes / l.requests : 0.0},
           {shared ? "wavefronts_per_request" : "sectors_per_request", l.requests > 0 ? l.units / l.requests : 0.0},
           {"ideal_per_request", l.requests > 0 ? l.ideal_units / l.requests : 0.0},
           {"ncu_metric", shared ? fmt::format("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{}.sum / "
                                               "smsp__sass_inst_executed_op_shared_{}.sum",
                                               op, op)
                                 : fmt::format("l1tex__t_sectors_pipe_lsu_mem_global_op_{0}.sum / "
                                               "l1tex__t_requests_pipe_lsu_mem_global_op_{0}.sum",
                                               op)}});
    }
    json e{{"exercise", r.task->info().id},
           {"source", r.source.string()},
           {"size", dims},
           {"label", r.c.label()},
           {"verdict", verdict_of(r)},
           {"message", r.message},
           {"registers", r.registers_note},
           {"findings", findings},
           {"kernels", kernels},
           {"lines", lines},
           {"traffic",
            {{"global_bytes", r.global_bytes},
             {"coalesced_bytes", r.coalesced_bytes},
             {"needed_bytes", r.needed.bytes},
             {"needed_flops", r.needed.flops}}},
           {"roofline",
            {{"best_s", r.best_s},
             {"estimated_s", r.estimated_s},
             {"factor", r.best_s > 0 ? r.estimated_s / r.best_s : 0.0}}},
           {"truncated", r.truncated}};
    if (r.verdict == Verdict::compile_error) e["compiler_output"] = r.compile.diagnostics;
    exercises.push_back(std::move(e));
  }
  json targets;
  const GpuTarget& t = results.empty() ? gpu_targets().front() : results.front().target;
  targets = {{"key", t.key},
             {"name", t.name},
             {"sms", t.sms},
             {"max_warps_per_sm", t.max_warps_per_sm},
             {"max_blocks_per_sm", t.max_blocks_per_sm},
             {"registers_per_sm", t.registers_per_sm},
             {"shared_per_sm", t.shared_per_sm},
             {"dram_bytes_per_s", t.dram_bytes_per_s},
             {"fp32_flops_per_s", t.fp32_flops_per_s},
             {"clock_hz", t.clock_hz}};
  return json{{"tool", "cudalab"},       {"version", CUDALAB_VERSION}, {"command", "explain"},
              {"backend", backend_line}, {"target", targets},          {"exercises", exercises}};
}

}  // namespace cudalab
