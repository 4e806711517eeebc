// The simulator's checks of device code; checks.hpp says what they find and how they see it.
//
// Shadow state: every checked region (a device allocation, a shared variable's copy in the
// block's arena, the dynamic shared memory) has one Cell per 4-byte word: the last write and the
// last read, each stamped with who made it (block, thread), when (the launch or block run, the
// block's barrier count, the warp's rendezvous count) and where (the return address of the check,
// which the parent maps to a source line). Two accesses race when they come from different
// threads of one block in the same barrier interval (and, within one warp, with no rendezvous
// between), touch a common byte, and one is a plain write; or when two blocks of one launch both
// write a word plainly. Atomics never race with atomics.
#include "checks.hpp"

#include <dlfcn.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <vector>

#include "internal.hpp"
#include "profile.hpp"
#include "sim/control.hpp"
#include "trace.hpp"

namespace cudalab::sim::checks {

bool active = false;
bool host_memory_is_finding = false;

namespace {

using protocol::FindingKind;

constexpr std::size_t kWord = 4;
/// Regions above this many bytes are bounds-checked only (their shadow would be too large).
constexpr std::size_t kMaxShadowedBytes = std::size_t{256} << 20;
/// Freed memory kept for use-after-free checks before the oldest is released.
constexpr std::size_t kQuarantineBytes = std::size_t{256} << 20;
/// The per-thread shared-memory arena: the dynamic area, then each static variable, red zones between.
constexpr std::size_t kArenaBytes = std::size_t{4} << 20;
constexpr std::size_t kArenaZone = 256;
constexpr std::size_t kDynamicBytes = 232448;  // the opt-in maximum (internal.hpp's kSharedPerBlockOptin)
constexpr std::size_t kStaticStart = kArenaZone + kDynamicBytes + kArenaZone;

constexpr std::uint8_t kMany = 1;           // read: more than one thread read the word in this interval
constexpr std::uint8_t kAtomic = 2;         // the access was an atomic
constexpr std::uint8_t kAfterOwnWrite = 4;  // the thread had written in this barrier interval before
constexpr std::uint8_t kAfterOwnRead = 8;   // the thread had read in this barrier interval before

struct Stamp {
  std::uintptr_t pc = 0;
  std::uint32_t gen = 0;  // the launch (global memory) or block run (shared) it belongs to; 0: none
  std::uint32_t block = 0;
  std::uint32_t epoch = 0;       // the block's barriers passed
  std::uint32_t warp_epoch = 0;  // the warp's rendezvous passed
  std::uint16_t thread = 0;
  std::uint8_t bytes = 0;  // which of the word's four bytes
  std::uint8_t flags = 0;
};

struct Cell {
  Stamp write;
  Stamp read;
  bool init = false;  // global memory: written since it was allocated
  // Global memory: the stream operations (copy, memset, launch) that last wrote and read the word;
  // 0: none, or the host's own access.
  std::uint32_t op_write = 0;
  std::uint32_t op_read = 0;
};

/// The stream operation running now and its order against the earlier ones (runtime.cpp says
/// which finished before it may start). Used on the launching thread, as the cells are.
struct StreamOps {
  std::uint32_t base = 1;                                   // ids below this have finished: the host waited for all
  std::uint32_t current = 0;                                // 0: none (the host's own access, or order not checked)
  std::vector<std::uint8_t> ordered;                        // by id - base, for the ids before `current`
  std::vector<std::pair<std::string, std::uintptr_t>> ops;  // by id - base: what, and where it was called
  bool reported = false;                                    // one finding per operation
};

StreamOps& stream_ops() {
  static auto* o = new StreamOps;  // never destroyed, as the rest
  return *o;
}

/// Whether `op`, which touched a word, may still be running while the current operation does.
bool unordered(std::uint32_t op) {
  const StreamOps& o = stream_ops();
  if (op == 0 || o.current == 0 || op == o.current || op < o.base) return false;
  const std::size_t i = op - o.base;
  return i < o.ordered.size() && o.ordered[i] == 0;
}

/// A region whose accesses are checked.
struct Region {
  std::uintptr_t zone_begin = 0;  // the red zone before it
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  std::uintptr_t zone_end = 0;  // the end of the red zone after it
  void* real = nullptr;         // what to free (allocations)
  std::uintptr_t returned = 0;  // what cudaMalloc returned (allocations; the harness names a part of it)
  std::string name;             // "y" (a harness buffer), "As" (shared), "" (the submission's cudaMalloc)
  std::size_t element = 0;      // bytes per element where known
  std::size_t inner = 0;        // a 2D shared array's row length
  bool shared = false;
  bool freed = false;
  bool dynamic = false;              // the extern __shared__ area
  bool constant = false;             // a __constant__ variable (bounds only: it is written from the host)
  bool host_visible = false;         // page-locked or managed memory: the host reads and writes it directly
  bool local = false;                // a thread's local array (CUDALAB_SIM_LOCAL): its own, never raced on
  std::uintptr_t section_begin = 0;  // constants: the section they and their pads fill
  std::uintptr_t section_end = 0;
  std::uint32_t gen = 0;  // shared: the block run it was last poisoned for
  std::vector<Cell> cells;
  // An allocation's cells are made at its first checked access (make_cells): each cell is 18 times
  // the bytes it shadows, fresh pages are slow to touch, and the runner names its buffers inside
  // their allocations (new cells) before any kernel runs.
  std::atomic<bool> cells_pending{false};
  bool cells_start_written = false;  // what the cells made later say of `init`
};

struct Ctx {
  bool in_kernel = false;
  const cudalab_sim_launch_desc* desc = nullptr;
  std::uint32_t launch = 0;
  std::uint32_t block_gen = 0;
  std::uint32_t block = 0;
  std::uint16_t thread = 0;
  std::uint32_t epoch = 0;
  std::uint32_t warp_epoch[32] = {};
  bool atomic = false;
  bool atomic_reads = true;  // the atomic reads the old value (not a store or an exchange)
  Region* last = nullptr;
  // Per thread of the block: the barrier interval of its last write and read (block run << 32 | epoch + 1).
  std::uint64_t wrote_in[1024] = {};
  std::uint64_t read_in[1024] = {};
  // The shared-memory arena of this host thread.
  std::byte* arena = nullptr;
  std::size_t arena_used = kStaticStart;
  Region dynamic;
  std::vector<std::unique_ptr<Region>> slots;  // static shared variables, by offset
  std::map<const void*, Region*> slot_of;      // by the storage's own address
  // The local arrays in scope of this host thread's CUDA threads (on their fibers' stacks), by address.
  std::map<std::uintptr_t, std::unique_ptr<Region>> locals;
};

__attribute__((tls_model("initial-exec"))) thread_local Ctx* tls_ctx = nullptr;

Ctx& ctx() {
  if (tls_ctx == nullptr) tls_ctx = new Ctx;  // never freed: host threads outlive launches
  return *tls_ctx;
}

struct Key {
  FindingKind kind;
  std::uintptr_t pc;
  std::uintptr_t other_pc;
  int line;
};

/// Global state: the device allocations, the quarantine, the findings.
struct Global {
  std::mutex mutex;
  std::map<std::uintptr_t, std::unique_ptr<Region>> regions;  // by zone_begin
  std::deque<Region*> quarantine;
  std::size_t quarantined = 0;
  std::uint32_t launches = 0;
  std::uint32_t block_runs = 0;
  std::vector<protocol::Finding> findings;
  std::vector<Key> keys;  // one per finding
  std::size_t dropped = 0;
};

Global& global() {
  static auto* g = new Global;  // never destroyed: kernels may run during static destruction
  return *g;
}

uint3 unflatten(std::uint32_t linear, const dim3& d) {
  return uint3{linear % d.x, (linear / d.x) % d.y, linear / (d.x * d.y)};
}

std::array<unsigned, 3> as_array(const uint3& v) { return {v.x, v.y, v.z}; }

protocol::FindingAccess access_of(const Ctx& c, const Stamp& s, bool write) {
  protocol::FindingAccess a;
  const cudalab_sim_launch_desc& d = *c.desc;
  a.block = as_array(unflatten(s.block, d.grid));
  a.thread = as_array(unflatten(s.thread, d.block));
  a.write = write;
  a.atomic = (s.flags & kAtomic) != 0;
  a.pc = module_offset(s.pc);
  return a;
}

/// Whether a finding like this one (kind, the two places) is already kept: then it is counted.
/// Also true when no more findings fit (counted as dropped). Keyed by return addresses, so that
/// an access repeated a million times costs no symbol lookup.
bool counted(FindingKind kind, std::uintptr_t pc, std::uintptr_t other_pc, int line) {
  Global& g = global();
  std::lock_guard lock(g.mutex);
  for (std::size_t i = 0; i < g.keys.size(); ++i) {
    const Key& k = g.keys[i];
    if (k.kind == kind && k.pc == pc && k.other_pc == other_pc && k.line == line) {
      ++g.findings[i].count;
      return true;
    }
  }
  if (g.findings.size() >= protocol::kMaxFindings) {
    ++g.dropped;
    return true;
  }
  return false;
}

/// The current thread's access at `pc`, as a finding reports it.
protocol::FindingAccess current_access(const Ctx& c, std::uintptr_t pc, bool write, std::uint8_t flags) {
  Stamp now;
  now.pc = pc;
  now.block = c.block;
  now.thread = c.thread;
  now.flags = flags;
  return access_of(c, now, write);
}

void add(protocol::Finding f, std::uintptr_t pc, std::uintptr_t other_pc) {
  if (const Ctx* c = tls_ctx; c != nullptr && c->desc != nullptr) {
    f.grid = as_array(uint3{c->desc->grid.x, c->desc->grid.y, c->desc->grid.z});
    f.block = as_array(uint3{c->desc->block.x, c->desc->block.y, c->desc->block.z});
  }
  Global& g = global();
  std::lock_guard lock(g.mutex);
  g.keys.push_back({f.kind, pc, other_pc, f.access.line});
  g.findings.push_back(std::move(f));
}

std::string plural(std::size_t n, const char* one) { return std::to_string(n) + " " + one + (n == 1 ? "" : "s"); }

/// "y[1000]", "As[3][5]", "byte 4000 of a 4000-byte cudaMalloc allocation": the element at `a`.
std::string element_name(const Region& r, std::uintptr_t a, unsigned size) {
  const std::size_t element = r.element != 0 ? r.element : std::max<unsigned>(size, 1);
  const auto offset = static_cast<std::int64_t>(a) - static_cast<std::int64_t>(r.begin);
  const std::int64_t index =
      offset >= 0 ? offset / static_cast<std::int64_t>(element)
                  : -((-offset + static_cast<std::int64_t>(element) - 1) / static_cast<std::int64_t>(element));
  if (r.dynamic) return "element " + std::to_string(index) + " of the extern __shared__ array";
  if (r.name.empty()) {
    return "element " + std::to_string(index) + " (of " + std::to_string(element) + " bytes) of a " +
           std::to_string(r.end - r.begin) + "-byte " + (r.shared ? "shared array" : "cudaMalloc allocation");
  }
  if (r.inner != 0 && index >= 0 && static_cast<std::size_t>(index) < (r.end - r.begin) / element) {
    const auto inner = static_cast<std::int64_t>(r.inner);
    return r.name + "[" + std::to_string(index / inner) + "][" + std::to_string(index % inner) + "]";
  }
  return r.name + "[" + std::to_string(index) + "]";
}

/// "y (1000 elements)", "a 4000-byte cudaMalloc allocation", "the extern __shared__ array (1024 bytes)".
std::string region_name(const Region& r) {
  const std::size_t bytes = r.end - r.begin;
  if (r.dynamic) return "the extern __shared__ array (" + plural(bytes, "byte") + " at this launch)";
  if (r.name.empty() && r.host_visible) return "a " + std::to_string(bytes) + "-byte page-locked or managed allocation";
  if (r.name.empty()) return "a " + std::to_string(bytes) + "-byte cudaMalloc allocation";
  if (r.constant && r.element != 0 && bytes / r.element > 1) {
    return "the __constant__ array " + r.name + " (" + plural(bytes / r.element, "element") + ")";
  }
  if (r.constant) return "the __constant__ variable " + r.name + " (" + plural(bytes, "byte") + ")";
  if (r.element != 0) return r.name + " (" + plural(bytes / r.element, "element") + ")";
  return r.name + " (" + plural(bytes, "byte") + ")";
}

void report_access(FindingKind kind, const Ctx& c, const Region& r, std::uintptr_t a, unsigned size, bool write,
                   std::uintptr_t pc, std::string where) {
  if (counted(kind, pc, 0, 0)) return;
  protocol::Finding f;
  f.kind = kind;
  f.kernel = c.desc->name;
  f.shared = r.shared;
  f.target = element_name(r, a, size);
  f.where = std::move(where);
  f.bytes = size;
  f.access = current_access(c, pc, write, c.atomic ? kAtomic : 0);
  add(std::move(f), pc, 0);
}

Region* find_region(std::uintptr_t a);

/// A pointer of a type needing `align` bytes of alignment used at `address` (UBSan's check).
void report_misaligned(const Ctx& c, std::uintptr_t address, std::uintptr_t align, const char* type, bool write,
                       std::uintptr_t pc) {
  if (counted(FindingKind::misaligned, pc, 0, 0)) return;
  Region* r = find_region(address);
  protocol::Finding f;
  f.kind = FindingKind::misaligned;
  f.kernel = c.desc->name;
  f.target = r != nullptr ? element_name(*r, address, 4) : "memory";
  f.shared = r != nullptr && r->shared;
  std::string name = type;  // UBSan's words: 'const struct float4'
  std::erase(name, '\'');
  for (const char* word : {"const ", "struct ", "volatile "}) {
    for (std::size_t at = name.find(word); at != std::string::npos; at = name.find(word))
      name.erase(at, std::strlen(word));
  }
  f.where = "a " + (name.empty() ? std::string("value") : name) + " needs an address that is a multiple of " +
            std::to_string(align) + " bytes; this one is " + std::to_string(address % align) + " bytes past one";
  f.access = current_access(c, pc, write, 0);
  add(std::move(f), pc, 0);
}

/// An access outside [begin, end) of `r` (in its red zone, or past the arena's variables).
void out_of_bounds(const Ctx& c, const Region& r, std::uintptr_t a, unsigned size, bool write, std::uintptr_t pc) {
  std::string where;
  const std::string of = r.name.empty() && !r.dynamic ? "it" : region_name(r);
  if (a < r.begin) {
    where = plural(r.begin - a, "byte") + " before the start of " + of;
  } else {
    where = plural(a + size - r.end, "byte") + " past the end of " + of;
  }
  report_access(FindingKind::out_of_bounds, c, r, a, size, write, pc, std::move(where));
}

bool same_thread(const Ctx& c, const Stamp& s) { return s.block == c.block && s.thread == c.thread; }

/// Whether the earlier access `s` and the current one race (one of them writes; the caller knows).
bool races(const Ctx& c, const Stamp& s, std::uint32_t gen, std::uint8_t bytes, bool earlier_write, bool now_write,
           bool shared) {
  if (s.gen != gen || (s.bytes & bytes) == 0) return false;
  const bool now_atomic = c.atomic;
  const bool then_atomic = (s.flags & kAtomic) != 0;
  if (now_atomic && then_atomic) return false;
  if (s.block != c.block) {
    // Blocks of one launch are never ordered, but a block may read what another wrote once an
    // atomic told it the other had finished (a fence pattern): only two plain writes are a race.
    return !shared && earlier_write && now_write && !now_atomic && !then_atomic;
  }
  if (s.thread == c.thread && (s.flags & kMany) == 0) return false;
  if (s.epoch != c.epoch) return false;
  if ((s.thread >> 5) == (c.thread >> 5) && s.warp_epoch != c.warp_epoch[c.thread >> 5]) return false;
  return true;
}

/// A race between the current access and `then`. A write and a read are put in the order the
/// code meant (protocol::Finding::write_first), from what each thread had done earlier in the
/// barrier interval: the report then leads with the access whose line needs the barrier.
void report_race(const Ctx& c, const Region& r, std::uintptr_t a, unsigned size, bool write, std::uintptr_t pc,
                 const Stamp& then, bool then_write, std::uint8_t now_flags) {
  if (counted(FindingKind::race, pc, then.pc, 0)) return;
  protocol::Finding f;
  f.kind = FindingKind::race;
  f.kernel = c.desc->name;
  f.shared = r.shared;
  f.target = element_name(r, a, size);
  f.where = std::string(r.shared ? "shared" : "global") + " memory, " + region_name(r);
  f.bytes = size;
  Stamp now;
  now.pc = pc;
  now.block = c.block;
  now.thread = c.thread;
  now.flags = now_flags;
  protocol::FindingAccess now_access = access_of(c, now, write);
  protocol::FindingAccess then_access = access_of(c, then, then_write);
  if (write != then_write) {
    const Stamp& w = write ? now : then;
    const Stamp& rd = write ? then : now;
    const bool write_meant_last = (w.flags & kAfterOwnRead) != 0 && (rd.flags & kAfterOwnWrite) == 0;
    f.write_first = !write_meant_last;
    // Lead with the read when it came too early, with the write when it came too early.
    const bool lead_with_now = f.write_first ? !write : write;
    f.access = lead_with_now ? now_access : then_access;
    f.other = lead_with_now ? then_access : now_access;
  } else {
    f.access = now_access;
    f.other = then_access;
  }
  add(std::move(f), pc, then.pc);
}

std::vector<Cell> cells_for(std::size_t bytes) {
  if (bytes > kMaxShadowedBytes || profile::active) return {};  // explain keeps no shadow state
  return std::vector<Cell>((bytes + kWord - 1) / kWord);
}

/// Cells for an allocation from its first checked access on (Region::cells_pending); the global
/// mutex held.
void make_cells_locked(Region& r) {
  if (!r.cells_pending.load(std::memory_order_relaxed)) return;
  r.cells = cells_for(r.end - r.begin);
  if (r.cells_start_written) {
    for (auto& cell : r.cells) cell.init = true;
  }
  r.cells_pending.store(false, std::memory_order_release);
}

void make_cells(Region& r) {
  std::lock_guard lock(global().mutex);
  make_cells_locked(r);
}

/// An allocation whose cells are made when first needed, saying `written` of every byte.
void defer_cells(Region& r, bool written) {
  r.cells = {};
  r.cells_start_written = written;
  r.cells_pending.store(true, std::memory_order_release);  // cells_for decides whether there are any
}

/// The earlier operation that the current one, writing or not, conflicts with at `cell`: one that
/// wrote the word, or, for a write, one that read it, with nothing ordering the two. 0: none.
struct StreamConflict {
  std::uint32_t other = 0;
  bool other_wrote = false;
};
StreamConflict stream_conflict(const Cell& cell, bool write) {
  if (unordered(cell.op_write)) return {cell.op_write, true};
  if (write && unordered(cell.op_read)) return {cell.op_read, false};
  return {};
}

/// The current stream operation touched the word at `a` of `r` (writing, or not) in conflict `k`.
/// Called without the lock.
void report_stream_order(const Region& r, std::uintptr_t a, unsigned size, bool write, StreamConflict k) {
  const std::uint32_t other = k.other;
  StreamOps& o = stream_ops();
  if (o.reported || o.current < o.base || other < o.base) return;
  const std::size_t now = o.current - o.base;
  const std::size_t then = other - o.base;
  if (now >= o.ops.size() || then >= o.ops.size()) return;
  o.reported = true;
  protocol::Finding f;
  f.kind = FindingKind::stream_order;
  f.target = element_name(r, a, size);
  f.bytes = size;
  f.access.write = write;
  f.where = o.ops[now].first + (write ? " writes " : " reads ") + f.target + ", which " + o.ops[then].first +
            (k.other_wrote ? " wrote" : " read") +
            ", and nothing orders the two: on a GPU they may run at the same time";
  report_host(std::move(f), o.ops[now].second, o.ops[then].second);
}

void check_cells(Ctx& c, Region& r, std::uintptr_t a, unsigned size, bool write, std::uintptr_t pc) {
  if (r.cells_pending.load(std::memory_order_acquire)) make_cells(r);
  if (r.cells.empty()) return;
  const std::uint32_t gen = r.shared ? c.block_gen : c.launch;
  const std::uintptr_t first = (a - r.begin) / kWord;
  const std::uintptr_t last = std::min<std::uintptr_t>((a + size - 1 - r.begin) / kWord, r.cells.size() - 1);
  bool reported_init = false;
  bool reported_race = false;
  // What this thread did before in the barrier interval: orders a racing write and read (report_race).
  const std::uint64_t interval = (std::uint64_t{c.block_gen} << 32) | (c.epoch + 1);
  const std::uint8_t own =
      static_cast<std::uint8_t>((c.wrote_in[c.thread] == interval ? kAfterOwnWrite : 0) |
                                (c.read_in[c.thread] == interval ? kAfterOwnRead : 0) | (c.atomic ? kAtomic : 0));
  for (std::uintptr_t w = first; w <= last; ++w) {
    Cell& cell = r.cells[w];
    const std::uintptr_t word = r.begin + w * kWord;
    const std::uintptr_t lo = std::max(a, word);
    const std::uintptr_t hi = std::min(a + size, word + kWord);
    const auto bytes = static_cast<std::uint8_t>(((1u << (hi - lo)) - 1) << (lo - word));
    const bool reads = !write || (c.atomic && c.atomic_reads);  // most atomics read the old value too
    if (reads && !reported_init) {
      const bool written = r.shared ? cell.write.gen == gen : cell.init;
      if (!written) {
        reported_init = true;
        report_access(FindingKind::uninitialized, c, r, a, size, write, pc,
                      r.shared  ? "shared memory that no thread of this block had written"
                      : r.local ? "a slot of this thread's local array " + r.name +
                                      " that it had not written: a local array starts with garbage"
                      : r.name.empty() ? "device memory that nothing had written since cudaMalloc"
                                       : r.name + " as solve received it: its contents are garbage");
      }
    }
    if (!reported_race && !r.local) {
      if (races(c, cell.write, gen, bytes, true, write, r.shared)) {
        reported_race = true;
        report_race(c, r, a, size, write, pc, cell.write, true, own);
      } else if (write && races(c, cell.read, gen, bytes, false, true, r.shared)) {
        reported_race = true;
        report_race(c, r, a, size, write, pc, cell.read, false, own);
      }
    }
    if (!r.shared && !r.local && stream_ops().current != 0) {
      // Between stream operations: a kernel against the copies and kernels of other streams.
      if (const StreamConflict k = stream_conflict(cell, write); k.other != 0) {
        report_stream_order(r, a, size, write, k);
      }
      if (write || c.atomic) cell.op_write = stream_ops().current;
      if (reads) cell.op_read = stream_ops().current;
    }
    Stamp now;
    now.pc = pc;
    now.gen = gen;
    now.block = c.block;
    now.thread = c.thread;
    now.epoch = c.epoch;
    now.warp_epoch = c.warp_epoch[c.thread >> 5];
    now.bytes = bytes;
    now.flags = own;
    if (write || c.atomic) {
      cell.write = now;
      cell.init = true;
    } else {
      Stamp& rd = cell.read;
      if (rd.gen == gen && rd.block == c.block && rd.epoch == c.epoch && !same_thread(c, rd)) {
        rd.flags |= kMany;
        rd.bytes |= bytes;
      } else {
        rd = now;
      }
    }
  }
  if (write || c.atomic) c.wrote_in[c.thread] = interval;
  if (!write || c.atomic) c.read_in[c.thread] = interval;
}

Region* find_region(std::uintptr_t a) {
  Global& g = global();
  auto it = g.regions.upper_bound(a);
  if (it == g.regions.begin()) return nullptr;
  --it;
  Region* r = it->second.get();
  return a < r->zone_end ? r : nullptr;
}

Region* find_slot(Ctx& c, std::uintptr_t a) {
  if (a >= c.dynamic.zone_begin && a < c.dynamic.zone_end) return &c.dynamic;
  // The slot holding `a`, or the one before it (whose red zone `a` is in).
  Region* before = nullptr;
  for (auto& s : c.slots) {
    if (s->zone_begin > a) break;
    before = s.get();
  }
  return before != nullptr ? before : &c.dynamic;
}

void check(std::uintptr_t a, unsigned size, bool write, std::uintptr_t pc) {
  Ctx* cp = tls_ctx;
  if (cp == nullptr || !cp->in_kernel) return;
  if (profile::active && !profile::counting) return;  // explain: a block outside the sample
  Ctx& c = *cp;
  Region* r = nullptr;
  const auto arena = reinterpret_cast<std::uintptr_t>(c.arena);
  if (!c.locals.empty()) {
    // A local array of the running thread (an access past its end is not checked: the stack).
    if (auto it = c.locals.upper_bound(a); it != c.locals.begin() && a < (--it)->second->end) r = it->second.get();
  }
  if (r == nullptr && c.arena != nullptr && a - arena < kArenaBytes) {
    r = find_slot(c, a);
  } else if (r == nullptr) {
    r = c.last;
    if (r == nullptr || a - r->zone_begin >= r->zone_end - r->zone_begin) {
      r = find_region(a);
      if (r == nullptr) return;  // not device memory: the thread's stack, the module's variables
      c.last = r;
    }
  }
  if (trace::active && !r->local && !r->constant) {  // `cudalab show` records it, and the checks go on
    trace::access(c.block, c.thread, c.epoch,
                  {r, r->name.empty() ? nullptr : &r->name, r->shared, r->begin, r->end, r->element, r->inner}, a, size,
                  write, c.atomic, pc);
  }
  if (profile::active) {      // explain counts what the access costs instead of checking it
    if (r->constant) return;  // constants are not counted (the constant cache is not modelled)
    profile::access(a, size, write, c.atomic, pc, c.thread,
                    {r->shared, r->name.empty() ? nullptr : &r->name, r->element, r->inner, r->end - r->begin});
    return;
  }
  if (r->freed) {
    report_access(FindingKind::use_after_free, c, *r, a, size, write, pc,
                  "memory that cudaFree had released (" + region_name(*r) + ")");
    return;
  }
  if (a < r->begin || a + size > r->end) {
    out_of_bounds(c, *r, a, size, write, pc);
    return;
  }
  if ((size == 2 || size == 4 || size == 8 || size == 16) && a % size != 0) {
    report_access(FindingKind::misaligned, c, *r, a, size, write, pc,
                  "a " + std::to_string(size) + "-byte access must start at a multiple of " + std::to_string(size) +
                      " bytes; this one is " + std::to_string(a % size) + " past one");
    return;
  }
  if (r->host_visible && host_memory_is_finding) {
    // The data of this exercise stays on the device: a kernel that moves it to or from memory the
    // host reads directly lets host code do the work, whatever kernels ran (the threat model).
    report_access(FindingKind::host_memory, c, *r, a, size, write, pc,
                  std::string(write ? "wrote into " : "read from ") + region_name(*r) +
                      ", memory the host reads and writes directly");
  }
  check_cells(c, *r, a, size, write, pc);
}

/// Bytes before and after a `__constant__` variable in which an access is out of its bounds.
constexpr std::uintptr_t kConstantZone = 256;

/// Lays out the red zones of the registered constants again, without the one at `removed` and with
/// `added`: each zone as far as kConstantZone, within the constants' section (only constants and
/// pads fill it), never into a neighbour. Regions keep their addresses (a cached `Ctx::last` of
/// another constant stays valid).
void layout_constants(Global& g, std::uintptr_t removed, std::unique_ptr<Region> added) {
  std::vector<std::unique_ptr<Region>> constants;
  for (auto it = g.regions.begin(); it != g.regions.end();) {
    if (it->second->constant) {
      if (it->second->begin != removed) constants.push_back(std::move(it->second));
      it = g.regions.erase(it);
    } else {
      ++it;
    }
  }
  if (added) constants.push_back(std::move(added));
  std::ranges::sort(constants, {}, [](const auto& r) { return r->begin; });
  std::uintptr_t previous_end = 0;
  for (std::size_t i = 0; i < constants.size(); ++i) {
    Region& r = *constants[i];
    r.zone_begin = std::max({r.begin >= kConstantZone ? r.begin - kConstantZone : 0, r.section_begin, previous_end});
    r.zone_end = std::min(r.end + kConstantZone, r.section_end);
    if (i + 1 < constants.size()) r.zone_end = std::min(r.zone_end, constants[i + 1]->begin);
    r.zone_end = std::max(r.zone_end, r.end);
    previous_end = r.zone_end;
  }
  for (auto& r : constants) {
    const std::uintptr_t key = r->zone_begin;
    g.regions.emplace(key, std::move(r));
  }
}

void release_quarantine(Global& g) {
  while (g.quarantined > kQuarantineBytes && !g.quarantine.empty()) {
    Region* r = g.quarantine.front();
    g.quarantine.pop_front();
    g.quarantined -= r->end - r->begin;
    std::free(r->real);
    g.regions.erase(r->zone_begin);
  }
}

}  // namespace

std::size_t red_zone(std::size_t bytes) {
  const std::size_t want = std::clamp<std::size_t>(bytes, 256, std::size_t{1} << 20);
  return (want + 255) / 256 * 256;
}

void allocated(void* real, void* user, std::size_t bytes, std::size_t zone, bool host_visible) {
  auto r = std::make_unique<Region>();
  r->host_visible = host_visible;
  r->begin = reinterpret_cast<std::uintptr_t>(user);
  r->end = r->begin + bytes;
  r->zone_begin = r->begin - zone;
  r->zone_end = r->end + zone;
  r->real = real;
  r->returned = r->begin;
  // The host writes page-locked and managed memory directly, unseen: never "uninitialised" here.
  defer_cells(*r, host_visible);
  Global& g = global();
  std::lock_guard lock(g.mutex);
  g.regions[r->zone_begin] = std::move(r);
  if (tls_ctx != nullptr) tls_ctx->last = nullptr;
}

bool released(void* user) {
  Global& g = global();
  std::lock_guard lock(g.mutex);
  Region* r = find_region(reinterpret_cast<std::uintptr_t>(user));
  if (r == nullptr || r->shared || r->returned != reinterpret_cast<std::uintptr_t>(user) || r->freed) return false;
  r->freed = true;
  r->cells_pending.store(false, std::memory_order_relaxed);
  r->cells = {};
  r->name.clear();
  g.quarantine.push_back(r);
  g.quarantined += r->end - r->begin;
  release_quarantine(g);
  if (tls_ctx != nullptr) tls_ctx->last = nullptr;
  return true;
}

bool freed(const void* p) {
  Global& g = global();
  std::lock_guard lock(g.mutex);
  const Region* r = find_region(reinterpret_cast<std::uintptr_t>(p));
  return r != nullptr && r->freed;
}

void report_launch(protocol::FindingKind kind, const char* kernel, const std::string& argument, std::uintptr_t pc) {
  if (counted(kind, pc, 0, 0)) return;
  protocol::Finding f;
  f.kind = kind;
  f.kernel = kernel;
  f.target = argument;
  f.where = "memory that cudaFree had released, passed to the kernel";
  f.access.pc = module_offset(pc);
  f.grid = {0, 0, 0};  // no thread of the kernel ran
  add(std::move(f), pc, 0);
}

void report_host(protocol::Finding f, std::uintptr_t pc, std::uintptr_t other_pc) {
  if (counted(f.kind, pc, other_pc, 0)) return;
  f.access.pc = module_offset(pc);
  if (other_pc != 0) {
    f.other.emplace();
    f.other->pc = module_offset(other_pc);
  }
  f.grid = {0, 0, 0};  // no thread of a kernel
  add(std::move(f), pc, other_pc);
}

namespace {

/// A copy or memset wrote (`write`) or read [p, p + bytes): marks the words, and reports the first
/// one that another stream's operation may still be using.
void host_touched(const void* p, std::size_t bytes, bool write) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const std::uint32_t op = stream_ops().current;
  const Region* conflict_region = nullptr;
  std::uintptr_t conflict_at = 0;
  StreamConflict conflict;
  {
    Global& g = global();
    std::lock_guard lock(g.mutex);
    Region* r = find_region(a);
    if (r == nullptr || bytes == 0) return;
    make_cells_locked(*r);
    if (r->cells.empty()) return;
    const std::uintptr_t lo = std::max(a, r->begin);
    const std::uintptr_t hi = std::min(a + bytes, r->end);
    for (std::uintptr_t w = (lo - r->begin) / kWord; lo < hi && w <= (hi - 1 - r->begin) / kWord; ++w) {
      Cell& cell = r->cells[w];
      if (conflict.other == 0 && op != 0) {
        conflict = stream_conflict(cell, write);
        if (conflict.other != 0) {
          conflict_region = r;
          conflict_at = r->begin + w * kWord;
        }
      }
      if (write) {
        cell.init = true;
        cell.op_write = op;
      } else {
        cell.op_read = op;
      }
    }
  }
  // Regions are released only by cudaFree, which the host cannot call during this copy.
  if (conflict.other != 0) {
    report_stream_order(*conflict_region, conflict_at, kWord, write, conflict);
  }
}

}  // namespace

void host_wrote(const void* p, std::size_t bytes) { host_touched(p, bytes, true); }

void host_read(const void* p, std::size_t bytes) { host_touched(p, bytes, false); }

void stream_op_began(std::uint32_t id, std::uint32_t base, std::vector<std::uint8_t> ordered, std::string what,
                     std::uintptr_t pc) {
  StreamOps& o = stream_ops();
  o.current = id;
  o.reported = false;
  if (id == 0) return;
  if (base != o.base) {
    o.base = base;
    o.ops.clear();
  }
  o.ordered = std::move(ordered);
  if (o.ops.size() < id - base + 1) o.ops.resize(id - base + 1);
  o.ops[id - base] = {std::move(what), pc};
}

void stream_op_ended() { stream_ops().current = 0; }

void stream_ops_finished(std::uint32_t base) {
  StreamOps& o = stream_ops();
  o.base = base;
  o.current = 0;
  o.ordered.clear();
  o.ops.clear();
}

void launch_begin(const cudalab_sim_launch_desc& desc) {
  Ctx& c = ctx();
  Global& g = global();
  {
    std::lock_guard lock(g.mutex);
    c.launch = ++g.launches;
  }
  c.desc = &desc;
  c.last = nullptr;
  c.in_kernel = true;
  if (profile::active) profile::launch_begin(desc);
  if (trace::active) trace::launch_begin(desc);
}

void launch_end() {
  Ctx& c = ctx();
  c.in_kernel = false;
  if (profile::active) profile::launch_end();
  if (trace::active) trace::launch_end();
}

void block_begin(unsigned long long linear) {
  Ctx& c = ctx();
  Global& g = global();
  {
    std::lock_guard lock(g.mutex);
    c.block_gen = ++g.block_runs;
  }
  c.block = static_cast<std::uint32_t>(linear);
  c.thread = 0;
  c.epoch = 0;
  c.locals.clear();  // a block abandoned at a fault never left its threads' scopes
  std::fill(std::begin(c.warp_epoch), std::end(c.warp_epoch), 0);
  if (profile::active) profile::block_begin(linear);
  if (trace::active) trace::block_begin(linear);
}

void thread_enter(unsigned linear) { ctx().thread = static_cast<std::uint16_t>(linear); }

void barrier_released(unsigned arrived, unsigned threads, int line, std::uintptr_t pc, const uint3& thread) {
  Ctx& c = ctx();
  ++c.epoch;
  if (profile::active) profile::barrier(line);
  if (trace::active) trace::barrier(line, c.epoch);
  if (arrived < threads && c.desc != nullptr && !counted(FindingKind::barrier, 0, 0, line)) {
    protocol::Finding f;
    f.kind = FindingKind::barrier;
    f.kernel = c.desc->name;
    f.target = "__syncthreads()";
    f.where = std::to_string(arrived) + " of the block's " + std::to_string(threads) +
              " threads reached it; the others had already returned";
    f.access.block = as_array(unflatten(c.block, c.desc->grid));
    f.access.thread = as_array(thread);
    f.access.line = line;
    f.access.pc = module_offset(pc);
    add(std::move(f), 0, 0);
  }
}

void warp_synced(unsigned warp) {
  Ctx& c = ctx();
  if (warp < 32) ++c.warp_epoch[warp];
}

void undefined_shuffle(int op, unsigned lane, unsigned src, unsigned mask, Absent why, int line, std::uintptr_t pc,
                       const uint3& thread) {
  Ctx& c = ctx();
  if (c.desc == nullptr || counted(FindingKind::shuffle_source, pc, 0, line)) return;
  static constexpr const char* kNames[] = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync"};
  const char* name =
      op >= CUDALAB_SIM_SHFL_IDX && op <= CUDALAB_SIM_SHFL_XOR ? kNames[op - CUDALAB_SIM_SHFL_IDX] : "a shuffle";
  char mask_text[16];
  std::snprintf(mask_text, sizeof mask_text, "0x%08x", mask);
  std::string reason;
  switch (why) {
    case Absent::outside_mask:
      reason = "is not in the mask and does not make the call";
      break;
    case Absent::exited:
      reason = "has exited";
      break;
    case Absent::beyond_block:
      reason = "does not exist (the block has " +
               plural(std::size_t{c.desc->block.x} * c.desc->block.y * c.desc->block.z, "thread") + ")";
      break;
  }
  protocol::Finding f;
  f.kind = FindingKind::shuffle_source;
  f.kernel = c.desc->name;
  f.target = name;
  f.where = "lane " + std::to_string(lane) + " read lane " + std::to_string(src) + " of its warp with mask " +
            mask_text + ", and lane " + std::to_string(src) + " " + reason +
            ": the value it gets is undefined (an H100 gives 0, and so does the simulator)";
  f.access.block = as_array(unflatten(c.block, c.desc->grid));
  f.access.thread = as_array(thread);
  f.access.line = line;
  f.access.pc = module_offset(pc);
  add(std::move(f), pc, 0);
}

void* dynamic_shared(std::size_t bytes) {
  Ctx& c = ctx();
  if (c.arena == nullptr) {
    void* p = mmap(nullptr, kArenaBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      std::fprintf(stderr, "cudalab-sim: out of memory for the checked shared-memory arena\n");
      std::abort();
    }
    c.arena = static_cast<std::byte*>(p);
  }
  Region& d = c.dynamic;
  d.shared = true;
  d.dynamic = true;
  d.zone_begin = reinterpret_cast<std::uintptr_t>(c.arena);
  d.begin = d.zone_begin + kArenaZone;
  d.end = d.begin + std::min(bytes, kDynamicBytes);
  d.zone_end = d.zone_begin + kStaticStart;
  if (d.cells.size() < (d.end - d.begin + kWord - 1) / kWord) d.cells.resize((d.end - d.begin + kWord - 1) / kWord);
  return c.arena + kArenaZone;
}

void report(protocol::FindingKind kind, const std::string& where, int line, std::uintptr_t pc, const uint3& block,
            const uint3& thread) {
  Ctx& c = ctx();
  if (counted(kind, 0, 0, line)) return;
  protocol::Finding f;
  f.kind = kind;
  f.kernel = c.desc != nullptr ? c.desc->name : "";
  f.target = kind == FindingKind::warp ? "a warp operation" : "__syncthreads()";
  f.where = where.substr(0, protocol::kMaxFindingTextBytes);
  f.access.block = as_array(block);
  f.access.thread = as_array(thread);
  f.access.line = line;
  f.access.pc = module_offset(pc);
  add(std::move(f), 0, 0);
}

}  // namespace cudalab::sim::checks

// ---- the control API (sim/control.hpp) ----
namespace cudalab::sim::control {

namespace checks = cudalab::sim::checks;

void enable_checks(bool on) { checks::active = on; }

void forbid_host_memory_in_kernels(bool on) { checks::host_memory_is_finding = on; }

void name_buffer(const void* allocation, const void* buffer, std::size_t bytes, std::size_t element,
                 const std::string& name, bool initialized) {
  auto& g = checks::global();
  std::lock_guard lock(g.mutex);
  checks::Region* r = checks::find_region(reinterpret_cast<std::uintptr_t>(allocation));
  if (r == nullptr) return;
  r->begin = reinterpret_cast<std::uintptr_t>(buffer);
  r->end = r->begin + bytes;
  r->name = name;
  r->element = element;
  checks::defer_cells(*r, initialized);
  if (checks::tls_ctx != nullptr) checks::tls_ctx->last = nullptr;
}

std::vector<protocol::Finding> take_findings() {
  auto& g = checks::global();
  std::lock_guard lock(g.mutex);
  std::vector<protocol::Finding> out = std::move(g.findings);
  g.findings.clear();
  g.keys.clear();
  g.dropped = 0;
  return out;
}

}  // namespace cudalab::sim::control

// ---- what the checked build calls ----
// GCC's -fsanitize=thread instrumentation: a call before every load and store of the module (no
// check is merged away, unlike AddressSanitizer's, which drops the store of `x += y` after its
// load), and every atomic as a call that must do the operation. The module is linked without
// GCC's ThreadSanitizer runtime: these are its entry points.
using cudalab::sim::checks::check;

namespace {

inline std::uintptr_t caller(void* ret) { return reinterpret_cast<std::uintptr_t>(ret); }

/// An atomic: checked as one access of its own kind, then done. A store or an exchange does not
/// read the old value for its result (`reads` false): it may land on memory nothing wrote.
template <class T, class F>
T atomic_access(volatile T* a, F op, void* ret, bool reads = true) {
  using namespace cudalab::sim::checks;
  if (Ctx* c = tls_ctx; c != nullptr && c->in_kernel) {
    c->atomic = true;
    c->atomic_reads = reads;
    check(reinterpret_cast<std::uintptr_t>(a), sizeof(T), true, caller(ret));
    c->atomic = false;
  }
  return op();
}

}  // namespace

extern "C" {

// GCC's -fsanitize=alignment: a pointer of a type that needs more alignment than its address has
// (a float4 read at a 4-byte boundary); the compiler splits such reads into 4-byte ones, so this
// is where a misaligned vector access shows. UBSan's layout of what it passes.
struct UbsanLocation {
  const char* file;
  std::uint32_t line;
  std::uint32_t column;
};
struct UbsanType {
  std::uint16_t kind;
  std::uint16_t info;
  char name[1];
};
struct UbsanMismatch {
  UbsanLocation location;
  const UbsanType* type;
  unsigned char log_alignment;
  unsigned char check_kind;  // 0 load, 1 store, others: member access, calls, …
};

void __ubsan_handle_type_mismatch_v1(UbsanMismatch* data, std::uintptr_t address) {
  using namespace cudalab::sim::checks;
  Ctx* c = tls_ctx;
  if (c == nullptr || !c->in_kernel || address == 0 || data == nullptr) return;
  const std::uintptr_t align = std::uintptr_t{1} << data->log_alignment;
  if (address % align == 0) return;
  report_misaligned(*c, address, align, data->type != nullptr ? data->type->name : "", data->check_kind == 1,
                    caller(__builtin_return_address(0)));
  // The access itself would fault on the host (an aligned vector load); on a GPU it ends the kernel.
  cudalab::sim::fault_in_kernel(cudaErrorMisalignedAddress, "misaligned address");
}

void __tsan_init(void) {}
void __tsan_func_entry(void*) {}
void __tsan_func_exit(void) {}
void __tsan_vptr_update(void**, void*) {}
void __tsan_vptr_read(void**) {}
void __tsan_ignore_thread_begin(void) {}
void __tsan_ignore_thread_end(void) {}

#define CUDALAB_SIM_CHECK_SIZE(n)                                                              \
  void __tsan_read##n(void* a) {                                                               \
    check(reinterpret_cast<std::uintptr_t>(a), n, false, caller(__builtin_return_address(0))); \
  }                                                                                            \
  void __tsan_write##n(void* a) {                                                              \
    check(reinterpret_cast<std::uintptr_t>(a), n, true, caller(__builtin_return_address(0)));  \
  }                                                                                            \
  void __tsan_unaligned_read##n(void* a) {                                                     \
    check(reinterpret_cast<std::uintptr_t>(a), n, false, caller(__builtin_return_address(0))); \
  }                                                                                            \
  void __tsan_unaligned_write##n(void* a) {                                                    \
    check(reinterpret_cast<std::uintptr_t>(a), n, true, caller(__builtin_return_address(0)));  \
  }
CUDALAB_SIM_CHECK_SIZE(1)
CUDALAB_SIM_CHECK_SIZE(2)
CUDALAB_SIM_CHECK_SIZE(4)
CUDALAB_SIM_CHECK_SIZE(8)
CUDALAB_SIM_CHECK_SIZE(16)
#undef CUDALAB_SIM_CHECK_SIZE

void __tsan_read_range(void* a, unsigned long n) {
  check(reinterpret_cast<std::uintptr_t>(a), static_cast<unsigned>(std::min<unsigned long>(n, 4096)), false,
        caller(__builtin_return_address(0)));
}
void __tsan_write_range(void* a, unsigned long n) {
  check(reinterpret_cast<std::uintptr_t>(a), static_cast<unsigned>(std::min<unsigned long>(n, 4096)), true,
        caller(__builtin_return_address(0)));
}

void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

// Every atomic of every width ThreadSanitizer names; the memory orders are all done as seq_cst
// (stronger than asked, which a checked run can afford).
#define CUDALAB_SIM_ATOMICS(bits, T)                                                                          \
  T __tsan_atomic##bits##_load(const volatile T* a, int) {                                                    \
    return atomic_access(                                                                                     \
        const_cast<volatile T*>(a), [&] { return __atomic_load_n(a, __ATOMIC_SEQ_CST); },                     \
        __builtin_return_address(0));                                                                         \
  }                                                                                                           \
  void __tsan_atomic##bits##_store(volatile T* a, T v, int) {                                                 \
    atomic_access(                                                                                            \
        a,                                                                                                    \
        [&] {                                                                                                 \
          __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                           \
          return T{};                                                                                         \
        },                                                                                                    \
        __builtin_return_address(0), false);                                                                  \
  }                                                                                                           \
  T __tsan_atomic##bits##_exchange(volatile T* a, T v, int) {                                                 \
    return atomic_access(                                                                                     \
        a, [&] { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }, __builtin_return_address(0), false);  \
  }                                                                                                           \
  T __tsan_atomic##bits##_fetch_add(volatile T* a, T v, int) {                                                \
    return atomic_access(                                                                                     \
        a, [&] { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }, __builtin_return_address(0));          \
  }                                                                                                           \
  T __tsan_atomic##bits##_fetch_sub(volatile T* a, T v, int) {                                                \
    return atomic_access(                                                                                     \
        a, [&] { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }, __builtin_return_address(0));          \
  }                                                                                                           \
  T __tsan_atomic##bits##_fetch_and(volatile T* a, T v, int) {                                                \
    return atomic_access(                                                                                     \
        a, [&] { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); }, __builtin_return_address(0));          \
  }                                                                                                           \
  T __tsan_atomic##bits##_fetch_or(volatile T* a, T v, int) {                                                 \
    return atomic_access(                                                                                     \
        a, [&] { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }, __builtin_return_address(0));           \
  }                                                                                                           \
  T __tsan_atomic##bits##_fetch_xor(volatile T* a, T v, int) {                                                \
    return atomic_access(                                                                                     \
        a, [&] { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); }, __builtin_return_address(0));          \
  }                                                                                                           \
  T __tsan_atomic##bits##_fetch_nand(volatile T* a, T v, int) {                                               \
    return atomic_access(                                                                                     \
        a, [&] { return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST); }, __builtin_return_address(0));         \
  }                                                                                                           \
  int __tsan_atomic##bits##_compare_exchange_strong(volatile T* a, T* expected, T v, int, int) {              \
    return atomic_access(                                                                                     \
               a,                                                                                             \
               [&] {                                                                                          \
                 return static_cast<T>(                                                                       \
                     __atomic_compare_exchange_n(a, expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)); \
               },                                                                                             \
               __builtin_return_address(0)) != 0;                                                             \
  }                                                                                                           \
  int __tsan_atomic##bits##_compare_exchange_weak(volatile T* a, T* expected, T v, int, int) {                \
    return atomic_access(                                                                                     \
               a,                                                                                             \
               [&] {                                                                                          \
                 return static_cast<T>(                                                                       \
                     __atomic_compare_exchange_n(a, expected, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));  \
               },                                                                                             \
               __builtin_return_address(0)) != 0;                                                             \
  }                                                                                                           \
  T __tsan_atomic##bits##_compare_exchange_val(volatile T* a, T expected, T v, int, int) {                    \
    return atomic_access(                                                                                     \
        a,                                                                                                    \
        [&] {                                                                                                 \
          __atomic_compare_exchange_n(a, &expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);            \
          return expected;                                                                                    \
        },                                                                                                    \
        __builtin_return_address(0));                                                                         \
  }
CUDALAB_SIM_ATOMICS(8, std::uint8_t)
CUDALAB_SIM_ATOMICS(16, std::uint16_t)
CUDALAB_SIM_ATOMICS(32, std::uint32_t)
CUDALAB_SIM_ATOMICS(64, std::uint64_t)
#undef CUDALAB_SIM_ATOMICS

void cudalab_sim_constant_variable(const void* addr, size_t bytes, size_t element, const char* name,
                                   const void* section_begin, const void* section_end, int add) {
  using namespace cudalab::sim::checks;
  Global& g = global();
  std::lock_guard lock(g.mutex);
  const auto begin = reinterpret_cast<std::uintptr_t>(addr);
  if (tls_ctx != nullptr) tls_ctx->last = nullptr;
  const auto first = reinterpret_cast<std::uintptr_t>(section_begin);
  const auto last = reinterpret_cast<std::uintptr_t>(section_end);
  std::unique_ptr<Region> r;
  // Only a constant inside its section can be given red zones that hold nothing else.
  if (add != 0 && bytes != 0 && first <= begin && begin + bytes <= last) {
    r = std::make_unique<Region>();
    r->begin = begin;
    r->end = begin + bytes;
    r->name = name != nullptr ? name : "";
    r->element = element;
    r->constant = true;
    r->section_begin = first;
    r->section_end = last;
  }
  layout_constants(g, begin, std::move(r));
}

void cudalab_sim_local_begin(const void* addr, size_t bytes, size_t element, size_t inner, const char* name) {
  using namespace cudalab::sim::checks;
  if (!active || cudalab::sim::profile::active || tls_ctx == nullptr || !tls_ctx->in_kernel) return;
  auto r = std::make_unique<Region>();
  r->local = true;
  r->begin = reinterpret_cast<std::uintptr_t>(addr);
  r->end = r->begin + bytes;
  r->zone_begin = r->begin;
  r->zone_end = r->end;
  r->name = name;
  r->element = element;
  r->inner = inner;
  r->cells = cells_for(bytes);
  const std::uintptr_t key = r->begin;
  tls_ctx->locals.insert_or_assign(key, std::move(r));
}

void cudalab_sim_local_end(const void* addr) {
  using namespace cudalab::sim::checks;
  if (tls_ctx != nullptr && !tls_ctx->locals.empty()) tls_ctx->locals.erase(reinterpret_cast<std::uintptr_t>(addr));
}

void* cudalab_sim_checked_shared(const void* key, size_t bytes, size_t align, const char* name, size_t element,
                                 size_t inner) {
  using namespace cudalab::sim::checks;
  Ctx& c = ctx();
  if (c.arena == nullptr) (void)dynamic_shared(0);
  auto it = c.slot_of.find(key);
  Region* r = nullptr;
  if (it == c.slot_of.end()) {
    std::size_t offset = (c.arena_used + kArenaZone + align - 1) / align * align;
    if (offset + bytes + kArenaZone > kArenaBytes) {
      std::fprintf(stderr, "cudalab-sim: the kernels' __shared__ variables exceed the checked arena (%zu bytes)\n",
                   kArenaBytes);
      std::abort();
    }
    auto slot = std::make_unique<Region>();
    slot->shared = true;
    slot->begin = reinterpret_cast<std::uintptr_t>(c.arena) + offset;
    slot->end = slot->begin + bytes;
    slot->zone_begin = slot->begin - kArenaZone;
    slot->zone_end = slot->end + kArenaZone;
    slot->name = name;
    slot->element = element;
    slot->inner = inner;
    slot->cells = cells_for(bytes);
    c.arena_used = offset + bytes;
    r = slot.get();
    c.slots.push_back(std::move(slot));
    c.slot_of.emplace(key, r);
  } else {
    r = it->second;
  }
  void* p = reinterpret_cast<void*>(r->begin);
  // The executor's block count: bumped for every block, with the checks on or off.
  const auto block = static_cast<std::uint32_t>(cudalab_sim_block_generation);
  if (r->gen != block) {
    // The block's first thread to get here: poison it, and size it for the launch records.
    r->gen = block;
    cudalab_sim_shared_block(p, bytes);
  }
  return p;
}

}  // extern "C"

std::uint64_t cudalab::sim::module_offset(std::uintptr_t pc) {
  if (pc == 0) return 0;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(pc), &info) == 0 || info.dli_fbase == nullptr) return 0;
  // The call instruction ends at the return address: step back into it.
  return pc - reinterpret_cast<std::uintptr_t>(info.dli_fbase) - 1;
}
