// The `gpu` toolchain: nvcc builds kernel.cu into a shared object linked against the shared CUDA
// runtime, which the GPU runner loads.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <regex>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cudalab/detail/module_cache.hpp"
#include "cudalab/gpu_probe.hpp"
#include "cudalab/paths.hpp"
#include "cudalab/process.hpp"
#include "cudalab/toolchain.hpp"

namespace cudalab {

namespace fs = std::filesystem;

const char* backend_name(Backend b) { return b == Backend::gpu ? "gpu" : "sim"; }

namespace {

fs::path find_nvcc() {
  if (const char* env = std::getenv("CUDALAB_NVCC"); env != nullptr && *env != '\0') return env;
  if (fs::path built_with = CUDALAB_NVCC_PATH; !built_with.empty() && is_executable(built_with)) return built_with;
  if (auto on_path = find_on_path("nvcc"); !on_path.empty()) return on_path;
  if (is_executable("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  return {};
}

/// One nvcc: its path, its version (asked once), and a cached compile of a source with given flags,
/// which both nvcc toolchains run.
class Nvcc {
 public:
  Nvcc(fs::path path, fs::path cache_dir) : path_(std::move(path)), cache_dir_(std::move(cache_dir)) {}

  [[nodiscard]] const fs::path& path() const { return path_; }

  /// Compiles `source` with `flags` into `cache_dir/folder`, or returns the cached result. The key
  /// holds nvcc's own version (an upgraded toolkit in the same place), the flags (the architecture
  /// "native" stood for, when machines with different GPUs share a cache folder) and the source
  /// path, which nvcc bakes into messages and line info — unless `messages_only` (nothing but the
  /// messages is used) and the file has no local includes: then nvcc compiles a copy of it under
  /// kSharedSourceFolder's name, and every copy of the same text shares the result.
  CompileResult compile(const fs::path& source, const std::string& folder, const std::vector<std::string>& flags,
                        std::chrono::minutes timeout, int niceness, bool messages_only = false) const {
    CompileResult result;
    std::string text;
    try {
      text = read_file(source);
    } catch (const std::exception& e) {
      result.diagnostics = e.what();
      return result;
    }
    const std::string includes = local_includes(source, text);
    const bool shared = messages_only && includes.empty();
    const std::string name = shared ? compiled_name(source, false).string() : source.string();
    const std::string key = content_key({folder, text, includes, shell_join(flags), path_.string(), version(), name});
    result = cached_compile(cache_dir_ / folder, key, [&](const fs::path& out, std::string& command) {
      ProcessOptions opts;
      opts.argv = {path_.string()};
      opts.argv.insert(opts.argv.end(), flags.begin(), flags.end());
      // The shared name's copy, in a folder of this compile's own (the stored messages name the
      // shared folder, whoever compiled first).
      const RemoveTree copy_folder{shared ? out.string() + ".d" : std::string()};
      fs::path compiled = source;
      if (shared) {
        compiled = copy_folder.path / source.filename();
        std::error_code ec;
        fs::create_directories(copy_folder.path, ec);
        std::ofstream copy(compiled, std::ios::binary);
        copy << text;
        if (!copy) throw SetupError("cannot write " + compiled.string() + ": " + std::strerror(errno));
      }
      opts.argv.insert(opts.argv.end(), {"-o", out.string(), compiled.string()});
      opts.timeout = timeout;
      opts.niceness = niceness;
      command = shell_join(opts.argv);
      ProcessResult r = run_process(opts);
      if (shared) r.output = replace_all(std::move(r.output), copy_folder.path.string(), kSharedSourceFolder);
      return r;
    });
    if (shared) result.diagnostics = from_shared_folder(std::move(result.diagnostics), source);
    return result;
  }

 private:
  /// The last line of `nvcc --version` ("Build cuda_13.0.r13.0/compiler.36424714_0"); asked once.
  const std::string& version() const {
    std::call_once(version_once_, [&] { version_ = tool_version(path_, cache_dir_, VersionLine::last); });
    return version_;
  }

  fs::path path_;
  fs::path cache_dir_;
  mutable std::once_flag version_once_;
  mutable std::string version_;
};

/// What `cudalab-runner-gpu --probe` reported; asked once per process.
struct DeviceProbe {
  std::optional<GpuDevice> device;
  std::string error;
};

class GpuToolchain final : public Toolchain {
 public:
  explicit GpuToolchain(ToolchainConfig config) : config_(std::move(config)), nvcc_(find_nvcc(), config_.cache_dir) {
    if (const char* env = std::getenv("CUDALAB_CUDA_ARCH"); env != nullptr && *env != '\0') {
      config_.cuda_arch = env;
    }
    if (config_.cuda_arch.empty()) config_.cuda_arch = CUDALAB_DEFAULT_CUDA_ARCH;
    if (config_.cuda_arch.empty()) config_.cuda_arch = "native";
  }

  Backend backend() const override { return Backend::gpu; }

  std::string describe() const override {
    const auto& p = probe();
    return "nvcc, -arch=" + resolved_arch() + (p.device ? ", on " + p.device->name : "");
  }

  bool available(std::string& why) const override {
    if (nvcc_.path().empty()) {
      why = "nvcc was not found: install the CUDA toolkit or set CUDALAB_NVCC";
      return false;
    }
    // Without its runner the probe below would fail as if the GPU were at fault.
    if (!is_executable(runner())) {
      why = std::string(CUDALAB_NVCC_PATH).empty()
                ? "this build of cudalab has no GPU backend (it was configured without the CUDA toolkit): rebuild "
                  "cudalab with nvcc installed"
                : "the GPU runner " + runner().string() +
                      " is missing or not executable: rebuild or reinstall cudalab (it belongs beside the cudalab "
                      "program)";
      return false;
    }
    const auto& p = probe();
    if (!p.device) {
      why = "no usable CUDA device (" + p.error + ")";
      return false;
    }
    return true;
  }

  CompileResult compile(const fs::path& source) const override {
    return nvcc_.compile(source, "gpu",
                         {"-std=c++17", "-O3", "-lineinfo", "-shared", "-Xcompiler", "-fPIC", "-cudart", "shared",
                          "-arch=" + resolved_arch()},
                         std::chrono::minutes(5), 0);
  }

  fs::path runner() const override { return config_.runner_dir / "cudalab-runner-gpu"; }

 private:
  /// -arch as given, with "native" replaced by the visible GPU's sm_XY (kept when none is visible).
  /// A Hopper GPU (9.0) gets sm_90a: its own instructions too (wgmma, setmaxnreg), which code
  /// built for sm_90a may use and which run on compute capability 9.0 alone, as the module does.
  std::string resolved_arch() const {
    if (config_.cuda_arch != "native") return config_.cuda_arch;
    const auto& p = probe();
    if (!p.device || p.device->cc_major == 0) return config_.cuda_arch;
    const std::string arch = "sm_" + std::to_string(p.device->cc_major) + std::to_string(p.device->cc_minor);
    return arch == "sm_90" ? "sm_90a" : arch;
  }

  const DeviceProbe& probe() const {
    std::call_once(probe_once_, [&] { probe_.device = probe_gpu(runner(), probe_.error); });
    return probe_;
  }

  ToolchainConfig config_;
  Nvcc nvcc_;
  mutable std::once_flag probe_once_;
  mutable DeviceProbe probe_;
};

/// nvcc's device front end, run for its verdict only (`--ptx` at -O0: no GPU, no driver, no
/// assembler). It is where nvcc rejects what a host compiler accepts — a host function called from a
/// kernel, a host variable read in one — so a file it rejects fails the simulator's check too.
class NvccFrontEnd final : public Toolchain {
 public:
  NvccFrontEnd(const ToolchainConfig& config, fs::path nvcc) : nvcc_(std::move(nvcc), config.cache_dir) {
    // The virtual architecture of the GPU the file is built for; the course's own where none is named.
    const std::string arch = CUDALAB_DEFAULT_CUDA_ARCH;
    arch_ = arch.starts_with("sm_") ? "compute_" + arch.substr(3) : "compute_90";
  }

  Backend backend() const override { return Backend::sim; }

  std::string describe() const override { return "nvcc's device front end (" + arch_ + "), for its messages"; }

  bool available(std::string& why) const override {
    if (nvcc_.path().empty()) why = "nvcc was not found";
    return !nvcc_.path().empty();
  }

  CompileResult compile(const fs::path& source) const override {
    // At nice +5 beside the simulator's builds, which the check needs first.
    CompileResult result =
        nvcc_.compile(source, "nvcc-front-end", {"-std=c++17", "--ptx", "-arch=" + arch_, "-Xcicc", "-O0"},
                      std::chrono::minutes(2), 5, true);
    result.diagnostics = gcc_style_locations(result.diagnostics);
    return result;
  }

  fs::path runner() const override { return {}; }

 private:
  Nvcc nvcc_;
  std::string arch_;
};

}  // namespace

std::string gcc_style_locations(const std::string& nvcc_messages) {
  // "kernel.cu(12): error: …" → "kernel.cu:12: error: …", which editors and problem matchers read.
  static const std::regex location(R"(^([^\s(][^(\n]*)\((\d+)\): (error|warning|remark))", std::regex::multiline);
  return std::regex_replace(nvcc_messages, location, "$1:$2: $3");
}

std::unique_ptr<Toolchain> make_gpu_toolchain(const ToolchainConfig& config) {
  return std::make_unique<GpuToolchain>(config);
}

std::unique_ptr<Toolchain> make_nvcc_front_end(const ToolchainConfig& config) {
  if (const char* env = std::getenv("CUDALAB_NVCC_FRONT_END"); env != nullptr && std::string_view(env) == "0") {
    return nullptr;
  }
  fs::path nvcc = find_nvcc();
  if (nvcc.empty()) return nullptr;
  return std::make_unique<NvccFrontEnd>(config, std::move(nvcc));
}

}  // namespace cudalab
