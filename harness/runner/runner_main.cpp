// The untrusted side: a short-lived child process that loads one student module, moves the
// buffers the parent prepared to where `solve` expects them, calls it, and hands the buffers and
// a result back. It never sees expected values: comparing happens in the parent. Compiled twice,
// against the CUDA runtime (cudalab-runner-gpu) and against the simulator (cudalab-runner-sim).
//
// Modes (protocol.hpp): check (one call of solve per case, the cases in order, one reply each),
// bench (timed calls over rotating input sets), --probe (devices), --peak (device-to-device copy
// bandwidth).
//
// Order of a run: map the buffers, create the device context, lock down as the spec's sandbox
// says (sandbox.hpp: after the context, which Landlock would break; before the module, whose
// constructors run at load), in bench mode page-lock the host buffers and, if the spec asks, wait
// at the gate for the parent to take the GPU (protocol.hpp, kGateFd), load the module, then per
// case (check) or once (bench): upload between guard zones, call solve, check the guard zones,
// download, reply. One process for all the cases of a check: the context and the module load are
// paid once, and solve meets state left from its earlier calls, as a program would.
#include <dlfcn.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_support.hpp"
#include "cudalab/parallel.hpp"
#include "cudalab/protocol.hpp"
#include "cudalab/sampling.hpp"
#include "device_checks.hpp"
#include "kernel_tracing.hpp"
#include "records/records.hpp"
#include "sandbox.hpp"

namespace {

namespace protocol = cudalab::protocol;
namespace records = cudalab::records;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
using protocol::Reply;
using protocol::Status;

/// One buffer of one input set: where it lives in the shared file and, for device-pointer
/// exercises, on the device.
struct Slot {
  protocol::BufferSlot where;
  void* device = nullptr;      ///< what solve gets: the buffer, between its guard zones
  void* allocation = nullptr;  ///< the cudaMalloc that holds the guard zones and the buffer
  std::size_t guard = 0;       ///< bytes of guard zone on each side
  void* pristine = nullptr;    ///< bench: device copy of an inout buffer's input, restored before each call
};

/// What the guard zones around the harness's device buffers hold. Around an input, 0xFF bytes:
/// NaN as a float or a double and -1 as an int, so that a kernel reading past an input gets NaN
/// into its result instead of a harmless value that vanishes from a sum (0xA5 bytes read as
/// -2.9e-16). Around an output, protocol::kGuardByte, which no common stray write (a -1, a NaN,
/// a zero) leaves unchanged, so that check_guards sees every write past it.
unsigned char guard_fill(protocol::BufferRole role) {
  return role == protocol::BufferRole::input ? 0xFF : protocol::kGuardByte;
}

/// Thrown to end the run with a reply (an error status) instead of the normal one.
struct Stop {
  Reply reply;
};

Reply error_reply(Status status, const std::string& message) {
  Reply r;
  r.status = status;
  r.message = message;
  return r;
}

void check_cuda(cudaError_t err, const std::string& during) {
  if (err != cudaSuccess) {
    Reply r = error_reply(Status::cuda_error, std::string(cudaGetErrorString(err)) + " (" + during + ")");
    r.cuda_error = cudaGetErrorName(err);
    throw Stop{std::move(r)};
  }
}

/// One reply, one line; with what the sandbox blocked so far.
void write_reply(Reply reply) {
  reply.records.blocked = cudalab::runner::blocked_calls();
  const std::string text = protocol::dump_reply(reply) + "\n";
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = write(protocol::kReplyFd, p, left);
    if (n <= 0) break;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

// Calls `fn` with arguments whose kinds are known only at run time. All contract parameters are
// pointers or ints, so the recursion instantiates at most 2^6 call shapes.
// The call goes through `void (*)(void*, …, int)` where solve is defined as, say,
// `void solve(const float*, float*, int)`: not the function's own type, which the standard leaves
// undefined. It is sound here because the symbol looked up is the mangled name of the contract's exact
// signature (a solve of any other parameter types is not found: wrong_signature), so every argument
// has the class the definition expects, and the platform's calling convention (System V x86-64,
// AArch64 AAPCS64) passes every object pointer alike whatever it points to and however qualified.
using Arg = std::intptr_t;
using Args = std::vector<std::pair<bool, Arg>>;
constexpr std::size_t kMaxArgs = 6;

template <typename... Ts>
void call_solve(void* fn, const Args& args, Ts... done) {
  constexpr std::size_t kHave = sizeof...(Ts);
  if (kHave == args.size()) {
    reinterpret_cast<void (*)(Ts...)>(fn)(done...);
    return;
  }
  if constexpr (kHave < kMaxArgs) {
    const auto& [is_pointer, value] = args[kHave];
    if (is_pointer) {
      call_solve(fn, args, done..., reinterpret_cast<void*>(value));
    } else {
      call_solve(fn, args, done..., static_cast<int>(value));
    }
  }
}

/// Calls solve, turning an exception into a Stop with the exception's message; a skeleton's own
/// "not implemented yet" is a status of its own.
void guarded_solve(void* solve, const Args& args) {
  try {
    call_solve(solve, args);
  } catch (const std::logic_error& e) {
    const bool skeleton = std::string_view(e.what()).starts_with(protocol::kNotImplementedPrefix);
    throw Stop{error_reply(skeleton ? Status::not_implemented : Status::exception, e.what())};
  } catch (const std::exception& e) {
    throw Stop{error_reply(Status::exception, e.what())};
  } catch (...) {
    throw Stop{error_reply(Status::exception, "solve threw something that is not a std::exception")};
  }
}

int probe() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  json out{{"count", err == cudaSuccess ? count : 0}};
  if (err != cudaSuccess) out["error"] = std::string(cudaGetErrorString(err));
  json devices = json::array();
  for (int i = 0; err == cudaSuccess && i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    int clock_khz = 0, l2_bytes = 0;
    (void)cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, i);
    (void)cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, i);
    char uuid[64];
    std::string uuid_text;
    for (unsigned char c : prop.uuid.bytes) {
      std::snprintf(uuid, sizeof uuid, "%02x", c);
      uuid_text += uuid;
    }
    devices.push_back({{"name", prop.name},
                       {"uuid", uuid_text},
                       {"compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
                       {"sm_count", prop.multiProcessorCount},
                       {"clock_khz", clock_khz},
                       {"l2_bytes", l2_bytes},
                       {"memory_bytes", prop.totalGlobalMem}});
  }
  int driver = 0, runtime = 0;
  (void)cudaDriverGetVersion(&driver);
  (void)cudaRuntimeGetVersion(&runtime);
  out["driver_version"] = driver;
  out["runtime_version"] = runtime;
  out["devices"] = devices;
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

/// Median seconds of `copy` (events around it), sampled as the policy says.
template <typename Copy>
double median_copy_s(cudaEvent_t start, cudaEvent_t stop, Copy copy) {
  cudalab::SamplingPolicy policy;
  policy.min_samples = 20;
  policy.time_cap_s = 5;
  cudalab::Sampler sampler(policy);
  while (sampler.want_more()) {
    cudaEventRecord(start);
    copy();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    sampler.add(ms * 1e-3);
  }
  return sampler.summary().median;
}

/// Device-to-device copy bandwidth, bytes read plus bytes written per second: the ceiling that
/// memory-bound kernels are measured against. And the host link's: a page-locked copy each way,
/// the faster one (what no transfer can beat), and a copy each way at once on two streams, bytes
/// both ways per second (the duplex link: the ceiling of host-pointer exercises, whose data
/// crosses it in both directions).
int peak() {
  constexpr std::size_t kBytes = std::size_t{1} << 30;
  void* a = nullptr;
  void* b = nullptr;
  if (cudaMalloc(&a, kBytes) != cudaSuccess || cudaMalloc(&b, kBytes) != cudaSuccess) {
    std::printf("{\"error\": \"cannot allocate 2 GiB\"}\n");
    return 1;
  }
  cudaMemset(a, 1, kBytes);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  const double d2d_s = median_copy_s(start, stop, [&] { cudaMemcpy(b, a, kBytes, cudaMemcpyDeviceToDevice); });
  constexpr std::size_t kHostBytes = std::size_t{1} << 28;
  void* host = nullptr;
  void* host_back = nullptr;
  double link_gbs = 0;
  double duplex_gbs = 0;
  if (cudaMallocHost(&host, kHostBytes) == cudaSuccess && cudaMallocHost(&host_back, kHostBytes) == cudaSuccess) {
    std::memset(host, 1, kHostBytes);
    std::memset(host_back, 1, kHostBytes);
    const double up_s = median_copy_s(start, stop, [&] { cudaMemcpy(a, host, kHostBytes, cudaMemcpyHostToDevice); });
    const double down_s = median_copy_s(start, stop, [&] { cudaMemcpy(host, a, kHostBytes, cudaMemcpyDeviceToHost); });
    link_gbs = static_cast<double>(kHostBytes) / std::min(up_s, down_s) / 1e9;
    // Blocking streams: each copy waits for the start event on the legacy stream, and the stop
    // event waits for both copies.
    cudaStream_t up = nullptr;
    cudaStream_t down = nullptr;
    if (cudaStreamCreate(&up) == cudaSuccess && cudaStreamCreate(&down) == cudaSuccess) {
      const double both_s = median_copy_s(start, stop, [&] {
        cudaMemcpyAsync(a, host, kHostBytes, cudaMemcpyHostToDevice, up);
        cudaMemcpyAsync(host_back, b, kHostBytes, cudaMemcpyDeviceToHost, down);
      });
      duplex_gbs = 2.0 * static_cast<double>(kHostBytes) / both_s / 1e9;
    }
    if (up != nullptr) cudaStreamDestroy(up);
    if (down != nullptr) cudaStreamDestroy(down);
  }
  if (host != nullptr) cudaFreeHost(host);
  if (host_back != nullptr) cudaFreeHost(host_back);
  std::printf("%s\n", json{{"copy_bytes", kBytes},
                           {"median_s", d2d_s},
                           {"bandwidth_gbs", 2.0 * static_cast<double>(kBytes) / d2d_s / 1e9},
                           {"host_link_gbs", link_gbs},
                           {"host_duplex_gbs", duplex_gbs}}
                          .dump()
                          .c_str());
  return 0;
}

/// The records so far, with the parent's name for the host end of each copy, so that the parent
/// can say "b was copied back".
protocol::Records named_records(const std::vector<std::vector<Slot>>& sets, const std::byte* base) {
  protocol::Records r = records::snapshot_records();
  // Any input set: bench mode records the first measured call, whichever set it ran on.
  auto host_buffer = [&](std::uintptr_t address) -> std::string {
    for (const auto& set : sets) {
      for (const auto& s : set) {
        const auto begin = reinterpret_cast<std::uintptr_t>(base + s.where.offset);
        if (address >= begin && address < begin + std::max<std::size_t>(s.where.bytes, 1)) return s.where.name;
      }
    }
    return "";
  };
  // Device-pointer exercises: which of the harness's device buffers a copy reads or writes, and
  // whether its other end is memory the host can touch (the judge's "the work must be done by
  // kernels"). A pointer the records cannot place counts as neither (never judged).
  auto device_buffer = [&](std::uintptr_t address) -> std::string {
    for (const auto& set : sets) {
      for (const auto& s : set) {
        if (s.device == nullptr) continue;
        const auto begin = reinterpret_cast<std::uintptr_t>(s.device);
        if (address >= begin && address < begin + std::max<std::size_t>(s.where.bytes, 1)) return s.where.name;
      }
    }
    return "";
  };
  auto allocation_of = [&](std::uintptr_t address) -> const protocol::Allocation* {
    for (const auto& a : r.allocations) {
      if (address >= a.address && address < a.address + std::max<std::size_t>(a.bytes, 1)) return &a;
    }
    return nullptr;
  };
  using protocol::CopyKind;
  // With cudaMemcpyDefault the runtime tells the ends apart by address: any pointer that is not
  // device memory (the harness's buffers, the submission's cudaMalloc) is the host's — knowable
  // only while every allocation was recorded.
  auto host_end = [&](std::uintptr_t address, bool by_kind, CopyKind kind, bool symbol) {
    if (symbol) return false;
    if (by_kind) return true;
    const protocol::Allocation* a = allocation_of(address);
    if (a != nullptr) return a->kind != protocol::MemoryKind::device;  // page-locked or managed
    return kind == CopyKind::by_pointer && r.dropped == 0 && device_buffer(address).empty();
  };
  for (auto& c : r.copies) {
    c.to_host_buffer = host_buffer(c.dst);
    c.from_host_buffer = host_buffer(c.src);
    c.to_device_buffer = device_buffer(c.dst);
    c.from_device_buffer = device_buffer(c.src);
    c.to_host_memory = host_end(c.dst, c.kind == CopyKind::device_to_host || c.kind == CopyKind::host_to_host, c.kind,
                                c.api.find("ToSymbol") != std::string::npos);
    c.from_host_memory = host_end(c.src, c.kind == CopyKind::host_to_device || c.kind == CopyKind::host_to_host, c.kind,
                                  c.api.find("FromSymbol") != std::string::npos);
  }
  return r;
}

class Run {
 public:
  explicit Run(protocol::Spec spec)
      : spec_(std::move(spec)),
        check_(std::get_if<protocol::CheckRun>(&spec_.run)),
        bench_(std::get_if<protocol::BenchRun>(&spec_.run)) {}

  /// Runs the spec and writes its replies; a Stop thrown before the first case (or in bench) is
  /// main's to write.
  void execute() {
    map_buffers();
    if (instrumented()) {
      if (!cudalab::runner::device_checks_available()) {
        throw Stop{error_reply(Status::runner_error, "this runner has no device-code checks (the simulator's has)")};
      }
    }
    if (check_ != nullptr) cudalab::runner::set_thread_order(check_->order, check_->order_seed);
    // Create the context now, so that its cost and its failures are not blamed on `solve`, and
    // before the lockdown: cuInit fails under Landlock.
    int devices = 0;
    if (cudaError_t err = cudaGetDeviceCount(&devices); err != cudaSuccess || devices == 0) {
      throw Stop{
          error_reply(Status::no_device, err == cudaSuccess ? "no CUDA device is visible" : cudaGetErrorString(err))};
    }
    check_cuda(cudaFree(nullptr), "creating the context");
    phase("context");
    // Locked down before the module loads: its constructors run at load. Never unprotected.
    if (auto why = cudalab::runner::lock_down(spec_.sandbox)) {
      throw Stop{error_reply(Status::runner_error, "cannot lock down: " + *why)};
    }
    phase("lockdown");
    if (bench_ != nullptr) {
      prepare_host();
      // Nothing of the submission has run yet: waiting here, ready, costs the next timed run nothing.
      if (bench_->gate) wait_at_gate();
    } else if (check_->page_locked && !spec_.device_pointers) {
      // The streams exercise: its contract gives solve page-locked buffers in check as in bench.
      locked_ = page_locked_ = cudalab::runner::page_lock(base_, sets_end());
    }
    load_module();
    phase("load");
    if (check_ != nullptr) {
      for (std::size_t set = 0; set < sets_.size(); ++set) {
        // Every case's output after its marker: the parent shows each case what it printed.
        std::printf("%.*s%zu\n", static_cast<int>(protocol::kCaseMarker.size()), protocol::kCaseMarker.data(), set);
        std::fflush(stdout);
        try {
          Reply reply = check_case(set);
          reply.set = set;
          write_reply(std::move(reply));
        } catch (Stop& stop) {  // this case's failure ends the process: its state is suspect now
          stop.reply.set = set;
          write_reply(std::move(stop.reply));
          return;
        } catch (const std::exception& e) {
          Reply reply = error_reply(Status::runner_error, e.what());
          reply.set = set;
          write_reply(std::move(reply));
          return;
        }
      }
      return;
    }
    if (spec_.device_pointers) {
      for (std::size_t set = 0; set < sets_.size(); ++set) upload(set);
      phase("upload");
    }
    (void)cudaGetLastError();  // the sticky state before the call is not the submission's
    Reply reply = bench();
    reply.records = named_records(sets_, base_);
    reply.launches_recorded = cudalab::runner::kernel_tracing_available();
    if (spec_.device_pointers) {
      for (std::size_t set = 0; set < sets_.size(); ++set) {
        for (auto& o : check_guards(set)) {
          if (reply.out_of_bounds.size() < protocol::kMaxOutOfBounds) reply.out_of_bounds.push_back(std::move(o));
        }
        download(set);
      }
      phase("download");
    }
    if (locked_) {
      cudalab::runner::page_unlock(base_);
      phase("unlock");
    }
    reply.phases = std::move(phases_);
    write_reply(std::move(reply));
  }

 private:
  void map_buffers() {
    void* p = mmap(nullptr, mapped_bytes(), PROT_READ | PROT_WRITE, MAP_SHARED, protocol::kBuffersFd, 0);
    if (p == MAP_FAILED) {
      throw Stop{error_reply(Status::runner_error, std::string("cannot map the buffers: ") + std::strerror(errno))};
    }
    base_ = static_cast<std::byte*>(p);
    for (const auto& set : spec_.sets) {
      std::vector<Slot> slots;
      for (const auto& b : set) slots.push_back({b});
      sets_.push_back(std::move(slots));
    }
  }

  /// Bench, before the module loads: the host side of the set-up, which needs neither the
  /// submission nor the GPU to itself. Page-locks host memory, keeps the inputs of in-place
  /// buffers and the outputs' poison for restore_buffers().
  void prepare_host() {
    if (spec_.device_pointers) {
      // The whole file: the upload, the witnesses' copies and the download then run at the host
      // link's speed, several times that of pageable memory, while the GPU is held. Outside the
      // timed calls, which see device memory only.
      locked_ = cudalab::runner::page_lock(base_, mapped_bytes());
    } else if (bench_->host_memory == protocol::HostMemory::page_locked) {
      // Host-pointer exercises: page-locked buffers unless the parent asks for pageable ones. Only
      // the sets' buffers, which solve copies: the witnesses' room after them is written by memcpy.
      locked_ = page_locked_ = cudalab::runner::page_lock(base_, sets_end());
    }
    keep_host_poison();
    for (const auto& set : sets_) {
      for (const auto& s : set) {
        const std::byte* from = base_ + s.where.offset;
        const bool kept = s.where.role == protocol::BufferRole::inout && !spec_.device_pointers;
        std::vector<std::byte>& pristine = host_pristine_.emplace_back(kept ? s.where.bytes : 0);
        cudalab::parallel_copy(pristine.data(), from, pristine.size());
      }
    }
    phase(locked_ ? "page-lock and host set-up" : "host set-up");
  }

  /// Tells the parent this run is ready to time (kGateFd) and waits until it may go on. The wait
  /// is the parent's, not a phase of the run.
  void wait_at_gate() {
    const char ready = 'r';
    char go = 0;
    if (write(protocol::kGateFd, &ready, 1) != 1 || read(protocol::kGateFd, &go, 1) != 1) {
      throw Stop{error_reply(Status::runner_error, "the parent never opened the gate")};
    }
    phase_start_ = Clock::now();
  }

  /// Rounds (BenchRun::rounds): back at the gate with the round's median, for the parent to give the
  /// GPU to the other runner's round. True: time another round; false: finish. The wait is not a
  /// phase of this run.
  bool back_at_gate(double round_median_s) {
    const auto waiting = Clock::now();
    const char ready = 'r';
    char answer = 0;
    if (write(protocol::kGateFd, &ready, 1) != 1 ||
        write(protocol::kGateFd, &round_median_s, sizeof round_median_s) != sizeof round_median_s ||
        read(protocol::kGateFd, &answer, 1) != 1) {
      throw Stop{error_reply(Status::runner_error, "the parent left the gate between rounds")};
    }
    phase_start_ += Clock::now() - waiting;
    return answer == protocol::kGateGo;
  }

  void load_module() {
    void* module = dlopen(spec_.module.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (module == nullptr) throw Stop{error_reply(Status::load_error, dlerror())};
    solve_ = dlsym(module, spec_.symbol.c_str());
    if (solve_ == nullptr) {
      throw Stop{error_reply(Status::missing_symbol, "no function " + spec_.symbol + " in the module")};
    }
  }

  /// Whether every access of `set`'s case is checked (the simulator's checked build, --sanitize).
  [[nodiscard]] bool checked_set(std::size_t set) const { return check_ != nullptr && check_->instrumented(set); }

  /// Whether the module is the checked build, its accesses checked or counted.
  [[nodiscard]] bool instrumented() const {
    return check_ != nullptr && check_->instrumentation != protocol::Instrumentation::none;
  }

  /// Whether the checked build counts accesses (`cudalab explain`) instead of checking them.
  [[nodiscard]] bool counting() const {
    return check_ != nullptr && check_->instrumentation == protocol::Instrumentation::access_counts;
  }

  /// One case of a check: only its buffers are reachable while it runs (expose_only), so that a
  /// copy past the end of one never lands in the next case's inputs.
  Reply check_case(std::size_t set) {
    if (!check_->orders.empty()) cudalab::runner::set_thread_order(check_->orders.at(set), check_->order_seed + set);
    if (instrumented()) {
      // Before the case's buffers are allocated: the checks put red zones around each.
      cudalab::runner::count_accesses(counting(), check_->counts_sm_count, check_->counts_every_block);
      cudalab::runner::enable_device_checks(checked_set(set));
      cudalab::runner::forbid_host_memory_in_kernels(spec_.device_pointers);
      cudalab::runner::trace_accesses(check_->trace && checked_set(set), check_->counts_sm_count);
    }
    expose_only(set);
    if (spec_.device_pointers) {
      upload(set);
    } else {
      // So that a copy past the end of one is named by the runtime (the simulator's checks it).
      std::vector<records::HostBuffer> named;
      for (const auto& s : sets_[set]) named.push_back({s.where.name, base_ + s.where.offset, s.where.bytes});
      records::name_host_buffers(std::move(named));
    }
    (void)cudaGetLastError();  // the sticky state before the call is not the submission's
    records::clear_records();
    Reply reply = check(set);
    if (instrumented()) reply.findings = cudalab::runner::take_findings();
    if (counting()) reply.profile = cudalab::runner::take_access_profile();
    if (check_->trace) reply.trace = cudalab::runner::take_access_trace();
    reply.records = named_records(sets_, base_);
    reply.launches_recorded = cudalab::runner::kernel_tracing_available();
    if (spec_.device_pointers) {
      if (reply.status == Status::ok) reply.out_of_bounds = check_guards(set);
      download(set);
      for (auto& s : sets_[set]) {
        (void)cudaFree(s.allocation);
        s.device = s.allocation = nullptr;
      }
    }
    return reply;
  }

  /// The guard zones of `set`'s buffers that are no longer all their guard_fill: where solve wrote
  /// outside a buffer. On a GPU such a write corrupts whatever lies there, silently.
  std::vector<protocol::OutOfBounds> check_guards(std::size_t set) {
    std::vector<protocol::OutOfBounds> found;
    std::vector<unsigned char> zone;
    for (const auto& s : sets_[set]) {
      for (const bool before : {true, false}) {
        zone.resize(s.guard);
        const auto* from = before ? static_cast<const std::byte*>(s.allocation)
                                  : static_cast<const std::byte*>(s.device) + s.where.bytes;
        check_cuda(cudaMemcpy(zone.data(), from, s.guard, cudaMemcpyDeviceToHost), "reading a guard zone");
        protocol::OutOfBounds o{s.where.name, before};
        for (std::size_t i = 0; i < zone.size(); ++i) {
          if (zone[i] == guard_fill(s.where.role)) continue;
          const std::size_t from_edge = before ? zone.size() - 1 - i : i;
          o.first = o.changed == 0 ? from_edge : std::min(o.first, from_edge);
          o.last = std::max(o.last, from_edge);
          ++o.changed;
        }
        if (o.changed > 0 && found.size() < protocol::kMaxOutOfBounds) found.push_back(std::move(o));
      }
    }
    return found;
  }

  /// Check with several cases: every page of the shared file but those of `set`'s buffers is made
  /// unreachable (the parent starts each case's buffers on a page of their own).
  void expose_only(std::size_t set) {
    if (sets_.size() < 2) return;
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    std::size_t begin = spec_.total_bytes;
    std::size_t end = 0;
    for (const auto& s : sets_[set]) {
      begin = std::min(begin, s.where.offset);
      end = std::max(end, s.where.offset + s.where.bytes);
    }
    if (end <= begin) return;
    begin = begin / page * page;
    end = std::min((end + page - 1) / page * page, mapped_bytes());
    if (mprotect(base_, mapped_bytes(), PROT_NONE) != 0 ||
        mprotect(base_ + begin, end - begin, PROT_READ | PROT_WRITE) != 0) {
      throw Stop{error_reply(Status::runner_error, std::string("cannot protect the buffers: ") + std::strerror(errno))};
    }
  }

  [[nodiscard]] std::size_t mapped_bytes() const { return std::max<std::size_t>(spec_.total_bytes, 1); }

  /// Where the last input set's buffers end in the shared file.
  [[nodiscard]] std::size_t sets_end() const {
    std::size_t end = 0;
    for (const auto& set : sets_) {
      for (const auto& s : set) end = std::max(end, s.where.offset + s.where.bytes);
    }
    return std::min(end, spec_.total_bytes);
  }

  void upload(std::size_t set) {
    for (auto& s : sets_[set]) {
      const std::string& name = s.where.name;
      // Guard zones on both sides, so that a write outside the buffer is seen (check_guards).
      // Not under a tool (case markers: compute-sanitizer): its memcheck sees an access outside a
      // buffer only where the buffer is an allocation of its own. Smaller in the simulator's checked
      // cases: every access outside a buffer is a finding there, with its line.
      s.guard = check_ != nullptr && check_->case_markers ? 0
                : checked_set(set)                        ? protocol::checked_guard_bytes(s.where.bytes)
                                                          : protocol::guard_bytes(s.where.bytes);
      check_cuda(cudalab::runner::allocate_guarded_buffer(&s.allocation, s.where.bytes + 2 * s.guard),
                 "allocating " + name);
      s.device = static_cast<std::byte*>(s.allocation) + s.guard;
      check_cuda(cudaMemset(s.allocation, guard_fill(s.where.role), s.guard), "filling the guard zone before " + name);
      check_cuda(cudaMemset(static_cast<std::byte*>(s.device) + s.where.bytes, guard_fill(s.where.role), s.guard),
                 "filling the guard zone after " + name);
      check_cuda(cudaMemcpy(s.device, base_ + s.where.offset, s.where.bytes, cudaMemcpyHostToDevice),
                 "copying " + name + " to the device");
      if (instrumented()) {
        // The guard zones become the checks' red zones; an output holds the parent's poison,
        // which solve must not read as if it were data.
        cudalab::runner::name_device_buffer(s.allocation, s.device, s.where.bytes, sizeof(float), name,
                                            s.where.role != protocol::BufferRole::output);
      }
      if (s.where.role == protocol::BufferRole::inout && bench_ != nullptr) {
        check_cuda(cudaMalloc(&s.pristine, std::max<std::size_t>(s.where.bytes, 1)), "allocating " + name);
        check_cuda(cudaMemcpy(s.pristine, s.device, s.where.bytes, cudaMemcpyDeviceToDevice), "copying " + name);
      }
    }
  }

  // Inputs come back too: the parent checks that they were left unchanged.
  void download(std::size_t set) {
    for (auto& s : sets_[set]) {
      check_cuda(cudaMemcpy(base_ + s.where.offset, s.device, s.where.bytes, cudaMemcpyDeviceToHost),
                 "copying " + s.where.name + " back to the host");
    }
  }

  Args args_for(std::size_t set) const {
    Args args;
    for (const auto& a : spec_.args.at(set)) {
      if (a.buffer) {
        const Slot& s = sets_.at(set).at(*a.buffer);
        void* p = spec_.device_pointers ? s.device : static_cast<void*>(base_ + s.where.offset);
        args.emplace_back(true, reinterpret_cast<Arg>(p));
      } else {
        args.emplace_back(false, static_cast<Arg>(a.value));
      }
    }
    if (args.size() > kMaxArgs) throw Stop{error_reply(Status::runner_error, "too many parameters")};
    return args;
  }

  /// After solve: wait for the whole device, then report the first error.
  static void check_after_solve() {
    const cudaError_t sync_err = cudaDeviceSynchronize();
    const cudaError_t last_err = cudaGetLastError();
    check_cuda(sync_err != cudaSuccess ? sync_err : last_err, "after solve returned: a launch or a kernel failed");
  }

  Reply check(std::size_t set) {
    const Args args = args_for(set);
    records::start_recording();
    cudalab::runner::start_kernel_tracing();
    const auto start = Clock::now();
    std::optional<Reply> failure;
    try {
      guarded_solve(solve_, args);
      // Before the runner's own synchronisation, which would hide a stream solve never waited for.
      if (const std::string late = cudalab::runner::unfinished_stream_work(); !late.empty() && !instrumented()) {
        Reply r = error_reply(Status::cuda_error, late);
        r.cuda_error = "cudaErrorNotReady";
        throw Stop{std::move(r)};
      }
      check_after_solve();
    } catch (Stop& stop) {
      failure = std::move(stop.reply);
    }
    const auto stop = Clock::now();
    (void)cudalab::runner::stop_kernel_tracing();
    records::stop_recording();
    Reply reply;
    if (failure) {
      reply = std::move(*failure);
    } else {
      reply.status = Status::ok;
    }
    reply.solve_ms = std::chrono::duration<double, std::milli>(stop - start).count();
    if (failure) {
      reply.records = named_records(sets_, base_);
      reply.launches_recorded = cudalab::runner::kernel_tracing_available();
      if (instrumented()) reply.findings = cudalab::runner::take_findings();
      throw Stop{std::move(reply)};
    }
    return reply;
  }

  /// Before every bench call, outside the timed region: in-place buffers of `set` get their input
  /// back and outputs the parent's poison, so that a result left by an earlier call is never taken
  /// for this call's (a submission that computes once and then does nothing fails the witnesses).
  void restore_buffers(std::size_t set) {
    for (std::size_t b = 0; b < sets_[set].size(); ++b) {
      Slot& s = sets_[set][b];
      const std::size_t bytes = s.where.bytes;
      if (s.where.role == protocol::BufferRole::input || bytes == 0) continue;
      const bool inout = s.where.role == protocol::BufferRole::inout;
      if (!inout && bytes > poison_host_.size()) continue;  // cannot be: keep_host_poison() keeps the largest
      if (spec_.device_pointers) {
        const void* from = inout ? s.pristine : poison_device_;
        if (from != nullptr) check_cuda(cudaMemcpy(s.device, from, bytes, cudaMemcpyDeviceToDevice), "restoring");
      } else {
        const std::byte* from = inout ? host_pristine_[set * sets_[set].size() + b].data() : poison_host_.data();
        cudalab::parallel_copy(base_ + s.where.offset, from, bytes);
      }
    }
  }

  /// The parent poisoned every output before the run: the largest output of any set is the poison
  /// that restore_buffers() copies into outputs before each call.
  const Slot* largest_output() const {
    const Slot* largest = nullptr;
    for (const auto& set : sets_) {
      for (const auto& s : set) {
        if (s.where.role == protocol::BufferRole::output &&
            (largest == nullptr || s.where.bytes > largest->where.bytes))
          largest = &s;
      }
    }
    return largest == nullptr || largest->where.bytes == 0 ? nullptr : largest;
  }
  void keep_host_poison() {
    if (const Slot* largest = largest_output()) {
      poison_host_.resize(largest->where.bytes);
      cudalab::parallel_copy(poison_host_.data(), base_ + largest->where.offset, poison_host_.size());
    }
  }
  /// Device-pointer exercises: the poison on the device too, from the uploaded outputs.
  void keep_device_poison() {
    const Slot* largest = largest_output();
    if (largest == nullptr || !spec_.device_pointers) return;
    check_cuda(cudaMalloc(&poison_device_, largest->where.bytes), "allocating the output poison");
    check_cuda(cudaMemcpy(poison_device_, largest->device, largest->where.bytes, cudaMemcpyDeviceToDevice),
               "copying the output poison");
  }

  /// A witness call's outputs, copied aside right after it for the parent to verify.
  void copy_witness(const protocol::Witness& w, std::size_t set) {
    std::size_t k = 0;
    for (const auto& s : sets_[set]) {
      if (s.where.role == protocol::BufferRole::input) continue;
      const protocol::BufferSlot& to = w.outputs.at(k++);
      const std::size_t bytes = std::min(to.bytes, s.where.bytes);
      if (spec_.device_pointers) {
        check_cuda(cudaMemcpy(base_ + to.offset, s.device, bytes, cudaMemcpyDeviceToHost), "copying a witness");
      } else {
        cudalab::parallel_copy(base_ + to.offset, base_ + s.where.offset, bytes);
      }
    }
  }

  /// Ends a phase of the run: its wall time since the previous one, for the bench reply.
  void phase(const char* name) {
    const auto now = Clock::now();
    if (phases_.size() < protocol::kMaxPhases) {
      phases_.push_back({name, std::chrono::duration<double>(now - phase_start_).count()});
    }
    phase_start_ = now;
  }

  /// Ends a phase made of parts measured apart (`parts`) and the rest (`rest`).
  void split_phase(std::initializer_list<protocol::Phase> parts, const char* rest) {
    const auto now = Clock::now();
    double rest_s = std::chrono::duration<double>(now - phase_start_).count();
    for (const auto& p : parts) {
      if (phases_.size() < protocol::kMaxPhases) phases_.push_back(p);
      rest_s -= p.seconds;
    }
    if (phases_.size() < protocol::kMaxPhases) phases_.push_back({rest, std::max(0.0, rest_s)});
    phase_start_ = now;
  }

  /// One byte on the clock pipe, which the parent timestamps; ignored when the parent gave none.
  static void clock_mark(char mark) { (void)!write(protocol::kClockFd, &mark, 1); }

  Reply bench() {
    const cudalab::SamplingPolicy& policy = bench_->policy;
    cudalab::runner::L2Flush l2_flush;  // a set-up failure is a runner_error (main)
    auto flush = [&] {
      try {
        l2_flush();
      } catch (const std::runtime_error& e) {  // a sticky error the submission left
        throw Stop{error_reply(Status::cuda_error, e.what())};
      }
    };
    const bool device_pointers = spec_.device_pointers;
    cudaEvent_t start_event, stop_event;
    check_cuda(cudaEventCreate(&start_event), "creating events");
    check_cuda(cudaEventCreate(&stop_event), "creating events");
    keep_device_poison();
    std::vector<Args> args;
    for (std::size_t set = 0; set < sets_.size(); ++set) args.push_back(args_for(set));
    phase("set-up");

    Reply reply;
    bool recorded_one_call = false;
    std::size_t calls = 0;
    // For the phases: restoring and flushing between calls; solve until it returns (its launches
    // and any host work); then waiting until the device is idle and reading the events.
    double between_calls_s = 0;
    double solve_s = 0;
    double device_s = 0;
    std::size_t i = 0;
    // Timed calls until `sampler` has enough; in rounds (BenchRun::rounds), once per round.
    const auto time_calls = [&](cudalab::Sampler& sampler) {
      for (; sampler.want_more(); ++i) {
        const std::size_t set = i % sets_.size();
        const auto between_start = Clock::now();
        restore_buffers(set);
        (void)cudaCtxResetPersistingL2Cache();
        flush();
        between_calls_s += std::chrono::duration<double>(Clock::now() - between_start).count();
        const bool warmup = sampler.warming_up();
        // Records are kept for the first measured call only: one solve's launches and copies.
        const bool keep_records = !warmup && !recorded_one_call;
        if (keep_records) records::start_recording();
        // Tracing costs time at every launch and copy (14_streams' reference, 32 kernels and 64
        // copies a call: 15 % on an H100): one call is traced, for the launch records, and the
        // others are timed untraced; the kernels' own time comes from calls traced apart.
        const bool traced = keep_records;
        if (traced) cudalab::runner::start_kernel_tracing();
        double seconds = 0;
        const auto call_start = Clock::now();
        auto solved = call_start;
        if (device_pointers) {
          check_cuda(cudaEventRecord(start_event), "recording an event");
          guarded_solve(solve_, args[set]);
          solved = Clock::now();
          check_cuda(cudaEventRecord(stop_event), "recording an event");
          check_after_solve();  // the whole device: work on other streams counts
          float ms = 0;
          check_cuda(cudaEventElapsedTime(&ms, start_event, stop_event), "reading an event");
          seconds = ms * 1e-3;
        } else {
          guarded_solve(solve_, args[set]);
          solved = Clock::now();
          check_after_solve();
          seconds = std::chrono::duration<double>(Clock::now() - call_start).count();
        }
        solve_s += std::chrono::duration<double>(solved - call_start).count();
        device_s += std::chrono::duration<double>(Clock::now() - solved).count();
        if (traced) (void)cudalab::runner::stop_kernel_tracing();
        if (keep_records) {
          records::stop_recording();
          recorded_one_call = true;
        }
        if (!warmup) {
          const std::size_t measured = reply.samples_s.size();
          reply.samples_s.push_back(seconds);
          for (const auto& w : bench_->witnesses) {
            if (w.call == measured) {
              copy_witness(w, set);
              reply.witnessed.push_back(measured);
            }
          }
        }
        sampler.add(seconds);
        calls = i + 1;
      }
    };
    std::optional<cudalab::Sampler> sampler;
    double rounds_wall_s = 0;
    if (!bench_->rounds) {
      sampler.emplace(policy);
      time_calls(*sampler);
    } else {
      for (std::size_t round = 0;; ++round) {
        cudalab::SamplingPolicy round_policy = policy;
        // Another runner had the GPU since the last round: one call to warm it again.
        if (round > 0) round_policy.warmup_runs = std::min<std::size_t>(policy.warmup_runs, 1);
        sampler.emplace(round_policy);
        const std::size_t begin = reply.samples_s.size();
        time_calls(*sampler);
        rounds_wall_s += sampler->summary().wall_s;
        // A round without a sample (the time cap hit in its warm-up) reports 0: the parent ends it.
        double median = 0;
        if (reply.samples_s.size() > begin) {
          reply.round_ends.push_back(reply.samples_s.size());
          median = cudalab::median(
              std::vector<double>(reply.samples_s.begin() + static_cast<std::ptrdiff_t>(begin), reply.samples_s.end()));
        }
        if (!back_at_gate(median)) break;
      }
    }
    reply.calls = calls;
    split_phase({{"restoring outputs and flushing", between_calls_s},
                 {"timed calls: solve", solve_s},
                 {"timed calls: device finishing", device_s}},
                "tracing, witnesses, statistics");
    // The kernels' own time from a few traced calls apart from the timed ones, as a profiler would
    // report it (no launch gaps, no copies, no host work in solve).
    if (bench_->kernel_traces && !reply.samples_s.empty()) {
      constexpr std::size_t kTracedCalls = 20;
      const double budget_s = std::max(1.0, 0.2 * policy.time_cap_s);
      const auto phase_start = Clock::now();
      for (std::size_t i = 0; i < kTracedCalls; ++i) {
        const std::size_t set = i % sets_.size();
        restore_buffers(set);
        flush();
        cudalab::runner::start_kernel_tracing();
        guarded_solve(solve_, args[set]);
        check_after_solve();
        reply.kernel_samples_s.push_back(cudalab::runner::stop_kernel_tracing());
        if (std::chrono::duration<double>(Clock::now() - phase_start).count() > budget_s) break;
      }
      phase("traced calls");
    }
    if (bench_->clock_batches && !reply.samples_s.empty()) {
      // The parent's clock around two batches that differ only in calling solve: their difference
      // is what the calls took, seen from outside this process (protocol.hpp, kClockFd).
      const std::size_t k = protocol::clock_calls_for(cudalab::median(reply.samples_s));
      auto between_calls = [&](std::size_t i) {
        restore_buffers(i % sets_.size());
        (void)cudaCtxResetPersistingL2Cache();
        flush();
      };
      for (std::size_t round = 0; round < protocol::kClockRounds; ++round) {
        clock_mark(protocol::kClockMarks[0]);
        for (std::size_t i = 0; i < k; ++i) {
          between_calls(i);
          check_cuda(cudaDeviceSynchronize(), "waiting for the device");
        }
        clock_mark(protocol::kClockMarks[1]);
        for (std::size_t i = 0; i < k; ++i) {
          between_calls(i);
          guarded_solve(solve_, args[i % sets_.size()]);
          check_after_solve();
        }
        clock_mark(protocol::kClockMarks[2]);
      }
      reply.clock_calls = k;
      phase("clock batches");
    }
    // Every set's last result stays in place (download() brings it back): the parent re-checks
    // them all, so a kernel that is fast because it is wrong on some inputs is caught.
    const cudalab::Summary summary = sampler->summary();
    reply.status = Status::ok;
    reply.stop = summary.stop;
    reply.minimums_met = summary.minimums_met;
    reply.wall_s = bench_->rounds ? rounds_wall_s : summary.wall_s;
    if (!device_pointers && cudalab::runner::host_memory_matters()) {
      reply.host_memory = page_locked_ ? protocol::HostMemory::page_locked : protocol::HostMemory::pageable;
    }
    return reply;
  }

  protocol::Spec spec_;
  const protocol::CheckRun* check_;  ///< the check run, or null in a bench
  const protocol::BenchRun* bench_;  ///< the bench run, or null in a check
  std::byte* base_ = nullptr;        ///< the shared buffers, as the parent laid them out
  std::vector<std::vector<Slot>> sets_;
  void* solve_ = nullptr;
  std::vector<std::byte> poison_host_;  ///< bench: the parent's output poison
  bool locked_ = false;                 ///< bench: host memory is page-locked (prepare_host)
  bool page_locked_ = false;            ///< bench: a host-pointer exercise's input sets are page-locked
  /// Bench, host-pointer exercises: the inputs of in-place buffers, per set and buffer (else empty).
  std::vector<std::vector<std::byte>> host_pristine_;
  void* poison_device_ = nullptr;        ///< bench: the same on the device (device-pointer exercises)
  std::vector<protocol::Phase> phases_;  ///< bench: where the run's time went (phase())
  Clock::time_point phase_start_ = Clock::now();
};

}  // namespace

int main(int argc, char** argv) {
  // Each case allocates its buffers afresh, and the simulator fills every allocation and its guard
  // zones: served by mmap, each case would fault in new pages (a third of a small check's time).
  // From the heap, freed pages are reused.
  mallopt(M_MMAP_THRESHOLD, 512 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  if (argc == 2 && std::strcmp(argv[1], "--probe") == 0) return probe();
  if (argc == 2 && std::strcmp(argv[1], "--peak") == 0) return peak();
  if (argc != 3 || std::strcmp(argv[1], "--spec") != 0) {
    std::fprintf(stderr,
                 "usage: %s --spec JSON | --probe | --peak\n(started by cudalab; not meant to be run by hand)\n",
                 argv[0]);
    return 2;
  }
  // Replies are written by execute(); what ends it before its first case (or a bench) is written
  // here, for the first set.
  std::optional<Reply> failure;
  try {
    Run run(protocol::parse_spec(argv[2]));
    run.execute();
  } catch (Stop& stop) {
    failure = std::move(stop.reply);
  } catch (const std::exception& e) {
    failure = error_reply(Status::runner_error, e.what());
  }
  std::fflush(stdout);
  std::fflush(stderr);
  if (failure) write_reply(std::move(*failure));
  close(protocol::kReplyFd);
  return 0;
}
