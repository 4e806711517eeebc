#include "cudalab/backend.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "cudalab/errors.hpp"

namespace cudalab {

namespace fs = std::filesystem;

BackendRequest parse_backend_request(std::string_view text) {
  if (text == "auto") return BackendRequest::automatic;
  if (text == "gpu") return BackendRequest::gpu;
  if (text == "sim") return BackendRequest::sim;
  throw UsageError("unknown backend '" + std::string(text) + "'; give auto, gpu or sim");
}

bool nvidia_gpu_visible() {
  std::error_code ec;
  if (fs::exists("/dev/dxg", ec)) return true;  // WSL 2 shows GPUs through this node only
  for (const auto& entry : fs::directory_iterator("/dev", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 6 && name.starts_with("nvidia") &&
        std::all_of(name.begin() + 6, name.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
      return true;
    }
  }
  return false;
}

std::string gpu_problem_in_words(const std::string& why) {
  // Without a GPU, the CUDA runtime's reason ("driver version is insufficient") misleads.
  return nvidia_gpu_visible() ? why : "no NVIDIA GPU found";
}

BackendChoice choose_backend(BackendRequest wanted, const ToolchainConfig& config) {
  BackendChoice choice;
  std::string gpu_why;
  if (wanted != BackendRequest::sim) {
    auto gpu = make_gpu_toolchain(config);
    if (gpu->available(gpu_why)) {
      choice.line = "backend: gpu (" + gpu->describe() + ")";
      choice.toolchain = std::move(gpu);
      return choice;
    }
    if (wanted == BackendRequest::gpu) {
      const std::string words = gpu_problem_in_words(gpu_why);
      throw SetupError("--backend gpu: " + (words == gpu_why ? gpu_why : words + " (" + gpu_why + ")") +
                       "; use --backend sim to run on the CPU simulator");
    }
    choice.gpu_problem = gpu_why;
  }
#ifdef CUDALAB_HAVE_SIM
  auto sim = make_sim_toolchain(config);
  std::string sim_why;
  if (!sim->available(sim_why)) {
    if (wanted == BackendRequest::sim) throw SetupError("the CPU simulator cannot run here: " + sim_why);
    throw SetupError(gpu_problem_in_words(gpu_why) + ", and the CPU simulator cannot run here: " + sim_why);
  }
  choice.line = "backend: sim (" + sim->describe() + ")";
  if (wanted == BackendRequest::automatic)
    choice.line += "; " + gpu_problem_in_words(gpu_why) + ": using the CPU simulator";
  choice.toolchain = std::move(sim);
  return choice;
#else
  if (wanted == BackendRequest::sim) throw SetupError("this build of cudalab has no CPU simulator");
  throw SetupError(gpu_problem_in_words(gpu_why) + ", and this build of cudalab has no CPU simulator");
#endif
}

}  // namespace cudalab
