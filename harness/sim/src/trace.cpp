// `cudalab show`'s trace (trace.hpp).
#include "trace.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "internal.hpp"
#include "profile.hpp"
#include "sim/control.hpp"

namespace cudalab::sim::trace {

bool active = false;

namespace {

/// A write whose value is read once its thread's store is done: `count` elements (a vector store
/// covers several) from `access` on.
struct Pending {
  std::size_t access = 0;  ///< index into the trace's accesses of the first
  std::size_t count = 0;
  std::uintptr_t address = 0;  ///< where the first lies
};

struct State {
  protocol::AccessTrace trace;
  std::unordered_map<const void*, std::uint32_t> targets;     // region -> index into trace.targets
  std::unordered_map<std::uintptr_t, std::uint64_t> offsets;  // return address -> module offset
  std::vector<Pending> pending;  // per thread of the running block; access == SIZE_MAX: none
  bool in_launch = false;
};

constexpr std::size_t kNone = ~std::size_t{0};

State& state() {
  static auto* s = new State;  // never destroyed: kernels may run during static destruction
  return *s;
}

std::uint32_t bits_at(std::uintptr_t a, std::size_t bytes) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, reinterpret_cast<const void*>(a), std::min<std::size_t>(bytes, sizeof bits));
  return bits;
}

void flush(State& s, std::uint32_t thread) {
  if (thread >= s.pending.size() || s.pending[thread].access == kNone) return;
  Pending& p = s.pending[thread];
  const std::size_t element = s.trace.targets[s.trace.accesses[p.access].target].element_bytes;
  for (std::size_t i = 0; i < p.count; ++i)
    s.trace.accesses[p.access + i].bits = bits_at(p.address + i * element, element);
  p.access = kNone;
}

void flush_all(State& s) {
  for (std::uint32_t t = 0; t < s.pending.size(); ++t) flush(s, t);
}

std::uint32_t target_of(State& s, const Target& t) {
  const auto it = s.targets.find(t.id);
  if (it != s.targets.end()) return it->second;
  protocol::TraceTarget target;
  target.name = t.name != nullptr ? *t.name : std::string();
  target.shared = t.shared;
  // A struct wider than the widest vector (a `__shared__` struct of arrays) has no one element
  // size: it is drawn by 4-byte words, as an unknown element is.
  target.element_bytes = t.element != 0 && t.element <= protocol::kMaxTraceElementBytes ? t.element : 4;
  target.elements = (t.end - t.begin) / target.element_bytes;
  target.row_elements = t.inner;
  const auto index = static_cast<std::uint32_t>(s.trace.targets.size());
  s.trace.targets.push_back(std::move(target));
  s.targets.emplace(t.id, index);
  return index;
}

std::uint64_t offset_of(State& s, std::uintptr_t pc) {
  const auto it = s.offsets.find(pc);
  if (it != s.offsets.end()) return it->second;
  const std::uint64_t offset = module_offset(pc);
  s.offsets.emplace(pc, offset);
  return offset;
}

}  // namespace

void launch_begin(const cudalab_sim_launch_desc& desc) {
  State& s = state();
  s.in_launch = s.trace.launches.size() < protocol::kMaxTraceLaunches;
  if (!s.in_launch) {
    s.trace.truncated = true;
    return;
  }
  protocol::TraceLaunch l;
  l.kernel = desc.name != nullptr ? desc.name : "";
  l.grid = {desc.grid.x, desc.grid.y, desc.grid.z};
  l.block = {desc.block.x, desc.block.y, desc.block.z};
  s.trace.launches.push_back(std::move(l));
  s.pending.assign(static_cast<std::size_t>(desc.block.x) * desc.block.y * desc.block.z, Pending{kNone, 0, 0});
}

void launch_end() {
  State& s = state();
  flush_all(s);
  s.in_launch = false;
}

void block_begin(unsigned long long) { flush_all(state()); }

void barrier(int line, std::uint32_t phase) {
  State& s = state();
  if (!s.in_launch) return;
  flush_all(s);
  auto& lines = s.trace.launches.back().barrier_lines;
  if (phase >= 1 && phase <= protocol::kMaxTracePhases && lines.size() < phase) lines.resize(phase, 0);
  if (phase >= 1 && phase <= lines.size() && lines[phase - 1] == 0) lines[phase - 1] = line;
}

void access(std::uint32_t block, std::uint32_t thread, std::uint32_t phase, const Target& target, std::uintptr_t a,
            unsigned size, bool write, bool atomic, std::uintptr_t pc) {
  State& s = state();
  if (!s.in_launch) return;
  flush(s, thread);
  const std::uint32_t index = target_of(s, target);
  const std::size_t element = s.trace.targets[index].element_bytes;
  const auto launch = static_cast<std::uint32_t>(s.trace.launches.size() - 1);
  // A vector access (a float4) is one access per element it covers.
  const std::size_t first = s.trace.accesses.size();
  std::size_t inside_count = 0;
  for (std::size_t at = 0; at < std::max<std::size_t>(size, 1); at += element) {
    if (s.trace.accesses.size() >= protocol::kMaxTraceAccesses) {
      s.trace.truncated = true;
      return;
    }
    const std::uintptr_t here = a + at;
    protocol::TraceAccess r;
    r.launch = launch;
    r.block = block;
    r.thread = thread;
    r.phase = std::min<std::uint32_t>(phase, protocol::kMaxTracePhases);
    r.target = index;
    // Out of bounds: an element before the first (negative) or past the last.
    r.element = here >= target.begin ? static_cast<std::int64_t>((here - target.begin) / element)
                                     : -static_cast<std::int64_t>((target.begin - here + element - 1) / element);
    r.kind = atomic ? protocol::TraceKind::atomic : write ? protocol::TraceKind::write : protocol::TraceKind::read;
    r.pc = offset_of(s, pc);
    const bool inside = here >= target.begin && here + element <= target.end;
    if (inside && !write) r.bits = bits_at(here, element);
    if (inside && inside_count == at / element) ++inside_count;  // the leading elements inside the target
    s.trace.accesses.push_back(r);
  }
  if ((write || atomic) && inside_count > 0 && thread < s.pending.size()) s.pending[thread] = {first, inside_count, a};
}

protocol::AccessTrace take() {
  State& s = state();
  flush_all(s);
  protocol::AccessTrace out = std::move(s.trace);
  s.trace = {};
  s.targets.clear();
  s.in_launch = false;
  return out;
}

}  // namespace cudalab::sim::trace

// ---- the control API (sim/control.hpp) ----
namespace cudalab::sim::control {

void trace_accesses(bool on, unsigned sm_count) {
  trace::active = on;
  if (on) profile::posed_sm_count = sm_count;
}

protocol::AccessTrace take_access_trace() { return trace::take(); }

}  // namespace cudalab::sim::control
