// What the GPU is: the runner's probe (name, SMs, clock, compute capability, CUDA versions) and
// what nvidia-smi says about the driver and the clocks. The gpu toolchain asks the probe whether it
// can run and which architecture "native" means; bench reports the rest.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cudalab {

/// The GPU as the runner's probe reports it.
struct GpuDevice {
  std::string name;         ///< "NVIDIA H100 80GB HBM3"
  std::string uuid;         ///< the device's UUID, 32 hex digits
  int sm_count = 0;         ///< streaming multiprocessors
  int clock_khz = 0;        ///< the boost clock the device reports
  int driver_version = 0;   ///< CUDA driver API version, 13000 for 13.0
  int runtime_version = 0;  ///< CUDA runtime version
  int cc_major = 0;         ///< compute capability, 9.0 for an H100
  int cc_minor = 0;         ///< compute capability's minor number (0 for 9.0)
};

/// The first device the GPU runner sees, or nothing (with `why`) when there is none.
/// `visible_devices`, when not empty, is the runner's CUDA_VISIBLE_DEVICES (one GPU of several).
std::optional<GpuDevice> probe_gpu(const std::filesystem::path& runner, std::string& why,
                                   const std::string& visible_devices = {});

/// This process's environment with CUDA_VISIBLE_DEVICES set to `visible_devices`: for a child
/// (the probe, the peak copy) that must see one GPU of several.
std::vector<std::string> environment_with_visible_devices(const std::string& visible_devices);

/// Clock and throttle state from nvidia-smi (NVML's tool): "SM 1980 MHz of 1980, 45 C, throttle: none";
/// empty when nvidia-smi is missing.
std::string clock_state();

/// The NVIDIA driver's version ("580.159.04") from nvidia-smi; empty when unknown.
std::string nvidia_driver();

}  // namespace cudalab
