// The `sim` toolchain: translate kernel.cu and the headers it includes with quotes
// (translate.hpp), then build it with the host C++ compiler into a shared object linked against
// libcudalab_sim.so, which the sim runner loads. Modules are cached by content: source bytes and
// path, the included headers, flags, compiler version, and the simulator's headers (a changed
// prelude must not reuse a stale module).
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <unistd.h>

#include "cudalab/detail/module_cache.hpp"
#include "cudalab/paths.hpp"
#include "cudalab/process.hpp"
#include "cudalab/toolchain.hpp"
#include "translate.hpp"

#ifndef CUDALAB_SIM_INCLUDE_DIR
#error "CUDALAB_SIM_INCLUDE_DIR must name harness/sim/include"
#endif

namespace cudalab {
namespace {

namespace fs = std::filesystem;

/// Bumped whenever the module/runtime interface changes in a way headers alone do not show, or
/// the translator rejects what it accepted (2: execution-space checks; no cached module of a file
/// nvcc rejects may be reused).
constexpr const char* kSimAbi = "cudalab-sim-abi-2";

fs::path find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return is_executable(name) ? fs::path(name) : fs::path();
  return find_on_path(name);
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

/// A compiler-like failure for errors found before the compiler runs (the translator's).
ProcessResult failed_with(std::string message) {
  ProcessResult r;
  r.status = ProcessResult::Status::exited;
  r.exit_code = 1;
  r.output = std::move(message);
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
    all += f.lexically_relative(dir).string();
    all += '\0';
    all += read_file(f);
  }
  return all;
}

/// The simulator's headers: an installation's own copy (share/cudalab/sim-include), else the
/// source tree's, for a build tree.
fs::path sim_include_dir() {
  if (auto layout = install_layout()) return layout->data / "sim-include";
  return CUDALAB_SIM_INCLUDE_DIR;
}

/// Removes a folder tree when it goes out of scope.
/// Where a copy of the file tree under `root` puts `path`: at its own absolute path, so that every
/// relative `#include "..."` between the copies finds what it found between the originals.
fs::path mirrored(const fs::path& root, const fs::path& path) {
  return root / fs::absolute(path).lexically_normal().relative_path();
}

class SimToolchain final : public Toolchain {
 public:
  explicit SimToolchain(ToolchainConfig config)
      : config_(std::move(config)), include_dir_(sim_include_dir()), cxx_(find_cxx()) {}

  Backend backend() const override { return Backend::sim; }

  std::string describe() const override {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    return (cxx_.empty() ? std::string("no host compiler") : version()) + ", CPU simulator (" + std::to_string(hw) +
           " host threads)";
  }

  bool available(std::string& why) const override {
    // A broken installation is named here, before a student's module is blamed for a failed
    // link (no library) or a "crash" (no runner).
    if (!is_executable(runner())) {
      why = "the simulator's runner " + runner().string() +
            " is missing or not executable: rebuild or reinstall cudalab (it belongs beside the cudalab program)";
      return false;
    }
    if (const fs::path runtime = config_.runner_dir / "libcudalab_sim.so"; !fs::is_regular_file(runtime)) {
      why = "the simulator's runtime library " + runtime.string() +
            " is missing: rebuild or reinstall cudalab (it belongs beside the cudalab program)";
      return false;
    }
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
    std::string text;
    try {
      text = read_file(source);
    } catch (const std::exception&) {
      result.diagnostics = source.string() + ": error: cannot read the file";
      return result;
    }
    if (cxx_.empty()) {
      result.diagnostics = "no host C++ compiler found (set CUDALAB_CXX)";
      return result;
    }
    // -O1: a check compiles the file and runs it on small inputs, and the compile is most of it;
    // for six reference solutions, compiling and checking took a quarter less processor time than
    // at -O2 (17.5 s against 23.4 s on this project's 2-core machine).
    std::vector<std::string> flags = {"-std=c++20", "-O1", "-fPIC", "-shared", "-pthread", "-fno-strict-aliasing"};
    // The module runs on this machine: where it has FMA, fmaf() is one instruction instead of a
    // call into libm (a fifth of a matmul's time), with the same fused result. Only the calls:
    // a*b+c is not fused here, as it was not before (the flags are part of the module's key).
    if (__builtin_cpu_supports("fma")) flags.insert(flags.end(), {"-mfma", "-ffp-contract=off"});
    if (config_.checked) {
      // Every load and store calls the runtime (GCC's ThreadSanitizer instrumentation, answered by
      // libcudalab_sim.so's checks, not by GCC's runtime: hence no default libraries); debug lines
      // (-g1: lines and inlined calls, all that addr2line needs, in a fifth less compile time) map
      // each call back to the student's line; accesses stay as the source wrote them (no
      // vectorised or merged ones that a GPU would not make). Locals start as 0xFE bytes (a float
      // reads -1.7e38), not as what the fiber's stack held: a thread that reads a slot of its
      // local array that it never wrote gets a wrong answer every time, not the previous thread's
      // plausible value. (The checks cannot name such a read: a local array that does not escape
      // is not instrumented.)
      const std::vector<std::string> checked = {"-DCUDALAB_SIM_CHECKS=1",
                                                "-gdwarf-4",
                                                "-g1",
                                                "-fsanitize=thread",
                                                "-fsanitize=alignment",
                                                "-ftrivial-auto-var-init=pattern",
                                                "-fno-tree-vectorize",
                                                "-fno-tree-slp-vectorize",
                                                "-fno-store-merging",
                                                "-nodefaultlibs"};
      flags.insert(flags.end(), checked.begin(), checked.end());
    }
    std::string flag_text;
    for (const auto& f : flags) flag_text += f + ' ';
    // Read once: the key and the translation see the same headers.
    const std::vector<LocalInclude> headers = local_include_files(source, text);
    std::string header_text;
    for (const auto& h : headers) header_text += h.path.string() + '\n' + h.text + '\n';
    // Without headers of its own, the file is compiled under a name of its folder's (compiled_name):
    // every copy of the same text shares the module.
    const std::string name = compiled_name(source, !headers.empty()).string();
    const std::string key = content_key(
        {kSimAbi, text, header_text, name, flag_text, version(), fingerprint(), config_.runner_dir.string()});
    const fs::path dir = config_.cache_dir / "sim";
    result = cached_compile(dir, key, [&](const fs::path& out, std::string& command) {
      // Built (once per cache, compiler, headers and flags) only when a module must be compiled.
      const fs::path prelude = precompiled_prelude(flags);
      std::vector<sim::SourceFile> files{{name, text}};
      for (const auto& h : headers) files.push_back({h.path.string(), h.text});
      const std::vector<sim::Translation> tr = sim::translate_module(files);
      for (const auto& t : tr) {
        if (!t.ok) return failed_with(t.error + "\n");
      }
      // The translated files go into a private copy of their tree (each at its own absolute path,
      // under a folder of this compile's own): the .cu file's includes find the translated headers
      // beside it, and the -iquote of its folder's copy comes before the folder itself (which
      // still serves anything not copied). #line keeps the original names in messages.
      const RemoveTree tree{out.string() + ".d"};
      const fs::path tmp_src = mirrored(tree.path, source).parent_path() / (out.filename().string() + ".cpp");
      for (std::size_t f = 0; f < files.size(); ++f) {
        const fs::path path = f == 0 ? tmp_src : mirrored(tree.path, headers[f - 1].path);
        std::error_code ec;
        fs::create_directories(path.parent_path(), ec);
        std::ofstream copy(path, std::ios::binary);
        copy << tr[f].text;
        if (!copy)
          throw SetupError("cannot write the translated source " + path.string() + ": " + std::strerror(errno));
      }
      ProcessOptions opts;
      opts.argv = {cxx_.string()};
      opts.argv.insert(opts.argv.end(), flags.begin(), flags.end());
      if (!prelude.empty()) opts.argv.insert(opts.argv.end(), {"-include", prelude.string()});
      opts.argv.insert(
          opts.argv.end(),
          {"-iquote", tmp_src.parent_path().string(), "-iquote", fs::absolute(source).parent_path().string(),
           "-I" + include_dir_.string(), "-o", out.string(), tmp_src.string(), "-L" + config_.runner_dir.string(),
           "-lcudalab_sim", "-Wl,-rpath," + config_.runner_dir.string(), "-Wl,--no-undefined"});
      // GNU gold links a module in about 0.07 s where the default linker takes 0.2 s (measured on
      // the 2-core machine): a third of what is left of a student's edit-to-verdict loop.
      if (has_gold()) opts.argv.push_back("-fuse-ld=gold");
      if (config_.checked) opts.argv.insert(opts.argv.end(), {"-lstdc++", "-lm", "-lc", "-lgcc_s", "-lgcc"});
      opts.timeout = std::chrono::minutes(5);
      command = shell_join(opts.argv);
      ProcessResult r = run_process(opts);
      // The compiler saw the translation: its columns on rewritten lines, and its suggestions of
      // libc names, are put back in the student's terms.
      r.output = sim::map_diagnostics(r.output, files, tr);
      // The translated source stays beside the module, for whoever wants to read it.
      std::error_code ec;
      fs::rename(tmp_src, dir / (key + ".cpp"), ec);
      return r;
    });
    result.diagnostics = from_shared_folder(std::move(result.diagnostics), source);
    return result;
  }

  fs::path runner() const override { return config_.runner_dir / "cudalab-runner-sim"; }

 private:
  /// The simulator's prelude, precompiled by GCC for these compile flags: the header to pass with
  /// `-include` (its `.gch` beside it), or empty where there is none (clang, or the build failed), and the compile
  /// parses the prelude as before. Parsing it and the standard headers it includes is about half a second of each
  /// compile. Each folder is named by everything the PCH depends on and never changes once written, so a compile never
  /// sees a stale one; folders unused for two days go.
  fs::path precompiled_prelude(const std::vector<std::string>& flags) const {
    if (version().find("clang") != std::string::npos) return {};  // GCC's PCH (clang's differ)
    std::string compile_flags;                                    // link-only flags do not change the PCH
    for (const auto& f : flags) {
      if (f != "-shared" && f != "-nodefaultlibs") compile_flags += f + ' ';
    }
    const fs::path root = config_.cache_dir / "sim-pch";
    const fs::path dir = root / content_key({kSimAbi, compile_flags, version(), fingerprint(), include_dir_.string()});
    const fs::path header = dir / "cudalab_prelude.hpp";
    const fs::path pch = dir / "cudalab_prelude.hpp.gch";
    std::error_code ec;
    sweep_unused_preludes(root);
    if (fs::is_regular_file(pch, ec)) {
      fs::last_write_time(pch, fs::file_time_type::clock::now(), ec);  // in use: kept by the sweep
      return header;
    }
    // One build of each PCH at a time in a process: a grader's workers compiling at once would each
    // build the same one (seconds of CPU each); the second finds the first's. Different ones (the
    // plain and checked builds' flags) build at once.
    static std::mutex guard;
    static std::map<fs::path, std::mutex> building;
    std::unique_lock pick(guard);
    std::mutex& mine = building[dir];
    pick.unlock();
    const std::lock_guard lock(mine);
    if (fs::is_regular_file(pch, ec)) return header;
    fs::create_directories(dir, ec);
    const std::string unique =
        std::to_string(getpid()) + "." + std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
    const fs::path tmp_header = dir / ("header.tmp." + unique);
    std::ofstream(tmp_header) << "#include <cudalab_sim/prelude.hpp>\n";
    fs::rename(tmp_header, header, ec);  // same content from every writer
    if (ec) return {};
    const fs::path tmp_pch = dir / ("pch.tmp." + unique);
    ProcessOptions opts;
    opts.argv = {cxx_.string()};
    for (const auto& f : flags) {
      if (f != "-shared" && f != "-nodefaultlibs") opts.argv.push_back(f);
    }
    opts.argv.insert(opts.argv.end(),
                     {"-I" + include_dir_.string(), "-x", "c++-header", header.string(), "-o", tmp_pch.string()});
    opts.timeout = std::chrono::minutes(5);
    const ProcessResult r = run_process(opts);
    if (!r.ok()) {
      fs::remove(tmp_pch, ec);
      return {};
    }
    fs::rename(tmp_pch, pch, ec);  // atomic: a compile finds the whole PCH or none
    return ec ? fs::path() : header;
  }

  /// Once per process: precompiled preludes last used more than two days ago (each is tens of
  /// megabytes, and every change of the simulator's headers or flags makes a new one).
  static void sweep_unused_preludes(const fs::path& root) {
    static std::once_flag once;
    std::call_once(once, [&] {
      std::error_code ec;
      const auto now = fs::file_time_type::clock::now();
      for (const auto& entry : fs::directory_iterator(root, ec)) {
        std::error_code time_ec;
        const auto used = fs::last_write_time(entry.path() / "cudalab_prelude.hpp.gch", time_ec);
        const auto made = fs::last_write_time(entry.path(), time_ec);
        const auto last = std::max(used, made);
        if (now - last > std::chrono::hours(48)) fs::remove_all(entry.path(), time_ec);
      }
    });
  }

  /// Whether GNU gold is installed (binutils has it on Debian 12; newer binutils may not).
  static bool has_gold() {
    static const bool found = !find_on_path("ld.gold").empty();
    return found;
  }

  const std::string& version() const {
    std::call_once(version_once_, [&] {
      version_ = tool_version(cxx_, config_.cache_dir, VersionLine::first);
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
