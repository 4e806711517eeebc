// The simulator's CUDA runtime API: device memory is host memory, tracked so that every pointer
// and size is checked as CUDA checks it; streams and events exist but work is synchronous
// (a launch or copy has completed when the call returns, which CUDA's semantics allow).
#include <dlfcn.h>
#include <execinfo.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <unordered_map>

#include "checks.hpp"
#include "internal.hpp"
#include "profile.hpp"
#include "records/records.hpp"
#include "sim/control.hpp"

// Work runs at its call here, but a stream keeps what a GPU would still have queued on it: an
// operation is pending until the host waits for it (a synchronize, a query that succeeded, a
// synchronous copy after it on the legacy default stream). Each stream's last operation carries
// a vector clock: for each stream, the last of its operations that must have finished first.
using StreamClock = std::map<CUstream_st*, std::uint64_t>;

struct CUstream_st {
  unsigned flags = 0;
  bool destroyed = false;  // the handle is gone; kept while its work is pending
  unsigned number = 0;     // 1 for the first stream created since solve's last return
  std::uint64_t uid = 0;   // unique for the process: tells a new stream from one freed at its address
  std::uintptr_t created_pc = 0;
  std::uint64_t seq = 0;  // operations enqueued
  StreamClock clock;      // what the stream's last operation waits for, itself included
  struct Op {
    std::uint64_t seq;
    std::string what;
    std::uintptr_t pc;
  };
  std::deque<Op> pending;  // not yet known to have finished (never kept for the legacy stream)
};
struct CUevent_st {
  unsigned flags = 0;
  bool recorded = false;
  std::chrono::steady_clock::time_point when;
  StreamClock clock;  // what had to finish before the event, as recorded
};

namespace cudalab::sim {
namespace {

enum class Space { device, managed, pinned, symbol };

/// The least red zone around an allocation while the checks are on: as far as the runner's guard
/// zones reach in a plain run (protocol::guard_bytes), which the checked run does without.
constexpr std::size_t kCheckedZone = std::size_t{256} << 10;

struct Allocation {
  std::size_t bytes;
  Space space;
  std::size_t zone = 0;  // guard bytes before the allocation (what to free is `base - zone`)
};

struct State {
  std::mutex mutex;
  std::map<std::uintptr_t, Allocation> allocations;  // by base address
  std::size_t device_bytes = 0;
  std::set<CUstream_st*> streams;
  std::set<CUevent_st*> events;
  CUstream_st legacy;              // the legacy default stream (0, cudaStreamLegacy)
  CUstream_st per_thread;          // cudaStreamPerThread: a blocking stream of its own
  StreamClock done;                // per stream, the last operation the host knows has finished
  std::set<CUstream_st*> tracked;  // streams with operations (destroyed ones until they finish)
  unsigned streams_created = 0;    // since solve's last return (names streams in messages)
  std::uint64_t stream_uids = 0;
  // The checks' operations (copies, memsets, launches) since the host last waited for everything,
  // with ids from ops_base on: which stream, and its sequence number there.
  struct Op {
    CUstream_st* stream;
    std::uint64_t uid;
    std::uint64_t seq;
  };
  std::vector<Op> ops;
  std::uint32_t ops_base = 1;
  std::unordered_map<const void*, std::size_t> max_dynamic_shared;
};

State& state() {
  // Never destroyed (kernels may run during static destruction), and not on the heap: "device"
  // memory is heap memory here, and a kernel that writes past its allocation must not reach the
  // runtime's own lock (it did, and the next copy waited forever).
  alignas(State) static unsigned char storage[sizeof(State)];
  static State* s = new (storage) State;
  return *s;
}

thread_local cudaError_t last_error = cudaSuccess;
std::atomic<cudaError_t> sticky{cudaSuccess};

std::size_t total_memory() {
  static const std::size_t total = [] {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page = sysconf(_SC_PAGE_SIZE);
    std::size_t half = pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 2
                                             : (std::size_t{4} << 30);
    return std::min<std::size_t>(half, std::size_t{16} << 30);
  }();
  return total;
}

/// The allocation holding [p, p + bytes), or nullptr. Caller holds the mutex.
const Allocation* find(State& s, const void* p, std::size_t bytes, std::uintptr_t* base = nullptr) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  auto it = s.allocations.upper_bound(a);
  if (it == s.allocations.begin()) return nullptr;
  --it;
  if (a - it->first >= std::max<std::size_t>(it->second.bytes, 1)) return nullptr;
  if (bytes > it->second.bytes - (a - it->first)) return nullptr;
  if (base != nullptr) *base = it->first;
  return &it->second;
}

bool device_side(Space s) { return s != Space::pinned; }

/// The submission's return address into this runtime: the first frame outside libcudalab_sim.so
/// (the module's call, or the launch its inlined code makes), for a finding's line; 0 if none.
std::uintptr_t submission_pc() {
  void* frames[24];
  const int n = backtrace(frames, 24);
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&submission_pc), &self) == 0) return 0;
  for (int i = 1; i < n; ++i) {
    Dl_info info{};
    if (dladdr(frames[i], &info) != 0 && info.dli_fbase != self.dli_fbase) {
      return reinterpret_cast<std::uintptr_t>(frames[i]);
    }
  }
  return 0;
}

// ---- streams: what is still queued (the caller holds the mutex) ----

const char* kind_name(cudaMemcpyKind kind) {
  constexpr const char* kNames[] = {"cudaMemcpyHostToHost", "cudaMemcpyHostToDevice", "cudaMemcpyDeviceToHost",
                                    "cudaMemcpyDeviceToDevice", "cudaMemcpyDefault"};
  return kind >= 0 && kind <= 4 ? kNames[kind] : "?";
}

std::string ordinal(unsigned n) {
  const unsigned tens = n % 100;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th"
                       : n % 10 == 1              ? "st"
                       : n % 10 == 2              ? "nd"
                       : n % 10 == 3              ? "rd"
                                                  : "th";
  return std::to_string(n) + suffix;
}

CUstream_st* stream_state(State& s, cudaStream_t stream) {
  if (stream == nullptr || stream == cudaStreamLegacy) return &s.legacy;
  if (stream == cudaStreamPerThread) return &s.per_thread;
  return stream;
}

bool blocking(const CUstream_st* st) { return (st->flags & cudaStreamNonBlocking) == 0; }

void merge(StreamClock& into, const StreamClock& from) {
  for (const auto& [st, seq] : from) {
    auto& mine = into[st];
    mine = std::max(mine, seq);
  }
}

/// An operation on `st`. The legacy default stream waits for all earlier work of blocking streams,
/// and blocking streams wait for its earlier work.
/// The clock of the next operation on `st`, but for its own entry: the stream's last clock and the
/// legacy stream's implicit waits.
StreamClock next_clock(const State& s, const CUstream_st* st) {
  StreamClock c = st->clock;
  if (st == &s.legacy) {
    for (const CUstream_st* other : s.tracked) {
      if (other != st && blocking(other)) merge(c, other->clock);
    }
  } else if (blocking(st)) {
    merge(c, s.legacy.clock);
  }
  return c;
}

void enqueue(State& s, CUstream_st* st, std::string what, std::uintptr_t pc) {
  st->clock = next_clock(s, st);
  st->clock[st] = ++st->seq;
  s.tracked.insert(st);
  if (st != &s.legacy && st->pending.size() < 4096) st->pending.push_back({st->seq, std::move(what), pc});
}

/// The clock of `stream` as a host wait on it sees it: a wait on the legacy stream waits for the
/// blocking streams' earlier work too.
StreamClock wait_clock(State& s, CUstream_st* st) {
  StreamClock c = st->clock;
  if (st == &s.legacy) {
    for (CUstream_st* other : s.tracked) {
      if (blocking(other)) merge(c, other->clock);
    }
  }
  return c;
}

/// The host waited for everything `c` names: forget what has finished, and destroyed streams
/// whose work is all done.
void host_waited(State& s, const StreamClock& c) {
  merge(s.done, c);
  const auto prune = [&](StreamClock& clock) {
    std::erase_if(clock, [&](const auto& e) { return e.second <= s.done[e.first]; });
  };
  for (CUstream_st* st : s.tracked) {
    const std::uint64_t finished = s.done[st];
    while (!st->pending.empty() && st->pending.front().seq <= finished) st->pending.pop_front();
  }
  for (CUstream_st* st : s.tracked) prune(st->clock);
  for (CUevent_st* ev : s.events) prune(ev->clock);
  for (auto it = s.tracked.begin(); it != s.tracked.end();) {
    CUstream_st* st = *it;
    if (st->destroyed && st->pending.empty() && st->clock.empty()) {
      s.done.erase(st);
      delete st;
      it = s.tracked.erase(it);
    } else {
      ++it;
    }
  }
}

/// Everything finished (cudaDeviceSynchronize).
void device_waited(State& s) {
  StreamClock all;
  for (CUstream_st* st : s.tracked) merge(all, st->clock);
  host_waited(s, all);
  if (!s.ops.empty()) {
    s.ops_base += static_cast<std::uint32_t>(s.ops.size());
    s.ops.clear();
    checks::stream_ops_finished(s.ops_base);
  }
}

/// Whether `op`, on stream `o.stream`, has finished before an operation on `st` whose clock is `c`
/// may start: the same stream, a wait the clock carries, or a host wait.
bool finished_before(const State& s, const State::Op& o, const CUstream_st* st, const StreamClock& c) {
  const bool alive = o.stream == &s.legacy || o.stream == &s.per_thread ||
                     ((s.streams.contains(o.stream) || s.tracked.contains(o.stream)) && o.stream->uid == o.uid);
  if (!alive || o.stream == st) return true;  // a stream gone is a stream whose work was all done
  if (const auto d = s.done.find(o.stream); d != s.done.end() && d->second >= o.seq) return true;
  const auto it = c.find(o.stream);
  return it != c.end() && it->second >= o.seq;
}

/// Work `what` (a copy, a memset) issued on `stream` at the submission's `pc`; a synchronous call
/// on the legacy stream (`host_waits`) also waits for it and what it depends on.
void stream_work(cudaStream_t stream, std::string what, bool host_waits) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  CUstream_st* st = stream_state(s, stream);
  // The legacy stream's own work is never reported: the caller's next legacy call waits for it.
  enqueue(s, st, st == &s.legacy ? std::string() : std::move(what), st == &s.legacy ? 0 : submission_pc());
  if (host_waits) host_waited(s, wait_clock(s, st));
}

namespace records = cudalab::records;

/// The record keeper's name for a space (symbols are never recorded as allocations).
protocol::MemoryKind memory_kind(Space space) {
  return space == Space::managed  ? protocol::MemoryKind::managed
         : space == Space::pinned ? protocol::MemoryKind::pinned
                                  : protocol::MemoryKind::device;
}

/// Records `call` as the submission's first failing call, and returns its error.
cudaError_t failed(cudaError_t e, protocol::FailedCall call) {
  records::record_failed_call(std::move(call));
  return set_error(e);
}

cudaError_t failed_copy(cudaError_t e, const char* api, void* dst, const void* src, std::size_t count,
                        cudaMemcpyKind kind) {
  return failed(e, records::explain_failed_copy(api, dst, src, count, static_cast<int>(kind), cudaGetErrorName(e)));
}

/// `guarded_by_caller`: the runner's own buffers, between guard zones it fills and checks itself;
/// without the checks they need no red zones of their own (with them, the zones are the checks').
cudaError_t allocate(const char* api, void** ptr, std::size_t size, Space space, bool guarded_by_caller = false) {
  if (cudaError_t e = sticky_error()) return set_error(e);
  if (ptr == nullptr) return set_error(cudaErrorInvalidValue);
  if (size == 0) {
    *ptr = nullptr;
    return cudaSuccess;
  }
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (space != Space::pinned && size > total_memory() - s.device_bytes) {
    return failed(cudaErrorMemoryAllocation, {std::string(api) + "(&ptr, " + std::to_string(size) + " bytes)",
                                              "cudaErrorMemoryAllocation", "more memory than the device has free"});
  }
  const std::size_t rounded = (size + 255) / 256 * 256;
  // Guard zones on both sides: with the checks on (--sanitize) an access there is out of bounds;
  // without, they read as NaN / -1 (0xFF bytes), so that a read past the end poisons a float
  // result instead of adding the heap's next bytes (often 0), and a stray write lands there
  // instead of in the heap.
  // With the checks on, an access there is a finding whatever it holds: the zones are not filled
  // (each fresh page costs a fault), and reach at least as far as the runner's guard zones.
  const std::size_t zone = checks::active      ? std::max(checks::red_zone(size), kCheckedZone)
                           : guarded_by_caller ? 0
                                               : checks::red_zone(size);
  void* real = std::aligned_alloc(256, rounded + 2 * zone);
  if (real == nullptr) return set_error(cudaErrorMemoryAllocation);
  void* p = static_cast<char*>(real) + zone;
  if (!checks::active) {
    std::memset(real, 0xff, zone);
    std::memset(static_cast<char*>(p) + rounded, 0xff, zone);
  }
  // Fresh device memory reads as NaN / -1, so a kernel that reads what nobody wrote shows it.
  if (space != Space::pinned) std::memset(p, 0xff, rounded);
  if (checks::active) checks::allocated(real, p, size, zone, space != Space::device);
  s.allocations[reinterpret_cast<std::uintptr_t>(p)] = Allocation{size, space, zone};
  if (space != Space::pinned) s.device_bytes += size;
  *ptr = p;
  records::record_allocation(api, memory_kind(space), p, size);
  return cudaSuccess;
}

cudaError_t release(void* ptr, bool pinned) {
  if (cudaError_t e = sticky_error()) return set_error(e);
  if (ptr == nullptr) return cudaSuccess;
  State& s = state();
  std::size_t zone = 0;
  {
    std::lock_guard lock(s.mutex);
    auto it = s.allocations.find(reinterpret_cast<std::uintptr_t>(ptr));
    if (it == s.allocations.end() || it->second.space == Space::symbol ||
        (it->second.space == Space::pinned) != pinned) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "(%p)", ptr);
      return failed(cudaErrorInvalidValue,
                    {std::string(pinned ? "cudaFreeHost" : "cudaFree") + buf, "cudaErrorInvalidValue",
                     pinned ? "not a pointer from cudaMallocHost that is still allocated"
                            : "not a pointer from cudaMalloc that is still allocated: freed twice, or never "
                              "allocated?"});
    }
    if (it->second.space != Space::pinned) s.device_bytes -= it->second.bytes;
    zone = it->second.zone;
    s.allocations.erase(it);
  }
  records::record_free(ptr);
  // A checked allocation is kept a while (an access after this is use after free), whether or
  // not the checks are still on.
  if (!checks::released(ptr)) std::free(static_cast<char*>(ptr) - zone);
  return cudaSuccess;
}

/// Checks a copy's pointers against the allocations and performs it; `record` is false for the
/// rows of a 2D copy, which is recorded once.
cudaError_t copy(const char* api, void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                 cudaStream_t stream, bool record = true) {
  if (cudaError_t e = sticky_error()) return set_error(e);
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) {
    return failed_copy(cudaErrorInvalidMemcpyDirection, api, dst, src, count, kind);
  }
  if (!valid_stream(stream)) return set_error(cudaErrorInvalidResourceHandle);
  if (count == 0) return cudaSuccess;
  if (dst == nullptr || src == nullptr) return failed_copy(cudaErrorInvalidValue, api, dst, src, count, kind);
  bool valid = true;
  bool device_to_device = false;
  bool dst_allocated = false;
  bool src_allocated = false;
  {
    State& s = state();
    std::lock_guard lock(s.mutex);
    const Allocation* d = find(s, dst, 0);
    const Allocation* r = find(s, src, 0);
    const bool dst_dev = d != nullptr && device_side(d->space);
    const bool src_dev = r != nullptr && device_side(r->space);
    device_to_device = dst_dev && src_dev;
    dst_allocated = d != nullptr;
    src_allocated = r != nullptr;
    bool want_dst_dev = dst_dev;
    bool want_src_dev = src_dev;
    if (kind != cudaMemcpyDefault) {
      want_dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
      want_src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    }
    // A device side must be a device allocation with `count` bytes left; a host side must not be
    // device memory (the kind is wrong, or the pointers are swapped).
    if (want_dst_dev != dst_dev && !(d != nullptr && d->space == Space::managed)) valid = false;
    if (want_src_dev != src_dev && !(r != nullptr && r->space == Space::managed)) valid = false;
    if (d != nullptr && find(s, dst, count) == nullptr) valid = false;
    if (r != nullptr && find(s, src, count) == nullptr) valid = false;
  }
  // Explained outside the lock: the record keeper keeps its own table of live allocations.
  if (!valid) return failed_copy(cudaErrorInvalidValue, api, dst, src, count, kind);
  // A host side that runs past the end of one of the harness's host buffers: refused and named,
  // where the copy would read or write past it (a crash, or another case's data).
  std::string overrun = dst_allocated ? "" : records::host_buffer_overrun(api, dst, count, false);
  if (overrun.empty() && !src_allocated) overrun = records::host_buffer_overrun(api, src, count, true);
  if (!overrun.empty()) {
    protocol::FailedCall call = records::explain_failed_copy(api, dst, src, count, static_cast<int>(kind),
                                                             cudaGetErrorName(cudaErrorInvalidValue));
    call.cause = std::move(overrun);
    return failed(cudaErrorInvalidValue, std::move(call));
  }
  // The rows of a 2D copy (not `record`ed) are not ordered against other streams.
  const bool ordered_op = checks::active && record;
  if (ordered_op) begin_stream_op(stream, std::string(api) + " (" + kind_name(kind) + ")");
  if (checks::active && src_allocated) checks::host_read(src, count);
  std::memmove(dst, src, count);
  if (checks::active) checks::host_wrote(dst, count);
  if (ordered_op) end_stream_op();
  if (record) {
    records::record_copy(api, static_cast<int>(kind), dst, src, count, stream);
    // cudaMemcpy returns when the copy is done (but for device to device), and it waits on the
    // legacy stream: for every blocking stream's earlier work too.
    const bool synchronous = std::strstr(api, "Async") == nullptr;
    stream_work(stream, std::string(api) + " of " + std::to_string(count) + " bytes (" + kind_name(kind) + ")",
                synchronous && !device_to_device);
  }
  return cudaSuccess;
}

cudaError_t fill(const char* api, void* ptr, int value, std::size_t count, cudaStream_t stream) {
  if (cudaError_t e = sticky_error()) return set_error(e);
  if (!valid_stream(stream)) return set_error(cudaErrorInvalidResourceHandle);
  if (count == 0) return cudaSuccess;
  bool valid = true;
  {
    State& s = state();
    std::lock_guard lock(s.mutex);
    const Allocation* a = find(s, ptr, count);
    valid = a != nullptr && device_side(a->space);
  }
  if (!valid) {
    return failed(cudaErrorInvalidValue,
                  records::explain_failed_memset(api, ptr, value, count, cudaGetErrorName(cudaErrorInvalidValue)));
  }
  if (checks::active) begin_stream_op(stream, api);
  std::memset(ptr, value, count);
  if (checks::active) {
    checks::host_wrote(ptr, count);
    end_stream_op();
  }
  stream_work(stream, std::string(api) + " of " + std::to_string(count) + " bytes", false);
  return cudaSuccess;
}

// The one default pool: its handle is this object's address; its attributes are kept as set.
struct DefaultPool {
  std::mutex mutex;
  int reuse[3] = {1, 1, 1};  // CUDA's defaults for the three reuse policies
  std::uint64_t release_threshold = 0;
};
DefaultPool& default_pool() {
  static DefaultPool pool;
  return pool;
}
// Where the attribute lives in the pool, or nullptr for a pool or attribute it does not have.
void* pool_attribute(cudaMemPool_t memPool, cudaMemPoolAttr attr, std::size_t& size) {
  DefaultPool& pool = default_pool();
  if (memPool != reinterpret_cast<cudaMemPool_t>(&pool)) return nullptr;
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
      size = sizeof(int);
      return &pool.reuse[attr - cudaMemPoolReuseFollowEventDependencies];
    case cudaMemPoolAttrReleaseThreshold:
      size = sizeof(std::uint64_t);
      return &pool.release_threshold;
  }
  return nullptr;
}

}  // namespace

cudaError_t set_error(cudaError_t e) {
  if (e != cudaSuccess) last_error = e;
  return e;
}

void set_sticky(cudaError_t e) {
  cudaError_t expected = cudaSuccess;
  sticky.compare_exchange_strong(expected, e);
  last_error = e;
}

cudaError_t sticky_error() { return sticky.load(std::memory_order_relaxed); }

bool valid_stream(cudaStream_t stream) {
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return true;
  State& s = state();
  std::lock_guard lock(s.mutex);
  return s.streams.count(stream) != 0;
}

std::size_t max_dynamic_shared(const void* fn) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  auto it = s.max_dynamic_shared.find(fn);
  return it == s.max_dynamic_shared.end() ? kSharedPerBlock : it->second;
}

bool device_accessible(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  State& s = state();
  std::lock_guard lock(s.mutex);
  auto it = s.allocations.upper_bound(a);
  if (it == s.allocations.begin()) return false;
  --it;
  return a - it->first <= it->second.bytes;  // inside, or one past the end (a loop's end pointer)
}

/// The checks' view of an operation about to run on `stream` (a copy, a memset, a launch): its id,
/// and which of the operations before it are ordered before it, as enqueue will order it.
void begin_stream_op(cudaStream_t stream, std::string what) {
  State& s = state();
  std::vector<std::uint8_t> ordered;
  std::uint32_t id = 0;
  std::uint32_t base = 0;
  {
    std::lock_guard lock(s.mutex);
    CUstream_st* st = stream_state(s, stream);
    const StreamClock c = next_clock(s, st);
    constexpr std::size_t kMaxOps = 4096;  // beyond this many since the last full wait, order is not checked
    if (s.ops.size() >= kMaxOps) return;
    ordered.reserve(s.ops.size());
    for (const State::Op& o : s.ops) ordered.push_back(finished_before(s, o, st, c) ? 1 : 0);
    base = s.ops_base;
    id = base + static_cast<std::uint32_t>(s.ops.size());
    s.ops.push_back({st, st->uid, st->seq + 1});  // the seq that enqueue gives it next
    if (st == &s.per_thread) {
      what += " on cudaStreamPerThread";
    } else if (st != &s.legacy) {
      what += " on stream " + std::to_string(st->number);
    }
  }
  checks::stream_op_began(id, base, std::move(ordered), std::move(what), submission_pc());
}

void end_stream_op() { checks::stream_op_ended(); }

void record_launch(const cudalab_sim_launch_desc& d, std::size_t static_shared) {
  stream_work(d.stream, std::string("kernel '") + d.name + "'", false);
  if (!records::recording()) return;
  protocol::Launch r;
  r.kernel = d.name;
  r.grid[0] = d.grid.x;
  r.grid[1] = d.grid.y;
  r.grid[2] = d.grid.z;
  r.block[0] = d.block.x;
  r.block[1] = d.block.y;
  r.block[2] = d.block.z;
  r.dynamic_shared_bytes = d.shmem;
  r.static_shared_bytes = static_shared;
  r.stream = reinterpret_cast<std::uintptr_t>(d.stream);
  records::record_launch(std::move(r));
}

void record_invalid_configuration(const cudalab_sim_launch_desc& d) {
  const dim3 g = d.grid;
  const dim3 b = d.block;
  const unsigned long long threads = 1ull * b.x * b.y * b.z;
  std::string cause;
  if (g.x == 0 || g.y == 0 || g.z == 0) {
    cause =
        "a grid of 0 blocks: a block count computed as n / threads rounds down to 0 when n is smaller than the "
        "work of one block; round up instead, (n + work_per_block - 1) / work_per_block, where work_per_block is "
        "the elements one block covers (its threads, or more where each thread does several: a 32×8 block over a "
        "32×32 tile covers 1024)";
  } else if (b.x == 0 || b.y == 0 || b.z == 0) {
    cause = "a block of 0 threads";
  } else if (threads > kMaxThreadsPerBlock) {
    cause =
        std::to_string(threads) + " threads per block: x · y · z may be at most " + std::to_string(kMaxThreadsPerBlock);
  } else if (b.z > kMaxBlockDimZ) {
    cause = "blockDim.z may be at most " + std::to_string(kMaxBlockDimZ);
  } else if (g.y > kMaxGridDimYZ || g.z > kMaxGridDimYZ) {
    cause = "gridDim.y and gridDim.z may be at most " + std::to_string(kMaxGridDimYZ) +
            ": put the long dimension in x, or loop over it";
  }
  const auto dims = [](const dim3& v) {
    return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
  };
  failed(cudaErrorInvalidConfiguration,
         {std::string(d.name) + "<<<" + dims(g) + ", " + dims(b) + ">>>", "cudaErrorInvalidConfiguration", cause});
}

}  // namespace cudalab::sim

using namespace cudalab::sim;

extern "C" {

cudaError_t cudaMalloc(void** devPtr, size_t size) { return allocate("cudaMalloc", devPtr, size, Space::device); }
cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int) {
  return allocate("cudaMallocManaged", devPtr, size, Space::managed);
}
cudaError_t cudaFree(void* devPtr) { return release(devPtr, false); }
// The stream-ordered allocator: work is done at its call here, so the memory is usable at once
// (as it is once the stream reaches the call on a GPU); recorded as cudaMalloc and cudaFree are.
cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t stream) {
  if (!valid_stream(stream)) return set_error(cudaErrorInvalidResourceHandle);
  return allocate("cudaMallocAsync", devPtr, size, Space::device);
}
cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t stream) {
  if (!valid_stream(stream)) return set_error(cudaErrorInvalidResourceHandle);
  return release(devPtr, false);
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* memPool, int device) {
  if (memPool == nullptr) return set_error(cudaErrorInvalidValue);
  if (device != 0) return set_error(cudaErrorInvalidDevice);
  *memPool = reinterpret_cast<cudaMemPool_t>(&default_pool());
  return cudaSuccess;
}
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value) {
  std::size_t size = 0;
  void* field = pool_attribute(memPool, attr, size);
  if (field == nullptr || value == nullptr) return set_error(cudaErrorInvalidValue);
  std::lock_guard lock(default_pool().mutex);
  std::memcpy(field, value, size);
  return cudaSuccess;
}
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value) {
  std::size_t size = 0;
  const void* field = pool_attribute(memPool, attr, size);
  if (field == nullptr || value == nullptr) return set_error(cudaErrorInvalidValue);
  std::lock_guard lock(default_pool().mutex);
  std::memcpy(value, field, size);
  return cudaSuccess;
}
cudaError_t cudaMallocHost(void** ptr, size_t size) { return allocate("cudaMallocHost", ptr, size, Space::pinned); }
cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int) {
  return allocate("cudaHostAlloc", pHost, size, Space::pinned);
}
cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags) {
  if (pDevice == nullptr || flags != 0) return set_error(cudaErrorInvalidValue);
  State& s = state();
  std::lock_guard lock(s.mutex);
  const Allocation* a = find(s, pHost, 0);
  if (a == nullptr || a->space != Space::pinned) return set_error(cudaErrorInvalidValue);
  *pDevice = pHost;
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void* ptr) { return release(ptr, true); }

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  return copy("cudaMemcpy", dst, src, count, kind, nullptr);
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream) {
  return copy("cudaMemcpyAsync", dst, src, count, kind, stream);
}
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind) {
  if (width > dpitch || width > spitch) return set_error(cudaErrorInvalidPitchValue);
  for (size_t row = 0; row < height; ++row) {
    if (cudaError_t e = copy("cudaMemcpy2D", static_cast<char*>(dst) + row * dpitch,
                             static_cast<const char*>(src) + row * spitch, width, kind, nullptr, false)) {
      return e;
    }
  }
  if (width * height > 0) {
    records::record_copy("cudaMemcpy2D", static_cast<int>(kind), dst, src, width * height);
    stream_work(nullptr, "cudaMemcpy2D", kind != cudaMemcpyDeviceToDevice);
  }
  return cudaSuccess;
}
cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  return fill("cudaMemset", devPtr, value, count, nullptr);
}
cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  return fill("cudaMemsetAsync", devPtr, value, count, stream);
}
cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  if (free == nullptr || total == nullptr) return set_error(cudaErrorInvalidValue);
  State& s = state();
  std::lock_guard lock(s.mutex);
  *total = total_memory();
  *free = total_memory() - s.device_bytes;
  return cudaSuccess;
}

cudaError_t cudalab_sim_memcpy_symbol(void* symbol, size_t symbol_size, void* buffer, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, int to_symbol) {
  if (cudaError_t e = sticky_error()) return set_error(e);
  if (offset > symbol_size || count > symbol_size - offset) return set_error(cudaErrorInvalidValue);
  if (count == 0) return cudaSuccess;
  if (buffer == nullptr) return set_error(cudaErrorInvalidValue);
  const bool buffer_on_device = kind == cudaMemcpyDeviceToDevice;
  if (to_symbol ? !(kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDefault)
                : !(kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDefault)) {
    return set_error(cudaErrorInvalidMemcpyDirection);
  }
  {
    State& s = state();
    std::lock_guard lock(s.mutex);
    const Allocation* a = find(s, buffer, 0);
    const bool is_dev = a != nullptr && device_side(a->space);
    if (kind != cudaMemcpyDefault && is_dev != buffer_on_device) {
      return set_error(cudaErrorInvalidValue);
    }
    if (a != nullptr && find(s, buffer, count) == nullptr) return set_error(cudaErrorInvalidValue);
  }
  char* sym = static_cast<char*>(symbol) + offset;
  if (to_symbol) {
    std::memcpy(sym, buffer, count);
  } else {
    std::memcpy(buffer, sym, count);
  }
  const int k = to_symbol ? (buffer_on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                          : (buffer_on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost);
  cudalab::records::record_copy(to_symbol ? "cudaMemcpyToSymbol" : "cudaMemcpyFromSymbol", k, to_symbol ? sym : buffer,
                                to_symbol ? buffer : sym, count);
  stream_work(nullptr, "", !buffer_on_device);
  return cudaSuccess;
}

cudaError_t cudalab_sim_register_symbol(void* symbol, size_t symbol_size) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  auto& a = s.allocations[reinterpret_cast<std::uintptr_t>(symbol)];
  a = Allocation{symbol_size, Space::symbol};
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
  {
    State& s = state();
    std::lock_guard lock(s.mutex);
    device_waited(s);
  }
  if (cudaError_t e = sticky_error()) return set_error(e);
  return cudaSuccess;
}

cudaError_t cudaDeviceReset(void) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  for (auto it = s.allocations.begin(); it != s.allocations.end();) {
    if (it->second.space != Space::symbol) {
      std::free(reinterpret_cast<char*>(it->first) - it->second.zone);
    }
    it = s.allocations.erase(it);
  }
  s.device_bytes = 0;
  device_waited(s);
  for (auto* st : s.streams) {
    s.tracked.erase(st);
    s.done.erase(st);
    delete st;
  }
  s.streams.clear();
  for (auto* ev : s.events) delete ev;
  s.events.clear();
  s.max_dynamic_shared.clear();
  sticky.store(cudaSuccess);
  last_error = cudaSuccess;
  return cudaSuccess;
}

cudaError_t cudaGetLastError(void) {
  if (cudaError_t e = sticky_error()) return e;
  const cudaError_t e = last_error;
  last_error = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError(void) {
  if (cudaError_t e = sticky_error()) return e;
  return last_error;
}

#define CUDALAB_SIM_ERRORS(X)                                                                    \
  X(cudaSuccess, "no error")                                                                     \
  X(cudaErrorInvalidValue, "invalid argument")                                                   \
  X(cudaErrorMemoryAllocation, "out of memory")                                                  \
  X(cudaErrorInitializationError, "initialization error")                                        \
  X(cudaErrorCudartUnloading, "driver shutting down")                                            \
  X(cudaErrorInvalidConfiguration, "invalid configuration argument")                             \
  X(cudaErrorInvalidPitchValue, "invalid pitch argument")                                        \
  X(cudaErrorInvalidSymbol, "invalid device symbol")                                             \
  X(cudaErrorInvalidHostPointer, "invalid host pointer")                                         \
  X(cudaErrorInvalidDevicePointer, "invalid device pointer")                                     \
  X(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy")                        \
  X(cudaErrorInvalidDeviceFunction, "invalid device function")                                   \
  X(cudaErrorNoDevice, "no CUDA-capable device is detected")                                     \
  X(cudaErrorInvalidDevice, "invalid device ordinal")                                            \
  X(cudaErrorInvalidKernelImage, "device kernel image is invalid")                               \
  X(cudaErrorNoKernelImageForDevice, "no kernel image is available for execution on the device") \
  X(cudaErrorInvalidResourceHandle, "invalid resource handle")                                   \
  X(cudaErrorNotReady, "device not ready")                                                       \
  X(cudaErrorIllegalAddress, "an illegal memory access was encountered")                         \
  X(cudaErrorLaunchOutOfResources, "too many resources requested for launch")                    \
  X(cudaErrorLaunchTimeout, "the launch timed out and was terminated")                           \
  X(cudaErrorAssert, "device-side assert triggered")                                             \
  X(cudaErrorIllegalInstruction, "an illegal instruction was encountered")                       \
  X(cudaErrorMisalignedAddress, "misaligned address")                                            \
  X(cudaErrorLaunchFailure, "unspecified launch failure")                                        \
  X(cudaErrorNotSupported, "operation not supported")                                            \
  X(cudaErrorUnknown, "unknown error")

const char* cudaGetErrorName(cudaError_t error) {
#define X(code, text) \
  case code:          \
    return #code;
  switch (error) { CUDALAB_SIM_ERRORS(X) }
#undef X
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
#define X(code, text) \
  case code:          \
    return text;
  switch (error) { CUDALAB_SIM_ERRORS(X) }
#undef X
  return "unrecognized error code";
}

cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return set_error(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  if (device == nullptr) return set_error(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : set_error(cudaErrorInvalidDevice); }

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  if (prop == nullptr) return set_error(cudaErrorInvalidValue);
  if (device != 0) return set_error(cudaErrorInvalidDevice);
  std::memset(prop, 0, sizeof *prop);
  std::strncpy(prop->name, "cudalab CPU simulator", sizeof prop->name - 1);
  prop->totalGlobalMem = total_memory();
  prop->sharedMemPerBlock = kSharedPerBlock;
  prop->regsPerBlock = 65536;
  prop->warpSize = 32;
  prop->memPitch = 2147483647;
  prop->maxThreadsPerBlock = static_cast<int>(kMaxThreadsPerBlock);
  prop->maxThreadsDim[0] = static_cast<int>(kMaxThreadsPerBlock);
  prop->maxThreadsDim[1] = static_cast<int>(kMaxThreadsPerBlock);
  prop->maxThreadsDim[2] = static_cast<int>(kMaxBlockDimZ);
  prop->maxGridSize[0] = static_cast<int>(kMaxGridDimX);
  prop->maxGridSize[1] = static_cast<int>(kMaxGridDimYZ);
  prop->maxGridSize[2] = static_cast<int>(kMaxGridDimYZ);
  prop->clockRate = 1000000;
  prop->totalConstMem = 65536;
  prop->major = 9;
  prop->minor = 0;
  prop->textureAlignment = 512;
  prop->multiProcessorCount = static_cast<int>(profile::posed_sm_count != 0 ? profile::posed_sm_count : host_workers());
  prop->canMapHostMemory = 1;
  prop->concurrentKernels = 1;
  prop->unifiedAddressing = 1;
  prop->memoryClockRate = 1000000;
  prop->memoryBusWidth = 64;
  prop->l2CacheSize = 32 * 1024 * 1024;
  prop->maxThreadsPerMultiProcessor = 2048;
  prop->managedMemory = 1;
  prop->sharedMemPerMultiprocessor = kSharedPerMultiprocessor;
  prop->regsPerMultiprocessor = 65536;
  prop->sharedMemPerBlockOptin = kSharedPerBlockOptin;
  prop->maxBlocksPerMultiProcessor = 32;
  prop->reservedSharedMemPerBlock = 1024;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device) {
  if (value == nullptr) return set_error(cudaErrorInvalidValue);
  if (device != 0) return set_error(cudaErrorInvalidDevice);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
      *value = p.maxThreadsPerBlock;
      break;
    case cudaDevAttrMaxBlockDimX:
      *value = p.maxThreadsDim[0];
      break;
    case cudaDevAttrMaxBlockDimY:
      *value = p.maxThreadsDim[1];
      break;
    case cudaDevAttrMaxBlockDimZ:
      *value = p.maxThreadsDim[2];
      break;
    case cudaDevAttrMaxGridDimX:
      *value = p.maxGridSize[0];
      break;
    case cudaDevAttrMaxGridDimY:
      *value = p.maxGridSize[1];
      break;
    case cudaDevAttrMaxGridDimZ:
      *value = p.maxGridSize[2];
      break;
    case cudaDevAttrMaxSharedMemoryPerBlock:
      *value = static_cast<int>(p.sharedMemPerBlock);
      break;
    case cudaDevAttrTotalConstantMemory:
      *value = static_cast<int>(p.totalConstMem);
      break;
    case cudaDevAttrWarpSize:
      *value = p.warpSize;
      break;
    case cudaDevAttrMaxRegistersPerBlock:
      *value = p.regsPerBlock;
      break;
    case cudaDevAttrClockRate:
      *value = p.clockRate;
      break;
    case cudaDevAttrMultiProcessorCount:
      *value = p.multiProcessorCount;
      break;
    case cudaDevAttrConcurrentKernels:
      *value = p.concurrentKernels;
      break;
    case cudaDevAttrMemoryClockRate:
      *value = p.memoryClockRate;
      break;
    case cudaDevAttrGlobalMemoryBusWidth:
      *value = p.memoryBusWidth;
      break;
    case cudaDevAttrL2CacheSize:
      *value = p.l2CacheSize;
      break;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
      *value = p.maxThreadsPerMultiProcessor;
      break;
    case cudaDevAttrUnifiedAddressing:
      *value = p.unifiedAddressing;
      break;
    case cudaDevAttrComputeCapabilityMajor:
      *value = p.major;
      break;
    case cudaDevAttrComputeCapabilityMinor:
      *value = p.minor;
      break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      *value = static_cast<int>(p.sharedMemPerMultiprocessor);
      break;
    case cudaDevAttrMaxRegistersPerMultiprocessor:
      *value = p.regsPerMultiprocessor;
      break;
    case cudaDevAttrManagedMemory:
      *value = p.managedMemory;
      break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      *value = static_cast<int>(p.sharedMemPerBlockOptin);
      break;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
      *value = p.maxBlocksPerMultiProcessor;
      break;
    default:
      return set_error(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache) { return cudaSuccess; }
cudaError_t cudaRuntimeGetVersion(int* v) {
  if (v == nullptr) return set_error(cudaErrorInvalidValue);
  *v = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* v) { return cudaRuntimeGetVersion(v); }

cudaError_t cudaCtxResetPersistingL2Cache() { return cudaSuccess; }

cudaError_t cudaStreamCreate(cudaStream_t* pStream) { return cudaStreamCreateWithFlags(pStream, cudaStreamDefault); }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  if (pStream == nullptr || flags > cudaStreamNonBlocking) return set_error(cudaErrorInvalidValue);
  State& s = state();
  std::lock_guard lock(s.mutex);
  auto* st = new CUstream_st;
  st->flags = flags;
  st->number = ++s.streams_created;
  st->uid = ++s.stream_uids;
  st->created_pc = submission_pc();
  s.streams.insert(st);
  *pStream = st;
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.streams.erase(stream) == 0) return set_error(cudaErrorInvalidResourceHandle);
  // Destroying does not wait: the stream's queued work still runs, and is still pending.
  if (s.tracked.contains(stream)) {
    stream->destroyed = true;
  } else {
    s.done.erase(stream);
    delete stream;
  }
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (!valid_stream(stream)) return set_error(cudaErrorInvalidResourceHandle);
  {
    State& s = state();
    std::lock_guard lock(s.mutex);
    host_waited(s, wait_clock(s, stream_state(s, stream)));
  }
  if (cudaError_t e = sticky_error()) return set_error(e);
  return cudaSuccess;
}
// Everything has finished here: a query that says so is a wait the program may rely on.
cudaError_t cudaStreamQuery(cudaStream_t stream) { return cudaStreamSynchronize(stream); }
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  if (!valid_stream(stream)) return set_error(cudaErrorInvalidResourceHandle);
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.events.count(event) == 0) return set_error(cudaErrorInvalidResourceHandle);
  // The stream's later work (and a wait for the stream) waits for what the event covers.
  CUstream_st* st = stream_state(s, stream);
  merge(st->clock, event->clock);
  s.tracked.insert(st);
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  if (event == nullptr || flags > 0x7) return set_error(cudaErrorInvalidValue);
  State& s = state();
  std::lock_guard lock(s.mutex);
  auto* ev = new CUevent_st{flags, false, {}, {}};
  s.events.insert(ev);
  *event = ev;
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.events.erase(event) == 0) return set_error(cudaErrorInvalidResourceHandle);
  delete event;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (!valid_stream(stream)) return set_error(cudaErrorInvalidResourceHandle);
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.events.count(event) == 0) return set_error(cudaErrorInvalidResourceHandle);
  event->recorded = true;
  event->when = std::chrono::steady_clock::now();
  CUstream_st* st = stream_state(s, stream);
  if (st == &s.legacy) enqueue(s, st, "", 0);  // a legacy operation: after the blocking streams' work
  event->clock = wait_clock(s, st);
  if (st != &s.legacy && blocking(st)) merge(event->clock, s.legacy.clock);
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.events.count(event) == 0) return set_error(cudaErrorInvalidResourceHandle);
  host_waited(s, event->clock);
  return sticky_error();
}
cudaError_t cudaEventQuery(cudaEvent_t event) { return cudaEventSynchronize(event); }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (ms == nullptr) return set_error(cudaErrorInvalidValue);
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.events.count(start) == 0 || s.events.count(end) == 0) {
    return set_error(cudaErrorInvalidResourceHandle);
  }
  if ((start->flags | end->flags) & cudaEventDisableTiming) {
    return set_error(cudaErrorInvalidResourceHandle);
  }
  if (!start->recorded || !end->recorded) return set_error(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void* func, enum cudaFuncAttribute attr, int value) {
  if (func == nullptr) return set_error(cudaErrorInvalidDeviceFunction);
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
    if (value < 0 || static_cast<std::size_t>(value) > kSharedPerBlockOptin) {
      return set_error(cudaErrorInvalidValue);
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    s.max_dynamic_shared[func] = static_cast<std::size_t>(value);
    return cudaSuccess;
  }
  if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) {
    return (value < -1 || value > 100) ? set_error(cudaErrorInvalidValue) : cudaSuccess;
  }
  return set_error(cudaErrorInvalidValue);
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, const void* func) {
  if (attr == nullptr) return set_error(cudaErrorInvalidValue);
  if (func == nullptr) return set_error(cudaErrorInvalidDeviceFunction);
  std::memset(attr, 0, sizeof *attr);
  attr->maxThreadsPerBlock = static_cast<int>(kMaxThreadsPerBlock);
  attr->numRegs = 32;
  attr->ptxVersion = 90;
  attr->binaryVersion = 90;
  attr->maxDynamicSharedSizeBytes = static_cast<int>(max_dynamic_shared(func));
  return cudaSuccess;
}

cudaError_t cudaFuncSetCacheConfig(const void* func, enum cudaFuncCache) {
  return func == nullptr ? set_error(cudaErrorInvalidDeviceFunction) : cudaSuccess;
}

}  // extern "C"

// ---- the control API's allocation and question when solve returns (sim/control.hpp) ----
cudaError_t cudalab::sim::control::allocate_guarded_buffer(void** ptr, std::size_t bytes) {
  return allocate("cudaMalloc", ptr, bytes, Space::device, true);
}

std::string cudalab::sim::control::unfinished_stream_work() {
  State& s = state();
  protocol::Finding f;
  std::uintptr_t pc = 0;
  std::uintptr_t created = 0;
  std::string sentence;
  {
    std::lock_guard lock(s.mutex);
    const CUstream_st* late = nullptr;
    for (const CUstream_st* st : s.tracked) {
      if (st == &s.legacy || st->pending.empty()) continue;
      if (late == nullptr || st->number < late->number) late = st;
    }
    if (late != nullptr) {
      const auto& op = late->pending.back();  // the stream's tail: what a wait would wait for
      f.kind = protocol::FindingKind::unsynchronized;
      f.kernel = op.what;
      f.target = late == &s.per_thread ? std::string("cudaStreamPerThread")
                                       : "stream " + std::to_string(late->number) + " (the " + ordinal(late->number) +
                                             " created" + (late->destroyed ? ", since destroyed" : "") + ")";
      const std::size_t more = late->pending.size() - 1;
      f.where = "its last operation, the " + op.what +
                (more > 0 ? ", and " + std::to_string(more) + " before it" : "") +
                ", which nothing waited for: on a GPU they may still be running";
      pc = op.pc;
      created = late->created_pc;
      sentence = "solve returned while " + f.target + " still had work queued: " + f.where +
                 "; call cudaStreamSynchronize on every stream (or cudaDeviceSynchronize) before solve returns";
    }
    device_waited(s);  // the runner synchronises next
    s.streams_created = 0;
  }
  if (sentence.empty()) return sentence;
  if (cudalab::sim::checks::active) {
    cudalab::sim::checks::report_host(std::move(f), pc, created);
  } else {
    records::record_failed_call({"solve returned", "cudaErrorNotReady", sentence});
  }
  return sentence;
}
