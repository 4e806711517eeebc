// The runner's half of the sandbox (the parent's half is cudalab/sandbox.hpp). Once the device
// context exists and before the student's module is loaded (its constructors run at load), the
// runner locks itself down as the spec's protocol::Sandbox asks:
//
//   - no_new_privs;
//   - seccomp (libseccomp, on every thread): no new processes (fork, vfork, clone without
//     CLONE_THREAD, clone3 answers ENOSYS so that threads fall back to clone), no exec, no
//     sockets, no ptrace or other process's memory, no signals to other processes, no mounts,
//     namespaces, modules, keys, BPF, io_uring, memfd_create, raised limits, and no chmod, chown,
//     xattrs or file times by path (Landlock up to ABI 7 leaves those open). A blocked call traps:
//     the SIGSYS handler records it by name and makes it return -EPERM, so the program goes on;
//   - Landlock (as far as the kernel's ABI goes): reading only the system's libraries, the CUDA
//     libraries, the libraries already loaded (one by one where they live under the project),
//     /proc/self, a few devices and the module; reading and writing only the private working
//     folder; no TCP bind or connect (ABI 4); no signals or abstract sockets beyond the sandbox
//     (ABI 6). Landlock before cuInit breaks it, which is why all this waits for the context.
//
// What was stopped is named: blocked_calls() lists the trapped system calls and the opens that
// the sandbox refused (interposers of open/fopen/… in the runner, which the module's calls reach
// first), for the reply's Records::blocked.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cudalab/protocol.hpp"

namespace cudalab::runner {

/// Applies every protection `spec` asks for, to every thread of the process. Returns nothing on
/// success (and at once when the spec does not enable the sandbox), else why a protection could
/// not be applied: the caller must then not load the module. Call it once.
[[nodiscard]] std::optional<std::string> lock_down(const protocol::Sandbox& spec);

/// Whether lock_down() has succeeded in this process.
[[nodiscard]] bool locked_down();

/// What the sandbox stopped since lock_down(), one line each, identical lines merged
/// ("fork (a new process), 40 times"), at most protocol::kMaxBlockedRecords.
[[nodiscard]] std::vector<std::string> blocked_calls();

}  // namespace cudalab::runner
