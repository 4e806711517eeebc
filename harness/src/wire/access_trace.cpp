// The JSON mapping of `cudalab show`'s trace (access_trace.hpp). The reply comes from a process that
// ran student code: every field is type- and range-checked, every index points into its list.
#include "cudalab/access_trace.hpp"

#include <string>

#include <nlohmann/json.hpp>

#include "cudalab/protocol.hpp"
#include "json_fields.hpp"

namespace cudalab::protocol {

using nlohmann::json;

namespace {

/// A grid or block extent CUDA allows at most.
constexpr std::uint64_t kMaxExtent = 2'147'483'647;
/// Fields of one access, in the order of TraceAccess.
constexpr std::size_t kAccessFields = 9;
constexpr wire_detail::JsonFields kTrace{"trace"};

std::array<unsigned, 3> extent(const json& j, const char* key) {
  const json& v = kTrace.list_field(j, key, 3);
  if (v.size() != 3) kTrace.bad(key, "is not three numbers");
  std::array<unsigned, 3> e{};
  for (std::size_t i = 0; i < 3; ++i) {
    e[i] = static_cast<unsigned>(kTrace.count(v[i], key, kMaxExtent));
    if (e[i] == 0) kTrace.bad(key, "has an extent of 0");
  }
  return e;
}

}  // namespace

void to_json(json& j, const AccessTrace& t) {
  json launches = json::array();
  for (const auto& l : t.launches) {
    launches.push_back(json{{"kernel", l.kernel}, {"grid", l.grid}, {"block", l.block}, {"barriers", l.barrier_lines}});
  }
  json targets = json::array();
  for (const auto& g : t.targets) {
    targets.push_back(json{{"name", g.name},
                           {"shared", g.shared},
                           {"element_bytes", g.element_bytes},
                           {"elements", g.elements},
                           {"row_elements", g.row_elements}});
  }
  json accesses = json::array();
  for (const auto& a : t.accesses) {
    accesses.push_back(json::array(
        {a.launch, a.block, a.thread, a.phase, a.target, a.element, static_cast<unsigned>(a.kind), a.pc, a.bits}));
  }
  j = json{{"launches", std::move(launches)},
           {"targets", std::move(targets)},
           {"accesses", std::move(accesses)},
           {"truncated", t.truncated}};
}

void from_json(const json& j, AccessTrace& t) {
  t = {};
  for (const auto& l : kTrace.list_field(j, "launches", kMaxTraceLaunches)) {
    TraceLaunch launch;
    launch.kernel = kTrace.name_field(l, "kernel");
    launch.grid = extent(l, "grid");
    launch.block = extent(l, "block");
    for (const auto& line : kTrace.list_field(l, "barriers", kMaxTracePhases)) {
      launch.barrier_lines.push_back(static_cast<int>(kTrace.count(line, "barriers", wire_detail::kMaxLine)));
    }
    t.launches.push_back(std::move(launch));
  }
  for (const auto& g : kTrace.list_field(j, "targets", kMaxTraceTargets)) {
    TraceTarget target;
    target.name = kTrace.name_field(g, "name");
    target.shared = kTrace.flag_field(g, "shared");
    target.element_bytes = kTrace.count_field(g, "element_bytes", kMaxTraceElementBytes);
    if (target.element_bytes == 0) kTrace.bad("element_bytes", "is 0");
    target.elements = kTrace.count_field(g, "elements", std::uint64_t{1} << 40);
    target.row_elements = kTrace.count_field(g, "row_elements", target.elements);
    t.targets.push_back(std::move(target));
  }
  for (const auto& a : kTrace.list_field(j, "accesses", kMaxTraceAccesses)) {
    if (!a.is_array() || a.size() != kAccessFields) kTrace.bad("accesses", "holds an entry that is not nine numbers");
    if (t.launches.empty()) kTrace.bad("launch", "names no launch");
    if (t.targets.empty()) kTrace.bad("target", "names no target");
    TraceAccess access;
    access.launch = static_cast<std::uint32_t>(kTrace.count(a[0], "launch", t.launches.size() - 1));
    const TraceLaunch& l = t.launches[access.launch];
    const std::uint64_t blocks = std::uint64_t{l.grid[0]} * l.grid[1] * l.grid[2];
    const std::uint64_t threads = std::uint64_t{l.block[0]} * l.block[1] * l.block[2];
    access.block = static_cast<std::uint32_t>(kTrace.count(a[1], "block", blocks - 1));
    access.thread = static_cast<std::uint32_t>(kTrace.count(a[2], "thread", threads - 1));
    access.phase = static_cast<std::uint32_t>(kTrace.count(a[3], "phase", kMaxTracePhases));
    access.target = static_cast<std::uint32_t>(kTrace.count(a[4], "target", t.targets.size() - 1));
    if (!a[5].is_number_integer()) kTrace.bad("element", "is not a whole number");
    access.element = a[5].get<std::int64_t>();
    access.kind = static_cast<TraceKind>(kTrace.count(a[6], "kind", 2));
    access.pc = kTrace.count(a[7], "pc", ~std::uint64_t{0});
    access.bits = static_cast<std::uint32_t>(kTrace.count(a[8], "bits", 0xFFFFFFFFu));
    t.accesses.push_back(access);
  }
  t.truncated = kTrace.flag_field(j, "truncated");
}

}  // namespace cudalab::protocol
