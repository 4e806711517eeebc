// `bench --profile`'s report (profile.hpp): the GPU's counters beside the simulator's, per kernel.
#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/color.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudalab/profile.hpp"
#include "cudalab/text.hpp"
#include "units.hpp"

namespace cudalab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// Two counts agree when they differ by at most a tenth of the larger (and a hundredth absolutely,
/// for ratios near zero).
constexpr double kAgreement = 0.10;

bool agree(double a, double b) { return std::abs(a - b) <= kAgreement * std::max(std::abs(a), std::abs(b)) + 0.01; }

std::string identifier(const std::string& name) { return name.substr(0, name.find('<')); }

/// `k` added into `into`: counts summed, ratios weighted by launches.
void add_into(KernelCounters& into, const KernelCounters& k) {
  const double before = static_cast<double>(into.launches);
  const double added = static_cast<double>(k.launches);
  auto sum = [](AccessCount& a, const AccessCount& b) {
    a.requests += b.requests;
    a.units += b.units;
    a.ideal += b.ideal;
    a.conflicts += b.conflicts;
  };
  sum(into.global_loads, k.global_loads);
  sum(into.global_stores, k.global_stores);
  sum(into.shared_loads, k.shared_loads);
  sum(into.shared_stores, k.shared_stores);
  auto average = [&](std::optional<double>& a, const std::optional<double>& b) {
    if (b) a = before + added > 0 ? (a.value_or(*b) * before + *b * added) / (before + added) : *b;
  };
  average(into.theoretical_occupancy, k.theoretical_occupancy);
  average(into.achieved_occupancy, k.achieved_occupancy);
  average(into.active_lanes, k.active_lanes);
  average(into.branch_uniformity, k.branch_uniformity);
  average(into.dram_peak_share, k.dram_peak_share);
  if (k.dram_bytes) into.dram_bytes = into.dram_bytes.value_or(0) + *k.dram_bytes;
  if (k.duration_s) into.duration_s = into.duration_s.value_or(0) + *k.duration_s;
  if (k.registers) into.registers = std::max(into.registers.value_or(0), *k.registers);
  into.launches += k.launches;
}

/// The GPU's kernels beside the simulator's, by name in launch order; a kernel only one side saw
/// stands beside nothing (nullptr).
struct Pairs {
  std::vector<KernelCounters> merged;  // kernels added up by identifier (owned here)
  std::vector<std::pair<const KernelCounters*, const KernelCounters*>> pairs;
};

/// The pairs of `r`. Where the two sides saw different numbers of kernels of one identifier (the
/// simulator names a template kernel as its launch is written, `reduce<Op>`, for every
/// instantiation; the GPU names each, `reduce<Sum>`), each side's are added up into one.
Pairs paired(const ProfileResult& r) {
  Pairs out;
  out.merged.reserve(r.measured.size() + r.predicted.size());
  auto count = [](const std::vector<KernelCounters>& ks, const std::string& id) {
    return std::ranges::count_if(ks, [&](const KernelCounters& k) { return identifier(k.kernel) == id; });
  };
  auto merge = [&](const std::vector<KernelCounters>& ks, const std::string& id) -> const KernelCounters* {
    KernelCounters sum;
    bool first = true;
    for (const auto& k : ks) {
      if (identifier(k.kernel) != id) continue;
      if (first) {
        sum = k;
        first = false;
      } else {
        add_into(sum, k);
      }
    }
    sum.kernel = id + "<…>";
    out.merged.push_back(std::move(sum));
    return &out.merged.back();
  };
  std::vector<bool> used(r.predicted.size(), false);
  std::vector<std::string> merged_ids;
  for (const auto& m : r.measured) {
    const std::string id = identifier(m.kernel);
    const auto gpu_count = count(r.measured, id);
    const auto sim_count = count(r.predicted, id);
    if (sim_count > 0 && gpu_count != sim_count) {
      if (std::ranges::find(merged_ids, id) != merged_ids.end()) continue;
      merged_ids.push_back(id);
      for (std::size_t i = 0; i < r.predicted.size(); ++i) {
        if (identifier(r.predicted[i].kernel) == id) used[i] = true;
      }
      const KernelCounters* gpu = merge(r.measured, id);
      out.pairs.emplace_back(gpu, merge(r.predicted, id));
      continue;
    }
    const KernelCounters* match = nullptr;
    for (std::size_t i = 0; i < r.predicted.size() && match == nullptr; ++i) {
      if (!used[i] && identifier(r.predicted[i].kernel) == id) {
        used[i] = true;
        match = &r.predicted[i];
      }
    }
    out.pairs.emplace_back(&m, match);
  }
  for (std::size_t i = 0; i < r.predicted.size(); ++i) {
    if (!used[i]) out.pairs.emplace_back(nullptr, &r.predicted[i]);
  }
  return out;
}

/// One row's numbers: the GPU's, the simulator's, done well; and whether the first two are compared.
struct Row {
  std::string label;
  std::optional<double> gpu;
  std::optional<double> sim;
  std::optional<double> ideal;
  std::function<std::string(double)> text;
  bool compared = false;
};

std::string ratio_text(double v) { return fmt::format("{:.2f}", v); }
std::string percent_text(double v) { return fmt::format("{:.0f} %", 100 * v); }
std::string count_text(double v) { return fmt::format("{:.0f}", v); }

std::vector<Row> rows_of(const KernelCounters* gpu, const KernelCounters* sim) {
  auto per = [](const KernelCounters* k, AccessCount KernelCounters::*a) -> std::optional<double> {
    return k == nullptr ? std::nullopt : (k->*a).per_request();
  };
  auto ideal = [&](AccessCount KernelCounters::*a) -> std::optional<double> {
    return sim == nullptr ? std::nullopt : (sim->*a).ideal_per_request();
  };
  auto field = [](const KernelCounters* k, std::optional<double> KernelCounters::*f) -> std::optional<double> {
    return k == nullptr ? std::nullopt : k->*f;
  };
  auto requests = [](const KernelCounters* k) -> std::optional<double> {
    if (k == nullptr) return std::nullopt;
    return k->global_loads.requests + k->global_stores.requests + k->shared_loads.requests + k->shared_stores.requests;
  };
  auto conflicts = [](const KernelCounters* k) -> std::optional<double> {
    if (k == nullptr || k->shared_loads.requests + k->shared_stores.requests <= 0) return std::nullopt;
    return k->shared_loads.conflicts + k->shared_stores.conflicts;
  };
  auto registers = [](const KernelCounters* k) -> std::optional<double> {
    if (k == nullptr || !k->registers) return std::nullopt;
    return *k->registers;
  };
  using K = KernelCounters;
  std::vector<Row> rows = {
      {"global loads: sectors per request", per(gpu, &K::global_loads), per(sim, &K::global_loads),
       ideal(&K::global_loads), ratio_text, true},
      {"global stores: sectors per request", per(gpu, &K::global_stores), per(sim, &K::global_stores),
       ideal(&K::global_stores), ratio_text, true},
      {"shared loads: wavefronts per request", per(gpu, &K::shared_loads), per(sim, &K::shared_loads),
       ideal(&K::shared_loads), ratio_text, true},
      {"shared stores: wavefronts per request", per(gpu, &K::shared_stores), per(sim, &K::shared_stores),
       ideal(&K::shared_stores), ratio_text, true},
      {"shared bank conflicts (extra wavefronts)", conflicts(gpu), conflicts(sim), 0.0, count_text, true},
      {"memory requests (warp instructions)", requests(gpu), requests(sim), std::nullopt, count_text, true},
      {"registers per thread", registers(gpu), registers(sim), std::nullopt, count_text, false},
      {"occupancy, theoretical", field(gpu, &K::theoretical_occupancy), field(sim, &K::theoretical_occupancy),
       std::nullopt, percent_text, true},
      {"occupancy, achieved", field(gpu, &K::achieved_occupancy), std::nullopt, std::nullopt, percent_text, false},
      {"active lanes per instruction", field(gpu, &K::active_lanes), field(sim, &K::active_lanes), 32.0,
       [](double v) { return fmt::format("{:.1f}", v); }, false},
      {"branches whole warps take one way", field(gpu, &K::branch_uniformity), std::nullopt, 1.0, percent_text, false},
      {"device memory read and written", field(gpu, &K::dram_bytes), std::nullopt, std::nullopt, bytes_text, false},
      {"time", field(gpu, &K::duration_s), field(sim, &K::duration_s), std::nullopt, estimate_seconds, false},
  };
  // A row neither side has a number for (shared memory in a kernel without any) is left out.
  std::erase_if(rows, [](const Row& row) { return !row.gpu && !row.sim; });
  return rows;
}

bool row_differs(const Row& row) { return row.compared && row.gpu && row.sim && !agree(*row.gpu, *row.sim); }

std::string kernel_title(const KernelCounters& k) {
  return fmt::format("{}<<<{}, {}>>>{}", k.kernel, triple(k.grid), triple(k.block),
                     k.launches > 1 ? fmt::format(" × {} launches", k.launches) : "");
}

json access_json(const AccessCount& a) {
  json j = {{"requests", a.requests}, {"units", a.units}, {"conflicts", a.conflicts}};
  if (const auto p = a.per_request()) j["per_request"] = *p;
  if (const auto p = a.ideal_per_request()) j["ideal_per_request"] = *p;
  return j;
}

json counters_json(const KernelCounters& k) {
  json j = {{"kernel", k.kernel},
            {"launches", k.launches},
            {"grid", k.grid},
            {"block", k.block},
            {"global_loads", access_json(k.global_loads)},
            {"global_stores", access_json(k.global_stores)},
            {"shared_loads", access_json(k.shared_loads)},
            {"shared_stores", access_json(k.shared_stores)}};
  auto put = [&](const char* key, const auto& v) {
    if (v) j[key] = *v;
  };
  put("registers", k.registers);
  put("theoretical_occupancy", k.theoretical_occupancy);
  put("achieved_occupancy", k.achieved_occupancy);
  put("active_lanes", k.active_lanes);
  put("branch_uniformity", k.branch_uniformity);
  put("dram_bytes", k.dram_bytes);
  put("dram_peak_share", k.dram_peak_share);
  put("duration_s", k.duration_s);
  return j;
}

std::string source_name(const ProfileResult& r) {
  const std::string stem = r.source.stem().string();
  return stem == "kernel" ? r.task->info().id : r.task->info().id + " " + r.source.filename().string();
}

}  // namespace

void write_profile_report(std::ostream& out, const std::vector<ProfileResult>& results, const ReportStyle& style) {
  for (const auto& r : results) {
    out << paint(style.color, fmt::emphasis::bold, r.task->info().id) << " (" << display_path(r.source) << ") at "
        << r.c.label() << (r.device.empty() ? "" : " on " + r.device) << (r.tool.empty() ? "" : ", " + r.tool) << '\n';
    if (r.verdict != Verdict::passed) {
      out << "  " << paint(style.color, fg(fmt::color::red), "✗ ") << verdict_title(r.verdict) << ": " << r.message
          << "\n  (`cudalab check` says more; counters of a kernel that fails say little)\n";
    }
    if (!r.problem.empty())
      out << "  " << paint(style.color, fg(fmt::color::yellow), "no counters: ") << r.problem << '\n';
    const Pairs both = paired(r);
    const auto& pairs = both.pairs;
    for (const auto& [gpu, sim] : pairs) {
      const KernelCounters& k = gpu != nullptr ? *gpu : *sim;
      out << "\n  " << paint(style.color, fmt::emphasis::bold, kernel_title(k));
      if (gpu == nullptr && !r.measured.empty()) out << "  (only the simulator ran it)";
      if (sim == nullptr) out << "  (only the GPU ran it)";
      out << '\n';
      out << fmt::format("    {:<40} {:>12} {:>12} {:>12}\n", "", "GPU (ncu)", "simulator", "done well");
      for (const Row& row : rows_of(gpu, sim)) {
        auto cell = [&](const std::optional<double>& v) { return v ? row.text(*v) : std::string("—"); };
        std::string line = fmt::format("    {:<40} {:>12} {:>12} {:>12}", row.label, cell(row.gpu), cell(row.sim),
                                       row.ideal ? row.text(*row.ideal) : std::string());
        while (!line.empty() && line.back() == ' ') line.pop_back();
        if (row_differs(row)) line += "  " + paint(style.color, fg(fmt::color::yellow), "≠");
        out << line << '\n';
      }
    }
    // The simulator counts every sector at device-memory cost; the GPU's caches hold re-reads.
    if (!r.measured.empty() || r.explained.ran()) {
      double dram = 0;
      bool any = false;
      for (const auto& k : r.measured) {
        if (k.dram_bytes) {
          dram += *k.dram_bytes;
          any = true;
        }
      }
      out << fmt::format("\n  traffic: the task needs {}; the simulator's requests move {} (no caches){}\n",
                         bytes_text(r.explained.needed.bytes), bytes_text(r.explained.global_bytes),
                         any ? fmt::format("; the GPU read and wrote {} of device memory", bytes_text(dram)) : "");
    }
    const bool differs = std::ranges::any_of(
        pairs, [](const auto& p) { return std::ranges::any_of(rows_of(p.first, p.second), row_differs); });
    if (differs) {
      out << "  ≠: the GPU and the simulator differ by more than a tenth; nvcc may vectorise, hoist or keep in "
             "registers what the source reads again (docs/explain.md lists the causes)\n";
    }
    if (r.explained.ran()) {
      if (r.explained.findings.empty()) {
        out << "  the simulator finds no problem (cudalab explain)\n";
      } else {
        out << "  the simulator's findings (cudalab explain " << r.task->info().number << " says more):\n";
        for (const auto& f : r.explained.findings) out << "    - " << f.message << '\n';
      }
    } else if (!r.explained.message.empty()) {
      out << "  the simulator's run: " << r.explained.message << '\n';
    }
    out << '\n';
  }
}

json profile_report_json(const std::vector<ProfileResult>& results) {
  json all = json::array();
  for (const auto& r : results) {
    json kernels = json::array();
    const Pairs both = paired(r);
    for (const auto& [gpu, sim] : both.pairs) {
      json k = {{"kernel", gpu != nullptr ? gpu->kernel : sim->kernel}};
      k["gpu"] = gpu != nullptr ? counters_json(*gpu) : json(nullptr);
      k["simulator"] = sim != nullptr ? counters_json(*sim) : json(nullptr);
      std::vector<std::string> differ;
      for (const Row& row : rows_of(gpu, sim)) {
        if (row_differs(row)) differ.push_back(row.label);
      }
      k["differ"] = differ;
      kernels.push_back(std::move(k));
    }
    json findings = json::array();
    for (const auto& f : r.explained.findings) {
      findings.push_back({{"kind", explain_kind_name(f.kind)}, {"line", f.place.line}, {"message", f.message}});
    }
    all.push_back({{"exercise", r.task->info().id},
                   {"source", r.source.string()},
                   {"size", r.c.label()},
                   {"device", r.device},
                   {"tool", r.tool},
                   {"verdict", verdict_name(r.verdict)},
                   {"message", r.message},
                   {"problem", r.problem},
                   {"needed_bytes", r.explained.needed.bytes},
                   {"simulated_global_bytes", r.explained.global_bytes},
                   {"kernels", kernels},
                   {"findings", findings}});
  }
  return {{"profiles", all}};
}

void write_profile_markdown(std::ostream& out, const std::vector<ProfileResult>& results, bool header) {
  if (header) {
    out << "| Source | Kernel | Global loads, sectors/request (GPU / sim) | Global stores (GPU / sim) | Shared loads, "
           "wavefronts/request (GPU / sim) | Shared stores (GPU / sim) | Memory requests (GPU / sim) | "
           "Theoretical occupancy (GPU / sim) | Differ | The simulator's findings |\n";
    out << "|---|---|---|---|---|---|---|---|---|---|\n";
  }
  for (const auto& r : results) {
    if (!r.profiled()) {
      out << fmt::format("| {} | — | {} |  |  |  |  |  |  |  |\n", source_name(r),
                         r.problem.empty() ? verdict_title(r.verdict) : r.problem);
      continue;
    }
    const Pairs both = paired(r);
    for (const auto& [gpu, sim] : both.pairs) {
      const auto rows = rows_of(gpu, sim);
      auto cell = [&](const std::string& label) {
        const auto it = std::ranges::find(rows, label, &Row::label);
        if (it == rows.end()) return std::string("—");
        return fmt::format("{} / {}", it->gpu ? it->text(*it->gpu) : "—", it->sim ? it->text(*it->sim) : "—");
      };
      std::vector<std::string> differ;
      for (const Row& row : rows) {
        if (row_differs(row)) differ.push_back(row.label.substr(0, row.label.find(':')));
      }
      std::vector<std::string> findings;
      const std::string name = gpu != nullptr ? gpu->kernel : sim->kernel;
      for (const auto& f : r.explained.findings) {
        if (identifier(f.kernel) != identifier(name)) continue;
        findings.push_back(f.place.line > 0 ? fmt::format("{} (line {})", explain_kind_name(f.kind), f.place.line)
                                            : explain_kind_name(f.kind));
      }
      out << fmt::format("| {} | `{}` | {} | {} | {} | {} | {} | {} | {} | {} |\n", source_name(r),
                         gpu != nullptr ? gpu->kernel : sim->kernel, cell("global loads: sectors per request"),
                         cell("global stores: sectors per request"), cell("shared loads: wavefronts per request"),
                         cell("shared stores: wavefronts per request"), cell("memory requests (warp instructions)"),
                         cell("occupancy, theoretical"),
                         differ.empty() ? "—" : fmt::format("{}", fmt::join(differ, "; ")),
                         findings.empty() ? "none" : fmt::format("{}", fmt::join(findings, ", ")));
    }
  }
}

}  // namespace cudalab
