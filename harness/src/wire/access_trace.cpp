// The JSON mapping of `cudalab show`'s trace (access_trace.hpp). The reply comes from a process that
// ran student code: every field is type- and range-checked, every index points into its list.
#include "cudalab/access_trace.hpp"

#include <string>

#include <nlohmann/json.hpp>

#include "cudalab/protocol.hpp"

namespace cudalab::protocol {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxNameBytes = 512;
constexpr std::uint64_t kMaxLine = 10'000'000;
/// A grid or block extent CUDA allows at most.
constexpr std::uint64_t kMaxExtent = 2'147'483'647;
/// Fields of one access, in the order of TraceAccess.
constexpr std::size_t kAccessFields = 9;

[[noreturn]] void bad(const std::string& key, const char* why) {
  throw ProtocolError("trace field '" + key + "' " + why);
}

const json& member(const json& j, const char* key) {
  if (!j.is_object()) bad(key, "is not in an object");
  const auto it = j.find(key);
  if (it == j.end()) bad(key, "is missing");
  return *it;
}

std::uint64_t count(const json& v, const char* key, std::uint64_t max) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0)) bad(key, "is not a count");
  const auto n = v.get<std::uint64_t>();
  if (n > max) bad(key, "is out of range");
  return n;
}

const json& list(const json& j, const char* key, std::size_t max) {
  const json& v = member(j, key);
  if (!v.is_array()) bad(key, "is not a list");
  if (v.size() > max) bad(key, "is too long");
  return v;
}

std::array<unsigned, 3> extent(const json& j, const char* key) {
  const json& v = list(j, key, 3);
  if (v.size() != 3) bad(key, "is not three numbers");
  std::array<unsigned, 3> e{};
  for (std::size_t i = 0; i < 3; ++i) {
    e[i] = static_cast<unsigned>(count(v[i], key, kMaxExtent));
    if (e[i] == 0) bad(key, "has an extent of 0");
  }
  return e;
}

std::string name(const json& j, const char* key) {
  const json& v = member(j, key);
  if (!v.is_string() || v.get_ref<const std::string&>().size() > kMaxNameBytes) bad(key, "is not a short text");
  return v.get<std::string>();
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
  for (const auto& l : list(j, "launches", kMaxTraceLaunches)) {
    TraceLaunch launch;
    launch.kernel = name(l, "kernel");
    launch.grid = extent(l, "grid");
    launch.block = extent(l, "block");
    for (const auto& line : list(l, "barriers", kMaxTracePhases)) {
      launch.barrier_lines.push_back(static_cast<int>(count(line, "barriers", kMaxLine)));
    }
    t.launches.push_back(std::move(launch));
  }
  for (const auto& g : list(j, "targets", kMaxTraceTargets)) {
    TraceTarget target;
    target.name = name(g, "name");
    const json& shared = member(g, "shared");
    if (!shared.is_boolean()) bad("shared", "is not true or false");
    target.shared = shared.get<bool>();
    target.element_bytes = count(member(g, "element_bytes"), "element_bytes", 16);
    if (target.element_bytes == 0) bad("element_bytes", "is 0");
    target.elements = count(member(g, "elements"), "elements", std::uint64_t{1} << 40);
    target.row_elements = count(member(g, "row_elements"), "row_elements", target.elements);
    t.targets.push_back(std::move(target));
  }
  for (const auto& a : list(j, "accesses", kMaxTraceAccesses)) {
    if (!a.is_array() || a.size() != kAccessFields) bad("accesses", "holds an entry that is not nine numbers");
    if (t.launches.empty()) bad("launch", "names no launch");
    if (t.targets.empty()) bad("target", "names no target");
    TraceAccess access;
    access.launch = static_cast<std::uint32_t>(count(a[0], "launch", t.launches.size() - 1));
    const TraceLaunch& l = t.launches[access.launch];
    const std::uint64_t blocks = std::uint64_t{l.grid[0]} * l.grid[1] * l.grid[2];
    const std::uint64_t threads = std::uint64_t{l.block[0]} * l.block[1] * l.block[2];
    access.block = static_cast<std::uint32_t>(count(a[1], "block", blocks - 1));
    access.thread = static_cast<std::uint32_t>(count(a[2], "thread", threads - 1));
    access.phase = static_cast<std::uint32_t>(count(a[3], "phase", kMaxTracePhases));
    access.target = static_cast<std::uint32_t>(count(a[4], "target", t.targets.size() - 1));
    if (!a[5].is_number_integer()) bad("element", "is not a whole number");
    access.element = a[5].get<std::int64_t>();
    access.kind = static_cast<TraceKind>(count(a[6], "kind", 2));
    access.pc = count(a[7], "pc", ~std::uint64_t{0});
    access.bits = static_cast<std::uint32_t>(count(a[8], "bits", 0xFFFFFFFFu));
    t.accesses.push_back(access);
  }
  const json& truncated = member(j, "truncated");
  if (!truncated.is_boolean()) bad("truncated", "is not true or false");
  t.truncated = truncated.get<bool>();
}

}  // namespace cudalab::protocol
