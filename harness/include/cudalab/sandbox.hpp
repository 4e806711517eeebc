// The sandbox around the runner, the process that loads untrusted student code: the parent's
// half. The runner's own half (harness/runner/sandbox.hpp) locks the process down once the device
// context exists, before the module loads; this half decides what it asks for and prepares the
// process it starts:
//
//   - resource limits: CPU time (the call's timeout, per usable CPU, plus a margin), file size
//     (64 MiB), open files, processes, and address space on the simulator only (on a GPU the
//     driver reserves about 13.7 GB of address space at cuInit, which any useful limit breaks);
//   - a clean environment built from an allow-list (PATH, LD_LIBRARY_PATH, sanitizer options,
//     CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER; HOME and TMPDIR in the working folder; LANG=C.UTF-8;
//     CUDA_CACHE_DISABLE=1; nothing named CUDALAB_* but the simulator's thread count, a number);
//   - an empty private working folder (the runner's working directory), removed afterwards;
//   - every fd of the parent closed (run_process does that for every child);
//   - what the runner must lock down (protocol::Sandbox): Landlock where the kernel has it
//     (files; TCP from ABI 4; signals and abstract sockets from ABI 6), seccomp where it has it.
//
// A kernel without Landlock or seccomp runs without it, and describe_sandbox() says so. Setting
// CUDALAB_NO_SANDBOX=1 turns all of it off (to debug the runner; never for grading).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "cudalab/process.hpp"
#include "cudalab/protocol.hpp"
#include "cudalab/toolchain.hpp"

namespace cudalab {

/// The largest file the runner may write (RLIMIT_FSIZE): past it the write raises SIGXFSZ.
inline constexpr std::uint64_t kSandboxFileSizeBytes = std::uint64_t{64} << 20;
/// A working folder left holding more than this is mentioned in the case's hints.
inline constexpr std::uint64_t kSandboxLeftoverBytes = std::uint64_t{4} << 20;

/// What this kernel offers the sandbox, probed once per process.
struct SandboxSupport {
  int landlock_abi = 0;          ///< 0: no Landlock
  std::string landlock_missing;  ///< why not, when landlock_abi is 0
  bool seccomp = false;          ///< seccomp filters that can trap a call
  std::string seccomp_missing;   ///< why not, when seccomp is false
};

/// The kernel's offer, probed on the first call (landlock_create_ruleset's ABI version, seccomp's
/// SECCOMP_GET_ACTION_AVAIL for SECCOMP_RET_TRAP).
const SandboxSupport& sandbox_support();

/// False when CUDALAB_NO_SANDBOX is set to anything but "" or "0": runner calls are not boxed.
bool sandbox_enabled();

/// The limits a runner call gets (ProcessOptions::limits), for a backend and a call's timeout.
ResourceLimits sandbox_limits(Backend backend, std::chrono::milliseconds timeout);

/// One line for reports and `cudalab check`: "sandbox: Landlock ABI 7 (files, TCP,
/// signals), seccomp (no new processes, no sockets, no ptrace, no exec), limits (CPU 130 s, file
/// 64 MiB, …), clean environment, private working folder", or what is missing, or "sandbox: off".
std::string describe_sandbox(Backend backend, std::chrono::milliseconds timeout);

/// What one runner call is boxed for.
struct SandboxOptions {
  Backend backend = Backend::sim;             ///< the runner's backend: the limits differ between GPU and simulator
  std::chrono::milliseconds timeout{60'000};  ///< the call's timeout, from which the CPU-time limit is set
  std::filesystem::path module;               ///< the only file beyond the system's that the runner may read
  std::string visible_devices;                ///< CUDA_VISIBLE_DEVICES for the runner; empty: as inherited
};

/// The box of one runner call: creates the private working folder on construction and removes it
/// on destruction (clean_up() does it earlier and says what was left). Disabled (no folder, no
/// limits, nothing locked down) when sandbox_enabled() is false.
class RunnerSandbox {
 public:
  /// Throws std::system_error when the working folder cannot be made.
  explicit RunnerSandbox(SandboxOptions options);
  RunnerSandbox(const RunnerSandbox&) = delete;
  RunnerSandbox& operator=(const RunnerSandbox&) = delete;
  ~RunnerSandbox();

  /// Whether the runner is boxed (sandbox_enabled() at construction).
  [[nodiscard]] bool enabled() const { return enabled_; }
  /// The private working folder; empty when disabled.
  [[nodiscard]] const std::filesystem::path& working_dir() const { return working_dir_; }

  /// Sets the runner's limits, environment and working directory.
  void apply(ProcessOptions& options) const;
  /// What the runner must lock down (Spec::sandbox).
  [[nodiscard]] protocol::Sandbox spec() const;
  /// Why the signal that ended the runner is the box's doing ("wrote a file larger than the 64 MiB
  /// the sandbox allows"), or nothing when it is not one of the box's limits.
  [[nodiscard]] std::optional<std::string> explain_signal(int signal) const;
  /// Removes the working folder (the runner must have ended). Returns a note for the report when
  /// the submission left more than kSandboxLeftoverBytes in it.
  std::optional<std::string> clean_up();

 private:
  SandboxOptions options_;
  bool enabled_ = false;
  std::filesystem::path working_dir_;
  ResourceLimits limits_;
};

}  // namespace cudalab
