// The simulator's executor: blocks on host threads, CUDA threads as fibers.
//
// - A launch's blocks are shared out to a pool of host threads (one per core, the caller included)
//   through one atomic counter; a block runs to completion on the host thread that took it.
// - Within a block, CUDA threads are started in order on a fiber. A thread that never waits runs
//   as a plain call: when it returns, the SAME fiber starts the next thread, so a kernel without
//   barriers makes no context switch at all (one fiber entry per block).
// - A thread that waits (__syncthreads, a warp rendezvous) parks its fiber and switches directly
//   to the next runnable one: a released fiber, else a fresh fiber that starts the next unstarted
//   thread, else the block's scheduler. The thread that completes a barrier or a warp rendezvous
//   does not switch: it queues the others and carries on.
// - All of a block's fibers run on one host thread, one block at a time, so the device built-ins
//   and static __shared__ variables can be host-thread-local (see cudalab_sim/device.hpp) and the
//   block's bookkeeping needs no locks.
// - Fibers use Boost.Context's fcontext (a few nanoseconds per switch, no system call); stacks are
//   mmap'd once per host thread with a guard page and reused for every block and launch.
// - Shared memory starts every block as 0xFF bytes (NaN, -1), as uninitialised memory is garbage
//   on a GPU: the dynamic buffer and namespace-scope variables here, before the block; static
//   variables in functions when the block's first thread reaches them (cudalab_sim_guarded_shared).
// - The dynamic buffer and (plain build) each function-scope __shared__ variable are followed by
//   guard bytes, checked when the block ends: a write past the end fails the launch, naming the
//   array, instead of corrupting the heap (the checked build names the line instead).
// - Pointer arguments of a launch must be device-accessible memory (device_accessible), else the
//   launch fails as an illegal access would on a GPU.
// - Under ThreadSanitizer the fiber switches are annotated, so TSan follows CUDA threads.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/context/detail/fcontext.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "checks.hpp"
#include "internal.hpp"
#include "records/records.hpp"
#include "sim/control.hpp"

#if defined(__SANITIZE_THREAD__)
#define CUDALAB_SIM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CUDALAB_SIM_TSAN 1
#endif
#endif
#ifdef CUDALAB_SIM_TSAN
#include <sanitizer/tsan_interface.h>
#endif

// Device built-ins: host-thread-local, rewritten on every switch between CUDA threads.
CUDALAB_SIM_TLS uint3 threadIdx;
CUDALAB_SIM_TLS uint3 blockIdx;
CUDALAB_SIM_TLS dim3 blockDim;
CUDALAB_SIM_TLS dim3 gridDim;
CUDALAB_SIM_TLS void* cudalab_sim_dynamic_shared;
CUDALAB_SIM_TLS int cudalab_sim_note_flag;
CUDALAB_SIM_TLS unsigned long long cudalab_sim_block_generation;

namespace cudalab::sim {
namespace {

namespace ctx = boost::context::detail;

constexpr std::size_t kStackSize = 256 * 1024;  // virtual; only touched pages cost memory
constexpr std::size_t kWarp = 32;
constexpr std::size_t kReadyRing = 2 * kMaxThreadsPerBlock;  // power of two, > threads per block

struct Fiber {
  ctx::fcontext_t context = nullptr;
  char* stack_top = nullptr;
#ifdef CUDALAB_SIM_TSAN
  void* tsan = nullptr;  // TSan's context for this fiber (the host thread's own for the scheduler)
#endif
};

enum class Wait : unsigned char { unstarted, running, barrier, warp, activemask, done };

struct Thread {
  uint3 idx{};
  unsigned linear = 0;
  Wait wait = Wait::unstarted;
  Fiber* fiber = nullptr;
  int line = 0;
  std::uintptr_t pc = 0;  // where it waits (the checks map it to the source line)
  // Warp rendezvous: the request, and the result written by the lane that completes it.
  int op = 0;
  unsigned mask = 0;
  int arg = 0;
  int width = 32;
  unsigned long long in = 0;
  unsigned long long out = 0;
};

/// Bytes after each shared array whose change shows a write past its end: twice the array (a wrong
/// index usually overshoots by a multiple of it: 64 bins indexed by a byte), 1 KiB to 32 KiB. A
/// write beyond the guard lands in the next variable's copy (or nothing): never the heap.
std::size_t guard_bytes(std::size_t bytes) {
  return std::clamp<std::size_t>((2 * bytes + 63) / 64 * 64, 1024, std::size_t{32} << 10);
}

/// The offset of the first of `n` guard bytes at `p` that is no longer 0xFF, or `n`.
std::size_t changed_guard(const unsigned char* p, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t v;
    std::memcpy(&v, p + i, 8);
    if (v != ~std::uint64_t{0}) break;
  }
  for (; i < n; ++i) {
    if (p[i] != 0xff) return i;
  }
  return n;
}

/// The plain build's copy of one function-scope `__shared__` variable on one host thread.
struct SharedCopy {
  const void* key = nullptr;  // the declaration's slot (cudalab_sim::shared_slot)
  unsigned char* data = nullptr;
  std::size_t bytes = 0;
  std::size_t element = 0;  // bytes per element of a one-dimensional array, else 0
  std::size_t guard = 0;    // guard bytes after `data + bytes`
  const char* name = "";
  unsigned long long generation = 0;  // the block it was last handed out for
};

struct Job {
  const cudalab_sim_launch_desc* desc = nullptr;
  void (*thunk)(void*) = nullptr;
  void* state = nullptr;
  unsigned long long blocks = 0;
  std::atomic<unsigned long long> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;
  std::string message;
  cudaError_t error = cudaErrorLaunchFailure;  // what a failed launch leaves sticky
  std::size_t static_shared = 0;
  std::vector<void* (*)(std::size_t*)> namespace_shared;  // accessors, snapshot at launch
  std::string overrun;  // why a write past a shared array failed the launch (the failed call's cause)
};

/// Namespace-scope `__shared__` accessors and `__managed__` variables of the loaded modules.
struct Registry {
  std::mutex mutex;
  std::vector<void* (*)(std::size_t*)> namespace_shared;
  std::vector<std::pair<std::uintptr_t, std::size_t>> managed;
};

Registry& registry() {
  static auto* r = new Registry;  // never destroyed: modules unregister during static destruction
  return *r;
}

/// Everything one host thread needs to run blocks; created on first use, never freed.
struct Worker {
  Fiber scheduler;
  Fiber* current = nullptr;
  std::vector<Fiber*> fibers;  // all fibers this host thread ever made
  std::vector<Fiber*> free_fibers;
  std::vector<Thread> threads;
  std::vector<Fiber*> ready;  // ring buffer
  std::size_t ready_head = 0;
  std::size_t ready_size = 0;
  std::vector<Fiber*> barrier_waiters;
  std::vector<char> dynamic_shared;
  std::size_t dynamic_guard = 0;  // guard bytes after the launch's dynamic shared memory (0: the checks' arena)
  std::vector<std::pair<const void*, std::size_t>> shared_notes;
  // The plain build's function-scope __shared__ variables, in arena chunks that are never freed
  // (a block's pointers into them stay valid when a new chunk is added).
  std::vector<SharedCopy> shared_copies;
  unsigned char* arena = nullptr;
  std::size_t arena_left = 0;
  std::vector<unsigned> order;  // the order threads start in, when not forward

  // The block being run.
  Job* job = nullptr;
  Thread* thread = nullptr;  // the CUDA thread running now
  unsigned nthreads = 0;
  unsigned next_thread = 0;
  unsigned live = 0;  // not exited, unstarted included
  unsigned arrived = 0;
  unsigned arrived_true = 0;
  int barrier_line = 0;
  int divergent_line = 0;
  std::uintptr_t barrier_pc = 0;
  std::uintptr_t divergent_pc = 0;
  unsigned last_arrivals = 0;
  unsigned last_true = 0;
  unsigned warp_waiting[kMaxThreadsPerBlock / kWarp] = {};
  unsigned activemask_waiting = 0;  // threads parked in __activemask
  bool fault = false;
  bool in_kernel = false;
};

__attribute__((tls_model("initial-exec"))) thread_local Worker* tls_worker = nullptr;

Worker& worker() {
  if (tls_worker == nullptr) {
    auto* w = new Worker;
    w->threads.resize(kMaxThreadsPerBlock);
    w->ready.resize(kReadyRing);
    w->barrier_waiters.reserve(kMaxThreadsPerBlock);
#ifdef CUDALAB_SIM_TSAN
    w->scheduler.tsan = __tsan_get_current_fiber();
#endif
    tls_worker = w;
  }
  return *tls_worker;
}

void fiber_entry(ctx::transfer_t from);

Fiber* new_fiber(Worker& w) {
  Fiber* f;
  if (!w.free_fibers.empty()) {
    f = w.free_fibers.back();
    w.free_fibers.pop_back();
#ifdef CUDALAB_SIM_TSAN
    // A finished or abandoned fiber never returned from its frames: start TSan's view afresh.
    __tsan_destroy_fiber(f->tsan);
    f->tsan = __tsan_create_fiber(0);
#endif
  } else {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    void* mem = mmap(nullptr, kStackSize + page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (mem == MAP_FAILED) {
      std::fprintf(stderr, "cudalab-sim: out of memory for fiber stacks\n");
      std::abort();
    }
    mprotect(mem, page, PROT_NONE);  // guard page: a stack overflow faults instead of corrupting
    f = new Fiber;
    // Stagger the stack tops: equally aligned tops would all map to the same cache sets, and a
    // barrier touches every thread's top of stack in turn.
    const std::size_t color = (w.fibers.size() * 3 % 61) * 64;
    f->stack_top = static_cast<char*>(mem) + page + kStackSize - color;
#ifdef CUDALAB_SIM_TSAN
    f->tsan = __tsan_create_fiber(0);
#endif
    w.fibers.push_back(f);
  }
  f->context = ctx::make_fcontext(f->stack_top, kStackSize - 4096, fiber_entry);
  return f;
}

void push_ready(Worker& w, Fiber* f) {
  w.ready[(w.ready_head + w.ready_size) & (kReadyRing - 1)] = f;
  ++w.ready_size;
}

/// __activemask() waits until nothing else in the block can run, then answers, per warp, the
/// lanes that are waiting in __activemask() too: lanes that exited or wait elsewhere (a barrier,
/// another warp operation) have diverged. This is what converged lanes see on a GPU, without
/// counting lanes that have not started yet or will exit before getting there.
void resolve_activemask(Worker& w) {
  for (unsigned base = 0; base < w.nthreads; base += 32) {
    unsigned m = 0;
    for (unsigned l = 0; l < 32 && base + l < w.nthreads; ++l) {
      if (w.threads[base + l].wait == Wait::activemask) m |= 1u << l;
    }
    for (unsigned q = m; q != 0; q &= q - 1) {
      Thread& t = w.threads[base + static_cast<unsigned>(__builtin_ctz(q))];
      t.out = m;
      push_ready(w, t.fiber);
    }
  }
  w.activemask_waiting = 0;
}

/// What runs next when the current fiber parks or finishes.
Fiber* pick_next(Worker& w) {
  if (w.fault) return &w.scheduler;
  if (w.ready_size > 0) {
    Fiber* f = w.ready[w.ready_head];
    w.ready_head = (w.ready_head + 1) & (kReadyRing - 1);
    --w.ready_size;
    return f;
  }
  if (w.next_thread < w.nthreads) return new_fiber(w);
  if (w.activemask_waiting > 0) {
    resolve_activemask(w);
    return pick_next(w);
  }
  return &w.scheduler;
}

inline void switch_to(Worker& w, Fiber* self, Fiber* next) {
  w.current = next;
#ifdef CUDALAB_SIM_TSAN
  // Synchronising: what one CUDA thread did before it parked happens before what the next does.
  __tsan_switch_to_fiber(next->tsan, 0);
#endif
  ctx::transfer_t t = ctx::jump_fcontext(next->context, self);
  static_cast<Fiber*>(t.data)->context = t.fctx;
}

inline void enter(Worker& w, Thread& t) {
  w.thread = &t;
  threadIdx = t.idx;
  if (checks::active) checks::thread_enter(t.linear);
}

void park(Worker& w, Thread& t) {
  Fiber* self = t.fiber;
  switch_to(w, self, pick_next(w));
  w.current = self;
  enter(w, t);
}

void fail(Worker& w, const std::string& what) {
  w.fault = true;
  Job& job = *w.job;
  std::lock_guard lock(job.mutex);
  if (!job.failed.exchange(true)) {
    job.message = what;
  }
}

std::string where(const Worker& w) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "kernel '%s', block (%u,%u,%u)", w.job->desc->name, blockIdx.x, blockIdx.y,
                blockIdx.z);
  return buf;
}

std::string thread_name(const Thread& t) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "(%u,%u,%u)", t.idx.x, t.idx.y, t.idx.z);
  return buf;
}

void release_barrier(Worker& w) {
  if (w.divergent_line != 0) {
    if (checks::active) {
      checks::report(protocol::FindingKind::barrier,
                     "threads of one block wait at __syncthreads() on line " + std::to_string(w.barrier_line) +
                         " and on line " + std::to_string(w.divergent_line),
                     w.divergent_line, w.divergent_pc, blockIdx, w.thread != nullptr ? w.thread->idx : uint3{});
    }
    fail(w, where(w) + ": __syncthreads in divergent code: threads wait at line " + std::to_string(w.barrier_line) +
                " and at line " + std::to_string(w.divergent_line) +
                "; every thread of the block must reach the same barrier");
    return;
  }
  if (checks::active) {
    checks::barrier_released(w.arrived, w.nthreads, w.barrier_line, w.barrier_pc,
                             w.thread != nullptr ? w.thread->idx : uint3{});
  }
  w.last_arrivals = w.arrived;
  w.last_true = w.arrived_true;
  w.arrived = 0;
  w.arrived_true = 0;
  for (Fiber* f : w.barrier_waiters) push_ready(w, f);
  w.barrier_waiters.clear();
}

void thread_exit(Worker& w, Thread& t) {
  t.wait = Wait::done;
  --w.live;
  if (w.arrived > 0 && w.arrived == w.live) release_barrier(w);
}

/// Runs threads on fiber `self` until none is left unstarted or one of them parks for good.
void run_threads(Worker& w, Fiber* self) {
  Job& job = *w.job;
  while (w.next_thread < w.nthreads && !w.fault) {
    const unsigned next = w.next_thread++;
    Thread& t = w.threads[w.order.empty() ? next : w.order[next]];
    t.fiber = self;
    t.wait = Wait::running;
    enter(w, t);
    job.thunk(job.state);
    thread_exit(w, t);
  }
}

void fiber_entry(ctx::transfer_t from) {
  static_cast<Fiber*>(from.data)->context = from.fctx;
  Worker& w = *tls_worker;
  Fiber* self = w.current;
  run_threads(w, self);
  w.free_fibers.push_back(self);
  switch_to(w, self, pick_next(w));  // never resumed
  __builtin_unreachable();
}

void describe_deadlock(Worker& w) {
  // Group the stuck threads by what they wait for.
  struct Group {
    Wait wait;
    int line;
    unsigned mask;
    unsigned count;
    const Thread* first;
  };
  std::vector<Group> groups;
  std::string exited;
  for (unsigned i = 0; i < w.nthreads; ++i) {
    const Thread& t = w.threads[i];
    if (t.wait != Wait::barrier && t.wait != Wait::warp) continue;
    bool found = false;
    for (Group& g : groups) {
      if (g.wait == t.wait && g.line == t.line && (t.wait == Wait::barrier || g.mask == t.mask)) {
        ++g.count;
        found = true;
        break;
      }
    }
    if (!found) groups.push_back({t.wait, t.line, t.mask, 1, &t});
    if (t.wait == Wait::warp && exited.empty()) {
      const unsigned base = t.linear & ~31u;
      for (unsigned l = 0; l < 32 && base + l < w.nthreads; ++l) {
        if ((t.mask >> l & 1u) && w.threads[base + l].wait == Wait::done) {
          exited = "; thread " + thread_name(w.threads[base + l]) + " is in the mask but has exited";
          break;
        }
      }
    }
  }
  std::string msg = where(w) + ": deadlock:";
  for (std::size_t i = 0; i < groups.size() && i < 4; ++i) {
    const Group& g = groups[i];
    char buf[200];
    if (g.wait == Wait::barrier) {
      std::snprintf(buf, sizeof buf, "%s %u thread(s) from %s wait at __syncthreads (line %d)", i ? ";" : "", g.count,
                    thread_name(*g.first).c_str(), g.line);
    } else {
      std::snprintf(buf, sizeof buf, "%s %u thread(s) from %s wait at a warp operation (line %d, mask 0x%08x)",
                    i ? ";" : "", g.count, thread_name(*g.first).c_str(), g.line, g.mask);
    }
    msg += buf;
  }
  if (checks::active && !groups.empty()) {
    const Group& g = groups.front();
    checks::report(g.wait == Wait::barrier ? protocol::FindingKind::barrier : protocol::FindingKind::warp,
                   msg.substr(msg.find("deadlock:") + 10) + exited, g.line, g.first->pc, blockIdx, g.first->idx);
  }
  fail(w, msg + exited);
}

/// The order the threads start in (protocol::ThreadOrder): a GPU promises none, so a result that
/// changes with it depends on a race.
protocol::ThreadOrder thread_order = protocol::ThreadOrder::forward;
std::uint64_t thread_order_seed = 0;

void set_order(Worker& w, unsigned long long block) {
  w.order.clear();
  if (thread_order == protocol::ThreadOrder::forward) return;
  w.order.resize(w.nthreads);
  for (unsigned i = 0; i < w.nthreads; ++i) w.order[i] = i;
  if (thread_order == protocol::ThreadOrder::reverse) {
    std::reverse(w.order.begin(), w.order.end());
  } else {
    std::mt19937_64 rng(thread_order_seed * 0x9E3779B97F4A7C15ull + block);
    std::shuffle(w.order.begin(), w.order.end(), rng);
  }
}

/// A write past the end of a shared array found by its guard: the launch fails (sticky
/// cudaErrorLaunchFailure, the first failing call) with `what`, which names the array.
void overrun(Worker& w, Job& job, const std::string& what) {
  {
    std::lock_guard lock(job.mutex);
    if (!job.failed.load()) {
      job.error = cudaErrorLaunchFailure;
      job.overrun = what;
    }
  }
  fail(w, "kernel '" + std::string(job.desc->name) + "' " + what);
}

/// When a block ends: the guard bytes after the dynamic shared memory and after each static
/// `__shared__` variable the block used must still be 0xFF.
void check_guards(Worker& w, Job& job) {
  const std::string block = "block (" + std::to_string(blockIdx.x) + "," + std::to_string(blockIdx.y) + "," +
                            std::to_string(blockIdx.z) + ")";
  const std::size_t shmem = job.desc->shmem;
  if (w.dynamic_guard != 0) {
    const auto* guard = reinterpret_cast<const unsigned char*>(w.dynamic_shared.data()) + shmem;
    if (const std::size_t at = changed_guard(guard, w.dynamic_guard); at < w.dynamic_guard) {
      overrun(w, job,
              "wrote past the end of the extern __shared__ array (" + std::to_string(shmem) +
                  " bytes at this launch, the third <<<>>> parameter): " + block + " changed byte " +
                  std::to_string(at) + " past its end; pass the size the kernel uses, and keep every index below it");
      return;
    }
  }
  for (const SharedCopy& s : w.shared_copies) {
    if (s.generation != cudalab_sim_block_generation) continue;  // not used by this block
    const std::size_t at = changed_guard(s.data + s.bytes, s.guard);
    if (at == s.guard) continue;
    std::string detail;
    if (s.element != 0) {
      detail = std::to_string(s.bytes / s.element) + " elements): " + block + " wrote " + s.name + "[" +
               std::to_string((s.bytes + at) / s.element) + "]";
    } else {
      detail = std::to_string(s.bytes) + " bytes): " + block + " changed byte " + std::to_string(at) + " past its end";
    }
    overrun(w, job,
            "wrote past the end of the __shared__ array '" + std::string(s.name) + "' (" + detail +
                "; keep every index below the array's size, or declare it as large as the indices reach");
    return;
  }
}

void run_block(Worker& w, Job& job, unsigned long long b) {
  const cudalab_sim_launch_desc& d = *job.desc;
  blockIdx.x = static_cast<unsigned>(b % d.grid.x);
  blockIdx.y = static_cast<unsigned>((b / d.grid.x) % d.grid.y);
  blockIdx.z = static_cast<unsigned>(b / (static_cast<unsigned long long>(d.grid.x) * d.grid.y));
  cudalab_sim_note_flag = b == 0;
  // A new block: its shared memory reads as garbage until written (NaN / -1 here).
  ++cudalab_sim_block_generation;
  if (checks::active) checks::block_begin(b);
  if (d.shmem + w.dynamic_guard != 0) std::memset(cudalab_sim_dynamic_shared, 0xff, d.shmem + w.dynamic_guard);
  for (auto* address : job.namespace_shared) {
    std::size_t bytes = 0;
    void* p = address(&bytes);
    std::memset(p, 0xff, bytes);
  }
  w.nthreads = d.block.x * d.block.y * d.block.z;
  w.next_thread = 0;
  w.live = w.nthreads;
  w.arrived = 0;
  w.arrived_true = 0;
  w.divergent_line = 0;
  w.fault = false;
  unsigned i = 0;
  for (unsigned z = 0; z < d.block.z; ++z)
    for (unsigned y = 0; y < d.block.y; ++y)
      for (unsigned x = 0; x < d.block.x; ++x, ++i) {
        Thread& t = w.threads[i];
        t.idx = uint3{x, y, z};
        t.linear = i;
        t.wait = Wait::unstarted;
      }
  set_order(w, b);

  switch_to(w, &w.scheduler, pick_next(w));
  // Back here when every thread has exited, or when nothing can run (deadlock, fault).
  w.current = &w.scheduler;
  if (w.live != 0 && !w.fault) describe_deadlock(w);
  if (!w.fault) check_guards(w, job);
  if (w.fault) {
    // Parked fibers are abandoned (their stacks are reused; destructors do not run).
    w.free_fibers = w.fibers;
    w.ready_size = 0;
    w.barrier_waiters.clear();
    for (unsigned& m : w.warp_waiting) m = 0;
    w.activemask_waiting = 0;
  }
  if (b == 0) {
    std::size_t total = 0;
    for (auto& n : w.shared_notes) total += n.second;
    job.static_shared = total;
    w.shared_notes.clear();
  }
  w.thread = nullptr;
}

void run_blocks(Job& job) {
  Worker& w = worker();
  w.job = &job;
  w.in_kernel = true;
  blockDim = job.desc->block;
  gridDim = job.desc->grid;
  if (checks::active) {
    cudalab_sim_dynamic_shared = checks::dynamic_shared(job.desc->shmem);
    w.dynamic_guard = 0;  // the checks' arena has red zones, and the checks name the line
  } else {
    w.dynamic_guard = guard_bytes(job.desc->shmem);
    const std::size_t size = job.desc->shmem + w.dynamic_guard;
    if (w.dynamic_shared.size() < size) w.dynamic_shared.resize(size);
    cudalab_sim_dynamic_shared = w.dynamic_shared.data();
  }
  while (!job.failed.load(std::memory_order_relaxed)) {
    const unsigned long long b = job.next.fetch_add(1, std::memory_order_relaxed);
    if (b >= job.blocks) break;
    run_block(w, job, b);
  }
  w.in_kernel = false;
  w.job = nullptr;
  cudalab_sim_note_flag = 0;
}

/// Host threads beside the caller; woken per launch through an atomic generation counter.
class Pool {
 public:
  explicit Pool(unsigned helpers) {
    for (unsigned i = 0; i < helpers; ++i) {
      std::thread([this] { loop(); }).detach();
    }
    helpers_ = helpers;
  }
  [[nodiscard]] unsigned helpers() const { return helpers_; }

  void run(Job& job, unsigned helpers) {
    helpers = helpers < helpers_ ? helpers : helpers_;
    job_ = &job;
    active_.store(static_cast<int>(helpers), std::memory_order_relaxed);
    wanted_.store(helpers, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_release);
    generation_.notify_all();
    run_blocks(job);
    // Seats no helper has taken yet are withdrawn: on a busy machine a helper may wake late, and
    // waiting for it to find no work left would only add latency.
    const unsigned unclaimed = wanted_.exchange(0, std::memory_order_acq_rel);
    int a = active_.fetch_sub(static_cast<int>(unclaimed), std::memory_order_acq_rel) - static_cast<int>(unclaimed);
    while (a != 0) {
      active_.wait(a, std::memory_order_acquire);
      a = active_.load(std::memory_order_acquire);
    }
  }

 private:
  void loop() {
    unsigned long long seen = 0;
    for (;;) {
      generation_.wait(seen, std::memory_order_acquire);
      seen = generation_.load(std::memory_order_acquire);
      // Take a seat if the launch wants one more helper.
      unsigned want = wanted_.load(std::memory_order_relaxed);
      bool seat = false;
      while (want > 0) {
        if (wanted_.compare_exchange_weak(want, want - 1, std::memory_order_acq_rel)) {
          seat = true;
          break;
        }
      }
      if (!seat) continue;
      run_blocks(*job_);
      if (active_.fetch_sub(1, std::memory_order_acq_rel) == 1) active_.notify_all();
    }
  }

  unsigned helpers_ = 0;
  Job* job_ = nullptr;
  std::atomic<unsigned long long> generation_{0};
  std::atomic<unsigned> wanted_{0};
  std::atomic<int> active_{0};
};

Pool& pool() {
  static Pool* p = new Pool(host_workers() - 1);  // never destroyed: helpers may still wait
  return *p;
}

std::mutex launch_mutex;

/// Argument `index` of a launch as written, from the argument list's text, or "" when the text
/// does not split into `nargs` arguments. Commas split at bracket depth 0; angle brackets count
/// as brackets only if that makes the count come out right (`f<int, 2>(x)` vs `a < b, c > d`).
std::string argument_text(const char* text, unsigned nargs, unsigned index) {
  if (text == nullptr) return {};
  const std::string_view all(text);
  for (const bool angles : {false, true}) {
    std::vector<std::string_view> parts;
    int depth = 0;
    std::size_t start = 0;
    char quote = 0;
    for (std::size_t i = 0; i < all.size(); ++i) {
      const char c = all[i];
      if (quote != 0) {
        if (c == '\\') {
          ++i;
        } else if (c == quote) {
          quote = 0;
        }
        continue;
      }
      if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '(' || c == '[' || c == '{' || (angles && c == '<')) {
        ++depth;
      } else if (c == ')' || c == ']' || c == '}' || (angles && c == '>' && depth > 0)) {
        --depth;
      } else if (c == ',' && depth == 0) {
        parts.push_back(all.substr(start, i - start));
        start = i + 1;
      }
    }
    if (!all.empty()) parts.push_back(all.substr(start));
    if (parts.size() == nargs && index < nargs) {
      std::string_view a = parts[index];
      while (!a.empty() && a.front() == ' ') a.remove_prefix(1);
      while (!a.empty() && a.back() == ' ') a.remove_suffix(1);
      return std::string(a);
    }
  }
  return {};
}

/// Whether `p` lies in a `__managed__` variable, or one past its end.
bool managed_variable(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const auto& [base, bytes] : r.managed) {
    if (a >= base && a - base <= bytes) return true;
  }
  return false;
}

/// The index of the first pointer argument that device code could not use, or -1.
int host_pointer_argument(const cudalab_sim_launch_desc& d) {
  for (unsigned i = 0; i < d.nargs; ++i) {
    const void* p = d.pointers[i];
    if (p != nullptr && !device_accessible(p) && !managed_variable(p)) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

void fault_in_kernel(cudaError_t error, const std::string& what) {
  Worker* wp = tls_worker;
  if (wp == nullptr || wp->thread == nullptr || wp->job == nullptr) return;
  Worker& w = *wp;
  {
    std::lock_guard lock(w.job->mutex);
    if (!w.job->failed.load()) w.job->error = error;
  }
  fail(w, where(w) + ": " + what);
  park(w, *w.thread);  // never resumed: the block is abandoned
}

unsigned host_workers() {
  static const unsigned n = [] {
    if (const char* env = std::getenv("CUDALAB_SIM_THREADS")) {
      const int v = std::atoi(env);
      if (v >= 1) return static_cast<unsigned>(v);
    }
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1u : hw;
  }();
  return n;
}

}  // namespace cudalab::sim

namespace cudalab::sim::control {
void set_thread_order(protocol::ThreadOrder order, std::uint64_t seed) {
  sim::thread_order = order;
  sim::thread_order_seed = seed;
}
}  // namespace cudalab::sim::control

using namespace cudalab::sim;

extern "C" {

// include/assert.h: a device assert ends its kernel, as on a GPU (the launch fails with
// cudaErrorAssert); a host one aborts, as <assert.h>'s does.
void cudalab_sim_assert_fail(const char* expression, const char* file, unsigned line, const char* function) {
  const char* slash = std::strrchr(file, '/');  // the file's name, as the findings give it
  fault_in_kernel(cudaErrorAssert, std::string("assert(") + expression + ") failed (" +
                                       (slash != nullptr ? slash + 1 : file) + ":" + std::to_string(line) + ")");
  // Not in a kernel (fault_in_kernel returned): what the C library's assert does.
  std::fprintf(stderr, "%s:%u: %s: Assertion `%s' failed.\n", file, line, function, expression);
  std::abort();
}

void cudalab_sim_launch(const cudalab_sim_launch_desc* desc, void (*thunk)(void*), void* state) {
  const dim3 g = desc->grid;
  const dim3 b = desc->block;
  if (tls_worker != nullptr && tls_worker->in_kernel) {
    std::fprintf(stderr,
                 "cudalab-sim: kernel '%s' launched from device code: dynamic parallelism "
                 "is not simulated\n",
                 desc->name);
    set_error(cudaErrorNotSupported);
    return;
  }
  if (cudaError_t e = sticky_error()) {
    set_error(e);
    return;
  }
  const unsigned long long threads = 1ull * b.x * b.y * b.z;
  if (g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 || b.z == 0 || b.x > kMaxThreadsPerBlock ||
      b.y > kMaxThreadsPerBlock || b.z > kMaxBlockDimZ || threads > kMaxThreadsPerBlock || g.x > kMaxGridDimX ||
      g.y > kMaxGridDimYZ || g.z > kMaxGridDimYZ) {
    record_invalid_configuration(*desc);
    return;
  }
  if (desc->shmem > kSharedPerBlockOptin || (desc->fn != nullptr && desc->shmem > max_dynamic_shared(desc->fn))) {
    set_error(cudaErrorInvalidValue);
    return;
  }
  if (!valid_stream(desc->stream)) {
    set_error(cudaErrorInvalidResourceHandle);
    return;
  }
  // Host and device share one address space here; on a GPU the kernel's first access through a
  // host pointer is an illegal address, which sticks.
  if (const int bad = host_pointer_argument(*desc); bad >= 0) {
    const std::string text = argument_text(desc->arg_text, desc->nargs, static_cast<unsigned>(bad));
    const std::string argument = "argument " + std::to_string(bad + 1) + (text.empty() ? "" : " (" + text + ")");
    // With the checks on, freed memory is still known: the pointer is not a host pointer.
    const bool freed = checks::active && checks::freed(desc->pointers[bad]);
    const std::string cause =
        freed ? argument + " points to device memory that cudaFree already released"
              : argument +
                    " is a host pointer: device code cannot read or write host memory; cudaMalloc device "
                    "memory, cudaMemcpy the data there and pass that pointer";
    if (freed) {
      checks::report_launch(cudalab::protocol::FindingKind::use_after_free, desc->name, argument,
                            reinterpret_cast<std::uintptr_t>(__builtin_return_address(0)));
    }
    std::fprintf(stderr, "cudalab-sim: kernel '%s' %s\n", desc->name, cause.c_str());
    std::fflush(stderr);
    char config[96];
    std::snprintf(config, sizeof config, "<<<(%u,%u,%u), (%u,%u,%u)>>>", g.x, g.y, g.z, b.x, b.y, b.z);
    cudalab::records::record_failed_call(
        {desc->name + std::string(config) + "(" + (desc->arg_text ? desc->arg_text : "") + ")",
         "cudaErrorIllegalAddress", cause});
    record_launch(*desc, 0);
    set_sticky(cudaErrorIllegalAddress);
    return;
  }

  std::lock_guard lock(launch_mutex);
  Job job;
  job.desc = desc;
  job.thunk = thunk;
  job.state = state;
  job.blocks = 1ull * g.x * g.y * g.z;
  {
    Registry& r = registry();
    std::lock_guard registry_lock(r.mutex);
    job.namespace_shared = r.namespace_shared;
  }
  // Parallel only when there is enough work to repay waking the helpers.
  const unsigned long long total_threads = job.blocks * threads;
  unsigned helpers = pool().helpers();
  // The checks keep their shadow state without locks: one host thread runs the blocks. The other
  // thread orders run beside the check's other runs, on small sizes: helpers would only add their
  // fibers' stacks, each page of which costs a fault to touch first.
  if (job.blocks < 2 || total_threads < 2048 || checks::active ||
      thread_order != cudalab::protocol::ThreadOrder::forward)
    helpers = 0;
  if (checks::active) {
    begin_stream_op(desc->stream, std::string("kernel '") + desc->name + "'");
    checks::launch_begin(*desc);
    run_blocks(job);
    checks::launch_end();
    end_stream_op();
  } else if (helpers == 0) {
    run_blocks(job);
  } else {
    pool().run(job, helpers);
  }
  record_launch(*desc, job.static_shared);
  if (job.failed.load()) {
    std::fprintf(stderr, "cudalab-sim: %s\n", job.message.c_str());
    std::fflush(stderr);
    if (!job.overrun.empty()) {
      // Corrupted shared memory is the launch's own fault: the report leads with it.
      char config[96];
      std::snprintf(config, sizeof config, "<<<(%u,%u,%u), (%u,%u,%u)>>>", g.x, g.y, g.z, b.x, b.y, b.z);
      cudalab::records::record_failed_call(
          {desc->name + std::string(config) + "(" + (desc->arg_text ? desc->arg_text : "") + ")",
           "cudaErrorLaunchFailure", job.message});
    }
    set_sticky(job.error);
  }
}

int cudalab_sim_syncthreads(int line, int op, int pred) {
  Worker* wp = tls_worker;
  if (wp == nullptr || wp->thread == nullptr) return pred;  // host code: nothing to wait for
  Worker& w = *wp;
  Thread& t = *w.thread;
  const auto pc = reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
  t.pc = pc;
  if (w.arrived == 0) {
    w.barrier_line = line;
    w.barrier_pc = pc;
  } else if (line != w.barrier_line && w.divergent_line == 0) {
    w.divergent_line = line;
    w.divergent_pc = pc;
  }
  ++w.arrived;
  w.arrived_true += pred != 0;
  if (w.arrived == w.live) {
    release_barrier(w);
    if (w.fault) park(w, t);  // never resumed
  } else {
    t.wait = Wait::barrier;
    t.line = line;
    w.barrier_waiters.push_back(t.fiber);
    park(w, t);
    t.wait = Wait::running;
  }
  switch (op) {
    case 1:
      return w.last_true == w.last_arrivals;
    case 2:
      return w.last_true != 0;
    default:
      return static_cast<int>(w.last_true);
  }
}

/// Device code used something the simulator does not run (a grid-wide barrier, say): the launch
/// fails with `what`.
void cudalab_sim_unsupported(const char* what) { fault_in_kernel(cudaErrorNotSupported, what); }

unsigned cudalab_sim_activemask(void) {
  Worker* wp = tls_worker;
  if (wp == nullptr || wp->thread == nullptr) return 1;
  Worker& w = *wp;
  Thread& t = *w.thread;
  t.wait = Wait::activemask;
  ++w.activemask_waiting;
  park(w, t);
  t.wait = Wait::running;
  return static_cast<unsigned>(t.out);
}

unsigned long long cudalab_sim_warp_op(int line, int op, unsigned mask, unsigned long long value, int arg, int width) {
  Worker* wp = tls_worker;
  if (wp == nullptr || wp->thread == nullptr) return value;
  Worker& w = *wp;
  Thread& t = *w.thread;
  const unsigned lane = t.linear & 31u;
  const unsigned warp = t.linear >> 5;
  const unsigned base = t.linear & ~31u;
  // Lanes beyond the end of a partial last warp do not exist: leave them out of the mask.
  const unsigned lanes = w.nthreads - base >= 32 ? 0xffffffffu : (1u << (w.nthreads - base)) - 1;
  mask = (mask & lanes) | (1u << lane);
  if (width <= 0 || width > 32 || (width & (width - 1)) != 0) width = 32;
  t.op = op;
  t.mask = mask;
  t.in = value;
  t.arg = arg;
  t.width = width;
  t.line = line;
  t.pc = reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
  unsigned& waiting = w.warp_waiting[warp];
  waiting |= 1u << lane;
  bool complete = (waiting & mask) == mask;
  for (unsigned m = mask; complete && m != 0; m &= m - 1) {
    complete = w.threads[base + __builtin_ctz(m)].mask == mask;
  }
  if (!complete) {
    t.wait = Wait::warp;
    park(w, t);
    t.wait = Wait::running;
    return t.out;
  }
  // This lane completes the rendezvous: compute every participant's result.
  waiting &= ~mask;
  if (checks::active) checks::warp_synced(warp);
  unsigned ballot = 0;
  unsigned long long sum = 0, mins = 0, maxs = 0, minu = ~0ull, maxu = 0, band = ~0ull, bor = 0, bxor = 0;
  bool first = true;
  for (unsigned m = mask; m != 0; m &= m - 1) {
    const Thread& p = w.threads[base + __builtin_ctz(m)];
    const unsigned l = static_cast<unsigned>(__builtin_ctz(m));
    if (p.in != 0) ballot |= 1u << l;
    const unsigned u = static_cast<unsigned>(p.in);
    const int s = static_cast<int>(u);
    sum += u;
    if (first || s < static_cast<int>(mins)) mins = static_cast<unsigned>(s);
    if (first || s > static_cast<int>(maxs)) maxs = static_cast<unsigned>(s);
    first = false;
    minu = u < minu ? u : minu;
    maxu = u > maxu ? u : maxu;
    band &= u;
    bor |= u;
    bxor ^= u;
  }
  for (unsigned m = mask; m != 0; m &= m - 1) {
    const unsigned l = static_cast<unsigned>(__builtin_ctz(m));
    Thread& p = w.threads[base + l];
    const unsigned wd = static_cast<unsigned>(p.width);
    const unsigned seg = l & ~(wd - 1);
    // The source lane as PTX's shfl.sync computes it: the offset's low 5 bits; out of range of
    // the caller's segment (below it for up, above it for down and xor) reads the caller's own.
    const unsigned b = static_cast<unsigned>(p.arg) & 31u;
    unsigned src = l;
    switch (p.op) {
      case CUDALAB_SIM_SHFL_IDX:
        src = seg + (b & (wd - 1));
        break;
      case CUDALAB_SIM_SHFL_UP:
        src = l - seg >= b ? l - b : l;
        break;
      case CUDALAB_SIM_SHFL_DOWN:
        src = l + b < seg + wd ? l + b : l;
        break;
      case CUDALAB_SIM_SHFL_XOR:
        // Only an upper bound: a lane may read an earlier segment (CUDA's guide says so too).
        src = (l ^ b) < seg + wd ? l ^ b : l;
        break;
      default:
        break;
    }
    unsigned long long r = 0;
    switch (p.op) {
      case CUDALAB_SIM_SYNCWARP:
        r = 0;
        break;
      case CUDALAB_SIM_SHFL_IDX:
      case CUDALAB_SIM_SHFL_UP:
      case CUDALAB_SIM_SHFL_DOWN:
      case CUDALAB_SIM_SHFL_XOR:
        if (mask >> src & 1u) {
          r = w.threads[base + src].in;
        } else {
          // The source lane takes no part (outside the mask, exited, or beyond a partial warp):
          // undefined in CUDA; an H100 reads 0 (what makes NVIDIA's reduce4-7 samples right).
          r = 0;
          if (checks::active) {
            const checks::Absent why = base + src >= w.nthreads                   ? checks::Absent::beyond_block
                                       : w.threads[base + src].wait == Wait::done ? checks::Absent::exited
                                                                                  : checks::Absent::outside_mask;
            checks::undefined_shuffle(p.op, l, src, mask, why, p.line, p.pc, p.idx);
          }
        }
        break;
      case CUDALAB_SIM_BALLOT:
        r = ballot;
        break;
      case CUDALAB_SIM_ANY:
        r = ballot != 0;
        break;
      case CUDALAB_SIM_ALL:
        r = ballot == mask;
        break;
      case CUDALAB_SIM_MATCH_ANY:
      case CUDALAB_SIM_MATCH_ALL: {
        unsigned same = 0;
        for (unsigned q = mask; q != 0; q &= q - 1) {
          const unsigned ql = static_cast<unsigned>(__builtin_ctz(q));
          if (w.threads[base + ql].in == p.in) same |= 1u << ql;
        }
        r = p.op == CUDALAB_SIM_MATCH_ANY ? same : (same == mask ? mask : 0);
        break;
      }
      case CUDALAB_SIM_REDUCE_ADD:
        r = sum & 0xffffffffu;
        break;
      case CUDALAB_SIM_REDUCE_MIN_S:
        r = mins;
        break;
      case CUDALAB_SIM_REDUCE_MAX_S:
        r = maxs;
        break;
      case CUDALAB_SIM_REDUCE_MIN_U:
        r = minu;
        break;
      case CUDALAB_SIM_REDUCE_MAX_U:
        r = maxu;
        break;
      case CUDALAB_SIM_REDUCE_AND:
        r = band;
        break;
      case CUDALAB_SIM_REDUCE_OR:
        r = bor;
        break;
      case CUDALAB_SIM_REDUCE_XOR:
        r = bxor;
        break;
      default:
        r = p.in;
        break;
    }
    p.out = r;
    if (l != lane) push_ready(w, p.fiber);
  }
  return t.out;
}

void* cudalab_sim_guarded_shared(const void* key, size_t bytes, size_t align, size_t element, const char* name) {
  Worker& w = worker();
  SharedCopy* s = nullptr;
  for (SharedCopy& c : w.shared_copies) {
    if (c.key == key) {
      s = &c;
      break;
    }
  }
  if (s == nullptr) {
    const std::size_t guard = guard_bytes(bytes);
    const std::size_t a = std::max<std::size_t>(align, 64);
    auto place = [&]() -> unsigned char* {
      const auto at = reinterpret_cast<std::uintptr_t>(w.arena);
      const std::size_t pad = (a - at % a) % a;
      if (w.arena == nullptr || pad + bytes + guard > w.arena_left) return nullptr;
      w.arena += pad + bytes + guard;
      w.arena_left -= pad + bytes + guard;
      return reinterpret_cast<unsigned char*>(at + pad);
    };
    unsigned char* data = place();
    if (data == nullptr) {
      const std::size_t chunk = std::max<std::size_t>(std::size_t{4} << 20, bytes + guard + a);
      void* mem = mmap(nullptr, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (mem == MAP_FAILED) {
        std::fprintf(stderr, "cudalab-sim: out of memory for __shared__ variables\n");
        std::abort();
      }
      w.arena = static_cast<unsigned char*>(mem);
      w.arena_left = chunk;
      data = place();
    }
    w.shared_copies.push_back({key, data, bytes, element, guard, name, 0});
    s = &w.shared_copies.back();
  }
  s->generation = cudalab_sim_block_generation;
  std::memset(s->data + s->bytes, 0xff, s->guard);             // re-armed for this block
  if (w.thread == nullptr) std::memset(s->data, 0xff, bytes);  // host code: cudalab_sim_shared_block skips it
  cudalab_sim_shared_block(s->data, bytes);
  return s->data;
}

void cudalab_sim_shared_block(void* addr, size_t bytes) {
  Worker* wp = tls_worker;
  if (wp == nullptr || wp->thread == nullptr) return;  // host code: no block to poison for
  std::memset(addr, 0xff, bytes);
  if (cudalab_sim_note_flag == 0) return;
  for (auto& n : wp->shared_notes) {
    if (n.first == addr) return;
  }
  wp->shared_notes.emplace_back(addr, bytes);
}

void cudalab_sim_namespace_shared(void* (*address)(size_t*), int add) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto& v = r.namespace_shared;
  if (add != 0) {
    v.push_back(address);
  } else if (auto it = std::find(v.begin(), v.end(), address); it != v.end()) {
    v.erase(it);
  }
}

void cudalab_sim_managed_variable(const void* addr, size_t bytes, int add) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto& v = r.managed;
  const std::pair<std::uintptr_t, std::size_t> entry{reinterpret_cast<std::uintptr_t>(addr), bytes};
  if (add != 0) {
    v.push_back(entry);
  } else if (auto it = std::find(v.begin(), v.end(), entry); it != v.end()) {
    v.erase(it);
  }
}

}  // extern "C"
