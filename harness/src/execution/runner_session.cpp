#include "cudalab/detail/runner_session.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <sstream>
#include <system_error>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "cudalab/paths.hpp"
#include "cudalab/text.hpp"

namespace cudalab {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxOutputLinesShown = 12;

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

}  // namespace

std::vector<std::string> output_lines(const std::string& output, std::size_t total_bytes,
                                      std::optional<std::size_t> only_case) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  std::string line;
  std::size_t current = 0;  // the case printing; before the first marker, the process's first
  bool more = false;
  while (std::getline(in, line)) {
    if (line.starts_with(protocol::kCaseMarker)) {
      current = std::strtoul(line.c_str() + protocol::kCaseMarker.size(), nullptr, 10);
      continue;
    }
    if (only_case && current != *only_case) continue;
    if (lines.size() == kMaxOutputLinesShown) {
      more = true;
      break;
    }
    lines.push_back("| " + line);
  }
  if (more || (!only_case && total_bytes > output.size()))
    lines.push_back(fmt::format("| … ({} bytes of output in all)", total_bytes));
  return lines;
}

namespace {

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

/// "cudaMemcpy(dst=host 0x…, …) failed: dst is a host pointer …".
std::string describe_failed_call(const protocol::FailedCall& f) {
  // A cause that names the call itself ("solve returned while stream 1 still had work") says it all.
  if (!f.call.empty() && f.cause.starts_with(f.call)) return f.cause;
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

/// Reads the runner's clock marks on a thread of its own while run_process waits for the runner,
/// timestamping each byte as it arrives: the parent's own clock, which the runner cannot set.
class ClockWatch {
 public:
  ClockWatch() {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) {
      throw std::system_error(errno, std::generic_category(), "cannot create the clock's pipe");
    }
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

}  // namespace

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
                         const std::vector<const Case*>& cases, std::size_t first_set) {
  const auto& info = call.task.info();
  protocol::Spec spec;
  spec.run = call.run;
  spec.module = call.module.string();
  spec.symbol = info.signature.mangled_name();
  spec.device_pointers = info.pointers == PointerKind::device;
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
  if (auto* check = std::get_if<protocol::CheckRun>(&spec.run)) check->page_locked = info.requires_streams;
  auto* bench = std::get_if<protocol::BenchRun>(&spec.run);
  for (std::size_t w = 0; bench != nullptr && w < bench->witnesses.size(); ++w) {
    bench->witnesses[w].outputs.clear();
    for (std::size_t i = 0; i < sets.front()->size(); ++i) {
      const Buffer& b = (*sets.front())[i];
      if (b.role != Role::input) {
        bench->witnesses[w].outputs.push_back({b.name, shared.witness_offset(w, i), b.bytes.size(), role_of(b.role)});
      }
    }
  }
  return spec;
}

/// Starts the runner on `spec` inside `box` and waits for it. `clock` (bench) gets the marks of
/// the clock pipe; `on_reply` is called as each reply line arrives (check: one per case). With
/// `at_gate` (bench, Spec::gate), the runner stops once it is ready to time (and, in rounds, after
/// each round), and `at_gate` runs before it goes on, its answer sent to the runner (kGateFd).
RunnerProcess spawn_runner(const RunnerSandbox& box, const RunnerCall& call, const protocol::Spec& spec,
                           const SharedBuffers& shared, ParentClock* clock, std::size_t cases,
                           const std::function<void()>& on_reply, const std::function<char(int)>& at_gate) {
  // Every descriptor is owned here until run_process takes the child's ends (close_after_spawn),
  // so that none leaks when a step before it throws.
  int pipe_ends[2];
  if (pipe2(pipe_ends, O_CLOEXEC) != 0) {
    throw std::system_error(errno, std::generic_category(), "cannot create a pipe");
  }
  const Fd reply_read(pipe_ends[0]);
  Fd reply_write(pipe_ends[1]);
  ProcessOptions opts;
  Fd gate;        // the parent's end of the gate's socket
  Fd gate_child;  // the runner's end
  if (at_gate) {
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
      throw std::system_error(errno, std::generic_category(), "cannot create the gate's socket");
    }
    gate.reset(ends[0]);
    gate_child.reset(ends[1]);
    opts.inherit.emplace_back(gate_child.get(), protocol::kGateFd);
    opts.gate_fd = gate.get();
    opts.at_gate = at_gate;
  }
  opts.argv = call.runner_prefix;
  opts.argv.insert(opts.argv.end(), {call.toolchain.runner().string(), "--spec", protocol::dump_spec(spec)});
  opts.inherit.emplace_back(shared.fd(), protocol::kBuffersFd);
  opts.inherit.emplace_back(reply_write.get(), protocol::kReplyFd);
  opts.result_fd = reply_read.get();
  // Each case has the timeout from the end of the one before (its reply line); all of them
  // together, as many timeouts, so that a stream of forged lines cannot keep it alive.
  opts.timeout = call.timeout * static_cast<long>(std::max<std::size_t>(cases, 1));
  if (cases > 1) opts.result_line_timeout = call.timeout;
  opts.on_result_line = on_reply;
  opts.max_output_bytes = call.max_output_bytes * std::max<std::size_t>(cases, 1);
  // A reply is a few kilobytes; the cap is for a flood, whatever the number of cases.
  opts.max_result_bytes = protocol::kMaxReplyBytes * (cases > 1 ? 2 : 1);
  box.apply(opts);  // limits, clean environment, private working folder
  opts.niceness = call.niceness;
  // A tool around the runner (compute-sanitizer, ncu) reserves more address space than a runner
  // may, and its report is read whole: every case's findings, up to the flood limit, not the
  // first 16 KiB that a report of the runner's own output keeps.
  if (!call.runner_prefix.empty()) {
    opts.limits = {};
    opts.kept_output_bytes = opts.max_output_bytes;
  }
  std::optional<ClockWatch> watch;
  if (spec.is_bench() && spec.bench().clock_batches && clock != nullptr) {
    watch.emplace();
    opts.inherit.emplace_back(watch->write_end(), protocol::kClockFd);
    opts.close_after_spawn.push_back(watch->write_end());
  }
  // From here run_process closes the child's ends, on every path.
  opts.close_after_spawn.push_back(reply_write.release());
  if (gate_child.get() >= 0) opts.close_after_spawn.push_back(gate_child.release());
  RunnerProcess run{run_process(opts), {}, opts.max_result_bytes};
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
                            c.label(), format_bytes(static_cast<double>(run.max_result_bytes)), protocol::kReplyFd);
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
                              format_bytes(static_cast<double>(call.max_output_bytes)), c.label());
      r.details = run.shown_output;
      return r;
    case ProcessResult::Status::spawn_failed:  // before any of the submission's code
      throw SetupError("cannot start the runner " + call.toolchain.runner().string() + ": " + p.error +
                       " (is cudalab installed completely?)");
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
    case protocol::Status::not_implemented:
      r.verdict = Verdict::not_implemented;
      r.message = message;
      return false;
    case protocol::Status::exception:
      r.verdict = Verdict::exception;
      r.message = fmt::format("solve threw an exception at {}: {}", c.label(), message);
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
void add_printed(const RunnerProcess& run, CaseResult& r, std::optional<std::size_t> only_case) {
  if (run.p.output_bytes == 0) return;
  const std::vector<std::string> lines =
      only_case ? output_lines(run.p.output, run.p.output_bytes, only_case) : run.shown_output;
  if (lines.empty()) return;
  r.details.emplace_back(only_case ? "the program printed, at this size:" : "the program printed:");
  r.details.insert(r.details.end(), lines.begin(), lines.end());
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
void make_box(const RunnerCall& call, std::optional<RunnerSandbox>& box) {
  try {
    box.emplace(SandboxOptions{call.toolchain.backend(), call.timeout, call.module, call.visible_devices});
  } catch (const std::runtime_error& e) {
    throw SetupError(std::string("cannot prepare the runner's sandbox: ") + e.what());
  }
}

}  // namespace cudalab
