// The one JSON mapping of the parent ↔ runner protocol. Readers check every field's type and
// range: a reply comes from a process that ran student code, so nothing in it is trusted.
#include "cudalab/protocol.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include <nlohmann/json.hpp>

namespace cudalab::protocol {

using nlohmann::json;

namespace {

template <typename E>
using Names = std::initializer_list<std::pair<E, const char*>>;

template <typename E>
const char* name_of(E value, Names<E> names) {
  for (const auto& [v, n] : names) {
    if (v == value) return n;
  }
  return "?";
}

template <typename E>
E enum_field(const json& j, const char* key, Names<E> names) {
  const json& v = j.at(key);
  if (v.is_string()) {
    const auto& text = v.get_ref<const std::string&>();
    for (const auto& [e, n] : names) {
      if (text == n) return e;
    }
  }
  throw ProtocolError(std::string("field '") + key + "' has an unknown value " + v.dump().substr(0, 40));
}

const json& field(const json& j, const char* key) {
  if (!j.is_object()) throw ProtocolError(std::string("expected an object holding '") + key + "'");
  const auto it = j.find(key);
  if (it == j.end()) throw ProtocolError(std::string("field '") + key + "' is missing");
  return *it;
}

std::string text_field(const json& j, const char* key) {
  const json& v = field(j, key);
  if (!v.is_string()) throw ProtocolError(std::string("field '") + key + "' is not a string");
  return v.get<std::string>();
}

bool bool_field(const json& j, const char* key) {
  const json& v = field(j, key);
  if (!v.is_boolean()) throw ProtocolError(std::string("field '") + key + "' is not true or false");
  return v.get<bool>();
}

std::size_t count_field(const json& j, const char* key) {
  const json& v = field(j, key);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0)) {
    throw ProtocolError(std::string("field '") + key + "' is not a count");
  }
  return v.get<std::size_t>();
}

/// A finite, non-negative number (times, durations).
double seconds_field(const json& v, const char* key) {
  if (!v.is_number()) throw ProtocolError(std::string("field '") + key + "' is not a number");
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < 0) throw ProtocolError(std::string("field '") + key + "' is out of range");
  return d;
}

double seconds_field(const json& j, const char* key, std::nullptr_t) { return seconds_field(field(j, key), key); }

std::vector<double> seconds_list(const json& j, const char* key) {
  const json& v = field(j, key);
  if (!v.is_array()) throw ProtocolError(std::string("field '") + key + "' is not a list");
  std::vector<double> out;
  out.reserve(v.size());
  for (const auto& x : v) out.push_back(seconds_field(x, key));
  return out;
}

template <typename T>
std::vector<T> list_field(const json& j, const char* key) {
  const json& v = field(j, key);
  if (!v.is_array()) throw ProtocolError(std::string("field '") + key + "' is not a list");
  std::vector<T> out;
  out.reserve(v.size());
  for (const auto& x : v) out.push_back(x.get<T>());
  return out;
}

std::array<unsigned, 3> dim3_field(const json& j, const char* key) {
  const json& v = field(j, key);
  if (!v.is_array() || v.size() != 3) throw ProtocolError(std::string("field '") + key + "' is not 3 numbers");
  std::array<unsigned, 3> out{};
  for (std::size_t i = 0; i < 3; ++i) {
    if (!v[i].is_number_unsigned()) throw ProtocolError(std::string("field '") + key + "' is not 3 numbers");
    out[i] = v[i].get<unsigned>();
  }
  return out;
}

const Names<Instrumentation> instrumentation_names = {{Instrumentation::none, "none"},
                                                      {Instrumentation::access_checks, "access checks"},
                                                      {Instrumentation::access_counts, "access counts"}};
const Names<BufferRole> role_names = {
    {BufferRole::input, "input"}, {BufferRole::output, "output"}, {BufferRole::inout, "inout"}};
const Names<HostMemory> host_memory_names = {{HostMemory::page_locked, "page-locked"},
                                             {HostMemory::pageable, "pageable"}};
const Names<MemoryKind> memory_names = {
    {MemoryKind::device, "device"}, {MemoryKind::managed, "managed"}, {MemoryKind::pinned, "pinned"}};
const Names<CopyKind> copy_names = {{CopyKind::host_to_host, "HostToHost"},
                                    {CopyKind::host_to_device, "HostToDevice"},
                                    {CopyKind::device_to_host, "DeviceToHost"},
                                    {CopyKind::device_to_device, "DeviceToDevice"},
                                    {CopyKind::by_pointer, "Default"}};
const Names<Status> status_names = {{Status::ok, "ok"},
                                    {Status::load_error, "load_error"},
                                    {Status::missing_symbol, "missing_symbol"},
                                    {Status::exception, "exception"},
                                    {Status::not_implemented, "not_implemented"},
                                    {Status::cuda_error, "cuda_error"},
                                    {Status::no_device, "no_device"},
                                    {Status::runner_error, "runner_error"}};
const Names<StopReason> stop_names = {{StopReason::running, "running"},
                                      {StopReason::noise_target_met, "noise_target_met"},
                                      {StopReason::time_cap, "time_cap"},
                                      {StopReason::max_samples, "max_samples"}};

const Names<ThreadOrder> order_names = {
    {ThreadOrder::forward, "forward"}, {ThreadOrder::reverse, "reverse"}, {ThreadOrder::shuffled, "shuffled"}};
const Names<FindingKind> finding_names = {{FindingKind::out_of_bounds, "out_of_bounds"},
                                          {FindingKind::use_after_free, "use_after_free"},
                                          {FindingKind::misaligned, "misaligned"},
                                          {FindingKind::race, "race"},
                                          {FindingKind::uninitialized, "uninitialized"},
                                          {FindingKind::barrier, "barrier"},
                                          {FindingKind::warp, "warp"},
                                          {FindingKind::shuffle_source, "shuffle_source"},
                                          {FindingKind::order, "order"},
                                          {FindingKind::unsynchronized, "unsynchronized"},
                                          {FindingKind::stream_order, "stream_order"},
                                          {FindingKind::host_memory, "host_memory"}};

/// A text field of a finding: short, as the protocol allows.
std::string short_text(const json& j, const char* key) {
  std::string t = text_field(j, key);
  if (t.size() > kMaxFindingTextBytes) throw ProtocolError(std::string("field '") + key + "' is too long");
  return t;
}

json access_json(const FindingAccess& a) {
  return json{{"block", a.block},   {"thread", a.thread}, {"write", a.write},
              {"atomic", a.atomic}, {"pc", a.pc},         {"line", a.line}};
}

FindingAccess access_from(const json& j) {
  FindingAccess a;
  a.block = dim3_field(j, "block");
  a.thread = dim3_field(j, "thread");
  a.write = bool_field(j, "write");
  a.atomic = bool_field(j, "atomic");
  const json& pc = field(j, "pc");
  if (!pc.is_number_unsigned()) throw ProtocolError("field 'pc' is not an offset");
  a.pc = pc.get<std::uint64_t>();
  const std::size_t line = count_field(j, "line");
  if (line > 10'000'000) throw ProtocolError("field 'line' is out of range");
  a.line = static_cast<int>(line);
  return a;
}

/// Runs `parse` on `text`, turning every failure into a ProtocolError naming `what`.
template <typename T>
T parse_checked(std::string_view text, const char* what) {
  try {
    return json::parse(text).get<T>();
  } catch (const ProtocolError& e) {
    throw ProtocolError(std::string("malformed ") + what + ": " + e.what());
  } catch (const json::exception& e) {
    std::string reason = e.what();
    // nlohmann prefixes "[json.exception.type_error.302] "; the rest is the reason.
    if (const auto close = reason.find("] "); close != std::string::npos) reason.erase(0, close + 2);
    throw ProtocolError(std::string("malformed ") + what + ": " + reason);
  }
}

}  // namespace

const char* copy_kind_name(CopyKind kind) { return name_of(kind, copy_names); }

const char* status_name(Status status) { return name_of(status, status_names); }

void to_json(json& j, const BufferSlot& b) {
  j = json{{"name", b.name}, {"offset", b.offset}, {"bytes", b.bytes}, {"role", name_of(b.role, role_names)}};
}

void from_json(const json& j, BufferSlot& b) {
  b.name = text_field(j, "name");
  b.offset = count_field(j, "offset");
  b.bytes = count_field(j, "bytes");
  b.role = enum_field(j, "role", role_names);
}

void to_json(json& j, const Arg& a) { j = a.buffer ? json{{"buffer", *a.buffer}} : json{{"int", a.value}}; }

void from_json(const json& j, Arg& a) {
  if (j.is_object() && j.contains("buffer")) {
    a.buffer = count_field(j, "buffer");
  } else {
    const json& v = field(j, "int");
    if (!v.is_number_integer()) throw ProtocolError("field 'int' is not an integer");
    a.value = v.get<std::int64_t>();
  }
}

void to_json(json& j, const Witness& w) { j = json{{"call", w.call}, {"outputs", w.outputs}}; }

void from_json(const json& j, Witness& w) {
  w.call = count_field(j, "call");
  w.outputs = list_field<BufferSlot>(j, "outputs");
}

void to_json(json& j, const Sandbox& s) {
  j = json{{"enabled", s.enabled},       {"landlock", s.landlock}, {"seccomp", s.seccomp},
           {"read_files", s.read_files}, {"work_dir", s.work_dir}, {"protected_dirs", s.protected_dirs}};
}

void from_json(const json& j, Sandbox& s) {
  s.enabled = bool_field(j, "enabled");
  s.landlock = bool_field(j, "landlock");
  s.seccomp = bool_field(j, "seccomp");
  s.read_files = list_field<std::string>(j, "read_files");
  s.work_dir = text_field(j, "work_dir");
  s.protected_dirs = list_field<std::string>(j, "protected_dirs");
  if (!s.enabled && (s.landlock || s.seccomp)) throw ProtocolError("sandbox: protections asked for but not enabled");
  const auto absolute = [](const std::string& p) { return !p.empty() && p.front() == '/'; };
  if (s.enabled && !absolute(s.work_dir)) throw ProtocolError("sandbox: the working folder is not an absolute path");
  for (const auto& list : {&s.read_files, &s.protected_dirs}) {
    if (!std::ranges::all_of(*list, absolute)) throw ProtocolError("sandbox: a path is not absolute");
  }
}

void to_json(json& j, const CheckRun& c) {
  json orders = json::array();
  for (const auto o : c.orders) orders.push_back(name_of(o, order_names));
  j = json{{"instrumentation", name_of(c.instrumentation, instrumentation_names)},
           {"instrumented_sets", c.instrumented_sets},
           {"order", name_of(c.order, order_names)},
           {"orders", std::move(orders)},
           {"order_seed", c.order_seed},
           {"case_markers", c.case_markers},
           {"page_locked", c.page_locked},
           {"counts_sm_count", c.counts_sm_count},
           {"counts_every_block", c.counts_every_block},
           {"trace", c.trace}};
}

void to_json(json& j, const BenchRun& b) {
  j = json{{"policy", b.policy},
           {"host_memory", name_of(b.host_memory, host_memory_names)},
           {"witnesses", b.witnesses},
           {"clock_batches", b.clock_batches},
           {"kernel_traces", b.kernel_traces},
           {"gate", b.gate},
           {"rounds", b.rounds}};
}

void to_json(json& j, const Spec& s) {
  j = json{{"module", s.module},           {"symbol", s.symbol}, {"device_pointers", s.device_pointers},
           {"total_bytes", s.total_bytes}, {"sets", s.sets},     {"args", s.args},
           {"sandbox", s.sandbox}};
  if (s.is_bench()) {
    j["bench"] = s.bench();
  } else {
    j["check"] = s.check();
  }
}

namespace {

/// A check run, validated against the spec's sets.
CheckRun check_run_of(const json& j, const Spec& s) {
  CheckRun c;
  c.instrumentation = enum_field(j, "instrumentation", instrumentation_names);
  c.instrumented_sets = list_field<bool>(j, "instrumented_sets");
  if (!c.instrumented_sets.empty() && c.instrumented_sets.size() != s.sets.size()) {
    throw ProtocolError("field 'instrumented_sets' does not hold one flag per set");
  }
  c.order = enum_field(j, "order", order_names);
  const json& list = field(j, "orders");
  if (!list.is_array() || (!list.empty() && list.size() != s.sets.size())) {
    throw ProtocolError("field 'orders' does not hold one order per set");
  }
  for (const json& o : list) c.orders.push_back(enum_field(json{{"order", o}}, "order", order_names));
  const json& seed = field(j, "order_seed");
  if (!seed.is_number_unsigned()) throw ProtocolError("field 'order_seed' is not a seed");
  c.order_seed = seed.get<std::uint64_t>();
  c.case_markers = bool_field(j, "case_markers");
  c.page_locked = bool_field(j, "page_locked");
  c.counts_sm_count = static_cast<unsigned>(std::min<std::size_t>(count_field(j, "counts_sm_count"), 4096));
  c.counts_every_block = bool_field(j, "counts_every_block");
  c.trace = bool_field(j, "trace");
  if (c.trace && c.instrumentation != Instrumentation::access_checks) {
    throw ProtocolError("field 'trace' is set without access checks");
  }
  return c;
}

/// A bench run, validated against the spec's sets and shared file.
BenchRun bench_run_of(const json& j, const Spec& s) {
  BenchRun b;
  const json& p = field(j, "policy");
  b.policy.warmup_runs = count_field(p, "warmup_runs");
  b.policy.min_samples = count_field(p, "min_samples");
  b.policy.min_time_s = seconds_field(p, "min_time_s", nullptr);
  b.policy.noise_target = seconds_field(p, "noise_target", nullptr);
  b.policy.time_cap_s = seconds_field(p, "time_cap_s", nullptr);
  b.policy.max_samples = count_field(p, "max_samples");
  b.host_memory = enum_field(j, "host_memory", host_memory_names);
  b.witnesses = list_field<Witness>(j, "witnesses");
  for (const auto& w : b.witnesses) {
    std::size_t outputs = 0;
    for (const auto& slot : s.sets.front()) outputs += slot.role == BufferRole::input ? 0 : 1;
    if (w.outputs.size() != outputs) throw ProtocolError("a witness does not hold every output buffer");
    for (const auto& slot : w.outputs) {
      if (slot.offset > s.total_bytes || slot.bytes > s.total_bytes - slot.offset) {
        throw ProtocolError("witness buffer '" + slot.name + "' lies outside the shared file");
      }
    }
  }
  b.clock_batches = bool_field(j, "clock_batches");
  b.kernel_traces = bool_field(j, "kernel_traces");
  b.gate = bool_field(j, "gate");
  b.rounds = bool_field(j, "rounds");
  if (b.rounds && !b.gate) throw ProtocolError("rounds need a bench with a gate");
  return b;
}

}  // namespace

void from_json(const json& j, Spec& s) {
  s.module = text_field(j, "module");
  s.symbol = text_field(j, "symbol");
  s.device_pointers = bool_field(j, "device_pointers");
  s.total_bytes = count_field(j, "total_bytes");
  const json& sets = field(j, "sets");
  if (!sets.is_array() || sets.empty()) throw ProtocolError("field 'sets' holds no input set");
  s.sets.clear();
  for (const auto& set : sets) s.sets.push_back(set.get<std::vector<BufferSlot>>());
  const json& args = field(j, "args");
  if (!args.is_array() || args.size() != s.sets.size())
    throw ProtocolError("field 'args' does not hold one list per set");
  s.args.clear();
  for (const auto& list : args) s.args.push_back(list.get<std::vector<Arg>>());
  for (const auto& set : s.sets) {
    if (set.size() != s.sets.front().size()) throw ProtocolError("input sets differ in their buffers");
    for (const auto& b : set) {
      if (b.offset > s.total_bytes || b.bytes > s.total_bytes - b.offset) {
        throw ProtocolError("buffer '" + b.name + "' lies outside the shared file");
      }
    }
  }
  for (const auto& list : s.args) {
    for (const auto& a : list) {
      if (a.buffer && *a.buffer >= s.sets.front().size()) throw ProtocolError("an argument names no buffer");
    }
  }
  const bool check = j.contains("check");
  if (check == j.contains("bench")) throw ProtocolError("a spec holds exactly one of 'check' and 'bench'");
  if (check) {
    s.run = check_run_of(field(j, "check"), s);
  } else {
    s.run = bench_run_of(field(j, "bench"), s);
  }
  s.sandbox = field(j, "sandbox").get<Sandbox>();
}

void to_json(json& j, const Allocation& a) {
  j = json{{"api", a.api}, {"kind", name_of(a.kind, memory_names)}, {"bytes", a.bytes}, {"freed", a.freed}};
}

void from_json(const json& j, Allocation& a) {
  a.api = text_field(j, "api");
  a.kind = enum_field(j, "kind", memory_names);
  a.bytes = count_field(j, "bytes");
  a.freed = bool_field(j, "freed");
}

void to_json(json& j, const Copy& c) {
  j = json{{"api", c.api},
           {"kind", copy_kind_name(c.kind)},
           {"bytes", c.bytes},
           {"to_host_buffer", c.to_host_buffer},
           {"from_host_buffer", c.from_host_buffer},
           {"to_device_buffer", c.to_device_buffer},
           {"from_device_buffer", c.from_device_buffer},
           {"to_host_memory", c.to_host_memory},
           {"from_host_memory", c.from_host_memory},
           {"stream", c.stream}};
}

void from_json(const json& j, Copy& c) {
  c.api = text_field(j, "api");
  c.kind = enum_field(j, "kind", copy_names);
  c.bytes = count_field(j, "bytes");
  c.to_host_buffer = text_field(j, "to_host_buffer");
  c.from_host_buffer = text_field(j, "from_host_buffer");
  c.to_device_buffer = j.contains("to_device_buffer") ? text_field(j, "to_device_buffer") : "";
  c.from_device_buffer = j.contains("from_device_buffer") ? text_field(j, "from_device_buffer") : "";
  c.to_host_memory = j.contains("to_host_memory") && bool_field(j, "to_host_memory");
  c.from_host_memory = j.contains("from_host_memory") && bool_field(j, "from_host_memory");
  c.stream = j.contains("stream") ? static_cast<std::uint64_t>(count_field(j, "stream")) : 0;
}

void to_json(json& j, const Launch& l) {
  j = json{{"kernel", l.kernel},
           {"grid", l.grid},
           {"block", l.block},
           {"dynamic_shared_bytes", l.dynamic_shared_bytes},
           {"static_shared_bytes", l.static_shared_bytes},
           {"duration_s", l.duration_s},
           {"stream", l.stream},
           {"start_ns", l.start_ns},
           {"end_ns", l.end_ns}};
}

void from_json(const json& j, Launch& l) {
  l.kernel = text_field(j, "kernel");
  l.grid = dim3_field(j, "grid");
  l.block = dim3_field(j, "block");
  l.dynamic_shared_bytes = count_field(j, "dynamic_shared_bytes");
  l.static_shared_bytes = count_field(j, "static_shared_bytes");
  l.duration_s = seconds_field(j, "duration_s", nullptr);
  l.stream = j.contains("stream") ? static_cast<std::uint64_t>(count_field(j, "stream")) : 0;
  l.start_ns = j.contains("start_ns") ? static_cast<std::uint64_t>(count_field(j, "start_ns")) : 0;
  l.end_ns = j.contains("end_ns") ? static_cast<std::uint64_t>(count_field(j, "end_ns")) : 0;
}

void to_json(json& j, const Transfer& t) {
  j = json{{"kind", copy_kind_name(t.kind)},
           {"bytes", t.bytes},
           {"stream", t.stream},
           {"start_ns", t.start_ns},
           {"end_ns", t.end_ns}};
}

void from_json(const json& j, Transfer& t) {
  t.kind = enum_field(j, "kind", copy_names);
  t.bytes = count_field(j, "bytes");
  t.stream = static_cast<std::uint64_t>(count_field(j, "stream"));
  t.start_ns = static_cast<std::uint64_t>(count_field(j, "start_ns"));
  t.end_ns = static_cast<std::uint64_t>(count_field(j, "end_ns"));
}

void to_json(json& j, const FailedCall& f) { j = json{{"call", f.call}, {"error", f.error}, {"cause", f.cause}}; }

void from_json(const json& j, FailedCall& f) {
  f.call = text_field(j, "call");
  f.error = text_field(j, "error");
  f.cause = text_field(j, "cause");
}

void to_json(json& j, const Records& r) {
  j = json{{"allocations", r.allocations}, {"copies", r.copies}, {"launches", r.launches}, {"dropped", r.dropped}};
  if (!r.transfers.empty()) j["transfers"] = r.transfers;
  if (r.first_failed_call) j["first_failed_call"] = *r.first_failed_call;
  if (!r.blocked.empty()) j["blocked"] = r.blocked;
}

void from_json(const json& j, Records& r) {
  r.allocations = list_field<Allocation>(j, "allocations");
  r.copies = list_field<Copy>(j, "copies");
  r.launches = list_field<Launch>(j, "launches");
  r.transfers = j.contains("transfers") ? list_field<Transfer>(j, "transfers") : std::vector<Transfer>{};
  r.dropped = j.contains("dropped") ? count_field(j, "dropped") : 0;
  r.first_failed_call.reset();
  if (j.contains("first_failed_call")) r.first_failed_call = field(j, "first_failed_call").get<FailedCall>();
  r.blocked = j.contains("blocked") ? list_field<std::string>(j, "blocked") : std::vector<std::string>{};
  if (r.blocked.size() > kMaxBlockedRecords) throw ProtocolError("field 'blocked' holds more than the protocol allows");
  for (const auto& b : r.blocked) {
    if (b.size() > kMaxBlockedBytes) throw ProtocolError("an entry of 'blocked' is longer than the protocol allows");
  }
}

void to_json(json& j, const Reply& r) {
  j = json{{"status", status_name(r.status)},
           {"set", r.set},
           {"message", r.message},
           {"cuda_error", r.cuda_error},
           {"solve_ms", r.solve_ms},
           {"records", r.records},
           {"launches_recorded", r.launches_recorded},
           {"samples_s", r.samples_s},
           {"kernel_samples_s", r.kernel_samples_s},
           {"stop", name_of(r.stop, stop_names)},
           {"minimums_met", r.minimums_met},
           {"wall_s", r.wall_s},
           {"calls", r.calls},
           {"witnessed", r.witnessed},
           {"round_ends", r.round_ends},
           {"clock_calls", r.clock_calls}};
  if (!r.phases.empty()) {
    json phases = json::array();
    for (const auto& p : r.phases) phases.push_back({p.name, p.seconds});
    j["phases"] = std::move(phases);
  }
  if (r.host_memory) j["host_memory"] = name_of(*r.host_memory, host_memory_names);
  if (!r.out_of_bounds.empty()) {
    json zones = json::array();
    for (const auto& o : r.out_of_bounds) {
      zones.push_back(
          {{"buffer", o.buffer}, {"before", o.before}, {"first", o.first}, {"last", o.last}, {"changed", o.changed}});
    }
    j["out_of_bounds"] = std::move(zones);
  }
  if (!r.findings.empty()) {
    json findings = json::array();
    for (const auto& f : r.findings) {
      json one{{"kind", name_of(f.kind, finding_names)},
               {"kernel", f.kernel},
               {"grid", f.grid},
               {"block", f.block},
               {"shared", f.shared},
               {"target", f.target},
               {"where", f.where},
               {"bytes", f.bytes},
               {"access", access_json(f.access)},
               {"write_first", f.write_first},
               {"count", f.count}};
      if (f.other) one["other"] = access_json(*f.other);
      findings.push_back(std::move(one));
    }
    j["findings"] = std::move(findings);
  }
  if (!r.profile.kernels.empty()) j["profile"] = r.profile;
  if (!r.trace.accesses.empty() || !r.trace.launches.empty()) j["trace"] = r.trace;
}

void from_json(const json& j, Reply& r) {
  r.status = enum_field(j, "status", status_names);
  r.set = count_field(j, "set");
  r.message = text_field(j, "message");
  r.cuda_error = text_field(j, "cuda_error");
  r.solve_ms = seconds_field(j, "solve_ms", nullptr);
  r.records = field(j, "records").get<Records>();
  r.launches_recorded = bool_field(j, "launches_recorded");
  r.samples_s = seconds_list(j, "samples_s");
  r.kernel_samples_s = seconds_list(j, "kernel_samples_s");
  r.stop = enum_field(j, "stop", stop_names);
  r.minimums_met = bool_field(j, "minimums_met");
  r.wall_s = seconds_field(j, "wall_s", nullptr);
  r.calls = count_field(j, "calls");
  r.witnessed = list_field<std::size_t>(j, "witnessed");
  r.round_ends = j.contains("round_ends") ? list_field<std::size_t>(j, "round_ends") : std::vector<std::size_t>{};
  // Each round ends after the one before, within the samples: a round with no sample has no median.
  for (std::size_t i = 0; i < r.round_ends.size(); ++i) {
    const std::size_t begin = i == 0 ? 0 : r.round_ends[i - 1];
    if (r.round_ends[i] <= begin || r.round_ends[i] > r.samples_s.size()) {
      throw ProtocolError("field 'round_ends' does not split the samples into rounds");
    }
  }
  r.clock_calls = count_field(j, "clock_calls");
  r.phases.clear();
  if (j.contains("phases")) {
    const json& phases = field(j, "phases");
    if (!phases.is_array() || phases.size() > kMaxPhases) throw ProtocolError("field 'phases' is not a short list");
    for (const json& p : phases) {
      if (!p.is_array() || p.size() != 2 || !p[0].is_string() ||
          p[0].get_ref<const std::string&>().size() > kMaxPhaseNameBytes) {
        throw ProtocolError("an entry of 'phases' is not a [name, seconds] pair");
      }
      r.phases.push_back({p[0].get<std::string>(), seconds_field(p[1], "phases")});
    }
  }
  r.host_memory.reset();
  if (j.contains("host_memory")) r.host_memory = enum_field(j, "host_memory", host_memory_names);
  r.out_of_bounds.clear();
  if (j.contains("out_of_bounds")) {
    const json& zones = field(j, "out_of_bounds");
    if (!zones.is_array() || zones.size() > kMaxOutOfBounds) {
      throw ProtocolError("field 'out_of_bounds' is not a short list");
    }
    for (const json& z : zones) {
      OutOfBounds o{text_field(z, "buffer"), bool_field(z, "before"), count_field(z, "first"), count_field(z, "last"),
                    count_field(z, "changed")};
      if (o.first > o.last || o.changed == 0 || o.changed > o.last - o.first + 1) {
        throw ProtocolError("an entry of 'out_of_bounds' is not a range of changed bytes");
      }
      r.out_of_bounds.push_back(std::move(o));
    }
  }
  r.findings.clear();
  if (j.contains("findings")) {
    const json& findings = field(j, "findings");
    if (!findings.is_array() || findings.size() > kMaxFindings)
      throw ProtocolError("field 'findings' is not a short list");
    for (const json& one : findings) {
      Finding f;
      f.kind = enum_field(one, "kind", finding_names);
      f.kernel = short_text(one, "kernel");
      f.grid = dim3_field(one, "grid");
      f.block = dim3_field(one, "block");
      f.shared = bool_field(one, "shared");
      f.target = short_text(one, "target");
      f.where = short_text(one, "where");
      const std::size_t bytes = count_field(one, "bytes");
      if (bytes > 4096) throw ProtocolError("field 'bytes' of a finding is out of range");
      f.bytes = static_cast<unsigned>(bytes);
      f.access = access_from(field(one, "access"));
      if (one.contains("other")) f.other = access_from(field(one, "other"));
      f.write_first = bool_field(one, "write_first");
      f.count = count_field(one, "count");
      if (f.count == 0) throw ProtocolError("a finding counts no access");
      r.findings.push_back(std::move(f));
    }
  }
  r.profile = j.contains("profile") ? field(j, "profile").get<AccessProfile>() : AccessProfile{};
  r.trace = j.contains("trace") ? field(j, "trace").get<AccessTrace>() : AccessTrace{};
}

Reply parse_reply(std::string_view text) {
  if (text.size() > kMaxReplyBytes) throw ProtocolError("malformed reply: longer than the protocol allows");
  return parse_checked<Reply>(text, "reply");
}

std::vector<Reply> parse_replies(std::string_view text) {
  std::vector<Reply> replies;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    replies.push_back(parse_reply(text.substr(0, end)));
    if (replies.back().set != replies.size() - 1) throw ProtocolError("malformed reply: its set is out of order");
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  }
  return replies;
}

Spec parse_spec(std::string_view text) { return parse_checked<Spec>(text, "spec"); }

std::string dump_spec(const Spec& spec) { return json(spec).dump(); }

std::string dump_reply(const Reply& reply) {
  // Kernel names are the student's; replace what is not UTF-8 instead of failing to write.
  return json(reply).dump(-1, ' ', false, json::error_handler_t::replace);
}

const char* finding_kind_name(FindingKind kind) { return name_of(kind, finding_names); }

std::string describe_phases(const std::vector<Phase>& phases, double at_least_s, int decimals) {
  std::string out;
  for (const auto& p : phases) {
    if (p.seconds < at_least_s) continue;
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.*f", decimals, p.seconds);
    out += (out.empty() ? ": " : ", ") + p.name + " " + seconds;
  }
  return out;
}

}  // namespace cudalab::protocol

namespace cudalab {

void to_json(nlohmann::json& j, const SamplingPolicy& p) {
  j = nlohmann::json{{"warmup_runs", p.warmup_runs},   {"min_samples", p.min_samples}, {"min_time_s", p.min_time_s},
                     {"noise_target", p.noise_target}, {"time_cap_s", p.time_cap_s},   {"max_samples", p.max_samples}};
}

}  // namespace cudalab
