// A toolchain turns a student's kernel.cu into a loadable module for one backend, and names the
// child program (the runner) that loads such modules. One toolchain per backend: `gpu` (nvcc)
// and `sim` (host compiler + the CPU simulator).
#pragma once

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "cudalab/errors.hpp"  // SetupError: what compile() and the toolchains throw

namespace cudalab {

/// Where student code runs.
enum class Backend { gpu, sim };

/// "gpu" or "sim".
const char* backend_name(Backend b);

/// Outcome of compiling one source file.
struct CompileResult {
  bool ok = false;               ///< it compiled: `module` exists
  std::filesystem::path module;  ///< the shared object, when ok
  std::string diagnostics;       ///< the compiler's own messages (errors and warnings), verbatim
  std::string command;           ///< the command line that ran, for error reports
  bool cached = false;           ///< the module came from the cache without compiling
};

/// Paths and settings shared by every toolchain.
struct ToolchainConfig {
  std::filesystem::path cache_dir;   ///< compiled modules live here, named by content hash
  std::filesystem::path runner_dir;  ///< where the runner programs were installed/built
  std::string cuda_arch;             ///< nvcc -arch value; empty: "native" on a GPU machine
  /// The build `check --sanitize` runs: on the simulator, every load and store of device code
  /// calls the runtime's checks; on a GPU, line information for compute-sanitizer's reports.
  bool checked = false;
};

/// Compiles kernel.cu files for one backend, with a content-addressed cache.
class Toolchain {
 public:
  virtual ~Toolchain() = default;
  /// The backend its modules run on.
  [[nodiscard]] virtual Backend backend() const = 0;
  /// One line naming the compiler and target, e.g. "nvcc 13.0, -arch=sm_90".
  [[nodiscard]] virtual std::string describe() const = 0;
  /// Whether this toolchain can compile and run here; if not, `why` says what is missing and
  /// what to do about it.
  [[nodiscard]] virtual bool available(std::string& why) const = 0;
  /// Compiles `source` (or returns the cached module for the same content and flags).
  [[nodiscard]] virtual CompileResult compile(const std::filesystem::path& source) const = 0;
  /// The child program that loads this toolchain's modules and calls `solve`.
  [[nodiscard]] virtual std::filesystem::path runner() const = 0;
};

/// The folder, by name only, where a source with no local includes is compiled: its module's key
/// then holds the file's name and text but not where it lies, and every copy of the same file (the
/// reference solution in a scratch copy of the project, an installed copy, identical submissions)
/// shares one module. The compiler's messages and the module's debug lines name this folder;
/// from_shared_folder() puts the file's own back.
inline constexpr std::string_view kSharedSourceFolder = "/cudalab-shared-source";

/// nvcc → a shared object linked against the shared CUDA runtime.
std::unique_ptr<Toolchain> make_gpu_toolchain(const ToolchainConfig& config);
/// host compiler + simulator headers → a shared object linked against the simulator runtime.
std::unique_ptr<Toolchain> make_sim_toolchain(const ToolchainConfig& config);

/// nvcc's device front end, for its verdict and messages only, where nvcc is installed: a check on
/// the simulator fails a file that nvcc rejects, in nvcc's words (`file:line: error: …`). Its
/// compile() runs no GPU and makes no module to run; runner() is empty. Null where no nvcc is found,
/// or where `CUDALAB_NVCC_FRONT_END=0` turns it off.
std::unique_ptr<Toolchain> make_nvcc_front_end(const ToolchainConfig& config);

/// nvcc's `file(line): error: …` locations as `file:line: error: …`, the form editors read.
std::string gcc_style_locations(const std::string& nvcc_messages);

}  // namespace cudalab
