// `cudalab show` (show.hpp): the traced run and what is drawn from it. The pictures themselves are
// show_page.cpp's.
#include "cudalab/show.hpp"

#include <algorithm>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "cudalab/access_profile.hpp"
#include "cudalab/case_data.hpp"
#include "cudalab/findings.hpp"

namespace cudalab {

namespace fs = std::filesystem;
using protocol::kSectorBytes;
using protocol::kWarpLanes;

namespace {

/// The smallest sizes tried, in order, for the first that fails.
constexpr std::size_t kCandidateCases = 6;
/// At most this many blocks' counts are kept.
constexpr std::size_t kMaxCountedBlocks = 4096;
/// At most this many load and store instructions of warp 0 are pictured per launch.
constexpr std::size_t kMaxWarpPictures = 12;
constexpr std::size_t kBankCount = 32;
constexpr std::size_t kBankBytes = 4;
/// A case with a dimension under this is drawn after the others.
constexpr std::int64_t kThinSide = 8;
/// 1D buffers are drawn this many elements a row (or a block's width, where that is smaller).
constexpr std::size_t kRowOf1d = 32;

/// One traced run of `module` at `c`.
struct TracedRun {
  CaseResult result;
  protocol::Reply reply;
  std::vector<Buffer> buffers;
};

TracedRun traced_run(const Task& task, const Toolchain& toolchain, const fs::path& module, const Case& c,
                     const ShowOptions& options) {
  const auto data = make_case_data(task, c, case_seed(options.seed, task.info(), c));
  RunnerCall call{task, toolchain, module, c, protocol::CheckRun{}, options.timeout, std::size_t{1} << 20};
  auto& run = std::get<protocol::CheckRun>(call.run);
  run.instrumentation = protocol::Instrumentation::access_checks;
  run.trace = true;
  run.counts_sm_count = options.sm_count;
  TracedRun traced;
  traced.result = call_runner(
      call, {&data->buffers}, [&](std::size_t) -> const std::vector<Expected>& { return data->expected.get(); },
      &traced.reply);
  traced.result.findings = traced.reply.findings;
  judge_findings(traced.result.findings, module, traced.result, nullptr, task.info().in_place_steps);
  traced.buffers = data->buffers;
  return traced;
}

/// The cases show tries: the size asked for, else the smallest few, by work.
std::vector<Case> candidate_cases(const Task& task, const ShowOptions& options) {
  CheckOptions select;
  select.only_sizes = options.only_sizes;
  std::vector<Case> cases = select_cases(task, Backend::sim, select);
  // Small first, but a case with a thin side (M=1) last: its picture is a line, not a grid.
  const auto order = [&](const Case& c) {
    const Cost cost = task.cost(c);
    const bool thin = std::ranges::any_of(c.dims, [](const Dim& d) { return d.value < kThinSide; });
    return std::pair{thin, std::max(cost.bytes, cost.flops)};
  };
  std::ranges::stable_sort(cases, {}, order);
  if (!options.only_sizes.empty()) cases.resize(1);
  std::erase_if(cases, [](const Case& c) { return c.large; });
  if (cases.size() > kCandidateCases) cases.resize(kCandidateCases);
  if (cases.empty()) cases = select_cases(task, Backend::sim, select);
  return cases;
}

std::uint32_t linear(const std::array<unsigned, 3>& index, const std::array<unsigned, 3>& extent) {
  return index[0] + extent[0] * (index[1] + extent[1] * index[2]);
}

std::vector<std::string> read_lines(const fs::path& file) {
  std::vector<std::string> lines;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// Counts index: global reads, global writes, shared reads, shared writes.
std::size_t count_slot(bool shared, protocol::TraceKind kind) {
  return (shared ? 2 : 0) + (kind == protocol::TraceKind::read ? 0 : 1);
}

/// Warp 0 of `block`: per load or store instruction, its first execution by each lane.
std::vector<WarpAccessPicture> warp_pictures(const protocol::AccessTrace& trace, std::uint32_t launch,
                                             std::uint32_t block, const std::map<std::uint64_t, SourcePlace>& places,
                                             const std::map<std::uint32_t, std::string>& names) {
  struct Site {
    std::uint32_t target = 0;
    protocol::TraceKind kind = protocol::TraceKind::read;
    std::vector<std::int64_t> element = std::vector<std::int64_t>(kWarpLanes, -1);
    std::uint64_t pc = 0;
  };
  std::vector<Site> sites;
  std::map<std::uint64_t, std::size_t> by_pc;
  for (const auto& a : trace.accesses) {
    if (a.launch != launch || a.block != block || a.thread >= kWarpLanes) continue;
    auto [it, added] = by_pc.try_emplace(a.pc, sites.size());
    if (added) {
      if (sites.size() >= kMaxWarpPictures) {
        by_pc.erase(it);
        continue;
      }
      sites.push_back(Site{a.target, a.kind, std::vector<std::int64_t>(kWarpLanes, -1), a.pc});
    }
    Site& s = sites[it->second];
    if (s.element[a.thread] < 0 && a.element >= 0) s.element[a.thread] = a.element;
  }
  std::vector<WarpAccessPicture> out;
  for (const Site& s : sites) {
    const protocol::TraceTarget& t = trace.targets[s.target];
    WarpAccessPicture w;
    const auto named = names.find(s.target);
    w.target = named != names.end() ? named->second : t.name;
    w.shared = t.shared;
    w.write = s.kind != protocol::TraceKind::read;
    if (const auto p = places.find(s.pc); p != places.end()) w.line = p->second.line;
    std::set<std::int64_t> units;
    std::map<std::int64_t, std::set<std::int64_t>> words_in_bank;
    std::size_t active = 0;
    for (const std::int64_t e : s.element) {
      if (e < 0) {
        w.lane_unit.push_back(-1);
        continue;
      }
      ++active;
      const auto byte = static_cast<std::size_t>(e) * t.element_bytes;
      const auto unit = static_cast<std::int64_t>(t.shared ? (byte / kBankBytes) % kBankCount : byte / kSectorBytes);
      w.lane_unit.push_back(unit);
      units.insert(unit);
      if (t.shared) words_in_bank[unit].insert(static_cast<std::int64_t>(byte / kBankBytes));
    }
    if (active == 0) continue;
    // The ideal moves each distinct element once (lanes reading one address are served together).
    std::set<std::int64_t> distinct(s.element.begin(), s.element.end());
    distinct.erase(-1);
    const std::size_t bytes = distinct.size() * t.element_bytes;
    if (t.shared) {
      for (const auto& [bank, words] : words_in_bank) w.units = std::max(w.units, words.size());
      w.ideal = (bytes + kBankCount * kBankBytes - 1) / (kBankCount * kBankBytes);
    } else {
      w.units = units.size();
      w.ideal = (bytes + kSectorBytes - 1) / kSectorBytes;
    }
    out.push_back(std::move(w));
  }
  return out;
}

/// The trace's accesses that a finding names (its thread at its instruction), marked for drawing.
std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>> finding_accesses(const CaseResult& r) {
  std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>> marked;  // block, thread, pc
  for (const auto& f : r.findings) {
    const auto mark = [&](const protocol::FindingAccess& a) {
      if (a.pc != 0) marked.emplace(linear(a.block, f.grid), linear(a.thread, f.block), a.pc);
    };
    mark(f.access);
    if (f.other) mark(*f.other);
  }
  return marked;
}

}  // namespace

ShowResult show_exercise(const Task& task, const Toolchain& toolchain, const fs::path& source,
                         const ShowOptions& options) {
  ShowResult r;
  r.task = &task;
  r.source = source;
  const std::vector<Case> candidates = candidate_cases(task, options);  // a bad --size fails before compiling
  r.compile = toolchain.compile(source);
  if (!r.compile.ok) {
    r.c = candidates.front();
    r.verdict = Verdict::compile_error;
    r.message = "the file does not compile";
    return r;
  }
  TracedRun run;
  for (const Case& c : candidates) {
    run = traced_run(task, toolchain, r.compile.module, c, options);
    r.c = c;
    if (run.result.verdict != Verdict::passed) break;
  }
  if (options.only_sizes.empty() && run.result.verdict == Verdict::passed) {
    r.c = candidates.front();  // every size passed: the smallest is the clearest picture
    run = traced_run(task, toolchain, r.compile.module, r.c, options);
  }
  r.verdict = run.result.verdict;
  r.message = run.result.message;
  r.findings = run.result.placed;
  r.source_lines = read_lines(source);
  r.minimum_global_elements = task.cost(r.c).bytes / static_cast<double>(sizeof(float));
  const protocol::AccessTrace& trace = run.reply.trace;
  r.truncated = trace.truncated;
  r.command = fmt::format("cudalab show {} --size {}", task.info().id, r.c.dims.front().value);

  std::vector<std::uint64_t> pcs;
  for (const auto& a : trace.accesses) pcs.push_back(a.pc);
  std::ranges::sort(pcs);
  pcs.erase(std::unique(pcs.begin(), pcs.end()), pcs.end());
  const std::map<std::uint64_t, SourcePlace> places = locate_in_module(r.compile.module, pcs);
  const auto line_of = [&](std::uint64_t pc) {
    const auto it = places.find(pc);
    return it == places.end() ? 0 : it->second.line;
  };
  const auto marked = finding_accesses(run.result);

  // The block drawn in detail: as asked, else the first a finding names, else block 0.
  r.block = options.block.value_or(0);
  if (!options.block) {
    for (const auto& f : run.result.findings) {
      r.block = linear(f.access.block, f.grid);
      break;
    }
  }

  for (std::uint32_t li = 0; li < trace.launches.size(); ++li) {
    const protocol::TraceLaunch& tl = trace.launches[li];
    ShownLaunch l;
    l.kernel = tl.kernel;
    l.grid = tl.grid;
    l.block = tl.block;
    l.barrier_lines = tl.barrier_lines;
    const std::size_t threads = std::size_t{tl.block[0]} * tl.block[1] * tl.block[2];
    const std::size_t blocks = std::size_t{tl.grid[0]} * tl.grid[1] * tl.grid[2];
    l.thread_counts.assign(threads, {});
    l.block_counts.assign(std::min(blocks, kMaxCountedBlocks), {});
    std::map<std::uint32_t, std::size_t> shown;  // trace target -> index into l.targets
    for (const auto& a : trace.accesses) {
      if (a.launch != li) continue;
      const protocol::TraceTarget& t = trace.targets[a.target];
      const std::size_t slot = count_slot(t.shared, a.kind);
      if (a.block < l.block_counts.size()) ++l.block_counts[a.block][slot];
      if (a.block == r.block && a.thread < threads) ++l.thread_counts[a.thread][slot];
      l.phases = std::max(l.phases, a.phase + 1);
      if (t.shared && a.block != r.block) continue;  // one block's instance of a shared array
      auto [it, added] = shown.try_emplace(a.target, l.targets.size());
      if (added) {
        ShownTarget s;
        s.name = t.name.empty() ? fmt::format("allocation {}", l.targets.size() + 1) : t.name;
        s.shared = t.shared;
        s.elements.resize(t.elements);
        s.cols = t.elements;
        const auto buffer = std::ranges::find(run.buffers, t.name, &Buffer::name);
        if (!t.shared && buffer != run.buffers.end()) {
          s.harness_buffer = true;
          s.output = buffer->role != Role::input;
          s.is_float = buffer->dtype == DType::f32;
          if (buffer->rows > 0 && buffer->cols > 0 &&
              static_cast<std::size_t>(buffer->rows) * static_cast<std::size_t>(buffer->cols) == t.elements) {
            s.rows = static_cast<std::size_t>(buffer->rows);
            s.cols = static_cast<std::size_t>(buffer->cols);
          }
        } else if (t.shared && t.row_elements > 0 && t.elements % t.row_elements == 0) {
          s.rows = t.elements / t.row_elements;
          s.cols = t.row_elements;
        }
        if (s.rows == 1 && t.elements > kRowOf1d) {
          s.cols = std::min<std::size_t>(kRowOf1d, tl.block[0] <= kRowOf1d ? tl.block[0] : kRowOf1d);
          s.rows = (t.elements + s.cols - 1) / s.cols;
        }
        l.targets.push_back(std::move(s));
      }
      ShownAccess shown_access{
          a.block, a.thread, a.phase, a.kind, line_of(a.pc), a.bits, marked.contains({a.block, a.thread, a.pc})};
      ShownTarget& s = l.targets[it->second];
      if (a.element >= 0 && static_cast<std::size_t>(a.element) < s.elements.size()) {
        s.elements[static_cast<std::size_t>(a.element)].push_back(shown_access);
      } else {
        s.outside.emplace_back(a.element, shown_access);
      }
    }
    std::map<std::uint32_t, std::string> names;
    for (const auto& [index, at] : shown) names.emplace(index, l.targets[at].name);
    l.warps = warp_pictures(trace, li, r.block, places, names);
    r.launches.push_back(std::move(l));
  }
  return r;
}

}  // namespace cudalab
