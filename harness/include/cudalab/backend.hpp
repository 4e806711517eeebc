// Choosing where student code runs (`--backend auto|gpu|sim`), and saying why in one line.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "cudalab/toolchain.hpp"

namespace cudalab {

/// What `--backend` asked for.
enum class BackendRequest { automatic, gpu, sim };

/// "auto", "gpu" or "sim" as a request; throws UsageError for anything else.
BackendRequest parse_backend_request(std::string_view text);

/// The toolchain chosen for a request, and what to tell the user about the choice.
struct BackendChoice {
  std::unique_ptr<Toolchain> toolchain;  ///< the chosen backend's toolchain

  /// One line: "backend: gpu (…)", or for `auto` on a machine without a GPU
  /// "backend: sim (…); no NVIDIA GPU found: using the CPU simulator".
  std::string line;
  /// Why the GPU was passed over, in the toolchain's own (often CUDA's) words; empty when the GPU
  /// was chosen or not asked about. For verbose output, not for every run.
  std::string gpu_problem;
};

/// The toolchain for `wanted`: with `automatic`, the GPU when it can run here, else the CPU
/// simulator. Throws SetupError, naming what is missing, when the requested backend cannot run.
BackendChoice choose_backend(BackendRequest wanted, const ToolchainConfig& config);

/// Whether the kernel shows an NVIDIA GPU to this machine (a /dev/nvidiaN device node, or WSL's
/// /dev/dxg), whether or not CUDA can use it.
bool nvidia_gpu_visible();

/// The GPU toolchain's `why` for a user: "no NVIDIA GPU found" where there is none (instead of
/// CUDA's "driver version is insufficient"), else the reason itself.
std::string gpu_problem_in_words(const std::string& why);

}  // namespace cudalab
