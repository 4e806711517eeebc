#include "cudalab/exercise_check.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <future>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudalab/detail/module_cache.hpp"
#include "cudalab/detail/process.hpp"
#include "cudalab/paths.hpp"
#include "cudalab/protocol.hpp"

namespace cudalab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t kBufferAlignment = 256;
constexpr std::size_t kMaxOutputLinesShown = 12;

/// The buffers of one case (one or more input sets) in a shared memory file, mapped here and
/// inherited by the runner.
class SharedBuffers {
 public:
  explicit SharedBuffers(const std::vector<std::vector<Buffer>>& sets) {
    for (const auto& set : sets) {
      std::vector<std::size_t> offsets;
      for (const auto& b : set) {
        offsets.push_back(total_);
        total_ += (b.bytes.size() + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
      }
      offsets_.push_back(std::move(offsets));
    }
    fd_ = memfd_create("cudalab-buffers", MFD_CLOEXEC);
    if (fd_ < 0 || ftruncate(fd_, static_cast<off_t>(std::max<std::size_t>(total_, 1))) != 0) {
      throw std::runtime_error(std::string("cannot create shared buffers: ") + std::strerror(errno));
    }
    void* p = mmap(nullptr, std::max<std::size_t>(total_, 1), PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) throw std::runtime_error(std::string("cannot map shared buffers: ") + std::strerror(errno));
    base_ = static_cast<std::byte*>(p);
    for (std::size_t s = 0; s < sets.size(); ++s) {
      for (std::size_t i = 0; i < sets[s].size(); ++i) {
        std::memcpy(base_ + offsets_[s][i], sets[s][i].bytes.data(), sets[s][i].bytes.size());
      }
    }
  }
  SharedBuffers(const SharedBuffers&) = delete;
  SharedBuffers& operator=(const SharedBuffers&) = delete;
  ~SharedBuffers() {
    if (base_ != nullptr) munmap(base_, std::max<std::size_t>(total_, 1));
    if (fd_ >= 0) close(fd_);
  }

  void copy_out(std::size_t set, std::vector<Buffer>& buffers) const {
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      std::memcpy(buffers[i].bytes.data(), base_ + offsets_[set][i], buffers[i].bytes.size());
    }
  }
  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] std::size_t offset(std::size_t set, std::size_t i) const { return offsets_[set][i]; }
  [[nodiscard]] std::size_t total() const { return total_; }

 private:
  std::vector<std::vector<std::size_t>> offsets_;
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

protocol::Spec make_spec(const RunnerCall& call, const std::vector<std::vector<Buffer>>& sets,
                         const SharedBuffers& shared) {
  const auto& info = call.task.info();
  protocol::Spec spec = call.spec;
  spec.module = call.module.string();
  spec.symbol = info.signature.mangled_name();
  spec.device_pointers = info.pointers == PointerKind::device;
  spec.total_bytes = shared.total();
  spec.sets.clear();
  for (std::size_t set = 0; set < sets.size(); ++set) {
    std::vector<protocol::BufferSlot> slots;
    for (std::size_t i = 0; i < sets[set].size(); ++i) {
      const Buffer& b = sets[set][i];
      slots.push_back({b.name, shared.offset(set, i), b.bytes.size(), role_of(b.role)});
    }
    spec.sets.push_back(std::move(slots));
  }
  spec.args.clear();
  std::size_t next_buffer = 0;
  for (const auto& p : info.signature.params) {
    if (p.kind == Param::Kind::buffer) {
      spec.args.push_back({next_buffer++, 0});
    } else {
      spec.args.push_back({std::nullopt, call.c.dim(p.name)});
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
void judge_outputs(const Task& task, const Case& c, const std::vector<Buffer>& originals,
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
    if (auto specific = task.diagnose(c, originals, actual, e)) r.hints.push_back(*specific);
    r.hints.insert(r.hints.end(), cmp.hints.begin(), cmp.hints.end());
  }
  if (!wrong_parts.empty()) {
    r.verdict = Verdict::wrong_output;
    std::string joined;
    for (const auto& p : wrong_parts) joined += (joined.empty() ? "" : "; ") + p;
    r.message = fmt::format("wrong output at {}: {}", c.label(), joined);
    return;
  }
  if (auto changed = modified_inputs(originals, after); !changed.empty()) {
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

CaseResult run_case(const Task& task, const Toolchain& toolchain, const fs::path& module, const Case& c,
                    std::uint64_t case_seed, const CheckOptions& options) {
  Rng rng(case_seed);
  std::vector<std::vector<Buffer>> sets{task.make_buffers(c, rng)};
  for (auto& b : sets[0]) {
    if (b.role == Role::output) poison(b);
  }
  // The reference runs here while the child runs the submission.
  std::shared_future<std::vector<std::vector<Expected>>> expected =
      std::async(std::launch::async, [&] { return std::vector<std::vector<Expected>>{task.reference(c, sets[0])}; });
  RunnerCall call{task, toolchain, module, c, protocol::Spec{}, options.timeout, options.max_output_bytes};
  return call_runner(
      call, sets, [&]() -> const std::vector<std::vector<Expected>>& { return expected.get(); }, nullptr);
}

CaseResult call_runner(const RunnerCall& call, const std::vector<std::vector<Buffer>>& sets,
                       const std::function<const std::vector<std::vector<Expected>>&()>& expected,
                       protocol::Reply* reply) {
  const Task& task = call.task;
  const Case& c = call.c;
  CaseResult r;
  r.c = c;
  SharedBuffers shared(sets);
  const protocol::Spec spec = make_spec(call, sets, shared);
  int result_pipe[2];
  if (pipe2(result_pipe, O_CLOEXEC) != 0) throw std::runtime_error("cannot create a pipe");
  ProcessOptions opts;
  opts.argv = {call.toolchain.runner().string(), "--spec", protocol::dump_spec(spec)};
  opts.inherit = {{shared.fd(), protocol::kBuffersFd}, {result_pipe[1], protocol::kReplyFd}};
  opts.result_fd = result_pipe[0];
  opts.close_after_spawn = {result_pipe[1]};
  opts.timeout = call.timeout;
  opts.max_output_bytes = call.max_output_bytes;
  opts.max_result_bytes = protocol::kMaxReplyBytes;
  ProcessResult p = run_process(opts);
  close(result_pipe[0]);
  const std::vector<std::vector<Expected>>& expected_sets = expected();
  const auto shown_output = output_lines(p.output, p.output_bytes);
  if (p.result_overflow) {
    r.verdict = Verdict::runner_error;
    r.message =
        fmt::format("the runner's reply at {} was longer than {}: did solve write to file descriptor {}?", c.label(),
                    describe_bytes(static_cast<double>(protocol::kMaxReplyBytes)), protocol::kReplyFd);
    return r;
  }
  switch (p.status) {
    case ProcessResult::Status::timed_out:
      r.verdict = Verdict::timeout;
      r.message = fmt::format(
          "did not finish within {:.0f} s at {}: a loop that never ends, or a barrier "
          "that not every thread of the block reaches?",
          call.timeout.count() / 1000.0, c.label());
      if (p.output_bytes > 0) r.details = shown_output;
      return r;
    case ProcessResult::Status::output_flood:
      r.verdict = Verdict::output_flood;
      r.message = fmt::format("printed more than {} at {} and was stopped: remove debugging output",
                              describe_bytes(static_cast<double>(call.max_output_bytes)), c.label());
      r.details = shown_output;
      return r;
    case ProcessResult::Status::spawn_failed:
      r.verdict = Verdict::runner_error;
      r.message = "cannot start the runner: " + p.error + " (is cudalab installed completely?)";
      return r;
    case ProcessResult::Status::signaled:
      r.verdict = Verdict::crash;
      r.message = fmt::format("crashed with {} at {}", describe_signal(p.signal), c.label());
      r.details = shown_output;
      return r;
    case ProcessResult::Status::exited:
      break;
  }
  if (p.result.empty()) {
    r.verdict = Verdict::crash;
    r.message =
        fmt::format("the program exited with code {} during solve at {} (did it call exit()?)", p.exit_code, c.label());
    r.details = shown_output;
    return r;
  }
  // The reply comes from a process that ran student code: read it as untrusted input.
  protocol::Reply result;
  try {
    result = protocol::parse_reply(p.result);
  } catch (const protocol::ProtocolError& e) {
    r.verdict = Verdict::runner_error;
    r.message = fmt::format("the runner's reply at {} is unusable ({}); did solve write to file descriptor {}?",
                            c.label(), e.what(), protocol::kReplyFd);
    r.details = shown_output;
    return r;
  }
  r.solve_ms = result.solve_ms;
  r.records = result.records;
  r.launches_recorded = result.launches_recorded;
  if (p.output_bytes > 0) {
    r.details.emplace_back("the program printed:");
    r.details.insert(r.details.end(), shown_output.begin(), shown_output.end());
  }
  const std::string& message = result.message;
  switch (result.status) {
    case protocol::Status::ok:
      break;
    case protocol::Status::exception:
      if (message.rfind("not implemented yet", 0) == 0) {
        r.verdict = Verdict::not_implemented;
        r.message = message;
      } else {
        r.verdict = Verdict::exception;
        r.message = fmt::format("solve threw an exception at {}: {}", c.label(), message);
      }
      if (const auto& f = result.records.first_failed_call) r.hints.push_back(describe_failed_call(*f));
      return r;
    case protocol::Status::cuda_error:
      r.verdict = Verdict::cuda_error;
      // The first runtime call that failed says more than the error that surfaced at the end.
      if (const auto& f = result.records.first_failed_call) {
        r.message = fmt::format("{} at {}: {}", f->error, c.label(), describe_failed_call(*f));
        r.details.insert(r.details.begin(),
                         fmt::format("after solve returned, the runtime still reported {}", result.cuda_error));
      } else {
        r.message = fmt::format("{} at {}: {}", result.cuda_error, c.label(), message);
      }
      if (auto hint = host_memory_hint(task.info(), result)) r.hints.push_back(*hint);
      return r;
    case protocol::Status::missing_symbol:
      r.verdict = Verdict::wrong_signature;
      r.message = "no function `" + task.info().signature.text() + "` in the file: the signature must match exactly";
      for (const auto& s : solve_like_symbols(call.module)) r.hints.push_back("the file defines " + s);
      return r;
    case protocol::Status::load_error:
      r.verdict = Verdict::load_error;
      r.message = "cannot load the compiled module: " + message;
      return r;
    case protocol::Status::no_device:
    case protocol::Status::runner_error:
      r.verdict = Verdict::runner_error;
      r.message = std::string(protocol::status_name(result.status)) + ": " + message;
      return r;
  }
  if (reply != nullptr) *reply = result;
  // Every input set is judged: in a benchmark, each holds the result of its last timed call.
  for (std::size_t set = 0; set < sets.size(); ++set) {
    std::vector<Buffer> after = sets[set];
    shared.copy_out(set, after);
    judge_outputs(task, c, sets[set], after, expected_sets.at(set), r);
    if (r.verdict != Verdict::passed) break;
  }
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
  bool stop = false;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (stop) {
      CaseResult skipped;
      skipped.c = cases[i];
      skipped.verdict = Verdict::skipped;
      skipped.message = "not run after the failure above";
      result.cases.push_back(std::move(skipped));
      continue;
    }
    if (progress) progress(task, i, cases.size(), cases[i]);
    CaseResult r = run_case(task, toolchain, result.compile.module, cases[i],
                            case_seed(options.seed, task.info(), cases[i]), options);
    // These do not depend on the size: one report is enough.
    switch (r.verdict) {
      case Verdict::timeout:
      case Verdict::not_implemented:
      case Verdict::wrong_signature:
      case Verdict::load_error:
      case Verdict::runner_error:
        stop = true;
        break;
      default:
        break;
    }
    result.cases.push_back(std::move(r));
  }
  std::vector<CaseOutcome> outcomes;
  for (const auto& c : result.cases) {
    if (c.verdict == Verdict::passed || c.verdict == Verdict::wrong_output) {
      outcomes.push_back({c.c, c.verdict == Verdict::passed});
    }
  }
  if (auto hint = size_pattern_hint(outcomes)) result.hints.push_back(*hint);
  const CaseResult* failure = result.first_failure();
  result.verdict = failure == nullptr ? Verdict::passed : failure->verdict;
  return result;
}

}  // namespace cudalab
