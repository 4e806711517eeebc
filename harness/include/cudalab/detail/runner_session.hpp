// The runner client: one session with the untrusted runner process — the shared buffer file, the
// sandbox, the reply pipe, the gate and the clock watch — and the reading of its replies. Internal
// to the checking and timing stages (check, bench and explain all run the runner through it).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "cudalab/case_data.hpp"
#include "cudalab/parallel.hpp"
#include "cudalab/process.hpp"
#include "cudalab/protocol.hpp"
#include "cudalab/runner_call.hpp"
#include "cudalab/sandbox.hpp"

namespace cudalab {

/// The input sets of one runner call, by reference.
using SetViews = InputSets;

/// Each buffer starts at a multiple of this in the shared file (as cudaMalloc aligns).
inline constexpr std::size_t kBufferAlignment = 256;

/// The buffers of one case (bench: one or more input sets) or of a check's cases (one set each) in
/// a shared memory file, mapped here and inherited by the runner; after them, room for each witness
/// call's outputs (bench). With `page_per_set`, each set starts on a page of its own, so that the
/// runner can leave only the running case's pages reachable.
class SharedBuffers {
 public:
  /// The file with `sets`' buffers copied in, and room for `witnesses` witness calls' outputs.
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
    fd_.reset(memfd_create("cudalab-buffers", MFD_CLOEXEC));  // closed by fd_ if this constructor throws
    if (fd_.get() < 0 || ftruncate(fd_.get(), static_cast<off_t>(std::max<std::size_t>(total_, 1))) != 0) {
      throw std::system_error(errno, std::generic_category(), "cannot create shared buffers");
    }
    void* p = mmap(nullptr, std::max<std::size_t>(total_, 1), PROT_READ | PROT_WRITE, MAP_SHARED, fd_.get(), 0);
    if (p == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "cannot map shared buffers");
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
  /// Where witness `w`'s copy of buffer `i` starts in the file.
  [[nodiscard]] std::size_t witness_offset(std::size_t w, std::size_t i) const { return witness_offsets_[w][i]; }
  /// The file's descriptor, which the runner inherits.
  [[nodiscard]] int fd() const { return fd_.get(); }
  /// Where buffer `i` of set `set` starts in the file.
  [[nodiscard]] std::size_t offset(std::size_t set, std::size_t i) const { return offsets_[set][i]; }
  /// How many input sets the file holds.
  [[nodiscard]] std::size_t sets() const { return offsets_.size(); }
  /// The file's size in bytes.
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
  Fd fd_;
  std::byte* base_ = nullptr;
};

/// solve's arguments at case `c`: the buffers in order, the ints from the case's dimensions.
std::vector<protocol::Arg> args_at(const TaskInfo& info, const Case& c);

/// The spec of a run on `sets` of `shared`, from `first_set` on; set i is run at `cases[i]` (bench:
/// one case for all its sets).
protocol::Spec make_spec(const RunnerCall& call, const SetViews& sets, const SharedBuffers& shared,
                         const std::vector<const Case*>& cases, std::size_t first_set = 0);

/// What one runner process did: how it ended, and its output as a report shows it.
struct RunnerProcess {
  ProcessResult p;                        ///< how the process ended, its output and its replies
  std::vector<std::string> shown_output;  ///< its output as a report shows it (output_lines)
  std::size_t max_result_bytes = 0;       ///< the cap on its replies, all together
};

/// Starts the runner on `spec` inside `box` and waits for it. `clock` (bench) gets the marks of
/// the clock pipe; `on_reply` is called as each reply line arrives (check: one per case). With
/// `at_gate` (bench, Spec::gate), the runner stops once it is ready to time (and, in rounds, after
/// each round), and `at_gate` runs before it goes on, its answer sent to the runner (kGateFd).
RunnerProcess spawn_runner(const RunnerSandbox& box, const RunnerCall& call, const protocol::Spec& spec,
                           const SharedBuffers& shared, ParentClock* clock, std::size_t cases,
                           const std::function<void()>& on_reply = {}, const std::function<char(int)>& at_gate = {});

/// The verdict of a case whose process ended before replying for it (or whose reply overflowed):
/// a timeout, a crash, a flood of output, an exit.
CaseResult ended_without_reply(const RunnerSandbox& box, const RunnerCall& call, const RunnerProcess& run,
                               const Case& c);

/// Fills `r` from a reply; false when the reply's status is a failure (then `r` says which).
bool take_reply(const RunnerCall& call, const protocol::Reply& result, CaseResult& r);

/// What `output` shows in a report: "| " before each line, at most a dozen, then how much there
/// was in all; the runner's case markers left out. With `only_case`, only what was printed while
/// that case (its index in the process's spec) ran.
std::vector<std::string> output_lines(const std::string& output, std::size_t total_bytes,
                                      std::optional<std::size_t> only_case = {});

/// What the runner's process printed, after a case's details: all of it, or with `only_case` what
/// that case printed (nothing when it printed nothing).
void add_printed(const RunnerProcess& run, CaseResult& r, std::optional<std::size_t> only_case = {});

/// "the runner's reply at n=4 is unusable (…)".
CaseResult unusable_reply(const RunnerProcess& run, const Case& c, const protocol::ProtocolError& e);

/// What the sandbox stopped, named once per check whatever the verdict, so that reports and
/// gradebooks show it (each reply carries all its process has blocked so far).
void name_blocked(std::vector<std::string>& named, CaseResult& r);

/// The sandbox of one runner process into `box`; throws SetupError if it cannot be made (the
/// machine's fault: no submission code has run).
void make_box(const RunnerCall& call, std::optional<RunnerSandbox>& box);

}  // namespace cudalab
