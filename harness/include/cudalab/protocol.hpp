// The parent ↔ runner protocol: everything that crosses the trust boundary, and nothing else.
// The parent (trusted) generates inputs, poisons outputs and compares; the runner (untrusted: it
// loads student code) only moves buffers, calls `solve` and reports what happened.
//
//   runner --spec JSON   the buffers live in a shared memory file on fd 3, laid out as Spec::sets
//                        says; the runner copies every buffer back into the file (inputs too, so
//                        that the parent can check them unchanged) and writes its replies to fd 4,
//                        one line of JSON each. Check: each set is one case (a size), run in
//                        order, one Reply per case; the runner stops after a case whose status is
//                        not ok (the parent starts another for the rest). Bench: the sets are
//                        rotating inputs of one case, timed together; one Reply.
//   runner --probe       print the visible devices as JSON on stdout
//   runner --peak        print the device-to-device copy bandwidth as JSON on stdout
//
// Both sides use the one JSON mapping below. The parent treats a reply as untrusted input: it is
// read with a size cap (max_reply_bytes) and parsed with parse_reply(), which validates every
// field; anything malformed is that case's runner error, never an exception that ends the run.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cudalab/access_profile.hpp"
#include "cudalab/access_trace.hpp"
#include "cudalab/errors.hpp"
#include "cudalab/sampling.hpp"

namespace cudalab::protocol {

inline constexpr int kBuffersFd = 3;  ///< memfd holding every buffer, laid out by the parent
inline constexpr int kReplyFd = 4;    ///< pipe the runner writes its Reply to
/// Bench: pipe the runner writes one mark byte to at each edge of the clock batches, which the
/// parent timestamps with its own clock (kClockMarks, in order).
inline constexpr int kClockFd = 5;
/// Bench with Spec::gate: a socket on which the runner sends one byte once it is ready to time
/// (context created, locked down, host buffers page-locked) and then waits for one byte back
/// before it loads the module. The parent takes the GPU in between, so that starting a process and
/// a context, the slowest part of a timed run, overlaps another submission's timing.
inline constexpr int kGateFd = 6;
/// Bench with BenchRun::rounds: the parent's answers at the gate. The runner comes back to the gate
/// after each round of timed calls, sending the round's median (a double) after its ready byte.
inline constexpr char kGateGo = 'g';      ///< time one (more) round
inline constexpr char kGateFinish = 'f';  ///< no more rounds: the clock batches, then the reply
/// The clock batches' marks: before the batch without solve, between the batches, after the batch
/// with solve. Both batches do the same work between calls; only the second calls solve.
inline constexpr char kClockMarks[3] = {'A', 'B', 'C'};
/// Rounds of the two batches: each of the parent's checks takes the round kindest to an honest
/// run, so that a busy moment of the machine (other processes, other tests) is not taken for a lie.
inline constexpr std::size_t kClockRounds = 3;
/// Bounds on the calls per clock batch.
inline constexpr std::size_t kMinClockCalls = 3;
inline constexpr std::size_t kMaxClockCalls = 100;
/// Calls per clock batch for a run whose timed calls took `median_s`: about 50 ms a batch, within
/// the bounds above. The parent holds the runner's count to it, so that a forged reply cannot
/// choose a few calls, whose batches the pipe's wake-ups would blur.
inline std::size_t clock_calls_for(double median_s) {
  const double want = 0.05 / (median_s > 1e-6 ? median_s : 1e-6);
  if (!(want < static_cast<double>(kMaxClockCalls))) return kMaxClockCalls;
  return want < static_cast<double>(kMinClockCalls) ? kMinClockCalls : static_cast<std::size_t>(want);
}
/// Check: the runner prints this and the case's index (among the spec's sets) on a line of its own
/// before each case, so that what the program printed is shown with the case that printed it (and
/// a tool's report, such as compute-sanitizer's, is read case by case).
inline constexpr std::string_view kCaseMarker = "cudalab-case ";
/// The parent reads at most this much of a reply (per case, for a check); a longer one is malformed.
inline constexpr std::size_t kMaxReplyBytes = std::size_t{8} << 20;
/// The record keeper keeps at most this many records of each kind; the rest are counted only.
inline constexpr std::size_t kMaxRecordsPerKind = 4096;
/// At most this many things the sandbox blocked, each at most kMaxBlockedBytes long, in a reply.
inline constexpr std::size_t kMaxBlockedRecords = 64;
inline constexpr std::size_t kMaxBlockedBytes = 512;

/// A reply or spec that does not follow the protocol. The parent turns a reply's into the case's
/// runner error; one that reaches a command's top is a bug of cudalab's own two halves.
struct ProtocolError : InternalError {
  using InternalError::InternalError;
};

// ---- what the parent asks -----------------------------------------------------------------------

enum class BufferRole { input, output, inout };
enum class HostMemory { page_locked, pageable };

/// One buffer of one input set: where it lives in the shared file.
struct BufferSlot {
  std::string name;                     ///< the parameter's name in the signature
  std::size_t offset = 0;               ///< where its bytes start in the shared file
  std::size_t bytes = 0;                ///< its size in bytes
  BufferRole role = BufferRole::input;  ///< how `solve` uses it
};

/// One argument of `solve`: a buffer of the current input set, or an int.
struct Arg {
  std::optional<std::size_t> buffer;  ///< index into the set's buffers
  std::int64_t value = 0;             ///< the int, when not a buffer
};

/// Bench: one timed call whose outputs the runner copies aside, right after it, for the parent to
/// verify. `outputs` are the set's output and in-place buffers, in order, at their own offsets.
struct Witness {
  std::size_t call = 0;             ///< index among the measured calls (warm-ups not counted)
  std::vector<BufferSlot> outputs;  ///< where the runner copies each output aside
};

/// What the runner locks itself down with once the device context exists, before it loads the
/// module (sandbox.hpp says what each protection covers). A protection asked for that cannot be
/// applied stops the runner: it never loads the module unprotected.
struct Sandbox {
  bool enabled = false;                     ///< false: nothing is locked down (CUDALAB_NO_SANDBOX=1)
  bool landlock = false;                    ///< files, TCP and signals, as far as the kernel's Landlock ABI goes
  bool seccomp = false;                     ///< no new processes, sockets, ptrace, exec, …
  std::vector<std::string> read_files;      ///< absolute paths it may read besides the system's (the module)
  std::string work_dir;                     ///< absolute: the private working folder, read and write
  std::vector<std::string> protected_dirs;  ///< never opened up as a whole folder (the project, the cache)
};

/// The order in which the simulator starts the threads of a block (a GPU has no such choice):
/// a result that changes with it depends on a race.
enum class ThreadOrder { forward, reverse, shuffled };

/// What a check run's module is built to watch.
enum class Instrumentation {
  none,           ///< the plain build: nothing is watched
  access_checks,  ///< the checked build (`--sanitize`, the default check's small cases): each access is checked
  access_counts,  ///< the checked build counting each access instead (`cudalab explain`)
};

/// A check run: one Reply per set (case), judged by the parent.
struct CheckRun {
  /// What the module watches; with anything but `none` it is the checked build, and the runner turns
  /// the simulator's access checks (or counts) on and names the harness's buffers to them.
  Instrumentation instrumentation = Instrumentation::none;
  /// With instrumentation: which sets (cases) are instrumented, one flag per set (empty: all); the
  /// others run unchecked, at the plain build's speed.
  std::vector<bool> instrumented_sets;
  /// The order in which the simulator starts a block's threads.
  ThreadOrder order = ThreadOrder::forward;
  std::vector<ThreadOrder> orders;  ///< per set, where they differ (empty: `order` for all)
  std::uint64_t order_seed = 0;     ///< ThreadOrder::shuffled
  /// The runner runs under a tool (compute-sanitizer), which reports on stdout case by case
  /// (kCaseMarker) and has red zones of its own: no guard zones around the buffers.
  bool case_markers = false;
  /// Page-lock the host buffers of a host-pointer exercise, as bench does (the streams exercise's
  /// contract: asynchronous copies overlap kernels only from page-locked memory).
  bool page_locked = false;
  /// With access_counts or trace: the SM count the simulated device reports (the target GPU's), so
  /// that a grid sized from it is the grid the GPU would run; 0: the simulator's own.
  unsigned counts_sm_count = 0;
  /// With access_counts: count every block of every launch (exact counts, to stand beside a GPU's
  /// counters), not an evenly spread sample of them.
  bool counts_every_block = false;
  /// With access_checks: record every access of the instrumented sets too (`cudalab show`), into
  /// Reply::trace.
  bool trace = false;

  /// Whether set `set` runs instrumented.
  [[nodiscard]] bool instrumented(std::size_t set) const {
    return instrumentation != Instrumentation::none && (instrumented_sets.empty() || instrumented_sets.at(set));
  }
};

/// A bench run: one timed Reply over rotating input sets.
struct BenchRun {
  SamplingPolicy policy;                             ///< when the timing stops
  HostMemory host_memory = HostMemory::page_locked;  ///< host-pointer exercises
  std::vector<Witness> witnesses;                    ///< timed calls verified by the parent
  bool clock_batches = false;                        ///< run the clock batches (kClockFd)
  bool kernel_traces = true;                         ///< time the kernels alone in extra traced calls
  bool gate = false;                                 ///< wait at the gate (kGateFd) before loading the module
  /// With `gate`: time in rounds of `policy` each, back at the gate after every round, until the
  /// parent answers kGateFinish; so that two runners (a submission and the reference solution)
  /// take turns on one GPU and their times are compared round by round.
  bool rounds = false;
};

/// The run itself: a check or a bench.
using Run = std::variant<CheckRun, BenchRun>;

/// What the parent asks one runner to do (`runner --spec JSON`): what every run shares, and the
/// run itself.
struct Spec {
  std::string module;                         ///< the compiled submission
  std::string symbol;                         ///< mangled name of `solve`
  bool device_pointers = false;               ///< solve takes device pointers (else host pointers)
  std::size_t total_bytes = 0;                ///< size of the shared file
  std::vector<std::vector<BufferSlot>> sets;  ///< check: one set per case; bench: rotating input sets
  std::vector<std::vector<Arg>> args;         ///< per set: solve's arguments (bench's sets share one shape)
  Sandbox sandbox;                            ///< what the runner locks down before loading the module
  Run run;                                    ///< check: one Reply per case; bench: one timed Reply

  /// Whether the run is a bench (else a check).
  [[nodiscard]] bool is_bench() const { return std::holds_alternative<BenchRun>(run); }
  /// The check run; std::bad_variant_access for a bench.
  [[nodiscard]] const CheckRun& check() const { return std::get<CheckRun>(run); }
  /// The check run, to fill in; std::bad_variant_access for a bench.
  [[nodiscard]] CheckRun& check() { return std::get<CheckRun>(run); }
  /// The bench run; std::bad_variant_access for a check.
  [[nodiscard]] const BenchRun& bench() const { return std::get<BenchRun>(run); }
  /// The bench run, to fill in; std::bad_variant_access for a check.
  [[nodiscard]] BenchRun& bench() { return std::get<BenchRun>(run); }
};

// ---- what the runner saw ------------------------------------------------------------------------

enum class MemoryKind { device, managed, pinned };

/// One allocation the submission made (cudaMalloc, cudaMallocManaged, cudaMallocHost/cudaHostAlloc,
/// cudaMallocPitch). `address` stays in the runner.
struct Allocation {
  std::string api;                       ///< the call that made it: "cudaMalloc"
  MemoryKind kind = MemoryKind::device;  ///< device, managed or page-locked host memory
  std::size_t bytes = 0;                 ///< size asked for
  bool freed = false;                    ///< released again while recording
  std::uintptr_t address = 0;            ///< the pointer returned, to match a later free
};

/// cudaMemcpyKind, numbered as CUDA numbers it.
enum class CopyKind { host_to_host, host_to_device, device_to_host, device_to_device, by_pointer };

/// CopyKind of a cudaMemcpyKind value (0 … 4); anything else reads as by_pointer (cudaMemcpyDefault).
inline CopyKind copy_kind(int cuda_kind) {
  return cuda_kind >= 0 && cuda_kind <= 3 ? static_cast<CopyKind>(cuda_kind) : CopyKind::by_pointer;
}
/// "HostToDevice", as the reports spell it.
const char* copy_kind_name(CopyKind kind);

/// One copy (cudaMemcpy, …Async, …2D, …ToSymbol, …FromSymbol). `to_host_buffer` and
/// `from_host_buffer` name the parent's buffer at the host end, where there is one; `dst` and
/// `src` stay in the runner.
struct Copy {
  std::string api;                       ///< the call: "cudaMemcpyAsync"
  CopyKind kind = CopyKind::by_pointer;  ///< the cudaMemcpyKind passed
  std::size_t bytes = 0;                 ///< bytes copied (width × height for a 2D copy)
  std::string to_host_buffer;            ///< the parent's buffer `dst` points into; empty if none
  std::string from_host_buffer;          ///< the parent's buffer `src` points into; empty if none
  std::uintptr_t dst = 0;                ///< destination pointer
  std::uintptr_t src = 0;                ///< source pointer
  std::uint64_t stream = 0;              ///< the cudaStream_t of an …Async copy, as a number; 0: the default stream
  /// Device-pointer exercises: the harness's device buffer `dst` points into; empty if none.
  std::string to_device_buffer;
  std::string from_device_buffer;  ///< the same for `src`
  /// `dst` is memory the host reads or writes directly: by the copy's kind, or as a page-locked or
  /// managed allocation the submission made. A pointer the records cannot place counts as neither.
  bool to_host_memory = false;
  bool from_host_memory = false;  ///< the same for `src`
};

/// One kernel launch with its configuration; `duration_s` from CUPTI on the GPU, 0 elsewhere.
struct Launch {
  std::string kernel;                      ///< the kernel's name
  std::array<unsigned, 3> grid{1, 1, 1};   ///< blocks in x, y, z
  std::array<unsigned, 3> block{1, 1, 1};  ///< threads per block in x, y, z
  std::size_t dynamic_shared_bytes = 0;    ///< shared memory per block from the launch configuration
  std::size_t static_shared_bytes = 0;     ///< `__shared__` variables per block, as compiled
  double duration_s = 0;                   ///< the kernel's run time (CUPTI); 0 on the simulator
  /// The stream it ran on: CUPTI's stream id on the GPU, the cudaStream_t as a number on the
  /// simulator (0: the default stream). Tells streams apart within one backend only.
  std::uint64_t stream = 0;
  std::uint64_t start_ns = 0;  ///< GPU timestamps from CUPTI; 0 on the simulator
  std::uint64_t end_ns = 0;    ///< GPU timestamp of its end, as start_ns
};

/// A copy as the GPU ran it (CUPTI's memcpy activity): when, on which stream. GPU only; the
/// simulator runs every copy at its call.
struct Transfer {
  CopyKind kind = CopyKind::host_to_device;  ///< direction of the copy
  std::size_t bytes = 0;                     ///< bytes copied
  std::uint64_t stream = 0;                  ///< CUPTI's stream id, comparable with Launch::stream
  std::uint64_t start_ns = 0;                ///< GPU timestamp of its start (CUPTI)
  std::uint64_t end_ns = 0;                  ///< GPU timestamp of its end (CUPTI)
};

/// The first runtime call that failed while `solve` ran, with its arguments and the usual cause.
struct FailedCall {
  std::string call;   ///< "cudaMemcpy(dst, src, 4000, cudaMemcpyHostToDevice)"
  std::string error;  ///< "cudaErrorInvalidValue"
  std::string cause;  ///< "dst is a host pointer — the destination comes first"; may be empty
};

/// What a submission did while `solve` ran.
struct Records {
  std::vector<Allocation> allocations;          ///< in the order they were made
  std::vector<Copy> copies;                     ///< in the order they were called
  std::vector<Launch> launches;                 ///< in the order they were launched
  std::vector<Transfer> transfers;              ///< GPU: the copies' times, while launches are traced
  std::size_t dropped = 0;                      ///< records beyond max_records_per_kind, counted only
  std::optional<FailedCall> first_failed_call;  ///< nothing when every runtime call succeeded
  /// What the sandbox stopped, one line each, from the runner's load of the module on:
  /// "socket (a network connection)", "open /path (permission denied by the sandbox)".
  std::vector<std::string> blocked;
};

enum class Status { ok, load_error, missing_symbol, exception, not_implemented, cuda_error, no_device, runner_error };

/// The skeletons' solve throws a std::logic_error whose message starts with this; the runner,
/// where the exception is caught and its type known, answers Status::not_implemented for it.
inline constexpr std::string_view kNotImplementedPrefix = "not implemented yet";

/// "cuda_error", as the reply spells a status.
const char* status_name(Status status);

/// A stretch of a bench run's work in the runner and its wall time: where a timed run's seconds
/// went. Informational only (the runner is untrusted): shown in logs, never judged.
struct Phase {
  std::string name;    ///< what the runner did: "inputs", "context"
  double seconds = 0;  ///< its wall time
};

/// At most this many phases, each name at most kMaxPhaseNameBytes long, in a reply.
inline constexpr std::size_t kMaxPhases = 16;
inline constexpr std::size_t kMaxPhaseNameBytes = 32;

/// ": inputs 0.4, context 0.2, …": the phases of at least `at_least_s` seconds, with `decimals`
/// digits after the point; empty when none is that long.
std::string describe_phases(const std::vector<Phase>& phases, double at_least_s, int decimals);

/// Device-pointer exercises: the harness's buffers sit between guard zones, checked after every
/// call of solve. An output's zones hold kGuardByte (no common stray value leaves it unchanged);
/// an input's hold 0xFF bytes, NaN as a float, so that a read past an input shows in the result
/// (runner_main.cpp, guard_fill). A write outside a buffer lands in one.
inline constexpr unsigned char kGuardByte = 0xA5;
/// Bytes of guard zone on each side of a buffer of `bytes`: twice its size, 256 KiB to 16 MiB, in
/// whole 256-byte steps so that the buffer stays as aligned as cudaMalloc's own. Enough for the
/// usual overrun: a grid rounded up to whole blocks, or a matrix stored with up to 31 rows too many.
inline std::size_t guard_bytes(std::size_t bytes) {
  constexpr std::size_t kLeast = std::size_t{256} << 10;
  constexpr std::size_t kMost = std::size_t{16} << 20;
  const std::size_t want = bytes > kMost / 2 ? kMost : (2 * bytes < kLeast ? kLeast : 2 * bytes);
  return (want + 255) / 256 * 256;
}

/// The guard zones of a case the simulator's checked build runs: twice the buffer, at least a page.
/// Every access past a buffer is a finding there already (the checks' red zones reach further);
/// these only let the output be judged "out of bounds" rather than "wrong" for the usual overrun,
/// and cost no more than the data, since each page touched first costs a fault.
inline std::size_t checked_guard_bytes(std::size_t bytes) {
  const std::size_t want = std::clamp<std::size_t>(2 * bytes, 4096, guard_bytes(bytes));
  return (want + 255) / 256 * 256;
}

/// A guard zone that changed: bytes [first, last] counted from the buffer's edge (0 is the first
/// byte after its end, or the last one before its start).
struct OutOfBounds {
  std::string buffer;       ///< the buffer whose guard zone changed
  bool before = false;      ///< before the buffer's start (else after its end)
  std::size_t first = 0;    ///< the changed byte nearest the buffer's edge
  std::size_t last = 0;     ///< the changed byte farthest from it
  std::size_t changed = 0;  ///< how many bytes of the zone differ from kGuardByte
};
inline constexpr std::size_t kMaxOutOfBounds = 16;

/// What the device-code checks (`check --sanitize`) found, in compute-sanitizer's categories.
enum class FindingKind {
  out_of_bounds,   ///< an access outside every buffer, or in the red zone around one
  use_after_free,  ///< an access to memory that cudaFree released
  misaligned,      ///< an access whose address is not a multiple of its size
  race,            ///< two threads touched one word, at least one wrote, with no barrier between
  uninitialized,   ///< a read of memory nothing had written
  barrier,         ///< a __syncthreads that not every thread of the block reached
  warp,            ///< a warp operation whose mask names lanes that do not take part
  shuffle_source,  ///< a shuffle read a lane that took no part (outside the mask or the block): undefined
  order,           ///< the result depends on the order the threads run in
  unsynchronized,  ///< solve returned while a stream still had work queued that nothing waited for
  stream_order,    ///< copies or kernels on two streams touched one word, one wrote, and nothing ordered them
  host_memory,     ///< a kernel read or wrote host memory (page-locked or managed) where the data stays on the device
};
const char* finding_kind_name(FindingKind kind);

/// One access of device code: who made it and where.
struct FindingAccess {
  std::array<unsigned, 3> block{};   ///< blockIdx of the accessing thread
  std::array<unsigned, 3> thread{};  ///< threadIdx of the accessing thread
  bool write = false;                ///< a write (else a read)
  bool atomic = false;               ///< made by an atomic operation
  std::uint64_t pc = 0;              ///< offset of the access in the module (0: unknown); the parent maps it to a line
  int line = 0;                      ///< the source line, where the runtime knows it without the module (barriers)
};

/// One finding; several accesses alike (same kind and places) are counted, not repeated.
struct Finding {
  FindingKind kind = FindingKind::out_of_bounds;  ///< what kind of error
  std::string kernel;                             ///< the kernel's name
  std::array<unsigned, 3> grid{1, 1, 1};          ///< the launch's shape, to write indices as the code does
  std::array<unsigned, 3> block{1, 1, 1};         ///< the launch's block shape, as `grid`
  bool shared = false;                            ///< shared memory (else global)
  std::string target;                             ///< what was accessed, in the source's words: "y[1000]", "As[3][5]"
  std::string where;                              ///< where that lies: "4 bytes past the end of y (1000 elements)"
  unsigned bytes = 0;                             ///< the access's size
  FindingAccess access;                           ///< the access that was found wrong (a race: one of the two)
  std::optional<FindingAccess> other;             ///< a race: the other access
  /// A race between a write and a read: true when the read was meant to see the write (the
  /// reading thread had written in that barrier interval before it read: a barrier is missing
  /// between writing and reading; `access` is the read); false when the write was meant to come
  /// after the read (the writer had read first: a barrier is missing before the overwrite;
  /// `access` is the write).
  bool write_first = false;
  std::size_t count = 1;  ///< accesses alike
};
/// At most this many findings in a reply, each text field at most kMaxFindingTextBytes long.
inline constexpr std::size_t kMaxFindings = 16;
inline constexpr std::size_t kMaxFindingTextBytes = 512;

/// What the runner answers: one per case (check), or one for the whole timed run (bench).
struct Reply {
  Status status = Status::runner_error;  ///< ok, or how the run failed
  std::size_t set = 0;                   ///< check: the set (case) this reply is for
  std::string message;                   ///< what went wrong, in the runtime's or the exception's words
  std::string cuda_error;                ///< cudaError_t name, for cuda_error
  double solve_ms = 0;                   ///< wall time of solve (check mode)
  Records records;                       ///< what the submission did while `solve` ran
  bool launches_recorded = false;        ///< false where kernel launches cannot be traced
  // bench mode
  std::vector<double> samples_s;           ///< solve, timed with events
  std::vector<double> kernel_samples_s;    ///< the kernels alone, from traced calls
  StopReason stop = StopReason::running;   ///< bench: why the sampler stopped
  bool minimums_met = false;               ///< bench: as Summary::minimums_met
  double wall_s = 0;                       ///< bench: as Summary::wall_s
  std::optional<HostMemory> host_memory;   ///< how host buffers were held while timed (GPU only)
  std::size_t calls = 0;                   ///< bench: calls of solve in the timed loop, warm-ups included
  std::vector<std::size_t> witnessed;      ///< bench: the witness calls whose outputs were copied aside
  std::vector<std::size_t> round_ends;     ///< bench with BenchRun::rounds: samples_s's size after each round
  std::size_t clock_calls = 0;             ///< bench: calls per clock batch (0: no batches ran)
  std::vector<Phase> phases;               ///< bench: the runner's phases, in order
  std::vector<OutOfBounds> out_of_bounds;  ///< guard zones that solve changed (device-pointer exercises)
  std::vector<Finding> findings;           ///< check, instrumented: what the device-code checks saw
  AccessProfile profile;                   ///< check counting accesses: what the accesses cost
  AccessTrace trace;                       ///< check with CheckRun::trace: every access, for `cudalab show`
};

void to_json(nlohmann::json& j, const BufferSlot& b);
void from_json(const nlohmann::json& j, BufferSlot& b);
void to_json(nlohmann::json& j, const Arg& a);
void from_json(const nlohmann::json& j, Arg& a);
void to_json(nlohmann::json& j, const Witness& w);
void from_json(const nlohmann::json& j, Witness& w);
void to_json(nlohmann::json& j, const Sandbox& s);
void from_json(const nlohmann::json& j, Sandbox& s);
void to_json(nlohmann::json& j, const CheckRun& c);
void to_json(nlohmann::json& j, const BenchRun& b);
void to_json(nlohmann::json& j, const Spec& s);
void from_json(const nlohmann::json& j, Spec& s);
void to_json(nlohmann::json& j, const Allocation& a);
void from_json(const nlohmann::json& j, Allocation& a);
void to_json(nlohmann::json& j, const Copy& c);
void from_json(const nlohmann::json& j, Copy& c);
void to_json(nlohmann::json& j, const Launch& l);
void from_json(const nlohmann::json& j, Launch& l);
void to_json(nlohmann::json& j, const FailedCall& f);
void from_json(const nlohmann::json& j, FailedCall& f);
void to_json(nlohmann::json& j, const Records& r);
void from_json(const nlohmann::json& j, Records& r);
void to_json(nlohmann::json& j, const Reply& r);
void from_json(const nlohmann::json& j, Reply& r);

/// Parses and validates a reply; throws ProtocolError with a one-line reason.
Reply parse_reply(std::string_view text);
/// Parses and validates a spec; throws ProtocolError with a one-line reason.
Spec parse_spec(std::string_view text);
/// The spec as the runner's command line carries it.
std::string dump_spec(const Spec& spec);
/// The replies of one runner, one per line, in order; throws ProtocolError if a line is malformed
/// or a reply's set is out of order (a forged line).
std::vector<Reply> parse_replies(std::string_view text);
/// The reply as the runner writes it: one line (dump_reply's JSON has no newline in it).
std::string dump_reply(const Reply& reply);

}  // namespace cudalab::protocol

namespace cudalab {
/// A sampling policy as JSON, as the runner's spec and bench's report both write it.
void to_json(nlohmann::json& j, const SamplingPolicy& p);
}  // namespace cudalab
