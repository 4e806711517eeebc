// The runner's lockdown (sandbox.hpp): seccomp through libseccomp, Landlock through its system
// calls (constants defined here: the installed header may be older than the kernel), and the
// record of what was stopped, kept in fixed static storage so that a signal handler can add to it.
#undef _FORTIFY_SOURCE  // the open() interposers below must be plain definitions
#include "sandbox.hpp"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <seccomp.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <thread>

namespace cudalab::runner {

namespace {

// ---- What was stopped: fixed storage, async-signal-safe to add to ------------------------------

constexpr std::size_t kEntryBytes = 256;
constexpr std::size_t kMaxEntries = protocol::kMaxBlockedRecords - 1;  // one line is kept for "… more"

struct Entry {
  std::atomic<int> state{0};  // 0: free, 1: being written, 2: ready
  std::atomic<unsigned> count{0};
  char text[kEntryBytes];
};

Entry g_entries[kMaxEntries];
std::atomic<unsigned> g_used{0};
std::atomic<unsigned long> g_dropped{0};  // blocked calls that found no free entry
std::atomic<bool> g_locked{false};
static_assert(std::atomic<unsigned>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "the SIGSYS handler needs lock-free atomics");

bool same_text(const char* a, const char* b) {
  std::size_t i = 0;
  for (; i < kEntryBytes && a[i] == b[i]; ++i) {
    if (a[i] == '\0') return true;
  }
  return false;
}

/// Adds one blocked action (or counts it again). Async-signal-safe: atomics and plain loops only.
void note_blocked(const char* text) {
  const unsigned used = std::min<unsigned>(g_used.load(), kMaxEntries);
  for (unsigned i = 0; i < used; ++i) {
    if (g_entries[i].state.load() == 2 && same_text(g_entries[i].text, text)) {
      g_entries[i].count.fetch_add(1);
      return;
    }
  }
  const unsigned i = g_used.fetch_add(1);
  if (i >= kMaxEntries) {
    g_dropped.fetch_add(1);
    return;
  }
  Entry& e = g_entries[i];
  e.state.store(1);
  std::size_t n = 0;
  for (; n + 1 < kEntryBytes && text[n] != '\0'; ++n) e.text[n] = text[n];
  e.text[n] = '\0';
  e.count.store(1);
  e.state.store(2);
}

/// A line built in place, without allocating (for the signal handler).
class Line {
 public:
  Line& operator<<(const char* s) {
    while (s != nullptr && *s != '\0' && size_ + 1 < kEntryBytes) text_[size_++] = *s++;
    text_[size_] = '\0';
    return *this;
  }
  Line& operator<<(long long v) {
    char digits[24];
    int n = 0;
    const bool negative = v < 0;
    unsigned long long u = negative ? 0ULL - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
    do {
      digits[n++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u != 0 && n < 22);
    if (negative) digits[n++] = '-';
    char out[24];
    for (int i = 0; i < n; ++i) out[i] = digits[n - 1 - i];
    out[n] = '\0';
    return *this << static_cast<const char*>(out);
  }
  [[nodiscard]] const char* c_str() const { return text_; }

 private:
  char text_[kEntryBytes] = {};
  std::size_t size_ = 0;
};

// ---- seccomp -------------------------------------------------------------------------------------

/// If the GPU driver needed a UNIX socket after the context exists (it has not been seen to),
/// setting this lets AF_UNIX sockets through while every other family stays blocked.
constexpr bool kAllowUnixSockets = false;

// clone() flags that make a new namespace: refused even with CLONE_THREAD.
constexpr unsigned long kNamespaceFlags =
    CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET;

/// How a blocked call's arguments decide whether it traps.
enum class When {
  always,
  new_process,    // clone: without CLONE_THREAD, or with a namespace flag
  other_process,  // kill, tgkill, …: the first argument is not this process
  other_family,   // socket: any family (or, with kAllowUnixSockets, any but AF_UNIX)
  new_limit,      // prlimit64 with a new limit (its third argument)
  with_path,      // utimensat with a path (its second argument); futimens on an open fd passes none
};

struct Blocked {
  long nr;
  const char* name;
  const char* why;  // shown after the name; may be null
  When when;
};

// Every system call the filter traps, with the words the report uses. Numbers come from the
// build's headers; a call that this architecture does not have is left out.
const Blocked kBlocked[] = {
#ifdef SYS_fork
    {SYS_fork, "fork", "a new process", When::always},
#endif
#ifdef SYS_vfork
    {SYS_vfork, "fork", "a new process", When::always},
#endif
    {SYS_clone, "fork", "a new process", When::new_process},
    {SYS_execve, "execve", "running another program", When::always},
    {SYS_execveat, "execve", "running another program", When::always},
    {SYS_socket, "socket", "a network connection", When::other_family},
    {SYS_ptrace, "ptrace", "inspecting another process", When::always},
    {SYS_process_vm_readv, "process_vm_readv", "another process's memory", When::always},
    {SYS_process_vm_writev, "process_vm_writev", "another process's memory", When::always},
    {SYS_kill, "kill", nullptr, When::other_process},
    {SYS_tkill, "kill", nullptr, When::other_process},
    {SYS_tgkill, "kill", nullptr, When::other_process},
    {SYS_rt_sigqueueinfo, "kill", nullptr, When::other_process},
    {SYS_rt_tgsigqueueinfo, "kill", nullptr, When::other_process},
#ifdef SYS_pidfd_open
    {SYS_pidfd_open, "pidfd_open", "reaching another process", When::always},
#endif
#ifdef SYS_pidfd_send_signal
    {SYS_pidfd_send_signal, "kill", "a signal through a pidfd", When::always},
#endif
#ifdef SYS_pidfd_getfd
    {SYS_pidfd_getfd, "pidfd_getfd", "another process's files", When::always},
#endif
    {SYS_mount, "mount", nullptr, When::always},
    {SYS_umount2, "umount", nullptr, When::always},
    {SYS_pivot_root, "pivot_root", nullptr, When::always},
    {SYS_chroot, "chroot", nullptr, When::always},
    {SYS_setns, "setns", "another namespace", When::always},
    {SYS_unshare, "unshare", "a new namespace", When::always},
    {SYS_bpf, "bpf", nullptr, When::always},
    {SYS_kexec_load, "kexec_load", nullptr, When::always},
#ifdef SYS_kexec_file_load
    {SYS_kexec_file_load, "kexec_file_load", nullptr, When::always},
#endif
    {SYS_init_module, "init_module", "loading a kernel module", When::always},
    {SYS_finit_module, "finit_module", "loading a kernel module", When::always},
    {SYS_delete_module, "delete_module", "removing a kernel module", When::always},
    {SYS_keyctl, "keyctl", "the kernel's key store", When::always},
    {SYS_add_key, "add_key", "the kernel's key store", When::always},
    {SYS_request_key, "request_key", "the kernel's key store", When::always},
    {SYS_reboot, "reboot", nullptr, When::always},
    {SYS_swapon, "swapon", nullptr, When::always},
    {SYS_swapoff, "swapoff", nullptr, When::always},
    {SYS_memfd_create, "memfd_create", nullptr, When::always},
    {SYS_personality, "personality", nullptr, When::always},
#ifdef SYS_iopl
    {SYS_iopl, "iopl", "hardware I/O ports", When::always},
#endif
#ifdef SYS_ioperm
    {SYS_ioperm, "ioperm", "hardware I/O ports", When::always},
#endif
    {SYS_open_by_handle_at, "open_by_handle_at", "opening a file past its path", When::always},
#ifdef SYS_io_uring_setup
    {SYS_io_uring_setup, "io_uring_setup", nullptr, When::always},
    {SYS_io_uring_enter, "io_uring_enter", nullptr, When::always},
    {SYS_io_uring_register, "io_uring_register", nullptr, When::always},
#endif
#ifdef SYS_userfaultfd
    {SYS_userfaultfd, "userfaultfd", nullptr, When::always},
#endif
#ifdef SYS_setrlimit
    {SYS_setrlimit, "setrlimit", "changing a limit of the sandbox", When::always},
#endif
    {SYS_prlimit64, "setrlimit", "changing a limit of the sandbox", When::new_limit},
// What Landlock (up to ABI 7) leaves open on files anywhere, and a runner started as root
// could do to the project or the gradebook: permissions, owners, attributes, times.
#ifdef SYS_chmod
    {SYS_chmod, "chmod", "changing a file's permissions", When::always},
#endif
    {SYS_fchmodat, "chmod", "changing a file's permissions", When::always},
#ifdef SYS_fchmodat2
    {SYS_fchmodat2, "chmod", "changing a file's permissions", When::always},
#endif
#ifdef SYS_chown
    {SYS_chown, "chown", "changing a file's owner", When::always},
#endif
#ifdef SYS_lchown
    {SYS_lchown, "chown", "changing a file's owner", When::always},
#endif
    {SYS_fchownat, "chown", "changing a file's owner", When::always},
    {SYS_setxattr, "setxattr", "changing a file's attributes", When::always},
    {SYS_lsetxattr, "setxattr", "changing a file's attributes", When::always},
    {SYS_removexattr, "removexattr", "changing a file's attributes", When::always},
    {SYS_lremovexattr, "removexattr", "changing a file's attributes", When::always},
#ifdef SYS_utime
    {SYS_utime, "utime", "changing a file's times", When::always},
#endif
#ifdef SYS_utimes
    {SYS_utimes, "utime", "changing a file's times", When::always},
#endif
#ifdef SYS_futimesat
    {SYS_futimesat, "utime", "changing a file's times", When::always},
#endif
    {SYS_utimensat, "utime", "changing a file's times", When::with_path},
    {SYS_settimeofday, "settimeofday", "setting the clock", When::always},
    {SYS_clock_settime, "clock_settime", "setting the clock", When::always},
    {SYS_sethostname, "sethostname", nullptr, When::always},
    {SYS_setdomainname, "setdomainname", nullptr, When::always},
};

/// The arguments of the trapped call, from the saved registers.
struct TrappedCall {
  long nr;
  unsigned long long args[6];
};

/// Describes a trapped call; async-signal-safe.
void describe_trap(const TrappedCall& call, Line& line) {
  for (const Blocked& b : kBlocked) {
    if (b.nr != call.nr) continue;
    if (b.nr == SYS_clone && (call.args[0] & CLONE_THREAD) != 0) {
      line << "clone (a new namespace)";
      return;
    }
    line << b.name;
    if (b.when == When::other_process) {
      // kill(pid, sig), tgkill(tgid, tid, sig), rt_sigqueueinfo(tgid, sig, info), …
      const bool signal_third = b.nr == SYS_tgkill || b.nr == SYS_rt_tgsigqueueinfo;
      const auto target = static_cast<int>(call.args[0]);
      const auto sig = static_cast<int>(signal_third ? call.args[2] : call.args[1]);
      line << " (signal " << static_cast<long long>(sig) << " to ";
      if (target > 0) {
        line << "process " << static_cast<long long>(target) << ", outside the sandbox)";
      } else {
        line << (target == -1 ? "every process" : "a process group") << ", outside the sandbox)";
      }
      return;
    }
    if (b.why != nullptr) line << " (" << b.why << ")";
    return;
  }
  line << "system call " << static_cast<long long>(call.nr);
}

void on_sigsys(int /*sig*/, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  auto* uc = static_cast<ucontext_t*>(context);
  TrappedCall call{info->si_syscall, {}};
#if defined(__x86_64__)
  const int regs[6] = {REG_RDI, REG_RSI, REG_RDX, REG_R10, REG_R8, REG_R9};
  for (int i = 0; i < 6; ++i) call.args[i] = static_cast<unsigned long long>(uc->uc_mcontext.gregs[regs[i]]);
  uc->uc_mcontext.gregs[REG_RAX] = -EPERM;
#elif defined(__aarch64__)
  for (int i = 0; i < 6; ++i) call.args[i] = uc->uc_mcontext.regs[i];
  uc->uc_mcontext.regs[0] = static_cast<unsigned long long>(-EPERM);
#else
#error "the SIGSYS handler knows the registers of x86-64 and AArch64 only"
#endif
  Line line;
  describe_trap(call, line);
  note_blocked(line.c_str());
  errno = saved_errno;
}

std::optional<std::string> install_sigsys_handler() {
  struct sigaction action {};
  action.sa_sigaction = on_sigsys;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_SIGINFO;
  if (sigaction(SIGSYS, &action, nullptr) != 0) return std::string("cannot handle SIGSYS: ") + std::strerror(errno);
  // A thread that blocks SIGSYS would be killed by a trap rather than told no: unblock it here.
  sigset_t sys;
  sigemptyset(&sys);
  sigaddset(&sys, SIGSYS);
  pthread_sigmask(SIG_UNBLOCK, &sys, nullptr);
  return std::nullopt;
}

std::optional<std::string> apply_seccomp() {
  struct Filter {
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    ~Filter() {
      if (ctx != nullptr) seccomp_release(ctx);
    }
  } filter;
  if (filter.ctx == nullptr) return std::string("seccomp_init failed");
  const auto failed = [](const char* what, int rc) {
    return std::string("seccomp: ") + what + ": " + std::strerror(rc < 0 ? -rc : rc);
  };
  // Another architecture's system calls (int 0x80 on x86-64) end the process; every thread gets
  // the filter (TSYNC), threads of the CUDA runtime included.
  if (int rc = seccomp_attr_set(filter.ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS); rc != 0)
    return failed("foreign architectures", rc);
  if (int rc = seccomp_attr_set(filter.ctx, SCMP_FLTATR_CTL_TSYNC, 1); rc != 0) return failed("every thread", rc);
  const auto self = static_cast<scmp_datum_t>(static_cast<std::uint32_t>(getpid()));
  for (const Blocked& b : kBlocked) {
    int rc = 0;
    const auto nr = static_cast<int>(b.nr);
    switch (b.when) {
      case When::always:
        rc = seccomp_rule_add(filter.ctx, SCMP_ACT_TRAP, nr, 0);
        break;
      case When::new_process:
        // The conditions do not overlap where the actions differ. A clone with CLONE_VFORK comes
        // from posix_spawn (system, popen), which blocks every signal first: a trap would kill
        // the process, so it gets EPERM, and the interposers below name it.
        rc = seccomp_rule_add(filter.ctx, SCMP_ACT_TRAP, nr, 1,
                              SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_THREAD | CLONE_VFORK, 0));
        if (rc == 0) {
          rc = seccomp_rule_add(filter.ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
                                SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_VFORK, CLONE_VFORK));
        }
        for (unsigned long flag = 1; rc == 0 && flag != 0; flag <<= 1) {
          if ((kNamespaceFlags & flag) == 0) continue;
          rc = seccomp_rule_add(filter.ctx, SCMP_ACT_TRAP, nr, 1,
                                SCMP_A0_64(SCMP_CMP_MASKED_EQ, flag | CLONE_VFORK, flag));
        }
        break;
      case When::other_process:
        rc = seccomp_rule_add(filter.ctx, SCMP_ACT_TRAP, nr, 1, SCMP_A0_32(SCMP_CMP_NE, self));
        break;
      case When::other_family:
        rc = kAllowUnixSockets ? seccomp_rule_add(filter.ctx, SCMP_ACT_TRAP, nr, 1, SCMP_A0_32(SCMP_CMP_NE, AF_UNIX))
                               : seccomp_rule_add(filter.ctx, SCMP_ACT_TRAP, nr, 0);
        break;
      case When::new_limit:
        rc = seccomp_rule_add(filter.ctx, SCMP_ACT_TRAP, nr, 1, SCMP_A2_64(SCMP_CMP_NE, 0));
        break;
      case When::with_path:
        rc = seccomp_rule_add(filter.ctx, SCMP_ACT_TRAP, nr, 1, SCMP_A1_64(SCMP_CMP_NE, 0));
        break;
    }
    if (rc != 0) return failed(b.name, rc);
  }
  // glibc's pthread_create tries clone3 first and falls back to clone on ENOSYS; clone3's flags
  // sit in memory where a filter cannot read them, so it is refused as if unknown.
#ifdef SYS_clone3
  if (int rc = seccomp_rule_add(filter.ctx, SCMP_ACT_ERRNO(ENOSYS), SYS_clone3, 0); rc != 0)
    return failed("clone3", rc);
#endif
  if (int rc = seccomp_load(filter.ctx); rc != 0) return failed("loading the filter", rc);
  return std::nullopt;
}

// ---- Landlock --------------------------------------------------------------------------------------

#ifndef SYS_landlock_create_ruleset
constexpr long kSysCreateRuleset = 444;  // the same number on every architecture
constexpr long kSysAddRule = 445;
constexpr long kSysRestrictSelf = 446;
#else
constexpr long kSysCreateRuleset = SYS_landlock_create_ruleset;
constexpr long kSysAddRule = SYS_landlock_add_rule;
constexpr long kSysRestrictSelf = SYS_landlock_restrict_self;
#endif

// uapi/linux/landlock.h, up to ABI 8; defined here because the build's header may be older.
constexpr std::uint32_t kCreateRulesetVersion = 1U << 0;
constexpr std::uint32_t kRestrictSelfTsync = 1U << 3;  // ABI 8
constexpr int kRulePathBeneath = 1;

constexpr std::uint64_t kFsExecute = 1ULL << 0;
constexpr std::uint64_t kFsWriteFile = 1ULL << 1;
constexpr std::uint64_t kFsReadFile = 1ULL << 2;
constexpr std::uint64_t kFsReadDir = 1ULL << 3;
constexpr std::uint64_t kFsRemoveDir = 1ULL << 4;
constexpr std::uint64_t kFsRemoveFile = 1ULL << 5;
constexpr std::uint64_t kFsMakeChar = 1ULL << 6;
constexpr std::uint64_t kFsMakeDir = 1ULL << 7;
constexpr std::uint64_t kFsMakeReg = 1ULL << 8;
constexpr std::uint64_t kFsMakeSock = 1ULL << 9;
constexpr std::uint64_t kFsMakeFifo = 1ULL << 10;
constexpr std::uint64_t kFsMakeBlock = 1ULL << 11;
constexpr std::uint64_t kFsMakeSym = 1ULL << 12;
constexpr std::uint64_t kFsRefer = 1ULL << 13;                 // ABI 2
constexpr std::uint64_t kFsTruncate = 1ULL << 14;              // ABI 3
constexpr std::uint64_t kFsIoctlDev = 1ULL << 15;              // ABI 5
constexpr std::uint64_t kNetBindTcp = 1ULL << 0;               // ABI 4
constexpr std::uint64_t kNetConnectTcp = 1ULL << 1;            // ABI 4
constexpr std::uint64_t kScopeAbstractUnixSocket = 1ULL << 0;  // ABI 6
constexpr std::uint64_t kScopeSignal = 1ULL << 1;              // ABI 6

// What a rule on a file (not a folder) may grant.
constexpr std::uint64_t kFileRights = kFsExecute | kFsWriteFile | kFsReadFile | kFsTruncate | kFsIoctlDev;
constexpr std::uint64_t kRead = kFsReadFile | kFsReadDir;
constexpr std::uint64_t kReadExec = kRead | kFsExecute;
constexpr std::uint64_t kDevice = kFsReadFile | kFsWriteFile | kFsIoctlDev;
// The working folder: everything but executing and making devices or sockets.
constexpr std::uint64_t kWorkFolder = kRead | kFsWriteFile | kFsRemoveDir | kFsRemoveFile | kFsMakeDir | kFsMakeReg |
                                      kFsMakeFifo | kFsMakeSym | kFsRefer | kFsTruncate;

struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;  // ABI 4
  std::uint64_t scoped;              // ABI 6
};

struct __attribute__((packed)) PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

std::uint64_t handled_fs(int abi) {
  std::uint64_t fs = (kFsMakeSym << 1) - 1;  // ABI 1: execute … make_sym
  if (abi >= 2) fs |= kFsRefer;
  if (abi >= 3) fs |= kFsTruncate;
  if (abi >= 5) fs |= kFsIoctlDev;
  return fs;
}

// Folders that no rule may open up whole, whatever else they hold.
const char* const kNeverWhole[] = {"/", "/usr", "/home", "/root", "/tmp", "/var", "/etc", "/opt", "/srv", "/mnt"};

// System library folders, read and execute; those that do not exist are skipped.
const char* const kSystemLibraryDirs[] = {"/lib",
                                          "/lib64",
                                          "/usr/lib",
                                          "/usr/lib64",
                                          "/usr/local/lib",
                                          "/usr/lib/x86_64-linux-gnu",
                                          "/usr/lib/aarch64-linux-gnu"};
// What glibc and the runtimes may read besides: the loader's cache, time zones, the CPUs, NUMA
// nodes and clock sources (glibc's CPU count, CUPTI's timestamps), and what the GPU driver and
// CUPTI were seen reading on an H100 after the context existed (driver 580).
const char* const kSystemReadable[] = {"/etc/ld.so.cache",
                                       "/etc/localtime",
                                       "/usr/share/zoneinfo",
                                       "/sys/devices/system",
                                       "/proc/self",
                                       "/proc/driver/nvidia",
                                       "/proc/cpuinfo",
                                       "/proc/meminfo",
                                       "/proc/stat",
                                       "/proc/sys/kernel/osrelease",
                                       "/proc/sys/vm/mmap_min_addr"};
const char* const kPlainDevices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"};

std::string canonical(const std::string& path) {
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : path;
}

/// Whether `inner` is `outer` or lies beneath it.
bool beneath(const std::string& inner, const std::string& outer) {
  if (outer == "/") return true;
  return inner == outer ||
         (inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 && inner[outer.size()] == '/');
}

/// The CUDA libraries whose folders the driver may load more from (the PTX JIT compiler).
bool is_cuda_library(const std::string& file) {
  const std::string name = file.substr(file.rfind('/') + 1);
  for (const char* prefix : {"libcuda", "libcupti", "libnvidia", "libnvrtc", "libnvJitLink", "libnvptx"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

class Ruleset {
 public:
  Ruleset(int abi, std::vector<std::string> protected_dirs) : abi_(abi), protected_(std::move(protected_dirs)) {
    for (auto& p : protected_) p = canonical(p);
    handled_fs_ = handled_fs(abi);
    RulesetAttr attr{handled_fs_, abi >= 4 ? kNetBindTcp | kNetConnectTcp : 0,
                     abi >= 6 ? kScopeAbstractUnixSocket | kScopeSignal : 0};
    // Older kernels reject a larger struct only when the fields they do not know are set; still,
    // pass the size of the ABI's own struct.
    const std::size_t size = abi >= 6 ? sizeof attr : abi >= 4 ? 2 * sizeof(std::uint64_t) : sizeof(std::uint64_t);
    fd_ = static_cast<int>(syscall(kSysCreateRuleset, &attr, size, 0));
    if (fd_ < 0) error_ = std::string("cannot create a Landlock ruleset: ") + std::strerror(errno);
  }
  Ruleset(const Ruleset&) = delete;
  Ruleset& operator=(const Ruleset&) = delete;
  ~Ruleset() = default;  // the fd stays open: a late restriction signal still finds it

  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] const std::string& error() const { return error_; }

  /// Grants `access` beneath `path` (a folder) or on it (a file). A missing optional path is
  /// skipped; a missing required one is an error.
  void allow(const std::string& path, std::uint64_t access, bool required = false) {
    if (fd_ < 0 || !error_.empty()) return;
    const int target = ::open(path.c_str(), O_PATH | O_CLOEXEC);
    if (target < 0) {
      if (required) error_ = "cannot open " + path + " for a Landlock rule: " + std::strerror(errno);
      return;
    }
    struct stat st {};
    if (fstat(target, &st) != 0) {
      close(target);
      return;
    }
    if (!S_ISDIR(st.st_mode)) access &= kFileRights;
    PathBeneathAttr rule{access & handled_fs_, target};
    if (rule.allowed_access != 0 && syscall(kSysAddRule, fd_, kRulePathBeneath, &rule, 0) != 0) {
      error_ = "cannot add a Landlock rule for " + path + ": " + std::strerror(errno);
    }
    close(target);
  }

  /// Grants a whole folder only where that opens up nothing protected; returns whether it did.
  bool allow_folder(const std::string& dir, std::uint64_t access) {
    const std::string real = canonical(dir);
    for (const char* never : kNeverWhole) {
      if (real == never) return false;
    }
    for (const auto& p : protected_) {
      if (beneath(p, real) || beneath(real, p)) return false;
    }
    allow(real, access);
    return true;
  }

 private:
  int abi_;
  std::vector<std::string> protected_;
  std::uint64_t handled_fs_ = 0;
  int fd_ = -1;
  std::string error_;
};

int g_ruleset_fd = -1;

int landlock_abi() {
  const long abi = syscall(kSysCreateRuleset, nullptr, 0, kCreateRulesetVersion);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

/// The libraries loaded so far: their files, and the CUDA ones' folders.
void allow_loaded_libraries(Ruleset& rules) {
  std::vector<std::string> files;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] == '/') {
          static_cast<std::vector<std::string>*>(out)->emplace_back(info->dlpi_name);
        }
        return 0;
      },
      &files);
  for (const auto& file : files) {
    rules.allow(file, kReadExec);
    if (is_cuda_library(file)) {
      const std::string real = canonical(file);
      rules.allow_folder(real.substr(0, real.rfind('/')), kReadExec);
    }
  }
  rules.allow(canonical("/proc/self/exe"), kReadExec);
}

void allow_devices(Ruleset& rules) {
  for (const char* dev : kPlainDevices) rules.allow(dev, kFsReadFile | kFsWriteFile);
  DIR* dir = opendir("/dev");
  if (dir == nullptr) return;
  while (const dirent* e = readdir(dir)) {
    // /dev/nvidiactl, /dev/nvidia0…, /dev/nvidia-uvm, /dev/nvidia-uvm-tools, /dev/nvidia-caps/
    if (std::strncmp(e->d_name, "nvidia", 6) == 0) rules.allow(std::string("/dev/") + e->d_name, kDevice | kFsReadDir);
  }
  closedir(dir);
}

// ---- Landlock on threads that exist already ---------------------------------------------------------
// Before ABI 8 landlock_restrict_self() restricts the calling thread only, and the CUDA runtime
// has threads by now. Each is asked, by a signal, to restrict itself (as libpsx does for setuid).

constexpr std::size_t kMaxThreads = 512;
struct ThreadSlot {
  std::atomic<pid_t> tid{0};
  std::atomic<int> result{0};  // 0: pending; 1: restricted; otherwise -errno
};
ThreadSlot g_threads[kMaxThreads];
std::atomic<int> g_restrict_signal{0};

pid_t this_tid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

void on_restrict_signal(int, siginfo_t* info, void*) {
  const int saved_errno = errno;
  if (info->si_code != SI_TKILL || info->si_pid != getpid()) return;  // not ours: nothing to do
  const pid_t tid = this_tid();
  (void)prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  const long rc = syscall(kSysRestrictSelf, g_ruleset_fd, 0);
  const int result = rc == 0 ? 1 : -errno;
  for (auto& slot : g_threads) {
    if (slot.tid.load() == tid) {
      slot.result.store(result);
      break;
    }
  }
  errno = saved_errno;
}

/// A real-time signal nobody handles, for asking threads to restrict themselves.
int free_realtime_signal() {
  for (int sig = SIGRTMAX - 1; sig > SIGRTMIN + 1; --sig) {
    struct sigaction current {};
    if (sigaction(sig, nullptr, &current) == 0 && (current.sa_flags & SA_SIGINFO) == 0 &&
        current.sa_handler == SIG_DFL) {
      return sig;
    }
  }
  return 0;
}

std::vector<pid_t> list_threads() {
  std::vector<pid_t> tids;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return tids;
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] >= '0' && e->d_name[0] <= '9') tids.push_back(static_cast<pid_t>(std::atoi(e->d_name)));
  }
  closedir(dir);
  return tids;
}

/// "cuda-EvtHandlr (tid 123)", for messages.
std::string thread_name(pid_t tid) {
  std::ifstream comm("/proc/self/task/" + std::to_string(tid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return (name.empty() ? "thread" : name) + " (tid " + std::to_string(tid) + ")";
}

/// Whether thread `tid` blocks signal `sig` (it would never run the handler).
bool blocks_signal(pid_t tid, int sig) {
  std::ifstream status("/proc/self/task/" + std::to_string(tid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("SigBlk:", 0) != 0) continue;
    const unsigned long long mask = std::strtoull(line.c_str() + 7, nullptr, 16);
    return ((mask >> (sig - 1)) & 1ULL) != 0;
  }
  return false;
}

/// Restricts every other thread of the process; the calling one already is.
std::optional<std::string> restrict_other_threads() {
  const int sig = free_realtime_signal();
  if (sig == 0) return std::string("no free real-time signal to reach the other threads with");
  struct sigaction action {};
  action.sa_sigaction = on_restrict_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  if (sigaction(sig, &action, nullptr) != 0) return std::string("sigaction: ") + std::strerror(errno);
  g_restrict_signal.store(sig);
  const pid_t pid = getpid();
  const pid_t self = this_tid();
  std::set<pid_t> done{self};
  std::size_t used = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  // Round after round until a listing shows no thread left unrestricted: a thread that an
  // unrestricted one started meanwhile turns up in the next listing.
  for (;;) {
    std::vector<std::size_t> asked;
    for (pid_t tid : list_threads()) {
      if (done.contains(tid)) continue;
      if (blocks_signal(tid, sig)) {
        return thread_name(tid) + " blocks signals, so Landlock cannot restrict it on this kernel (ABI below 8)";
      }
      if (used == kMaxThreads) return std::string("too many threads to restrict");
      ThreadSlot& slot = g_threads[used];
      slot.result.store(0);
      slot.tid.store(tid);
      if (syscall(SYS_tgkill, pid, tid, sig) != 0) {
        if (errno == ESRCH) {  // it ended meanwhile
          done.insert(tid);
          continue;
        }
        return "cannot signal " + thread_name(tid) + ": " + std::strerror(errno);
      }
      asked.push_back(used++);
    }
    if (asked.empty()) return std::nullopt;
    for (std::size_t i : asked) {
      ThreadSlot& slot = g_threads[i];
      const pid_t tid = slot.tid.load();
      while (slot.result.load() == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
          // Gone without answering, or stuck: only a thread that still exists is a problem.
          if (access(("/proc/self/task/" + std::to_string(tid)).c_str(), F_OK) != 0) break;
          return thread_name(tid) + " did not answer the request to restrict itself";
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      const int result = slot.result.load();
      if (result < 0) return thread_name(tid) + " cannot restrict itself: " + std::strerror(-result);
      done.insert(tid);
    }
  }
}

std::optional<std::string> apply_landlock(const protocol::Sandbox& spec) {
  const int abi = landlock_abi();
  if (abi < 1) return std::string("Landlock is not available in this kernel");
  auto* rules = new Ruleset(abi, spec.protected_dirs);  // kept: the signal handler uses its fd
  if (!rules->error().empty()) return rules->error();
  for (const char* dir : kSystemLibraryDirs) {
    if (access(dir, F_OK) == 0) (void)rules->allow_folder(dir, kReadExec);
  }
  for (const char* path : kSystemReadable) rules->allow(path, kRead);
  allow_loaded_libraries(*rules);
  allow_devices(*rules);
  for (const auto& file : spec.read_files) rules->allow(file, kReadExec, true);
  rules->allow(spec.work_dir, kWorkFolder, true);
  if (!rules->error().empty()) return rules->error();
  g_ruleset_fd = rules->fd();
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return std::string("no_new_privs: ") + std::strerror(errno);
  if (abi >= 8) {
    if (syscall(kSysRestrictSelf, rules->fd(), kRestrictSelfTsync) != 0) {
      return std::string("landlock_restrict_self: ") + std::strerror(errno);
    }
    return std::nullopt;
  }
  if (syscall(kSysRestrictSelf, rules->fd(), 0) != 0)
    return std::string("landlock_restrict_self: ") + std::strerror(errno);
  return restrict_other_threads();
}

// ---- The interposed opens ------------------------------------------------------------------------

/// A thread's name, which the GPU driver sets through /proc/self/task/<tid>/comm for threads it
/// starts after the lockdown (a new context): refused, harmless, and not the submission's doing.
bool is_thread_name(const char* path) {
  const std::size_t n = std::strlen(path);
  return std::strncmp(path, "/proc/", 6) == 0 && n > 5 && std::strcmp(path + n - 5, "/comm") == 0;
}

/// After the lockdown, an open that the sandbox refused: recorded with its path.
void note_refused_open(const char* path, int error) {
  if (!g_locked.load(std::memory_order_relaxed) || (error != EACCES && error != EPERM) || path == nullptr) return;
  if (is_thread_name(path)) return;
  Line line;
  line << "open " << path << " (permission denied by the sandbox)";
  note_blocked(line.c_str());
}

/// After the lockdown, a program that could not be started (system, popen, posix_spawn).
void note_refused_spawn(const char* call) {
  if (!g_locked.load(std::memory_order_relaxed)) return;
  Line line;
  line << call << " (running another program)";
  note_blocked(line.c_str());
}

template <typename Fn>
Fn next_definition(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

}  // namespace

std::optional<std::string> lock_down(const protocol::Sandbox& spec) {
  if (!spec.enabled) return std::nullopt;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return std::string("no_new_privs: ") + std::strerror(errno);
  if (spec.seccomp) {
    if (auto why = install_sigsys_handler()) return why;
    if (auto why = apply_seccomp()) return why;
  }
  if (spec.landlock) {
    if (auto why = apply_landlock(spec)) return why;
  }
  g_locked.store(true);
  return std::nullopt;
}

bool locked_down() { return g_locked.load(); }

std::vector<std::string> blocked_calls() {
  // Two writers may have raced to add the same line: merged here, counts added up.
  std::vector<std::pair<std::string, unsigned>> lines;
  const unsigned used = std::min<unsigned>(g_used.load(), kMaxEntries);
  for (unsigned i = 0; i < used; ++i) {
    const Entry& e = g_entries[i];
    if (e.state.load() != 2) continue;
    const std::string text(e.text);
    auto same = std::ranges::find_if(lines, [&](const auto& line) { return line.first == text; });
    if (same == lines.end()) {
      lines.emplace_back(text, e.count.load());
    } else {
      same->second += e.count.load();
    }
  }
  std::vector<std::string> out;
  for (const auto& [text, count] : lines) {
    std::string line = count > 1 ? text + ", " + std::to_string(count) + " times" : text;
    if (line.size() > protocol::kMaxBlockedBytes) line.resize(protocol::kMaxBlockedBytes);
    out.push_back(std::move(line));
  }
  if (const unsigned long dropped = g_dropped.load(); dropped > 0) {
    out.push_back("… and " + std::to_string(dropped) + " more");
  }
  return out;
}

}  // namespace cudalab::runner

// ---- Interposers -------------------------------------------------------------------------------------
// The runner is linked with its symbols exported, and an executable comes first in symbol lookup:
// the module's (and libstdc++'s) calls of these reach the definitions here, which forward to the
// C library's and note what the sandbox refused.

using cudalab::runner::next_definition;
using cudalab::runner::note_refused_open;
using cudalab::runner::note_refused_spawn;

namespace {

// O_CREAT and O_TMPFILE are the flags that bring a mode argument.
bool needs_mode(int flags) { return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE; }

template <typename Fn, typename... Args>
int forward_open(const char* name, const char* path, Args... args) {
  static const auto real = next_definition<Fn>(name);
  if (real == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  const int fd = real(args...);
  if (fd < 0) {
    const int error = errno;
    note_refused_open(path, error);
    errno = error;
  }
  return fd;
}

mode_t mode_argument(int flags, va_list args) { return needs_mode(flags) ? va_arg(args, mode_t) : 0; }

template <typename Fn>
FILE* forward_fopen(const char* name, const char* path, const char* mode) {
  static const auto real = next_definition<Fn>(name);
  if (real == nullptr) {
    errno = ENOSYS;
    return nullptr;
  }
  FILE* f = real(path, mode);
  if (f == nullptr) {
    const int error = errno;
    note_refused_open(path, error);
    errno = error;
  }
  return f;
}

}  // namespace

extern "C" {

using OpenFn = int (*)(const char*, int, ...);
using OpenatFn = int (*)(int, const char*, int, ...);
using FopenFn = FILE* (*)(const char*, const char*);
using OpendirFn = DIR* (*)(const char*);

int open(const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = mode_argument(flags, args);
  va_end(args);
  return forward_open<OpenFn>("open", path, path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = mode_argument(flags, args);
  va_end(args);
  return forward_open<OpenFn>("open64", path, path, flags, mode);
}

int openat(int dir, const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = mode_argument(flags, args);
  va_end(args);
  return forward_open<OpenatFn>("openat", path, dir, path, flags, mode);
}

int openat64(int dir, const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const mode_t mode = mode_argument(flags, args);
  va_end(args);
  return forward_open<OpenatFn>("openat64", path, dir, path, flags, mode);
}

// What _FORTIFY_SOURCE turns open() into.
int __open_2(const char* path, int flags) { return forward_open<OpenFn>("open", path, path, flags, 0); }
int __open64_2(const char* path, int flags) { return forward_open<OpenFn>("open64", path, path, flags, 0); }
int __openat_2(int dir, const char* path, int flags) {
  return forward_open<OpenatFn>("openat", path, dir, path, flags, 0);
}
int __openat64_2(int dir, const char* path, int flags) {
  return forward_open<OpenatFn>("openat64", path, dir, path, flags, 0);
}

int creat(const char* path, mode_t mode) {
  return forward_open<OpenFn>("open", path, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}
int creat64(const char* path, mode_t mode) {
  return forward_open<OpenFn>("open64", path, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

FILE* fopen(const char* path, const char* mode) { return forward_fopen<FopenFn>("fopen", path, mode); }
FILE* fopen64(const char* path, const char* mode) { return forward_fopen<FopenFn>("fopen64", path, mode); }

// posix_spawn (and system and popen through it) blocks every signal before its clone, which the
// filter therefore refuses with EPERM instead of trapping: the call is named here.
using SystemFn = int (*)(const char*);
using PopenFn = FILE* (*)(const char*, const char*);
using SpawnFn = int (*)(pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*, char* const[],
                        char* const[]);

int system(const char* command) {
  static const auto real = next_definition<SystemFn>("system");
  const int rc = real == nullptr ? -1 : real(command);
  // glibc reports a shell it could not start as one that exited with 127.
  if (command != nullptr && (rc == -1 || (WIFEXITED(rc) && WEXITSTATUS(rc) == 127))) note_refused_spawn("system");
  return rc;
}

FILE* popen(const char* command, const char* mode) {
  static const auto real = next_definition<PopenFn>("popen");
  FILE* f = real == nullptr ? nullptr : real(command, mode);
  if (f == nullptr) note_refused_spawn("popen");
  return f;
}

int posix_spawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* actions,
                const posix_spawnattr_t* attributes, char* const argv[], char* const envp[]) {
  static const auto real = next_definition<SpawnFn>("posix_spawn");
  const int rc = real == nullptr ? ENOSYS : real(pid, path, actions, attributes, argv, envp);
  if (rc != 0) note_refused_spawn("posix_spawn");
  return rc;
}

int posix_spawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* actions,
                 const posix_spawnattr_t* attributes, char* const argv[], char* const envp[]) {
  static const auto real = next_definition<SpawnFn>("posix_spawnp");
  const int rc = real == nullptr ? ENOSYS : real(pid, file, actions, attributes, argv, envp);
  if (rc != 0) note_refused_spawn("posix_spawnp");
  return rc;
}

DIR* opendir(const char* path) {
  static const auto real = next_definition<OpendirFn>("opendir");
  if (real == nullptr) {
    errno = ENOSYS;
    return nullptr;
  }
  DIR* dir = real(path);
  if (dir == nullptr) {
    const int error = errno;
    note_refused_open(path, error);
    errno = error;
  }
  return dir;
}

}  // extern "C"
