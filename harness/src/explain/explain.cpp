// `cudalab explain` (explain.hpp): one run of the checked module with counting on, then the
// counts per source line, the kernels' occupancy, the time model and the findings.
//
// The time model (docs/explain.md), per kernel and call of solve on the target:
//   dram   = global bytes (sectors × 32) / (bandwidth × SMs filled / SMs), × kLowOccupancy /
//            occupancy where the occupancy is below kLowOccupancy (too few warps to hide latency)
//   shared = wavefronts / (SMs filled × clock)       one wavefront per SM and cycle
//   issue  = requests / (SMs filled × clock)         one memory instruction per SM and cycle
//   flops  = its share of the task's FLOPs / (FP32 peak × SMs filled / SMs)
// and the kernel takes the largest. A finding costs what removing its excess (extra sectors,
// extra wavefronts, idle lanes' requests, the occupancy penalty, the re-read bytes) saves.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <regex>
#include <set>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "cudalab/case_data.hpp"
#include "cudalab/detail/module_cache.hpp"
#include "cudalab/errors.hpp"
#include "cudalab/exercise_check.hpp"
#include "cudalab/explain.hpp"
#include "registers.hpp"
#include "units.hpp"

namespace cudalab {

namespace fs = std::filesystem;
using protocol::kSectorBytes;
using protocol::kWarpLanes;
using protocol::MemorySpace;

namespace {

/// Uncoalesced: a line whose requests touch at least twice the sectors their bytes need. A row
/// that does not start on 32 bytes costs a sector more (32 floats in 5 sectors, not 4): no finding.
constexpr double kUncoalescedRatio = 2.0;
/// Bank conflicts: at least two wavefronts per request for each one its words need.
constexpr double kConflictWays = 2.0;
/// Divergence: warps run the line with at most half of their lanes active, on average.
constexpr double kDivergentActive = 0.5;
/// Occupancy below a quarter of the SM's warps: even a kernel with independent loads in flight
/// (the reference matmul runs at 16 of 64 warps by design) has too few to hide the memory's latency.
constexpr double kLowOccupancy = 0.25;
/// Traffic: the coalesced traffic is at least 4 times what the task needs. Tiled kernels re-read
/// their inputs a few times (once per tile of the other operand); 4 and more means no reuse.
constexpr double kTrafficRatio = 4.0;
/// A grid that leaves SMs idle is a finding only for kernels that run longer than this: a shorter
/// one (a small problem: the 192×160 matmul's 9 blocks) takes about a launch's time whatever its grid.
constexpr double kGridMattersSeconds = 10e-6;
/// A finding must cost at least this share of the estimated time: what costs less is noise of
/// the estimate (a tail, an edge, one thread writing a block's result).
constexpr double kMinCostShare = 0.05;
/// Accesses of one buffer quoted from one line at most.
constexpr std::size_t kMaxQuotedAccesses = 3;

std::string element_word(const Task& task, const std::string& target, std::size_t element_bytes) {
  for (const auto& p : task.info().signature.params) {
    if (p.kind == Param::Kind::buffer && p.name == target) return p.dtype == DType::i32 ? "ints" : "floats";
  }
  return element_bytes == 8 ? "doubles" : "elements";
}

/// The case's dimensions equal to `value`: {"K", "K=176"}, {"M or N", "M=N=64"}; empty when none is.
std::pair<std::string, std::string> dimension_named(const Case& c, long long value) {
  std::vector<std::string> names;
  for (const auto& d : c.dims) {
    if (d.value == value && value > 1) names.push_back(d.name);
  }
  if (names.empty()) return {};
  return {fmt::format("{}", fmt::join(names, " or ")), fmt::format("{}={}", fmt::join(names, "="), value)};
}

/// The text of line `line` of `file`, or "". Only source files are read: the debug lines name
/// what the module's `#line` directives said, which the submission wrote.
std::string source_line(const fs::path& file, int line) {
  static const std::set<std::string> kinds = {".cu", ".cuh", ".h", ".hpp", ".hh", ".cpp", ".cc", ".inl"};
  if (!kinds.contains(file.extension().string())) return "";
  std::ifstream in(file);
  std::string text;
  for (int n = 1; std::getline(in, text); ++n) {
    if (n == line) return text;
  }
  return "";
}

/// The first line of `file` that `pattern` matches (comments included), or 0.
int find_line(const fs::path& file, const std::regex& pattern) {
  std::ifstream in(file);
  std::string text;
  for (int n = 1; std::getline(in, text); ++n) {
    if (std::regex_search(text, pattern)) return n;
  }
  return 0;
}

/// `name` with the characters a regular expression gives a meaning escaped.
std::string regex_quoted(const std::string& name) {
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(name, special, R"(\$&)");
}

std::string trimmed(std::string text) {
  const auto comment = text.find("//");
  if (comment != std::string::npos) text.erase(comment);
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t;{");
  text = text.substr(first, last == std::string::npos ? std::string::npos : last - first + 1);
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

/// The accesses of `target` on a line as written ("A[col * K + k]", "tile[ty][tx]"): each `name[…]…`
/// with its brackets; the trimmed line where the target is not indexed by name.
std::string quote_access(const std::string& line, const std::string& target, bool write) {
  std::vector<std::string> found;
  std::vector<std::string> assigned;  // followed by `=`, `+=`, …: what a store writes
  if (!target.empty()) {
    const std::regex name("\\b" + regex_quoted(target) + "\\s*\\[");
    for (auto it = std::sregex_iterator(line.begin(), line.end(), name); it != std::sregex_iterator(); ++it) {
      std::size_t at = static_cast<std::size_t>(it->position());
      std::size_t end = at + static_cast<std::size_t>(it->length()) - 1;  // the '['
      while (end < line.size() && line[end] == '[') {
        int depth = 0;
        std::size_t i = end;
        for (; i < line.size(); ++i) {
          if (line[i] == '[') ++depth;
          if (line[i] == ']' && --depth == 0) break;
        }
        if (i >= line.size()) break;
        end = i + 1;
        while (end < line.size() && line[end] == ' ') ++end;
      }
      std::string access = line.substr(at, end - at);
      while (!access.empty() && access.back() == ' ') access.pop_back();
      static const std::regex assignment(R"(^\s*(?:[-+*/%&|^]|<<|>>)?=(?!=))");
      const bool assigns = std::regex_search(line.substr(end), assignment);
      auto& list = assigns ? assigned : found;
      if (std::ranges::find(list, access) == list.end() && list.size() < kMaxQuotedAccesses) list.push_back(access);
      if (assigns && std::ranges::find(found, access) == found.end() && found.size() < kMaxQuotedAccesses) {
        found.push_back(access);  // `x[i] += …` reads x[i] too
      }
    }
  }
  if (write && !assigned.empty()) return fmt::format("{}", fmt::join(assigned, "`, `"));
  if (found.empty()) return trimmed(line);
  return fmt::format("{}", fmt::join(found, "`, `"));
}

std::string at_text(const SourcePlace& place) {
  if (place.line <= 0) return "";
  const std::string file = fs::path(place.file).filename().string();
  return fmt::format("{}:{}", file.empty() ? "line" : file, place.line);
}

/// The per-kernel time model (top of the file).
TimeEstimate estimate(const GpuTarget& t, unsigned active_sms, double global_bytes, double wavefronts, double requests,
                      double flops, double occupancy) {
  TimeEstimate e;
  const double share = static_cast<double>(active_sms) / t.sms;
  const double penalty = occupancy > 0 && occupancy < kLowOccupancy ? kLowOccupancy / occupancy : 1.0;
  e.dram_s = global_bytes / (t.dram_bytes_per_s * share) * penalty;
  e.shared_s = wavefronts / (active_sms * t.clock_hz);
  e.issue_s = requests / (active_sms * t.clock_hz);
  e.flops_s = flops / (t.fp32_flops_per_s * share);
  return e;
}

/// What explain knows of one kernel while it builds the findings.
struct KernelModel {
  KernelExplain* k = nullptr;
  double flops = 0;
  double coalesced_bytes = 0;
  [[nodiscard]] TimeEstimate with(const GpuTarget& t, double global_bytes, double wavefronts, double requests,
                                  double occupancy) const {
    return estimate(t, k->active_sms, global_bytes, wavefronts, requests, flops, occupancy);
  }
  [[nodiscard]] TimeEstimate now(const GpuTarget& t) const {
    return with(t, k->global_bytes, k->shared_wavefronts, k->requests, k->occupancy.theoretical);
  }
};

std::string lanes_text(double share) { return fmt::format("{:.0f} %", 100 * share); }

std::string percent(double fraction) { return fmt::format("{:.1f} %", 100 * fraction); }

}  // namespace

double TimeEstimate::total() const { return std::max({dram_s, shared_s, issue_s, flops_s}); }

const char* explain_kind_name(ExplainKind kind) {
  switch (kind) {
    case ExplainKind::uncoalesced:
      return "uncoalesced";
    case ExplainKind::bank_conflict:
      return "bank_conflict";
    case ExplainKind::divergence:
      return "divergence";
    case ExplainKind::occupancy:
      return "occupancy";
    case ExplainKind::traffic:
      return "traffic";
  }
  return "?";
}

bool ExplainResult::ran() const { return verdict == Verdict::passed || verdict == Verdict::requirement_unmet; }

Case representative_case(const Task& task, const std::vector<std::int64_t>& only_sizes) {
  CheckOptions options;
  options.only_sizes = only_sizes;
  const std::vector<Case> cases = select_cases(task, Backend::sim, options);
  if (only_sizes.empty()) {
    for (const Case& c : cases) {
      if (c.large) return c;
    }
  }
  // The most work among those asked for: the size closest to what a GPU is for.
  const auto work = [&](const Case& c) {
    const Cost cost = task.cost(c);
    return std::max(cost.bytes, cost.flops);
  };
  return *std::ranges::max_element(cases, {}, work);
}

namespace {

/// The text of a line the debug lines name: its file as compiled, else the file explained.
std::string line_text(const ExplainResult& r, const SourcePlace& place) {
  std::string text = source_line(place.file, place.line);
  if (text.empty() && fs::path(place.file).filename() == r.source.filename()) text = source_line(r.source, place.line);
  return text;
}

/// The line that launches a kernel (`name<<<`), or none.
SourcePlace launch_place(const ExplainResult& r, const KernelExplain& k) {
  const std::string name = k.kernel.substr(0, k.kernel.find('<'));
  const std::regex launch("\\b" + regex_quoted(name) + "\\b[^;]*<<<");
  if (const int line = find_line(r.source, launch); line > 0) return {r.source.string(), line};
  return {};
}

/// Where a kernel's occupancy is decided: the declaration of its largest shared array when
/// shared memory limits it, else its launch (the block size; registers follow from the code).
SourcePlace occupancy_place(const ExplainResult& r, const KernelExplain& k, OccupancyLimit limit) {
  if (limit == OccupancyLimit::shared_memory) {
    const LineCost* largest = nullptr;
    for (const auto& l : r.lines) {
      if (l.kernel == k.kernel && l.space == MemorySpace::shared && !l.target.empty() &&
          (largest == nullptr || l.target_bytes > largest->target_bytes)) {
        largest = &l;
      }
    }
    if (largest != nullptr) {
      const std::regex declaration("__shared__[^;]*\\b" + regex_quoted(largest->target) + "\\s*\\[");
      for (const fs::path& file : {fs::path(largest->place.file), r.source}) {
        if (const int line = find_line(file, declaration); line > 0) return {file.string(), line};
      }
    }
  }
  return launch_place(r, k);
}

/// The lines, kernels and findings of a run that counted (`profile`, `records`).
void analyse(ExplainResult& r, const protocol::AccessProfile& profile, const protocol::Records& records,
             const NvccRegisters& nvcc, const std::vector<Buffer>& buffers) {
  const GpuTarget& t = r.target;
  const Task& task = *r.task;
  r.truncated = profile.truncated;

  // ---- lines ----
  std::vector<std::uint64_t> pcs;
  for (const auto& s : profile.sites) pcs.push_back(s.pc);
  auto places = locate_in_module(r.compile.module, pcs);
  // A module shared by every copy of the file names the shared folder: this file's, here.
  for (auto& [pc, place] : places) place.file = from_shared_folder(std::move(place.file), r.source);
  using Key = std::tuple<std::string, std::string, int, int, bool, bool, std::string>;
  std::map<Key, std::size_t> line_of;
  for (const auto& s : profile.sites) {
    SourcePlace place;
    if (const auto it = places.find(s.pc); it != places.end()) place = it->second;
    const Key key{s.kernel, place.file, place.line, static_cast<int>(s.space), s.write, s.atomic, s.target};
    auto [it, added] = line_of.try_emplace(key, r.lines.size());
    if (added) {
      LineCost l;
      l.kernel = s.kernel;
      l.place = place;
      l.space = s.space;
      l.write = s.write;
      l.atomic = s.atomic;
      l.target = s.target;
      l.row_elements = s.row_elements;
      l.element_bytes = s.element_bytes;
      l.target_bytes = s.target_bytes;
      if (place.line > 0) l.code = quote_access(line_text(r, place), s.target, s.write);
      r.lines.push_back(std::move(l));
    }
    LineCost& l = r.lines[it->second];
    l.bytes = std::max(l.bytes, s.bytes);
    l.requests += s.requests;
    l.active_lanes += s.active_lanes;
    l.units += s.units;
    l.ideal_units += s.ideal_units;
    if (s.worst_units - s.worst_ideal > l.worst_units - l.worst_ideal || l.worst_units == 0) {
      l.worst_units = s.worst_units;
      l.worst_ideal = s.worst_ideal;
      l.stride = s.stride;
    }
  }

  // ---- kernels ----
  for (const auto& kp : profile.kernels) {
    KernelExplain k;
    k.kernel = kp.kernel;
    k.launches = kp.launches;
    k.blocks = kp.blocks;
    k.counted_blocks = kp.counted_blocks;
    for (const auto& i : kp.intervals) {
      if (i.requests > 0) k.intervals.push_back(i);
    }
    for (const auto& l : records.launches) {
      if (l.kernel != kp.kernel) continue;
      k.grid = l.grid;
      k.block = l.block;
      k.shared_bytes = l.dynamic_shared_bytes + l.static_shared_bytes;
      break;
    }
    k.registers = registers_of(nvcc.entries, k.kernel);
    k.registers_used = k.registers.value_or(kAssumedRegisters);
    const unsigned threads = k.block[0] * k.block[1] * k.block[2];
    const double blocks_per_launch =
        k.launches == 0 ? 0.0 : static_cast<double>(k.blocks) / static_cast<double>(k.launches);
    // The occupancy this grid reaches: a launch of a few blocks leaves each SM a few warps.
    k.occupancy = theoretical_occupancy(t, threads, k.registers_used, k.shared_bytes,
                                        static_cast<std::uint64_t>(std::ceil(blocks_per_launch)));
    k.active_sms = static_cast<unsigned>(std::clamp(std::ceil(blocks_per_launch), 1.0, static_cast<double>(t.sms)));
    r.kernels.push_back(std::move(k));
  }
  std::vector<KernelModel> models(r.kernels.size());
  double all_lanes = 0;
  for (std::size_t i = 0; i < r.kernels.size(); ++i) models[i].k = &r.kernels[i];
  const auto model_of = [&](const std::string& name) -> KernelModel* {
    for (auto& m : models) {
      if (m.k->kernel == name) return &m;
    }
    return nullptr;
  };
  for (const auto& l : r.lines) {
    KernelModel* m = model_of(l.kernel);
    if (m == nullptr) continue;
    if (l.space == MemorySpace::global) {
      m->k->global_bytes += l.units * kSectorBytes;
      m->coalesced_bytes += l.ideal_units * kSectorBytes;
      r.global_bytes += l.units * kSectorBytes;
      r.coalesced_bytes += l.ideal_units * kSectorBytes;
    } else {
      m->k->shared_wavefronts += l.units;
    }
    m->k->requests += l.requests;
    m->k->active_lanes += l.active_lanes;
    all_lanes += l.active_lanes;
  }
  // FLOPs are not counted on the simulator: the task's, shared out by the lanes' accesses.
  for (auto& m : models) m.flops = all_lanes > 0 ? r.needed.flops * m.k->active_lanes / all_lanes : 0;
  for (auto& m : models) {
    m.k->estimate = m.now(t);
    r.estimated_s += m.k->estimate.total();
  }
  r.best_s = std::max(r.needed.bytes / t.dram_bytes_per_s, r.needed.flops / t.fp32_flops_per_s);

  // Lines, the costliest first: their own time at the rates of the model.
  const auto line_time = [&](const LineCost& l) {
    const KernelModel* m = model_of(l.kernel);
    const double sms = m == nullptr ? t.sms : m->k->active_sms;
    return l.space == MemorySpace::global ? l.units * kSectorBytes / (t.dram_bytes_per_s * sms / t.sms)
                                          : l.units / (sms * t.clock_hz);
  };
  std::ranges::stable_sort(r.lines, std::greater<>{}, line_time);

  // ---- findings ----
  const double matters = kMinCostShare * r.estimated_s;
  const auto saved = [&](const KernelModel& m, const TimeEstimate& better) {
    return m.k->estimate.total() - better.total();
  };
  for (const auto& l : r.lines) {
    const KernelModel* m = model_of(l.kernel);
    if (m == nullptr || l.requests <= 0 || l.atomic) continue;
    const std::string at = at_text(l.place);
    const std::string where = at.empty() ? fmt::format("in kernel '{}'", l.kernel) : at;
    const std::string verb = l.write ? "stores" : "loads";
    const std::string code = l.code.empty() ? "" : fmt::format(" `{}`", l.code);
    const std::string target =
        l.target.empty() ? (l.space == MemorySpace::shared ? "the shared array" : "the buffer") : l.target;
    const KernelExplain& k = *m->k;
    const auto found_at_line = [&l](ExplainKind kind) {
      ExplainFinding f;
      f.kind = kind;
      f.kernel = l.kernel;
      f.place = l.place;
      f.code = l.code;
      return f;
    };
    // Uncoalesced global accesses.
    if (l.space == MemorySpace::global && l.units >= kUncoalescedRatio * l.ideal_units) {
      const double excess = (l.units - l.ideal_units) * kSectorBytes;
      const double cost =
          saved(*m, m->with(t, k.global_bytes - excess, k.shared_wavefronts, k.requests, k.occupancy.theoretical));
      if (cost >= matters) {
        ExplainFinding f = found_at_line(ExplainKind::uncoalesced);
        f.value = l.units / l.requests;
        f.ideal = l.ideal_units / l.requests;
        f.unit = "sectors per request";
        f.cost_s = cost;
        const std::size_t element = l.element_bytes != 0 ? l.element_bytes : l.bytes;
        const long long apart = element == 0 ? 0 : l.stride / static_cast<long long>(element);
        const std::string words = element_word(task, l.target, element);
        std::string distance;
        if (l.stride % static_cast<long long>(std::max<std::size_t>(element, 1)) == 0 && apart != 0) {
          const auto [dim, value] = dimension_named(r.c, std::llabs(apart));
          distance = dim.empty() ? fmt::format("{} {} ({} bytes) apart", std::llabs(apart), words, std::llabs(l.stride))
                                 : fmt::format("{} {} apart ({})", dim, words, value);
        } else {
          distance = fmt::format("{} bytes apart", std::llabs(l.stride));
        }
        f.message = fmt::format(
            "{} {}{}: {:.1f} sectors of 32 bytes per request, ideal {:.1f}: neighbouring threads {} "
            "addresses {}",
            where, verb, code, f.value, f.ideal, l.write ? "write" : "read", distance);
        f.fix = fmt::format(
            "make neighbouring threads (consecutive threadIdx.x) {} neighbouring elements of {}: threadIdx.x should "
            "move the last index (the column of a row-major matrix); where the data must be walked along a column "
            "(a transpose), read a tile row by row into shared memory and {} it from there row by row",
            l.write ? "write" : "read", target, l.write ? "write" : "use");
        f.ncu_metric = l.write ? "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum / "
                                 "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
                               : "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / "
                                 "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
        r.findings.push_back(std::move(f));
      }
    }
    // Bank conflicts.
    if (l.space == MemorySpace::shared && l.units >= kConflictWays * l.ideal_units) {
      const double excess = l.units - l.ideal_units;
      const double cost =
          saved(*m, m->with(t, k.global_bytes, k.shared_wavefronts - excess, k.requests, k.occupancy.theoretical));
      if (cost >= matters) {
        ExplainFinding f = found_at_line(ExplainKind::bank_conflict);
        f.value = l.units / l.ideal_units;
        f.ideal = 1;
        f.unit = "ways (wavefronts per request for each one needed)";
        f.cost_s = cost;
        const long long words_apart = l.stride / 4;
        const unsigned ways = l.worst_ideal == 0 ? 0 : l.worst_units / l.worst_ideal;
        const std::string pattern =
            words_apart == 0 ? fmt::format("the warp's threads {} {} different words that share one of the 32 banks",
                                           l.write ? "write" : "read", l.worst_units)
                             : fmt::format(
                                   "neighbouring threads {} words {} apart, {} different words in one of the "
                                   "32 banks",
                                   l.write ? "write" : "read", std::llabs(words_apart), l.worst_units);
        f.message = fmt::format(
            "{} {}{}: {}-way bank conflicts ({:.1f} wavefronts per request on average, ideal "
            "{:.1f}): {}",
            where, verb, code, ways, l.units / l.requests, l.ideal_units / l.requests, pattern);
        const std::size_t row = l.row_elements;
        if (row != 0 &&
            static_cast<std::size_t>(std::llabs(words_apart)) * 4 == row * std::max<std::size_t>(l.element_bytes, 4) &&
            std::gcd(row, std::size_t{32}) > 1) {
          f.fix = fmt::format(
              "the threads walk a column of {0}, whose rows are {1} elements long: every element of a column is in "
              "the same bank. Declare it one element wider, {0}[…][{2}] instead of [{1}]: the padding shifts each "
              "row by one bank, and a column's elements land in different banks",
              target, row, row + 1);
        } else {
          f.fix = fmt::format(
              "shared memory has 32 banks of 4 bytes, word i in bank i % 32: make the 32 threads of a warp touch 32 "
              "consecutive words of {} (threadIdx.x in the last index), or the same word (a broadcast); for a column "
              "walk, pad each row by one element",
              target);
        }
        f.ncu_metric = l.write ? "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
                               : "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
        r.findings.push_back(std::move(f));
      }
    }
  }
  // Divergence, per source line: its loads and stores together.
  struct Spread {
    const LineCost* first = nullptr;
    double requests = 0;
    double active_lanes = 0;
    double idle_wavefronts = 0;  // the wavefronts of the requests idle lanes would not have needed
  };
  std::map<std::tuple<std::string, std::string, int>, Spread> spreads;
  for (const auto& l : r.lines) {
    if (l.requests <= 0) continue;
    Spread& sp = spreads[{l.kernel, l.place.file, l.place.line}];
    if (sp.first == nullptr) sp.first = &l;
    sp.requests += l.requests;
    sp.active_lanes += l.active_lanes;
    if (l.space == MemorySpace::shared)
      sp.idle_wavefronts += (l.requests - l.active_lanes / kWarpLanes) * l.units / l.requests;
  }
  for (const auto& [key, sp] : spreads) {
    const double active = sp.active_lanes / (sp.requests * kWarpLanes);
    const KernelModel* m = model_of(std::get<0>(key));
    if (active > kDivergentActive || m == nullptr) continue;
    const KernelExplain& k = *m->k;
    // Idle lanes touch no memory: whole warps would save requests and their wavefronts.
    const double idle_requests = sp.requests - sp.active_lanes / kWarpLanes;
    const double cost = saved(*m, m->with(t, k.global_bytes, k.shared_wavefronts - sp.idle_wavefronts,
                                          k.requests - idle_requests, k.occupancy.theoretical));
    if (cost < matters) continue;
    ExplainFinding f;
    f.kind = ExplainKind::divergence;
    f.kernel = k.kernel;
    f.place = sp.first->place;
    f.code = f.place.line > 0 ? trimmed(line_text(r, f.place)) : sp.first->code;
    f.value = 100 * active;
    f.ideal = 100;
    f.unit = "% of a warp's lanes active";
    f.cost_s = cost;
    const std::string at = at_text(f.place);
    f.message = fmt::format("{}{}: warps run it with {} of their lanes active ({:.1f} of 32 on average)",
                            at.empty() ? fmt::format("in kernel '{}'", k.kernel) : at,
                            f.code.empty() ? "" : fmt::format(" `{}`", f.code), lanes_text(active),
                            sp.active_lanes / sp.requests);
    const unsigned threads = k.block[0] * k.block[1] * k.block[2];
    if (threads % 32 != 0) {
      f.fix = fmt::format(
          "a block of {} threads is not a whole number of warps: its last warp runs with {} of 32 lanes. Use "
          "blocks of a multiple of 32 threads (128 or 256)",
          threads, threads % 32);
    } else {
      f.fix =
          "the lanes of a warp run together: where a branch lets only some of them work, the others idle through "
          "it. Choose the working threads so that whole warps work or rest together (consecutive threadIdx.x): "
          "in a tree, `if (tid < stride)` with the stride halving each step, not `if (tid % (2 * stride) == 0)`";
    }
    f.ncu_metric = "smsp__thread_inst_executed_per_inst_executed.ratio";
    r.findings.push_back(std::move(f));
  }
  // Occupancy.
  for (const auto& m : models) {
    const KernelExplain& k = *m.k;
    // What the block's resources allow, the grid aside: a grid too small for the GPU is the
    // finding below, with its own fix.
    const unsigned threads = k.block[0] * k.block[1] * k.block[2];
    const Occupancy full = theoretical_occupancy(t, threads, k.registers_used, k.shared_bytes);
    if (full.fraction >= kLowOccupancy || k.blocks == 0) continue;
    const double cost = saved(m, m.with(t, k.global_bytes, k.shared_wavefronts, k.requests, 1.0));
    if (cost < matters) continue;
    ExplainFinding f;
    f.kind = ExplainKind::occupancy;
    f.kernel = k.kernel;
    f.value = 100 * full.fraction;
    f.ideal = 100 * kLowOccupancy;
    f.unit = "% of the SM's warps (theoretical occupancy)";
    f.cost_s = cost;
    std::string why;
    switch (full.limit) {
      case OccupancyLimit::shared_memory:
        why = fmt::format("{} of shared memory per block lets {} block{} share an SM's {}", kib_text(k.shared_bytes),
                          full.blocks_per_sm, full.blocks_per_sm == 1 ? "" : "s", kib_text(t.shared_per_sm));
        f.fix =
            "use less shared memory per block: a smaller tile, fewer elements staged per thread, or a type that "
            "holds only what the block needs";
        break;
      case OccupancyLimit::registers:
        why = fmt::format("{} registers per thread let {} block{} of {} threads share an SM's {} registers",
                          k.registers_used, full.blocks_per_sm, full.blocks_per_sm == 1 ? "" : "s", threads,
                          t.registers_per_sm);
        f.fix =
            "use fewer registers per thread: keep fewer values live at once, or give nvcc a budget with "
            "`__launch_bounds__(threads per block, blocks per SM)`";
        break;
      case OccupancyLimit::blocks:
      case OccupancyLimit::warps:
      case OccupancyLimit::grid:  // not without a grid
        why = fmt::format("blocks of {} threads: an SM holds at most {} blocks", threads, t.max_blocks_per_sm);
        f.fix = "use blocks of 128 to 256 threads (whole warps), so that the blocks an SM holds fill its warps";
        break;
    }
    f.place = occupancy_place(r, k, full.limit);
    const std::string at = at_text(f.place);
    f.message = fmt::format(
        "{}kernel '{}' keeps {} of an SM's {} warps busy ({} occupancy), limited by {}: {}; below {} there are too "
        "few warps to hide the memory's latency",
        at.empty() ? "" : at + ": ", k.kernel, full.warps_per_sm, t.max_warps_per_sm, percent(full.fraction),
        occupancy_limit_name(full.limit), why, percent(kLowOccupancy));
    f.ncu_metric = "sm__warps_active.avg.pct_of_peak_sustained_active (achieved), launch__occupancy_limit_*";
    r.findings.push_back(std::move(f));
  }
  // A grid too small for the GPU: most SMs have no block to run.
  for (const auto& m : models) {
    const KernelExplain& k = *m.k;
    if (k.blocks == 0 || k.launches == 0 || 2 * k.active_sms >= t.sms) continue;
    if (k.estimate.total() / static_cast<double>(k.launches) < kGridMattersSeconds) continue;
    const double cost =
        saved(m, estimate(t, t.sms, k.global_bytes, k.shared_wavefronts, k.requests, m.flops, k.occupancy.theoretical));
    if (cost < matters) continue;
    ExplainFinding f;
    f.kind = ExplainKind::occupancy;
    f.kernel = k.kernel;
    f.value = k.active_sms;
    f.ideal = t.sms;
    f.unit = "SMs with a block to run";
    f.cost_s = cost;
    f.place = launch_place(r, k);
    const std::string at = at_text(f.place);
    const std::uint64_t per_launch = k.blocks / k.launches;
    f.message = fmt::format(
        "{}kernel '{}' launches {} block{}: {} of the {} SMs of the {} have work, the others idle (the grid's blocks "
        "are what SMs run; one block runs on one SM)",
        at.empty() ? "" : at + ": ", k.kernel, per_launch, per_launch == 1 ? "" : "s", k.active_sms, t.sms, t.name);
    f.fix =
        "launch enough blocks to fill the GPU: give the work more threads (one per element, or a warp per row "
        "instead of a thread), (n + 255) / 256 blocks of 256; for a grid-stride loop, a few blocks per SM (the SM "
        "count is cudaDevAttrMultiProcessorCount)";
    f.ncu_metric = "launch__grid_size, launch__waves_per_multiprocessor";
    r.findings.push_back(std::move(f));
  }
  // Traffic beyond the task's minimum that coalescing alone would not remove.
  if (r.needed.bytes > 0 && r.coalesced_bytes >= kTrafficRatio * r.needed.bytes) {
    double cost = 0;
    for (const auto& m : models) {
      const KernelExplain& k = *m.k;
      const double reread =
          r.coalesced_bytes > 0 ? (m.coalesced_bytes - r.needed.bytes * m.coalesced_bytes / r.coalesced_bytes) : 0.0;
      cost += saved(m, m.with(t, k.global_bytes - std::max(0.0, reread), k.shared_wavefronts, k.requests,
                              k.occupancy.theoretical));
    }
    if (cost >= matters) {
      // The line that moves most, and how often each input is read over.
      const LineCost* top = nullptr;
      std::map<std::string, double> by_buffer;
      for (const auto& l : r.lines) {
        if (l.space != MemorySpace::global) continue;
        if (top == nullptr || l.ideal_units > top->ideal_units) top = &l;
        if (!l.target.empty() && !l.write) by_buffer[l.target] += l.ideal_units * kSectorBytes;
      }
      std::vector<std::string> reads;
      for (const auto& b : buffers) {
        const auto it = by_buffer.find(b.name);
        if (it == by_buffer.end() || b.bytes.empty()) continue;
        const double times = it->second / static_cast<double>(b.bytes.size());
        if (times < 1.5) continue;
        const auto [dim, value] = dimension_named(r.c, std::llround(times));
        reads.push_back(fmt::format("{} is read {:.0f} times over{}", b.name, times,
                                    dim.empty() ? "" : fmt::format(" ({})", value)));
      }
      ExplainFinding f;
      f.kind = ExplainKind::traffic;
      f.kernel = top != nullptr ? top->kernel : r.kernels.empty() ? "" : r.kernels.front().kernel;
      if (top != nullptr) {
        f.place = top->place;
        f.code = top->code;
      }
      f.value = r.coalesced_bytes;
      f.ideal = r.needed.bytes;
      f.unit = "bytes of global memory";
      f.cost_s = cost;
      const std::string at = at_text(f.place);
      f.message = fmt::format(
          "{}the kernels move {} of global memory where the task needs {} ({:.1f} times as much, even with every "
          "access coalesced){}",
          at.empty() ? "" : at + (f.code.empty() ? "" : fmt::format(" (`{}`)", f.code)) + ": ",
          bytes_text(r.coalesced_bytes), bytes_text(r.needed.bytes), r.coalesced_bytes / r.needed.bytes,
          reads.empty() ? "" : fmt::format(": {}", fmt::join(reads, ", ")));
      // Requests with few lanes: each lane's bytes cost a whole sector, whatever the reuse.
      const bool few_lanes =
          top != nullptr && top->requests > 0 && top->active_lanes / (kWarpLanes * top->requests) < kDivergentActive;
      f.fix = few_lanes
                  ? fmt::format(
                        "its requests have {} of their lanes active, and each lane's bytes cost a whole 32-byte "
                        "sector: fill the warps, with blocks of a multiple of 32 threads (256 is a good start), "
                        "enough of them to cover the data, and neighbouring threads on neighbouring elements",
                        lanes_text(top->active_lanes / (kWarpLanes * top->requests)))
                  : "read each element from global memory once per block, not once per use: load a tile that several "
                    "threads need into shared memory (or registers), __syncthreads(), and let every thread use it "
                    "from there; with tiles of T×T each input is read N/T times instead of N times";
      f.ncu_metric = "dram__bytes.sum (device memory), lts__t_sectors_srcunit_tex.sum × 32 (requested from L2)";
      r.findings.push_back(std::move(f));
    }
  }
  std::ranges::stable_sort(r.findings, std::greater<>{}, &ExplainFinding::cost_s);
}

}  // namespace

ExplainResult explain_exercise(const Task& task, const Toolchain& toolchain, const fs::path& source,
                               const ExplainOptions& options) {
  const GpuTarget* target = find_gpu_target(options.target);
  if (target == nullptr) {
    std::string known;
    for (const auto& t : gpu_targets()) known += (known.empty() ? "" : ", ") + t.key;
    throw UsageError(fmt::format("unknown target GPU '{}'; known: {}", options.target, known));
  }
  ExplainResult r;
  r.task = &task;
  r.source = source;
  r.target = *target;
  r.c = representative_case(task, options.only_sizes);
  r.needed = task.cost(r.c);
  r.compile = toolchain.compile(source);
  if (!r.compile.ok) {
    r.verdict = Verdict::compile_error;
    r.message = "the file does not compile";
    return r;
  }
  const auto data = make_case_data(task, r.c, case_seed(options.seed, task.info(), r.c));
  RunnerCall call{task, toolchain, r.compile.module, r.c, protocol::CheckRun{}, options.timeout, std::size_t{1} << 20};
  auto& counts = std::get<protocol::CheckRun>(call.run);
  counts.instrumentation = protocol::Instrumentation::access_counts;
  counts.counts_sm_count = target->sms;
  counts.counts_every_block = options.count_every_block;
  protocol::Reply reply;
  const CaseResult run = call_runner(
      call, {&data->buffers}, [&](std::size_t) -> const std::vector<Expected>& { return data->expected.get(); },
      &reply);
  r.verdict = run.verdict;
  if (run.verdict != Verdict::passed) r.message = run.message;
  if (reply.status != protocol::Status::ok || reply.profile.kernels.empty()) return r;
  const NvccRegisters nvcc =
      options.registers_from_nvcc
          ? nvcc_registers(source, target->arch, options.cache_dir)
          : NvccRegisters{{}, fmt::format("registers not asked of nvcc: assumed {} per thread", kAssumedRegisters)};
  r.registers_note = nvcc.note;
  analyse(r, reply.profile, reply.records, nvcc, data->buffers);
  return r;
}

}  // namespace cudalab
