// The `sim` toolchain: translate kernel.cu (translate.hpp), then build it with the host C++
// compiler into a shared object linked against libcudalab_sim.so, which the sim runner loads.
// Modules are cached by content: source bytes and path, flags, compiler version, and the
// simulator's headers (a changed prelude must not reuse a stale module).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "cudalab/toolchain.hpp"
#include "translate.hpp"

#ifndef CUDALAB_SIM_INCLUDE_DIR
#error "CUDALAB_SIM_INCLUDE_DIR must name harness/sim/include"
#endif

extern char** environ;

namespace cudalab {
namespace {

namespace fs = std::filesystem;

/// Bumped whenever the module/runtime interface changes in a way headers alone do not show.
constexpr const char* kSimAbi = "cudalab-sim-abi-1";

fs::path find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    return access(name.c_str(), X_OK) == 0 ? fs::path(name) : fs::path();
  }
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    fs::path candidate = fs::path(dir) / name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

fs::path find_cxx() {
  if (const char* env = std::getenv("CUDALAB_CXX"); env != nullptr && *env != '\0') {
    return find_program(env);
  }
  for (const char* name : {"c++", "g++", "clang++"}) {
    if (fs::path p = find_program(name); !p.empty()) return p;
  }
  return {};
}

struct Output {
  int status = -1;  // exit code, or -1 when the program could not run
  std::string text;
};

/// Runs argv with stdout and stderr captured together.
Output run(const std::vector<std::string>& argv) {
  Output out;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    out.text = std::string("pipe: ") + std::strerror(errno);
    return out;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    out.text = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return out;
  }
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      out.text.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

std::string read_all(const fs::path& p, bool& ok) {
  std::ifstream in(p, std::ios::binary);
  ok = static_cast<bool>(in);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string shell_quote(const std::vector<std::string>& argv) {
  std::string r;
  for (const auto& a : argv) {
    if (!r.empty()) r += ' ';
    if (a.find_first_of(" \t\"'\\$`") == std::string::npos && !a.empty()) {
      r += a;
    } else {
      r += '\'';
      for (char c : a) r += c == '\'' ? std::string("'\\''") : std::string(1, c);
      r += '\'';
    }
  }
  return r;
}

/// Every file of the simulator's include directory, in a fixed order (part of the cache key).
std::string headers_fingerprint(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it); it.increment(ec)) {
    if (it->is_regular_file()) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  std::string all;
  for (const auto& f : files) {
    bool ok = false;
    all += f.lexically_relative(dir).string();
    all += '\0';
    all += read_all(f, ok);
  }
  return all;
}

class SimToolchain final : public Toolchain {
 public:
  explicit SimToolchain(ToolchainConfig config)
      : config_(std::move(config)), include_dir_(CUDALAB_SIM_INCLUDE_DIR), cxx_(find_cxx()) {}

  Backend backend() const override { return Backend::sim; }

  std::string describe() const override {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    return (cxx_.empty() ? std::string("no host compiler") : version()) + ", CPU simulator (" + std::to_string(hw) +
           " host threads)";
  }

  bool available(std::string& why) const override {
    if (cxx_.empty()) {
      why = "no host C++ compiler found (looked for c++, g++, clang++ on PATH; set CUDALAB_CXX)";
      return false;
    }
    if (!fs::exists(include_dir_ / "cuda_runtime.h")) {
      why = "the simulator's headers are missing: " + include_dir_.string();
      return false;
    }
    return true;
  }

  CompileResult compile(const fs::path& source) const override {
    CompileResult result;
    bool ok = false;
    const std::string text = read_all(source, ok);
    if (!ok) {
      result.diagnostics = source.string() + ": error: cannot read the file";
      return result;
    }
    if (cxx_.empty()) {
      result.diagnostics = "no host C++ compiler found (set CUDALAB_CXX)";
      return result;
    }
    const std::string shown = source.string();
    const std::vector<std::string> flags = {"-std=c++20", "-O2",      "-fPIC",
                                            "-shared",    "-pthread", "-fno-strict-aliasing"};
    std::string flag_text;
    for (const auto& f : flags) flag_text += f + ' ';

    XXH3_state_t* st = XXH3_createState();
    XXH3_128bits_reset(st);
    for (const std::string& part :
         {std::string(kSimAbi), text, shown, flag_text, version(), fingerprint(), config_.runner_dir.string()}) {
      const std::uint64_t n = part.size();
      XXH3_128bits_update(st, &n, sizeof n);  // length-prefixed: boundaries matter
      XXH3_128bits_update(st, part.data(), part.size());
    }
    const XXH128_hash_t h = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    char key[33];
    std::snprintf(key, sizeof key, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                  static_cast<unsigned long long>(h.low64));

    const fs::path dir = config_.cache_dir / "sim";
    const fs::path module = dir / (std::string(key) + ".so");
    const fs::path translated = dir / (std::string(key) + ".cpp");
    std::vector<std::string> argv = {cxx_.string()};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"-iquote", fs::absolute(source).parent_path().string(), "-I" + include_dir_.string(), "-o",
                             module.string(), translated.string(), "-L" + config_.runner_dir.string(), "-lcudalab_sim",
                             "-Wl,-rpath," + config_.runner_dir.string(), "-Wl,--no-undefined"});
    result.command = shell_quote(argv);

    std::error_code ec;
    if (fs::exists(module, ec)) {
      result.ok = true;
      result.cached = true;
      result.module = module;
      bool log_ok = false;
      result.diagnostics = read_all(dir / (std::string(key) + ".log"), log_ok);
      return result;
    }

    const sim::Translation tr = cudalab::sim::translate(text, shown);
    if (!tr.ok) {
      result.diagnostics = tr.error + "\n";
      return result;
    }
    fs::create_directories(dir, ec);
    // Unique temporaries, then atomic renames: concurrent compiles of one source are safe.
    const std::string unique =
        "." + std::to_string(getpid()) + "." + std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
    const fs::path tmp_src = dir / (std::string(key) + unique + ".cpp");
    const fs::path tmp_mod = dir / (std::string(key) + unique + ".so");
    {
      std::ofstream out(tmp_src, std::ios::binary);
      out << tr.text;
      if (!out) {
        result.diagnostics = "cannot write " + tmp_src.string();
        return result;
      }
    }
    std::vector<std::string> run_argv = argv;
    for (auto& a : run_argv) {
      if (a == module.string()) a = tmp_mod.string();
      if (a == translated.string()) a = tmp_src.string();
    }
    const Output out = run(run_argv);
    result.diagnostics = out.text;
    fs::rename(tmp_src, translated, ec);
    if (out.status != 0) {
      fs::remove(tmp_mod, ec);
      if (out.status < 0 && result.diagnostics.empty()) result.diagnostics = "the compiler did not run";
      return result;
    }
    {
      std::ofstream log(dir / (std::string(key) + ".log"), std::ios::binary);
      log << out.text;
    }
    fs::rename(tmp_mod, module, ec);
    if (ec) {
      result.diagnostics += "cannot store the module: " + ec.message();
      return result;
    }
    result.ok = true;
    result.module = module;
    return result;
  }

  fs::path runner() const override { return config_.runner_dir / "cudalab-runner-sim"; }

 private:
  const std::string& version() const {
    std::call_once(version_once_, [&] {
      const Output out = run({cxx_.string(), "--version"});
      version_ = out.text.substr(0, out.text.find('\n'));
      if (version_.empty()) version_ = cxx_.string();
    });
    return version_;
  }
  const std::string& fingerprint() const {
    std::call_once(fingerprint_once_, [&] { fingerprint_ = headers_fingerprint(include_dir_); });
    return fingerprint_;
  }

  ToolchainConfig config_;
  fs::path include_dir_;
  fs::path cxx_;
  mutable std::once_flag version_once_;
  mutable std::string version_;
  mutable std::once_flag fingerprint_once_;
  mutable std::string fingerprint_;
};

}  // namespace

std::unique_ptr<Toolchain> make_sim_toolchain(const ToolchainConfig& config) {
  return std::make_unique<SimToolchain>(config);
}

}  // namespace cudalab
