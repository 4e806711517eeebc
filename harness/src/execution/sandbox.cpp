// The parent's half of the sandbox (sandbox.hpp): what the kernel offers, the limits, the clean
// environment and the private working folder of each runner call.
#include "cudalab/sandbox.hpp"

#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cudalab/paths.hpp"
#include "cudalab/text.hpp"

extern char** environ;

namespace cudalab {

namespace fs = std::filesystem;

namespace {

constexpr std::uint32_t kLandlockCreateRulesetVersion = 1U << 0;
#ifdef SYS_landlock_create_ruleset
constexpr long kSysLandlockCreateRuleset = SYS_landlock_create_ruleset;
#else
constexpr long kSysLandlockCreateRuleset = 444;  // the same number on every architecture
#endif

/// CPU time beyond the timeout, per usable CPU: the wall clock ends a run first; this limit is
/// for a runner whose parent can no longer stop it.
constexpr std::uint64_t kCpuMarginSeconds = 10;
constexpr std::uint64_t kOpenFiles = 1024;
/// New processes and threads the runner's user may start beyond those running now (a backstop
/// where seccomp is missing: with it, no process can be made at all).
constexpr std::uint64_t kProcessMargin = 256;
/// The simulator's address space: a base for the runtime, the buffers and the submission, and
/// room for each host worker's fiber stacks.
constexpr std::uint64_t kSimAddressSpaceBase = std::uint64_t{16} << 30;
constexpr std::uint64_t kSimAddressSpacePerWorker = std::uint64_t{512} << 20;

// Variables the runner may see, as they are in the parent's environment.
constexpr const char* kPassedThrough[] = {
    "PATH", "LD_LIBRARY_PATH", "CUDA_DEVICE_ORDER",
    // sanitizers of an instrumented build
    "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "MSAN_OPTIONS",
    // switches that keep NVLink multicast off on shared machines, for any library that reads them
    "NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS"};
/// The one CUDALAB_* variable that crosses: the simulator's host threads, and only as a number.
constexpr const char* kSimThreadsVariable = "CUDALAB_SIM_THREADS";

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;  // the runner of this build reserves terabytes of shadow memory
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

std::string env_value(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() < 8 && std::ranges::all_of(s, [](char c) { return c >= '0' && c <= '9'; });
}

std::uint64_t usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return std::max(1U, std::thread::hardware_concurrency());
}

/// Tasks (processes and threads) running on the machine now, from /proc/loadavg ("… 3/412 …").
std::uint64_t running_tasks() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c, tasks;
  if (!(in >> a >> b >> c >> tasks)) return 4096;
  const auto slash = tasks.find('/');
  return slash == std::string::npos ? 4096 : std::strtoull(tasks.c_str() + slash + 1, nullptr, 10);
}

std::uint64_t sim_workers() {
  const std::string v = env_value(kSimThreadsVariable);
  const std::uint64_t hw = std::max(1U, std::thread::hardware_concurrency());
  return all_digits(v) ? std::max<std::uint64_t>(hw, std::strtoull(v.c_str(), nullptr, 10)) : hw;
}

/// Folders the runner never opens up whole: the project (its solutions), the module cache (every
/// other submission's module), and cudalab's own data (data_dir(): the tree cudalab was built
/// from, or an installation's share/cudalab with its solutions).
std::vector<std::string> protected_dirs() {
  std::vector<std::string> dirs;
  const auto add = [&](const fs::path& p) {
    if (p.empty()) return;
    std::error_code ec;
    const fs::path real = fs::weakly_canonical(fs::absolute(p), ec);
    const std::string text = (ec ? fs::absolute(p) : real).string();
    if (std::ranges::find(dirs, text) == dirs.end()) dirs.push_back(text);
  };
  add(project_root());
  add(data_dir());
  add(cache_dir());
  return dirs;
}

/// Bytes of regular files beneath `dir` (links not followed).
std::uint64_t bytes_beneath(const fs::path& dir) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    std::error_code size_ec;
    if (it->is_regular_file(size_ec) && !it->is_symlink(size_ec)) {
      const auto size = it->file_size(size_ec);
      if (!size_ec) total += size;
    }
  }
  return total;
}

/// Removes `dir` whatever the submission did to the permissions inside it.
void remove_tree(const fs::path& dir) {
  std::error_code ec;
  if (fs::remove_all(dir, ec) != static_cast<std::uintmax_t>(-1) && !ec) return;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    std::error_code perm_ec;
    if (it->is_directory(perm_ec) && !it->is_symlink(perm_ec)) {
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, perm_ec);
    }
  }
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add, ec);
  fs::remove_all(dir, ec);
}

constexpr const char* kBoxPrefix = "cudalab-box-";

/// Working folders that a cudalab process killed mid-run left behind (it could not remove them;
/// its runner died with it): "cudalab-box-<pid>-XXXXXX" of ours whose pid is gone. Once a process.
void remove_stale_boxes(const fs::path& temp) {
  static std::once_flag once;
  std::call_once(once, [&] {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(temp, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind(kBoxPrefix, 0) != 0) continue;
      const pid_t pid = static_cast<pid_t>(std::strtol(name.c_str() + std::strlen(kBoxPrefix), nullptr, 10));
      struct stat st {};
      if (pid <= 0 || lstat(entry.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) continue;
      if (kill(pid, 0) == 0 || errno != ESRCH) continue;  // its maker is alive (or not ours to ask)
      remove_tree(entry.path());
    }
  });
}

}  // namespace

const SandboxSupport& sandbox_support() {
  static const SandboxSupport support = [] {
    SandboxSupport s;
    const long abi = syscall(kSysLandlockCreateRuleset, nullptr, 0, kLandlockCreateRulesetVersion);
    if (abi > 0) {
      s.landlock_abi = static_cast<int>(abi);
    } else {
      s.landlock_missing = errno == EOPNOTSUPP ? "Landlock is built into this kernel but not enabled (lsm=)"
                                               : "this kernel has no Landlock";
    }
    const unsigned trap = SECCOMP_RET_TRAP;
    if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
      s.seccomp_missing = "this kernel has no seccomp";
    } else if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &trap) != 0) {
      s.seccomp_missing = std::string("seccomp cannot trap system calls here: ") + std::strerror(errno);
    } else {
      s.seccomp = true;
    }
    return s;
  }();
  return support;
}

bool sandbox_enabled() {
  const std::string off = env_value("CUDALAB_NO_SANDBOX");
  return off.empty() || off == "0";
}

ResourceLimits sandbox_limits(Backend backend, std::chrono::milliseconds timeout) {
  ResourceLimits limits;
  const auto timeout_s = static_cast<std::uint64_t>((timeout.count() + 999) / 1000);
  limits.cpu_seconds = (timeout_s + kCpuMarginSeconds) * usable_cpus();
  limits.file_size_bytes = kSandboxFileSizeBytes;
  limits.open_files = kOpenFiles;
  limits.processes = running_tasks() + kProcessMargin;
  // On a GPU the driver reserves ~13.7 GB of address space at cuInit: no useful limit fits.
  if (backend == Backend::sim && !kSanitized) {
    limits.address_space_bytes = kSimAddressSpaceBase + kSimAddressSpacePerWorker * sim_workers();
  }
  return limits;
}

std::string describe_sandbox(Backend backend, std::chrono::milliseconds timeout) {
  if (!sandbox_enabled()) return "sandbox: off (CUDALAB_NO_SANDBOX is set): student code runs unconfined";
  const SandboxSupport& s = sandbox_support();
  std::vector<std::string> parts;
  if (s.landlock_abi > 0) {
    std::string what = "files";
    if (s.landlock_abi >= 4) what += ", TCP";
    if (s.landlock_abi >= 6) what += ", signals";
    parts.push_back(fmt::format("Landlock ABI {} ({})", s.landlock_abi, what));
  } else {
    parts.push_back("no Landlock (" + s.landlock_missing + "; files and the network are open)");
  }
  parts.push_back(s.seccomp ? "seccomp (no new processes, no sockets, no ptrace, no exec)"
                            : "no seccomp (" + s.seccomp_missing + ")");
  const ResourceLimits l = sandbox_limits(backend, timeout);
  std::string limits =
      fmt::format("CPU {} s, file {}", *l.cpu_seconds, format_bytes(static_cast<double>(*l.file_size_bytes)));
  if (l.address_space_bytes) limits += ", address space " + format_bytes(static_cast<double>(*l.address_space_bytes));
  limits += fmt::format(", open files {}, processes +{}", *l.open_files, kProcessMargin);
  parts.push_back("limits (" + limits + ")");
  parts.emplace_back("clean environment");
  parts.emplace_back("private working folder");
  std::string line = "sandbox:";
  for (std::size_t i = 0; i < parts.size(); ++i) line += (i == 0 ? " " : ", ") + parts[i];
  return line;
}

RunnerSandbox::RunnerSandbox(SandboxOptions options) : options_(std::move(options)), enabled_(sandbox_enabled()) {
  if (!enabled_) return;
  std::error_code ec;
  fs::path temp = fs::temp_directory_path(ec);
  if (ec) temp = "/tmp";
  remove_stale_boxes(temp);
  std::string pattern = (temp / fmt::format("{}{}-XXXXXX", kBoxPrefix, getpid())).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::system_error(errno, std::generic_category(), "cannot create the sandbox's working folder " + pattern);
  }
  working_dir_ = pattern;
  limits_ = sandbox_limits(options_.backend, options_.timeout);
}

RunnerSandbox::~RunnerSandbox() { (void)clean_up(); }

void RunnerSandbox::apply(ProcessOptions& options) const {
  if (!enabled_) return;
  options.limits = limits_;
  options.working_dir = working_dir_.string();
  std::vector<std::string> env;
  for (const char* name : kPassedThrough) {
    if (const char* v = std::getenv(name)) env.push_back(std::string(name) + "=" + v);
  }
  const std::string visible =
      options_.visible_devices.empty() ? env_value("CUDA_VISIBLE_DEVICES") : options_.visible_devices;
  if (!visible.empty() || std::getenv("CUDA_VISIBLE_DEVICES") != nullptr)
    env.push_back("CUDA_VISIBLE_DEVICES=" + visible);
  if (const std::string threads = env_value(kSimThreadsVariable); all_digits(threads)) {
    env.push_back(std::string(kSimThreadsVariable) + "=" + threads);
  }
  if (options_.backend == Backend::sim) {
    // The simulator's heap in transparent huge pages where the kernel gives them on request
    // (madvise mode): a check's runs touch tens of megabytes, and a page fault for every 4 KiB of
    // them was a third of a cached check's time (04_normalize's known-wrong kernel: 44 000 faults,
    // 0.92 s; 15 000, 0.68 s).
    const std::string theirs = env_value("GLIBC_TUNABLES");
    env.push_back("GLIBC_TUNABLES=" + (theirs.empty() ? "" : theirs + ":") + "glibc.malloc.hugetlb=1");
  }
  env.push_back("HOME=" + working_dir_.string());
  env.push_back("TMPDIR=" + working_dir_.string());
  env.emplace_back("LANG=C.UTF-8");
  // The driver's JIT cache would start empty in the fresh folder each time: not worth the writes.
  env.emplace_back("CUDA_CACHE_DISABLE=1");
  options.environment = std::move(env);
}

protocol::Sandbox RunnerSandbox::spec() const {
  protocol::Sandbox s;
  if (!enabled_) return s;
  const SandboxSupport& support = sandbox_support();
  s.enabled = true;
  s.landlock = support.landlock_abi > 0;
  s.seccomp = support.seccomp;
  std::error_code ec;
  const fs::path module = fs::weakly_canonical(fs::absolute(options_.module), ec);
  s.read_files = {(ec ? fs::absolute(options_.module) : module).string()};
  s.work_dir = working_dir_.string();
  s.protected_dirs = protected_dirs();
  return s;
}

std::optional<std::string> RunnerSandbox::explain_signal(int signal) const {
  if (!enabled_) return std::nullopt;
  switch (signal) {
    case SIGXFSZ:
      return fmt::format("wrote a file larger than the {} the sandbox allows",
                         format_bytes(static_cast<double>(kSandboxFileSizeBytes)));
    case SIGXCPU:
      return fmt::format("used more than the {} s of CPU time the sandbox allows", limits_.cpu_seconds.value_or(0));
    case SIGSYS:
      return std::string("made a system call that the sandbox forbids");
    default:
      return std::nullopt;
  }
}

std::optional<std::string> RunnerSandbox::clean_up() {
  if (working_dir_.empty()) return std::nullopt;
  const std::uint64_t left = bytes_beneath(working_dir_);
  remove_tree(working_dir_);
  working_dir_.clear();
  if (left <= kSandboxLeftoverBytes) return std::nullopt;
  return fmt::format("solve left {:.1f} MiB of files in its working folder (removed after the run)",
                     static_cast<double>(left) / (1 << 20));
}

}  // namespace cudalab
