#include "cudalab/exercise_check.hpp"
#include "cudalab/findings.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <poll.h>

#include <atomic>
#include <cstring>
#include <future>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudalab/detail/module_cache.hpp"
#include "cudalab/detail/parallel.hpp"
#include "cudalab/detail/process.hpp"
#include "cudalab/paths.hpp"
#include "cudalab/protocol.hpp"
#include "cudalab/sandbox.hpp"
#include "cudalab/timeline.hpp"

namespace cudalab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t kBufferAlignment = 256;
constexpr std::size_t kMaxOutputLinesShown = 12;

using SetViews = InputSets;

/// The buffers of one case (bench: one or more input sets) or of a check's cases (one set each) in
/// a shared memory file, mapped here and inherited by the runner; after them, room for each witness
/// call's outputs (bench). With `page_per_set`, each set starts on a page of its own, so that the
/// runner can leave only the running case's pages reachable.
class SharedBuffers {
 public:
  SharedBuffers(const SetViews& sets, std::size_t witnesses, bool page_per_set = false) {
    auto place = [&](std::size_t bytes) {
      const std::size_t at = total_;
      total_ += (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
      return at;
    };
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    for (const auto* set : sets) {
      if (page_per_set) total_ = (total_ + page - 1) / page * page;
      std::vector<std::size_t> offsets;
      for (const auto& b : *set) offsets.push_back(place(b.bytes.size()));
      offsets_.push_back(std::move(offsets));
    }
    for (std::size_t w = 0; w < witnesses; ++w) {
      std::vector<std::size_t> offsets;  // per buffer of the set; inputs have none
      for (const auto& b : *sets.front()) offsets.push_back(b.role == Role::input ? 0 : place(b.bytes.size()));
      witness_offsets_.push_back(std::move(offsets));
    }
    fd_ = memfd_create("cudalab-buffers", MFD_CLOEXEC);
    if (fd_ < 0 || ftruncate(fd_, static_cast<off_t>(std::max<std::size_t>(total_, 1))) != 0) {
      throw std::runtime_error(std::string("cannot create shared buffers: ") + std::strerror(errno));
    }
    void* p = mmap(nullptr, std::max<std::size_t>(total_, 1), PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) throw std::runtime_error(std::string("cannot map shared buffers: ") + std::strerror(errno));
    base_ = static_cast<std::byte*>(p);
    for (std::size_t s = 0; s < sets.size(); ++s) {
      for (std::size_t i = 0; i < sets[s]->size(); ++i) {
        parallel_copy(base_ + offsets_[s][i], (*sets[s])[i].bytes.data(), (*sets[s])[i].bytes.size());
      }
    }
    // The witnesses' room starts as the first set's outputs (poisoned, or an in-place buffer's
    // input), so that a witness never written reads as such; and filled here, before the runner
    // has the GPU, its pages are no longer allocated while a timed run copies into them.
    for (std::size_t w = 0; w < witnesses; ++w) {
      for (std::size_t i = 0; i < sets.front()->size(); ++i) {
        const Buffer& b = (*sets.front())[i];
        if (b.role != Role::input) parallel_copy(base_ + witness_offsets_[w][i], b.bytes.data(), b.bytes.size());
      }
    }
  }
  SharedBuffers(const SharedBuffers&) = delete;
  SharedBuffers& operator=(const SharedBuffers&) = delete;
  ~SharedBuffers() {
    if (base_ != nullptr) munmap(base_, std::max<std::size_t>(total_, 1));
    if (fd_ >= 0) close(fd_);
  }

  /// Set `set`'s outputs as the runner left them (names and shapes from `like`), each read once
  /// from the file; its inputs empty: inputs_now() gives where to compare them, in place. A
  /// check's large case is gigabytes, copied as few times as it can be.
  [[nodiscard]] std::vector<Buffer> read(std::size_t set, const std::vector<Buffer>& like) const {
    return outputs_at(offsets_[set], like);
  }
  /// Where set `set`'s buffers are in the file (for modified_inputs).
  [[nodiscard]] std::vector<const std::byte*> inputs_now(std::size_t set) const {
    std::vector<const std::byte*> at;
    for (const std::size_t offset : offsets_[set]) at.push_back(base_ + offset);
    return at;
  }
  /// Witness `w`'s outputs, shaped as `like` (its set); its inputs empty (judge_values does not read them).
  [[nodiscard]] std::vector<Buffer> read_witness(std::size_t w, const std::vector<Buffer>& like) const {
    return outputs_at(witness_offsets_[w], like);
  }
  [[nodiscard]] std::size_t witness_offset(std::size_t w, std::size_t i) const { return witness_offsets_[w][i]; }
  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] std::size_t offset(std::size_t set, std::size_t i) const { return offsets_[set][i]; }
  [[nodiscard]] std::size_t sets() const { return offsets_.size(); }
  [[nodiscard]] std::size_t total() const { return total_; }

 private:
  std::vector<std::vector<std::size_t>> offsets_;
  std::vector<std::vector<std::size_t>> witness_offsets_;
  /// `like`'s buffers, the outputs read from the file at `offsets`, the inputs left empty.
  [[nodiscard]] std::vector<Buffer> outputs_at(const std::vector<std::size_t>& offsets,
                                               const std::vector<Buffer>& like) const {
    std::vector<Buffer> out;
    out.reserve(like.size());
    for (std::size_t i = 0; i < like.size(); ++i) {
      out.push_back(like[i].role == Role::input
                        ? Buffer{like[i].name, like[i].dtype, like[i].role, {}, like[i].rows, like[i].cols}
                        : shell_with(like[i], base_ + offsets[i]));
    }
    return out;
  }
  /// `like`'s name and shape with its bytes read from `at`.
  static Buffer shell_with(const Buffer& like, const std::byte* at) {
    Buffer b{like.name, like.dtype, like.role, {}, like.rows, like.cols};
    b.bytes.resize(like.bytes.size());
    parallel_copy(b.bytes.data(), at, b.bytes.size());
    return b;
  }

  std::size_t total_ = 0;
  int fd_ = -1;
  std::byte* base_ = nullptr;
};

protocol::BufferRole role_of(Role r) {
  switch (r) {
    case Role::input:
      return protocol::BufferRole::input;
    case Role::output:
      return protocol::BufferRole::output;
    case Role::inout:
      return protocol::BufferRole::inout;
  }
  return protocol::BufferRole::input;
}

/// solve's arguments at case `c`: the buffers in order, the ints from the case's dimensions.
std::vector<protocol::Arg> args_at(const TaskInfo& info, const Case& c) {
  std::vector<protocol::Arg> args;
  std::size_t next_buffer = 0;
  for (const auto& p : info.signature.params) {
    if (p.kind == Param::Kind::buffer) {
      args.push_back({next_buffer++, 0});
    } else {
      args.push_back({std::nullopt, c.dim(p.name)});
    }
  }
  return args;
}

/// The spec of a run on `sets` of `shared`, from `first_set` on; set i is run at `cases[i]` (bench:
/// one case for all its sets).
protocol::Spec make_spec(const RunnerCall& call, const SetViews& sets, const SharedBuffers& shared,
                         const std::vector<const Case*>& cases, std::size_t first_set = 0) {
  const auto& info = call.task.info();
  protocol::Spec spec = call.spec;
  spec.module = call.module.string();
  spec.symbol = info.signature.mangled_name();
  spec.device_pointers = info.pointers == PointerKind::device;
  spec.page_locked_check = info.requires_streams;
  spec.total_bytes = shared.total();
  spec.sets.clear();
  spec.args.clear();
  for (std::size_t set = first_set; set < sets.size(); ++set) {
    std::vector<protocol::BufferSlot> slots;
    for (std::size_t i = 0; i < sets[set]->size(); ++i) {
      const Buffer& b = (*sets[set])[i];
      slots.push_back({b.name, shared.offset(set, i), b.bytes.size(), role_of(b.role)});
    }
    spec.sets.push_back(std::move(slots));
    spec.args.push_back(args_at(info, *cases.at(set)));
  }
  for (std::size_t w = 0; w < spec.witnesses.size(); ++w) {
    spec.witnesses[w].outputs.clear();
    for (std::size_t i = 0; i < sets.front()->size(); ++i) {
      const Buffer& b = (*sets.front())[i];
      if (b.role != Role::input) {
        spec.witnesses[w].outputs.push_back({b.name, shared.witness_offset(w, i), b.bytes.size(), role_of(b.role)});
      }
    }
  }
  return spec;
}

std::vector<std::string> output_lines(const std::string& output, std::size_t total_bytes) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line) && lines.size() < kMaxOutputLinesShown) lines.push_back("| " + line);
  if (total_bytes > output.size() || !in.eof())
    lines.push_back(fmt::format("| … ({} bytes of output in all)", total_bytes));
  return lines;
}

/// The functions named solve that a module does define, demangled, for a wrong-signature report.
std::vector<std::string> solve_like_symbols(const fs::path& module) {
  std::vector<std::string> found;
  const fs::path nm = find_on_path("nm");
  if (nm.empty()) return found;
  ProcessOptions opts;
  opts.argv = {nm.string(), "-D", "--defined-only", "-C", module.string()};
  opts.timeout = std::chrono::seconds(20);
  ProcessResult r = run_process(opts);
  std::istringstream in(r.output);
  std::string line;
  while (std::getline(in, line)) {
    const auto pos = line.find(" T ");
    if (pos != std::string::npos && line.find("solve", pos) != std::string::npos) found.push_back(line.substr(pos + 3));
  }
  return found;
}

/// The streams exercise's report: the largest case's copies and kernels per stream, timed on the
/// GPU; the simulator, which runs each copy and kernel at its call, says what it cannot show.
std::vector<std::string> streams_timeline(Backend backend, const std::vector<CaseResult>& cases) {
  if (backend == Backend::sim) {
    return {
        "the simulator runs each copy and kernel at its call, one after another: it checks your chunks, "
        "streams and asynchronous copies, but whether copies overlap kernels shows on a GPU only, where "
        "this report draws each stream's copies and kernels on a time line"};
  }
  for (auto c = cases.rbegin(); c != cases.rend(); ++c) {
    auto lines = draw_timeline(c->records);
    if (lines.empty()) continue;
    lines.insert(lines.begin(),
                 fmt::format("copies and kernels at {}, per stream ({}):", c->c.label(),
                             copies_overlap(c->records) ? "copies overlap kernels" : "nothing overlaps"));
    return lines;
  }
  return {};
}

/// "cudaMemcpy(dst=host 0x…, …) failed: dst is a host pointer …".
std::string describe_failed_call(const protocol::FailedCall& f) {
  return f.cause.empty() ? f.call + " failed" : f.call + " failed: " + f.cause;
}

/// For a host-pointer exercise whose kernel faulted without any device memory to work on: the
/// kernel was most likely given the host pointers themselves.
std::optional<std::string> host_memory_hint(const TaskInfo& info, const protocol::Reply& reply) {
  if (info.pointers != PointerKind::host || reply.cuda_error != "cudaErrorIllegalAddress") return std::nullopt;
  if (reply.records.first_failed_call) return std::nullopt;  // the simulator names the argument itself
  const bool device_memory = std::ranges::any_of(
      reply.records.allocations, [](const protocol::Allocation& a) { return a.kind != protocol::MemoryKind::pinned; });
  if (device_memory) return std::nullopt;
  std::string names;
  for (const auto& p : info.signature.params) {
    if (p.kind == Param::Kind::buffer) names += (names.empty() ? "" : ", ") + p.name;
  }
  return fmt::format(
      "solve allocated no device memory, so the kernel must have been given the host pointers ({}) themselves: "
      "device code cannot use host memory — cudaMalloc device buffers, cudaMemcpy the inputs there and pass those",
      names);
}

std::string describe_bytes(double bytes) {
  if (bytes >= 1 << 20) return fmt::format("{:.1f} MiB", bytes / (1 << 20));
  if (bytes >= 1 << 10) return fmt::format("{:.1f} KiB", bytes / (1 << 10));
  return fmt::format("{} bytes", bytes);
}

// Compares the outputs of a run that finished, and fills verdict, message, details and hints.
/// The outputs' values alone: a wrong one makes `r` wrong_output with its details and hints.
/// Returns whether all were right. `after`'s inputs are not read.
bool judge_values(const Task& task, const Case& c, const std::vector<Buffer>& originals,
                  const std::vector<Buffer>& after, const std::vector<Expected>& expected, CaseResult& r) {
  const bool host = task.info().pointers == PointerKind::host;
  std::vector<std::string> wrong_parts;
  for (const auto& e : expected) {
    const Buffer& actual = after.at(e.buffer);
    const Buffer* before = actual.role == Role::inout ? &originals.at(e.buffer) : nullptr;
    OutputComparison cmp = compare_output(actual, e, before, host);
    if (cmp.ok()) continue;
    wrong_parts.push_back(
        fmt::format("{} of {} element{} of {} wrong", cmp.wrong, cmp.count, cmp.count == 1 ? "" : "s", cmp.buffer));
    auto lines = describe_mismatches(cmp, actual);
    r.details.insert(r.details.end(), lines.begin(), lines.end());
    // The task's diagnosis matched the whole output against a known mistake; the generic hints
    // only guess from where and what the wrong values are, and would contradict it.
    if (auto specific = task.diagnose(c, originals, actual, e)) {
      r.hints.push_back(*specific);
      r.diagnosed = true;
    } else {
      r.hints.insert(r.hints.end(), cmp.hints.begin(), cmp.hints.end());
    }
  }
  if (!wrong_parts.empty()) {
    r.verdict = Verdict::wrong_output;
    std::string joined;
    for (const auto& p : wrong_parts) joined += (joined.empty() ? "" : "; ") + p;
    r.message = fmt::format("wrong output at {}: {}", c.label(), joined);
    return false;
  }
  return true;
}

/// Guard zones that solve wrote into (protocol::OutOfBounds): verdict out_of_bounds, each write
/// named by buffer, side and elements. Returns whether there were none.
bool judge_bounds(const Case& c, const std::vector<Buffer>& like, const protocol::Reply& reply, CaseResult& r) {
  if (reply.out_of_bounds.empty()) return true;
  std::vector<std::string> parts;
  bool single_value = false;  // a buffer of one element written past: partial results put there
  for (const auto& o : reply.out_of_bounds) {
    // The name comes from the runner, which ran student code: only the case's own names are shown.
    const auto buffer = std::ranges::find_if(like, [&](const Buffer& b) { return b.name == o.buffer; });
    const std::string name = buffer == like.end() ? "a buffer" : buffer->name;
    const std::size_t size = buffer == like.end() ? 4 : dtype_size(buffer->dtype);
    const std::size_t count = buffer == like.end() ? 0 : buffer->count();
    // One element at a size where every dimension is more: the buffer of a single result (a sum).
    single_value = single_value ||
                   (count == 1 && !o.before && std::ranges::all_of(c.dims, [](const auto& d) { return d.value > 1; }));
    const std::size_t first = o.first / size;
    const std::size_t last = o.last / size;
    std::string elements;
    if (buffer != like.end()) {
      elements = o.before ? fmt::format("{}[-{}]", name, last + 1) +
                                (last > first ? fmt::format(" to {}[-{}]", name, first + 1) : std::string())
                          : fmt::format("{}[{}]", name, count + first) +
                                (last > first ? fmt::format(" to {}[{}]", name, count + last) : std::string());
    }
    parts.push_back(fmt::format("{} {} {}{}", describe_bytes(static_cast<double>(o.changed)),
                                o.before ? "before the start of" : "past the end of", name,
                                elements.empty() ? "" : " (" + elements + ")"));
  }
  r.verdict = Verdict::out_of_bounds;
  r.message = fmt::format("solve wrote outside its buffers at {}: {}", c.label(), fmt::join(parts, "; "));
  r.hints.push_back(single_value ? "a buffer of one element holds the one result: write it from one thread, or "
                                   "add into it with atomicAdd; partial results need memory of their own (cudaMalloc)"
                                 : "a thread whose index is past the last element must not write: check the index "
                                   "against the size (`if (i < n)`) before every store, or size the grid so that no "
                                   "thread is left over");
  r.details.push_back(
      "on a GPU such a write lands in whatever memory follows the buffer and may go unnoticed; here it "
      "landed in a guard zone the harness puts around every buffer");
  return false;
}

/// judge_values, then the inputs (where the runner had them: `inputs_now`), leaks and requirements.
void judge_outputs(const Task& task, const Case& c, const std::vector<Buffer>& originals,
                   const std::vector<Buffer>& after, const std::vector<const std::byte*>& inputs_now,
                   const std::vector<Expected>& expected, CaseResult& r) {
  if (!judge_values(task, c, originals, after, expected, r)) {
    // A __constant__ array never filled reads as zeros: that, not the pattern of zeros, is the cause.
    if (task.info().requires_constant_memory && !filled_constant_memory(r.records)) {
      r.hints = {
          "no cudaMemcpyToSymbol was made: a __constant__ array that is never filled holds zeros — copy the "
          "coefficients into it in solve, on every call"};
    }
    return;
  }
  const bool host = task.info().pointers == PointerKind::host;
  if (auto changed = modified_inputs(originals, inputs_now); !changed.empty()) {
    std::string names;
    for (const auto& n : changed) names += (names.empty() ? "" : ", ") + n;
    r.verdict = Verdict::input_modified;
    r.message = fmt::format("the input {} changed at {}: inputs are read-only", names, c.label());
    return;
  }
  if (host) {
    std::size_t leaked = 0;
    double leaked_bytes = 0;
    for (const auto& a : r.records.allocations) {
      if (!a.freed && a.kind != protocol::MemoryKind::pinned) {
        ++leaked;
        leaked_bytes += static_cast<double>(a.bytes);
      }
    }
    if (leaked > 0) {
      r.verdict = Verdict::device_leak;
      r.message = fmt::format("{} device allocation{} ({}) not freed at {}: call cudaFree for every cudaMalloc", leaked,
                              leaked == 1 ? "" : "s", describe_bytes(leaked_bytes), c.label());
      return;
    }
  }
  if (auto unmet = requirement_failures(task.info(), originals, r.records, r.launches_recorded); !unmet.empty()) {
    r.verdict = Verdict::requirement_unmet;
    r.message = fmt::format("right output at {}, but {}", c.label(), unmet.front());
    r.hints.insert(r.hints.end(), unmet.begin() + 1, unmet.end());
    return;
  }
  r.verdict = Verdict::passed;
  r.message = "passed";
}

/// Reads the runner's clock marks on a thread of its own while run_process waits for the runner,
/// timestamping each byte as it arrives: the parent's own clock, which the runner cannot set.
class ClockWatch {
 public:
  ClockWatch() {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) throw std::runtime_error("cannot create a pipe");
    read_end_ = ends[0];
    write_end_ = ends[1];
    start_ = std::chrono::steady_clock::now();
    reader_ = std::thread([this] { read_marks(); });
  }
  ClockWatch(const ClockWatch&) = delete;
  ClockWatch& operator=(const ClockWatch&) = delete;
  ~ClockWatch() { (void)finish(); }

  /// The child's end; run_process closes it here once the child has it.
  [[nodiscard]] int write_end() const { return write_end_; }

  /// Stops reading (the child has ended) and returns the marks seen.
  std::vector<ClockMark> finish() {
    stop_ = true;
    if (reader_.joinable()) reader_.join();
    if (read_end_ >= 0) close(read_end_);
    read_end_ = -1;
    return marks_;
  }

 private:
  void read_marks() {
    // Reads until EOF (the runner is gone); once finish() is called, a round with nothing to read
    // ends it too, so that it is never stuck behind a writer that escaped the process group.
    while (true) {
      pollfd fd{read_end_, POLLIN, 0};
      const int ready = poll(&fd, 1, 50);
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) {
        if (stop_ || ready < 0) break;
        continue;
      }
      char buf[64];
      const ssize_t n = read(read_end_, buf, sizeof buf);
      if (n <= 0) break;  // every writer is gone
      const double at = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      // A flood of marks is tampering; the first few are all that is needed to say so.
      for (ssize_t i = 0; i < n && marks_.size() < 64; ++i) marks_.push_back({buf[i], at});
    }
  }

  int read_end_ = -1;
  int write_end_ = -1;
  std::chrono::steady_clock::time_point start_;
  std::atomic<bool> stop_{false};
  std::vector<ClockMark> marks_;
  std::thread reader_;
};

/// The input set of measured call `call`: the runner goes round the sets call by call, warm-ups
/// first (runner_main.cpp).
std::size_t witness_set(const protocol::Reply& reply, std::size_t call, std::size_t sets) {
  const std::size_t warmups = reply.calls - reply.samples_s.size();
  return (warmups + call) % sets;
}

/// Bench: the outputs of the timed calls the parent chose to verify. False (with `r` filled in)
/// when one is wrong or missing.
bool judge_witnesses(const Task& task, const Case& c, const protocol::Spec& spec, const protocol::Reply& reply,
                     const SetViews& sets, const SharedBuffers& shared, const ExpectedFn& expected, CaseResult& r) {
  const std::size_t measured = reply.samples_s.size();
  if (!spec.witnesses.empty() && (measured == 0 || reply.calls < measured)) {
    r.verdict = Verdict::timing_mismatch;
    r.message = fmt::format("the runner's reply at {} counts {} timed calls of {} in all: it was not the runner's own",
                            c.label(), measured, reply.calls);
    return false;
  }
  for (std::size_t w = 0; w < spec.witnesses.size(); ++w) {
    const std::size_t call = spec.witnesses[w].call;
    if (call >= measured) continue;  // the sampler stopped before it
    if (std::ranges::find(reply.witnessed, call) == reply.witnessed.end()) {
      r.verdict = Verdict::timing_mismatch;
      r.message = fmt::format(
          "the outputs of timed call {} at {} never came back for checking: something in the runner's process "
          "interfered with it",
          call + 1, c.label());
      return false;
    }
    const std::size_t set = witness_set(reply, call, sets.size());
    const std::vector<Buffer> after = shared.read_witness(w, *sets[set]);
    CaseResult one;
    if (!judge_values(task, c, *sets[set], after, expected(set), one)) {
      r.verdict = one.verdict;
      r.message = fmt::format("timed call {} of {}: {}", call + 1, measured, one.message);
      r.details = one.details;
      r.hints = one.hints;
      r.hints.emplace_back(
          "every timed call starts with its outputs poisoned, and the parent checks some of them: each call must "
          "compute its result, not leave the one an earlier call wrote");
      return false;
    }
  }
  return true;
}

}  // namespace

std::size_t ExerciseResult::passed_cases() const {
  std::size_t n = 0;
  for (const auto& c : cases) n += c.verdict == Verdict::passed ? 1 : 0;
  return n;
}

const CaseResult* ExerciseResult::first_failure() const {
  for (const auto& c : cases) {
    if (c.verdict != Verdict::passed && c.verdict != Verdict::skipped) return &c;
  }
  return nullptr;
}

namespace {

/// What one runner process did: how it ended, and its output as a report shows it.
struct RunnerProcess {
  ProcessResult p;
  std::vector<std::string> shown_output;
  std::size_t max_result_bytes = 0;  ///< the cap on its replies, all together
};

/// Starts the runner on `spec` inside `box` and waits for it. `clock` (bench) gets the marks of
/// the clock pipe; `on_reply` is called as each reply line arrives (check: one per case). With
/// `at_gate` (bench, Spec::gate), the runner stops once it is ready to time, and `at_gate` runs
/// before it goes on (kGateFd).
RunnerProcess spawn_runner(const RunnerSandbox& box, const RunnerCall& call, const protocol::Spec& spec,
                           const SharedBuffers& shared, ParentClock* clock, std::size_t cases,
                           const std::function<void()>& on_reply = {}, const std::function<void()>& at_gate = {}) {
  int result_pipe[2];
  if (pipe2(result_pipe, O_CLOEXEC) != 0) throw std::runtime_error("cannot create a pipe");
  ProcessOptions opts;
  Fd gate;  // the parent's end of the gate's socket
  if (at_gate) {
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
      close(result_pipe[0]);
      close(result_pipe[1]);
      throw std::runtime_error("cannot create the gate's socket");
    }
    gate.reset(ends[0]);
    opts.inherit.emplace_back(ends[1], protocol::kGateFd);
    opts.close_after_spawn.push_back(ends[1]);
    opts.gate_fd = gate.get();
    opts.at_gate = at_gate;
  }
  opts.argv = call.runner_prefix;
  opts.argv.insert(opts.argv.end(), {call.toolchain.runner().string(), "--spec", protocol::dump_spec(spec)});
  opts.inherit.emplace_back(shared.fd(), protocol::kBuffersFd);
  opts.inherit.emplace_back(result_pipe[1], protocol::kReplyFd);
  opts.result_fd = result_pipe[0];
  opts.close_after_spawn.push_back(result_pipe[1]);
  // Each case has the timeout from the end of the one before (its reply line); all of them
  // together, as many timeouts, so that a stream of forged lines cannot keep it alive.
  opts.timeout = call.timeout * static_cast<long>(std::max<std::size_t>(cases, 1));
  if (cases > 1) opts.result_line_timeout = call.timeout;
  opts.on_result_line = on_reply;
  opts.max_output_bytes = call.max_output_bytes * std::max<std::size_t>(cases, 1);
  // A reply is a few kilobytes; the cap is for a flood, whatever the number of cases.
  opts.max_result_bytes = protocol::kMaxReplyBytes * (cases > 1 ? 2 : 1);
  box.apply(opts);  // limits, clean environment, private working folder
  // A tool around the runner (compute-sanitizer) reserves more address space than a runner may.
  if (!call.runner_prefix.empty()) opts.limits = {};
  std::optional<ClockWatch> watch;
  if (spec.clock_batches && clock != nullptr) {
    watch.emplace();
    opts.inherit.emplace_back(watch->write_end(), protocol::kClockFd);
    opts.close_after_spawn.push_back(watch->write_end());
  }
  RunnerProcess run{run_process(opts), {}, opts.max_result_bytes};
  close(result_pipe[0]);
  if (watch) clock->marks = watch->finish();
  run.shown_output = output_lines(run.p.output, run.p.output_bytes);
  return run;
}

/// The verdict of a case whose process ended before replying for it (or whose reply overflowed):
/// a timeout, a crash, a flood of output, an exit.
CaseResult ended_without_reply(const RunnerSandbox& box, const RunnerCall& call, const RunnerProcess& run,
                               const Case& c) {
  const ProcessResult& p = run.p;
  CaseResult r;
  r.c = c;
  if (p.result_overflow) {
    r.verdict = Verdict::runner_error;
    r.message = fmt::format("the runner's reply at {} was longer than {}: did solve write to file descriptor {}?",
                            c.label(), describe_bytes(static_cast<double>(run.max_result_bytes)), protocol::kReplyFd);
    return r;
  }
  switch (p.status) {
    case ProcessResult::Status::timed_out:
      r.verdict = Verdict::timeout;
      r.message = fmt::format(
          "did not finish within {:.0f} s at {}: a loop that never ends, or a barrier "
          "that not every thread of the block reaches?",
          call.timeout.count() / 1000.0, c.label());
      if (p.output_bytes > 0) r.details = run.shown_output;
      return r;
    case ProcessResult::Status::output_flood:
      r.verdict = Verdict::output_flood;
      r.message = fmt::format("printed more than {} at {} and was stopped: remove debugging output",
                              describe_bytes(static_cast<double>(call.max_output_bytes)), c.label());
      r.details = run.shown_output;
      return r;
    case ProcessResult::Status::spawn_failed:
      r.verdict = Verdict::runner_error;
      r.message = "cannot start the runner: " + p.error + " (is cudalab installed completely?)";
      return r;
    case ProcessResult::Status::signaled:
      r.verdict = Verdict::crash;
      r.message = fmt::format("crashed with {} at {}", describe_signal(p.signal), c.label());
      if (auto why = box.explain_signal(p.signal)) r.message += ": " + *why;
      r.details = run.shown_output;
      return r;
    case ProcessResult::Status::exited:
      break;
  }
  r.verdict = Verdict::crash;
  r.message =
      fmt::format("the program exited with code {} during solve at {} (did it call exit()?)", p.exit_code, c.label());
  r.details = run.shown_output;
  return r;
}

/// Fills `r` from a reply; false when the reply's status is a failure (then `r` says which).
bool take_reply(const RunnerCall& call, const protocol::Reply& result, CaseResult& r) {
  const Case& c = r.c;
  r.solve_ms = result.solve_ms;
  r.records = result.records;
  r.launches_recorded = result.launches_recorded;
  const std::string& message = result.message;
  switch (result.status) {
    case protocol::Status::ok:
      return true;
    case protocol::Status::exception:
      if (message.rfind("not implemented yet", 0) == 0) {
        r.verdict = Verdict::not_implemented;
        r.message = message;
      } else {
        r.verdict = Verdict::exception;
        r.message = fmt::format("solve threw an exception at {}: {}", c.label(), message);
      }
      if (const auto& f = result.records.first_failed_call) r.hints.push_back(describe_failed_call(*f));
      return false;
    case protocol::Status::cuda_error:
      r.verdict = Verdict::cuda_error;
      // The first runtime call that failed says more than the error that surfaced at the end.
      if (const auto& f = result.records.first_failed_call) {
        r.message = fmt::format("{} at {}: {}", f->error, c.label(), describe_failed_call(*f));
        if (result.cuda_error != f->error) {
          r.details.insert(r.details.begin(),
                           fmt::format("after solve returned, the runtime still reported {}", result.cuda_error));
        }
      } else {
        r.message = fmt::format("{} at {}: {}", result.cuda_error, c.label(), message);
      }
      if (auto hint = host_memory_hint(call.task.info(), result)) r.hints.push_back(*hint);
      return false;
    case protocol::Status::missing_symbol:
      r.verdict = Verdict::wrong_signature;
      r.message =
          "no function `" + call.task.info().signature.text() + "` in the file: the signature must match exactly";
      for (const auto& s : solve_like_symbols(call.module)) r.hints.push_back("the file defines " + s);
      return false;
    case protocol::Status::load_error:
      r.verdict = Verdict::load_error;
      r.message = "cannot load the compiled module: " + message;
      return false;
    case protocol::Status::no_device:
    case protocol::Status::runner_error:
      r.verdict = Verdict::runner_error;
      r.message = std::string(protocol::status_name(result.status)) + ": " + message;
      return false;
  }
  return false;
}

/// What the runner's process printed, after a case's details.
void add_printed(const RunnerProcess& run, CaseResult& r) {
  if (run.p.output_bytes == 0) return;
  r.details.emplace_back("the program printed:");
  r.details.insert(r.details.end(), run.shown_output.begin(), run.shown_output.end());
}

/// "the runner's reply at n=4 is unusable (…)".
CaseResult unusable_reply(const RunnerProcess& run, const Case& c, const protocol::ProtocolError& e) {
  CaseResult r;
  r.c = c;
  r.verdict = Verdict::runner_error;
  r.message = fmt::format("the runner's reply at {} is unusable ({}); did solve write to file descriptor {}?",
                          c.label(), e.what(), protocol::kReplyFd);
  r.details = run.shown_output;
  return r;
}

/// What the sandbox stopped, named once per check whatever the verdict, so that reports and
/// gradebooks show it (each reply carries all its process has blocked so far).
void name_blocked(std::vector<std::string>& named, CaseResult& r) {
  for (const auto& blocked : r.records.blocked) {
    if (std::ranges::find(named, blocked) != named.end()) continue;
    named.push_back(blocked);
    r.hints.push_back("the sandbox blocked: " + blocked);
  }
}

/// The sandbox of one runner process into `box`; false (with `failure` saying why) if it cannot be made.
bool make_box(const RunnerCall& call, std::optional<RunnerSandbox>& box, CaseResult& failure) {
  try {
    box.emplace(SandboxOptions{call.toolchain.backend(), call.timeout, call.module, call.visible_devices});
    return true;
  } catch (const std::runtime_error& e) {
    failure.c = call.c;
    failure.verdict = Verdict::runner_error;
    failure.message = e.what();
    return false;
  }
}

/// A case's size from the task's cost model: elements moved (reading and writing one counts once),
/// or multiply-adds where they are more (a matmul). Not the product of the dimensions, which for
/// n values into num_bins bins is neither.
std::int64_t work_of(const Task& task, const Case& c) {
  const Cost cost = task.cost(c);
  return static_cast<std::int64_t>(std::max(cost.bytes / 8, cost.flops / 2));
}

/// run_cases with the seeds given.
std::vector<CaseResult> run_cases_seeded(const Task& task, const Toolchain& toolchain, const fs::path& module,
                                         const std::vector<Case>& cases, const std::vector<std::uint64_t>& seeds,
                                         const CheckOptions& options, const ProgressFn& progress) {
  // Every case's inputs first (the references are computed meanwhile, on threads of their own).
  std::vector<std::shared_ptr<const CaseData>> data;
  SetViews sets;
  std::vector<const Case*> case_of_set;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    data.push_back(case_data(options.case_data, task, cases[i], seeds[i]));
    sets.push_back(&data.back()->buffers);
    case_of_set.push_back(&cases[i]);
  }
  const SharedBuffers shared(sets, 0, /*page_per_set=*/true);
  std::vector<CaseResult> results;
  std::vector<std::string> blocked_named;
  // One runner for every case left; after a case that ends its process, another for the rest.
  while (results.size() < cases.size()) {
    const std::size_t first = results.size();
    RunnerCall call{task,
                    toolchain,
                    module,
                    cases[first],
                    protocol::Spec{},
                    options.timeout,
                    options.max_output_bytes,
                    options.visible_devices};
    CaseResult failure;
    std::optional<RunnerSandbox> box;
    if (!make_box(call, box, failure)) {
      results.push_back(std::move(failure));
      break;
    }
    call.spec.checks = options.sanitize && toolchain.backend() == Backend::sim;
    call.spec.order = options.order;
    call.spec.order_seed = options.seed;
    call.spec.case_markers = !options.runner_prefix.empty();
    call.runner_prefix = options.runner_prefix;
    protocol::Spec spec = make_spec(call, sets, shared, case_of_set, first);
    if (!options.orders.empty()) spec.orders.assign(options.orders.begin() + first, options.orders.end());
    if (spec.checks) {
      // The checks cost some 20 times a plain access: the sizes of up to 2^20 elements (or
      // multiply-adds) are checked, the rest run plain (the large sizes, 255×257×129 matmuls).
      for (std::size_t i = first; i < cases.size(); ++i)
        spec.checked_sets.push_back(work_of(task, cases[i]) <= (1 << 20));
    }
    // Under a tool the runner is not locked down: the tool's library in it must reach its files.
    if (options.runner_prefix.empty()) spec.sandbox = box->spec();
    std::size_t replied = 0;
    if (progress) progress(task, first, cases.size(), cases[first]);
    const auto on_reply = [&] {
      ++replied;
      if (progress && first + replied < cases.size()) {
        progress(task, first + replied, cases.size(), cases[first + replied]);
      }
    };
    const RunnerProcess run = spawn_runner(*box, call, spec, shared, nullptr, cases.size() - first, on_reply);
    if (options.runner_output != nullptr) {
      // Renumbered from this process's first case, so that markers name cases of the whole run.
      std::string text = run.p.output;
      for (std::size_t at = text.find("cudalab-case "); at != std::string::npos;
           at = text.find("cudalab-case ", at + 1)) {
        const std::size_t end = text.find('\n', at);
        const std::size_t k = std::strtoul(text.c_str() + at + 13, nullptr, 10);
        text.replace(at + 13, end - at - 13, std::to_string(first + k));
      }
      *options.runner_output += text;
    }
    // Whole lines only: a line cut short is the process's end (a crash, a flood), judged below.
    const std::string_view text = run.p.result;
    const std::size_t last_newline = text.rfind('\n');
    const std::string_view whole =
        last_newline == std::string_view::npos ? text.substr(0, 0) : text.substr(0, last_newline + 1);
    const bool cut_short = whole.size() < text.size() && !run.p.result_overflow;
    std::vector<protocol::Reply> replies;
    std::optional<CaseResult> unusable;
    try {
      replies = protocol::parse_replies(whole);
      if (cut_short && run.p.status == ProcessResult::Status::exited) {
        throw protocol::ProtocolError("malformed reply: not a whole line");
      }
    } catch (const protocol::ProtocolError& e) {
      // The replies before the bad line are lost with it: the case after the last good one is blamed.
      unusable = unusable_reply(run, cases[first], e);
    }
    bool ended = false;
    for (std::size_t k = 0; k < replies.size() && first + k < cases.size() && !ended; ++k) {
      const Case& c = cases[first + k];
      CaseResult r;
      r.c = c;
      call.c = c;
      if (take_reply(call, replies[k], r)) {
        const std::size_t set = first + k;
        if (judge_bounds(c, *sets[set], replies[k], r)) {
          const std::vector<Buffer> after = shared.read(set, *sets[set]);
          judge_outputs(task, c, *sets[set], after, shared.inputs_now(set), data[set]->expected.get(), r);
        }
      } else {
        ended = true;  // the runner stops after a failed case
      }
      // A finding outranks what the output shows: it names the cause.
      r.findings = replies[k].findings;
      judge_findings(r.findings, module, r);
      // The process's output is one for its cases: shown with its first and with each failure.
      if (k == 0 || r.verdict != Verdict::passed) add_printed(run, r);
      name_blocked(blocked_named, r);
      results.push_back(std::move(r));
      if (stops_check(results.back().verdict)) ended = true;
    }
    if (!ended && results.size() < cases.size()) {
      // The process ended (or was stopped) before replying for the next case.
      CaseResult r = unusable ? std::move(*unusable) : ended_without_reply(*box, call, run, cases[results.size()]);
      r.c = cases[results.size()];
      results.push_back(std::move(r));
    }
    if (auto left = box->clean_up()) results.back().hints.push_back(*left);
    if (stops_check(results.back().verdict)) break;
  }
  return results;
}

}  // namespace

bool stops_check(Verdict v) {
  switch (v) {
    case Verdict::timeout:
    case Verdict::not_implemented:
    case Verdict::wrong_signature:
    case Verdict::load_error:
    case Verdict::runner_error:
      return true;
    default:
      return false;
  }
}

std::vector<CaseResult> run_cases(const Task& task, const Toolchain& toolchain, const fs::path& module,
                                  const std::vector<Case>& cases, const CheckOptions& options,
                                  const ProgressFn& progress) {
  std::vector<std::uint64_t> seeds;
  for (const Case& c : cases) seeds.push_back(case_seed(options.seed, task.info(), c));
  return run_cases_seeded(task, toolchain, module, cases, seeds, options, progress);
}

CaseResult run_case(const Task& task, const Toolchain& toolchain, const fs::path& module, const Case& c,
                    std::uint64_t case_seed, const CheckOptions& options) {
  return run_cases_seeded(task, toolchain, module, {c}, {case_seed}, options, {}).front();
}

/// call_runner, inside the sandbox `box` (sandbox.hpp).
static CaseResult call_runner_in(const RunnerSandbox& box, const RunnerCall& call, const SetViews& sets,
                                 const ExpectedFn& expected, protocol::Reply* reply, ParentClock* clock) {
  const Task& task = call.task;
  const Case& c = call.c;
  auto since = [start = std::chrono::steady_clock::now()]() mutable {
    const auto now = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(now - std::exchange(start, now)).count();
  };
  SharedBuffers shared(sets, call.spec.witnesses.size());
  protocol::Spec spec = make_spec(call, sets, shared, std::vector<const Case*>(sets.size(), &c));
  spec.sandbox = box.spec();
  const double preparing_s = since();
  // A benchmark takes the GPU (before_run) at the runner's gate: once its process and context
  // exist, which costs the attempt timing now nothing. A check takes it before it starts.
  const bool gated = call.before_run && spec.mode == protocol::Mode::bench;
  spec.gate = gated;
  double waiting_s = 0;
  if (call.before_run && !gated) {
    call.before_run();
    waiting_s = since();
  }
  std::optional<std::chrono::steady_clock::time_point> replied_at;  // the reply's line; then it exits
  const RunnerProcess run = spawn_runner(
      box, call, spec, shared, clock, 1, [&] { replied_at = replied_at.value_or(std::chrono::steady_clock::now()); },
      gated ? call.before_run : nullptr);
  if (gated) waiting_s = run.p.gate_ms / 1000;
  const double running_s = since() - (gated ? waiting_s : 0);
  const double exiting_s =
      replied_at ? std::chrono::duration<double>(std::chrono::steady_clock::now() - *replied_at).count() : 0;
  if (call.after_run) call.after_run();
  // The reply comes from a process that ran student code: read it as untrusted input, once.
  const bool replied = !run.p.result.empty() && !run.p.result_overflow && run.p.status == ProcessResult::Status::exited;
  std::optional<protocol::Reply> result;
  std::optional<protocol::ProtocolError> unusable;
  if (replied) {
    try {
      std::vector<protocol::Reply> replies = protocol::parse_replies(run.p.result);
      if (replies.size() != 1) throw protocol::ProtocolError("malformed reply: more than one");
      result = std::move(replies.front());
    } catch (const protocol::ProtocolError& e) {
      unusable = e;
    }
  }
  if (call.time_split != nullptr) {
    call.time_split->push_back({"preparing", preparing_s});
    if (call.before_run) call.time_split->push_back({"waiting for the GPU", waiting_s});
    double inside_s = 0;
    const std::vector<protocol::Phase> inside = result ? result->phases : std::vector<protocol::Phase>{};
    for (const auto& p : inside) inside_s += p.seconds;
    call.time_split->push_back({"process start", std::max(0.0, running_s - exiting_s - inside_s)});
    call.time_split->insert(call.time_split->end(), inside.begin(), inside.end());
    call.time_split->push_back({"process exit", exiting_s});
  }
  const auto judge = [&]() -> CaseResult {
    if (!replied) return ended_without_reply(box, call, run, c);
    if (unusable) return unusable_reply(run, c, *unusable);
    CaseResult r;
    r.c = c;
    const bool ok = take_reply(call, *result, r);
    add_printed(run, r);
    if (!ok) return r;
    if (reply != nullptr) *reply = *result;
    if (!judge_bounds(c, *sets.front(), *result, r)) return r;
    if (!judge_witnesses(task, c, spec, *result, sets, shared, expected, r)) return r;
    // Every input set is judged: in a benchmark, each holds the result of its last timed call.
    for (std::size_t set = 0; set < sets.size(); ++set) {
      const std::vector<Buffer> after = shared.read(set, *sets[set]);
      judge_outputs(task, c, *sets[set], after, shared.inputs_now(set), expected(set), r);
      if (r.verdict != Verdict::passed) break;
    }
    return r;
  };
  CaseResult r = judge();
  if (call.time_split != nullptr) call.time_split->push_back({"judging", since()});
  return r;
}

CaseResult call_runner(const RunnerCall& call, const SetViews& sets, const ExpectedFn& expected, protocol::Reply* reply,
                       ParentClock* clock) {
  CaseResult failure;
  std::optional<RunnerSandbox> box;
  if (!make_box(call, box, failure)) return failure;
  CaseResult r = call_runner_in(*box, call, sets, expected, reply, clock);
  std::vector<std::string> named;
  name_blocked(named, r);
  if (auto left = box->clean_up()) r.hints.push_back(*left);
  return r;
}

std::vector<Case> select_cases(const Task& task, Backend backend, const CheckOptions& options) {
  std::vector<Case> cases = task.cases(CaseOptions{.simulator = backend == Backend::sim});
  for (Case& c : cases) c.precision = options.precision;
  if (options.only_sizes.empty()) return cases;
  std::vector<Case> selected;
  for (const Case& c : cases) {
    if (std::ranges::find(options.only_sizes, c.dims.front().value) != options.only_sizes.end()) selected.push_back(c);
  }
  if (selected.empty()) {
    std::string sizes;
    for (const Case& c : cases) {
      const std::string size = std::to_string(c.dims.front().value);
      if (sizes.find(" " + size + ",") == std::string::npos) sizes += " " + size + ",";
    }
    sizes.pop_back();
    throw SelectionError(fmt::format("no check of {} has {}={}; its sizes are{}", task.info().id,
                                     cases.front().dims.front().name, fmt::join(options.only_sizes, " or "), sizes));
  }
  return selected;
}

/// The cases of a check run one after another in one process, as the calls of a program do. When
/// a case gives a wrong answer after earlier ones passed, it runs again alone, as the first call
/// of a fresh process: right there means that something an earlier call left behind (a
/// `__device__` or `static` accumulator, a kept grid or pointer) changed this call's answer.
/// Says so in the failing case and returns true; false when that is not the explanation.
bool explain_state_kept(const Task& task, const Toolchain& toolchain, const fs::path& module,
                        const CheckOptions& options, ExerciseResult& result) {
  bool earlier_passed = false;
  for (CaseResult& c : result.cases) {
    if (c.verdict == Verdict::passed) {
      earlier_passed = true;
      continue;
    }
    if (c.verdict != Verdict::wrong_output || !earlier_passed) return false;
    const CaseResult alone = run_case(task, toolchain, module, c.c, case_seed(options.seed, task.info(), c.c), options);
    if (alone.verdict != Verdict::passed) return false;
    c.message = fmt::format(
        "{} — but right when it is the first call of a fresh process: the earlier calls of "
        "solve left something behind",
        c.message);
    c.hints.insert(c.hints.begin(),
                   "solve must work every time it is called: reset accumulators (`__device__` or `static` "
                   "variables) inside solve, and work out grids and sizes from this call's arguments, not "
                   "from a value kept from the first call");
    return true;
  }
  return false;
}

/// Whether a case is small enough to run again for the sanitize runs: at most 2^16 elements, a few
/// milliseconds on the simulator, well under a second under compute-sanitizer.
bool is_small(const Task& task, const Case& c) { return work_of(task, c) <= (std::int64_t{1} << 16); }

/// The small cases of `result` whose verdict `keep` accepts, and where each stands in it.
template <class Keep>
std::pair<std::vector<Case>, std::vector<std::size_t>> small_cases(const ExerciseResult& result, Keep keep) {
  std::pair<std::vector<Case>, std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < result.cases.size(); ++i) {
    if (is_small(*result.task, result.cases[i].c) && keep(result.cases[i].verdict)) {
      out.first.push_back(result.cases[i].c);
      out.second.push_back(i);
    }
  }
  return out;
}

/// compute-sanitizer: CUDALAB_COMPUTE_SANITIZER, else on PATH, else the toolkit's usual place.
fs::path find_compute_sanitizer() {
  return find_tool("CUDALAB_COMPUTE_SANITIZER", "compute-sanitizer",
                   {"/usr/local/cuda/bin/compute-sanitizer", "/usr/local/cuda/compute-sanitizer/compute-sanitizer"});
}

/// The sanitize runs' last step on the simulator: the small cases that passed run again with each
/// block's threads started in reverse and in shuffled order. A GPU promises no order, so a case
/// that fails in another order has a race, even where no pair of accesses showed it (a race
/// through a pointer the checks do not see, or one that only reordering exposes).
void check_thread_orders(const Task& task, const Toolchain& toolchain, const fs::path& module,
                         const CheckOptions& options, ExerciseResult& result) {
  const auto [small, where] = small_cases(result, [](Verdict v) { return v == Verdict::passed; });
  if (small.empty()) return;
  // One runner for both orders: each small case in reverse order, then each shuffled.
  CheckOptions again = options;
  again.sanitize = false;  // the same checked module, its checks off: only the order differs
  std::vector<Case> twice = small;
  twice.insert(twice.end(), small.begin(), small.end());
  again.orders.assign(small.size(), protocol::ThreadOrder::reverse);
  again.orders.resize(twice.size(), protocol::ThreadOrder::shuffled);
  const std::vector<CaseResult> other = run_cases(task, toolchain, module, twice, again);
  for (std::size_t i = 0; i < other.size(); ++i) {
    const std::size_t k = i % small.size();
    CaseResult& r = result.cases[where[k]];
    // Reported once per case: in reverse order if it fails there.
    if (other[i].verdict != Verdict::wrong_output || r.verdict == Verdict::data_race) continue;
    protocol::Finding f;
    f.kind = protocol::FindingKind::order;
    f.where = fmt::format("right with each block's threads started in order, wrong with them started in {} order ({})",
                          again.orders[i] == protocol::ThreadOrder::reverse ? "reverse" : "shuffled", other[i].message);
    r.findings.push_back(f);
    r.verdict = Verdict::passed;
    r.details.clear();
    judge_findings(r.findings, module, r);
  }
}

/// The sanitize runs on a GPU: the small cases again under each of compute-sanitizer's tools
/// (memcheck: out of bounds and misaligned; racecheck: shared-memory races; synccheck: barriers;
/// initcheck: uninitialised global memory), their reports read into findings.
void check_with_compute_sanitizer(const Task& task, const Toolchain& toolchain, const fs::path& module,
                                  const CheckOptions& options, ExerciseResult& result) {
  const fs::path tool = find_compute_sanitizer();
  const auto [small, where] = small_cases(result, [](Verdict v) { return v != Verdict::skipped; });
  if (small.empty()) return;
  if (tool.empty()) {
    result.hints.push_back(
        "--sanitize on a GPU runs compute-sanitizer, which was not found (it comes with the CUDA toolkit: put its "
        "bin folder on PATH, or set CUDALAB_COMPUTE_SANITIZER)");
    return;
  }
  std::vector<std::vector<protocol::Finding>> found(small.size());
  std::map<std::uint64_t, SourcePlace> places;
  for (const char* name : {"memcheck", "racecheck", "synccheck", "initcheck"}) {
    CheckOptions again = options;
    again.sanitize = false;
    std::string output;
    again.runner_output = &output;
    again.runner_prefix = {tool.string(), "--tool", name, "--print-limit", "32", "--show-backtrace", "no"};
    again.timeout = options.timeout * 10;  // the tools slow kernels down many times
    (void)run_cases(task, toolchain, module, small, again);
    const auto parsed = parse_compute_sanitizer(output, places, result.source);
    for (const auto& [k, f] : parsed) {
      if (k < found.size()) found[k].push_back(f);
    }
    // A report this parser cannot read is still shown, rather than lost.
    const std::size_t summary = output.find("ERROR SUMMARY: ");
    if (parsed.empty() && summary != std::string::npos && output.compare(summary + 15, 2, "0 ") != 0) {
      std::string shown;
      std::istringstream lines(output);
      std::string line;
      for (int n = 0; n < 12 && std::getline(lines, line);) {
        if (line.rfind("=========", 0) == 0) {
          shown += "\n    " + line;
          ++n;
        }
      }
      result.hints.push_back(fmt::format("compute-sanitizer's {} reported errors:{}", name, shown));
    }
  }
  for (std::size_t k = 0; k < small.size(); ++k) {
    if (found[k].empty()) continue;
    CaseResult& r = result.cases[where[k]];
    r.findings = found[k];
    judge_findings(r.findings, module, r, &places);
  }
}

ExerciseResult check_exercise(const Task& task, const Toolchain& toolchain, const fs::path& source,
                              const CheckOptions& options, const ProgressFn& progress) {
  const std::vector<Case> cases = select_cases(task, toolchain.backend(), options);
  ExerciseResult result;
  result.task = &task;
  result.backend = toolchain.backend();
  result.source = source;
  result.compile = toolchain.compile(source);
  if (!result.compile.ok) {
    result.verdict = Verdict::compile_error;
    return result;
  }
  result.cases = run_cases(task, toolchain, result.compile.module, cases, options, progress);
  // What stops a check does not depend on the size (stops_check): one report is enough.
  for (std::size_t i = result.cases.size(); i < cases.size(); ++i) {
    CaseResult skipped;
    skipped.c = cases[i];
    skipped.verdict = Verdict::skipped;
    skipped.message = "not run after the failure above";
    result.cases.push_back(std::move(skipped));
  }
  if (options.sanitize && toolchain.backend() == Backend::sim) {
    check_thread_orders(task, toolchain, result.compile.module, options, result);
  }
  if (options.sanitize && toolchain.backend() == Backend::gpu) {
    check_with_compute_sanitizer(task, toolchain, result.compile.module, options, result);
  }
  const bool found = std::ranges::any_of(result.cases, [](const CaseResult& c) { return !c.findings.empty(); });
  // A task's diagnosis names the mistake; the pattern of failing sizes would only guess again.
  const bool diagnosed = std::ranges::any_of(result.cases, [](const CaseResult& c) { return c.diagnosed; });
  // A finding outranks a guess: where state kept from earlier calls explains the failure, the
  // pattern of failing sizes (which it also produces) is not offered as the cause.
  if (!found && !explain_state_kept(task, toolchain, result.compile.module, options, result)) {
    std::vector<CaseOutcome> outcomes;
    for (const auto& c : result.cases) {
      if (c.verdict == Verdict::passed || c.verdict == Verdict::wrong_output) {
        outcomes.push_back({c.c, c.verdict == Verdict::passed});
      }
    }
    if (auto hint = size_pattern_hint(outcomes); hint && !diagnosed) result.hints.push_back(*hint);
  }
  if (task.info().requires_streams) result.timeline = streams_timeline(toolchain.backend(), result.cases);
  const CaseResult* failure = result.first_failure();
  result.verdict = failure == nullptr ? Verdict::passed : failure->verdict;
  return result;
}

}  // namespace cudalab
