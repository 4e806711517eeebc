#include "cudalab/gpu_probe.hpp"

#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cudalab/paths.hpp"
#include "cudalab/process.hpp"

namespace cudalab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

std::optional<GpuDevice> probe_gpu(const fs::path& runner, std::string& why, const std::string& visible_devices) {
  if (!is_executable(runner)) {
    why = "the GPU runner " + runner.string() + " is missing (cudalab was built without CUDA)";
    return std::nullopt;
  }
  ProcessOptions opts;
  opts.argv = {runner.string(), "--probe"};
  opts.timeout = std::chrono::seconds(60);
  if (!visible_devices.empty()) opts.environment = environment_with_visible_devices(visible_devices);
  const ProcessResult r = run_process(opts);
  try {
    const json j = json::parse(r.output);
    if (j.value("count", 0) == 0) {
      why = j.value("error", std::string("no CUDA device is visible"));
      return std::nullopt;
    }
    const json& d = j.at("devices").at(0);
    GpuDevice device{d.value("name", ""),     d.value("uuid", ""),          d.value("sm_count", 0),
                     d.value("clock_khz", 0), j.value("driver_version", 0), j.value("runtime_version", 0)};
    const std::string cc = d.value("compute_capability", "");
    if (const auto dot = cc.find('.'); dot != std::string::npos) {
      device.cc_major = std::atoi(cc.substr(0, dot).c_str());
      device.cc_minor = std::atoi(cc.substr(dot + 1).c_str());
    }
    return device;
  } catch (const std::exception& e) {
    why = "probing for GPUs failed: " + first_line(r.output);
    return std::nullopt;
  }
}

std::vector<std::string> environment_with_visible_devices(const std::string& visible_devices) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::string_view(*e).starts_with("CUDA_VISIBLE_DEVICES=")) continue;
    env.emplace_back(*e);
  }
  env.push_back("CUDA_VISIBLE_DEVICES=" + visible_devices);
  return env;
}

std::string clock_state() {
  const fs::path smi = find_on_path("nvidia-smi");
  if (smi.empty()) return "";
  ProcessOptions opts;
  opts.argv = {smi.string(),
               "--query-gpu=clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,"
               "clocks_event_reasons.active",
               "--format=csv,noheader,nounits"};
  opts.timeout = std::chrono::seconds(20);
  const ProcessResult r = run_process(opts);
  if (!r.ok()) return "";
  std::vector<std::string> f;
  std::stringstream line(first_line(r.output));
  for (std::string cell; std::getline(line, cell, ',');) {
    cell.erase(0, cell.find_first_not_of(' '));
    f.push_back(cell);
  }
  if (f.size() < 6) return first_line(r.output);
  // Active event reasons: 0x0 none, 0x1 idle; anything else (power cap, thermal, …) is throttling.
  const unsigned long reasons = std::strtoul(f[5].c_str(), nullptr, 16);
  const std::string throttle = (reasons & ~0x1ul) == 0 ? "none" : "active (" + f[5] + ")";
  return fmt::format("SM {} of {} MHz, memory {} MHz, {} C, {} W, throttling {}", f[0], f[1], f[2], f[3], f[4],
                     throttle);
}

std::string nvidia_driver() {
  const fs::path smi = find_on_path("nvidia-smi");
  if (smi.empty()) return "";
  ProcessOptions opts;
  opts.argv = {smi.string(), "--query-gpu=driver_version", "--format=csv,noheader"};
  opts.timeout = std::chrono::seconds(20);
  const ProcessResult r = run_process(opts);
  return r.ok() ? first_line(r.output) : "";
}

}  // namespace cudalab
