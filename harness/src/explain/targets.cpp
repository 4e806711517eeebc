// The GPUs explain estimates against, their occupancy rules, and register counts from nvcc.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "cudalab/detail/module_cache.hpp"
#include "cudalab/explain.hpp"
#include "cudalab/files.hpp"
#include "cudalab/paths.hpp"
#include "cudalab/process.hpp"
#include "registers.hpp"

namespace cudalab {

namespace fs = std::filesystem;

const std::vector<GpuTarget>& gpu_targets() {
  // From NVIDIA's data sheets and the CUDA programming guide's table of compute capabilities:
  // the SXM H100 and the 80 GB SXM A100; the FP32 peak is SMs × 128 (64 on the A100) FMA lanes ×
  // 2 × the boost clock.
  static const std::vector<GpuTarget> targets = {
      {"h100", "NVIDIA H100 SXM", "sm_90", 132, 64, 32, 65536, 256, 233472, 232448, 1024, 128, 3.35e12, 67e12, 1.98e9},
      {"a100", "NVIDIA A100 SXM 80 GB", "sm_80", 108, 64, 32, 65536, 256, 167936, 166912, 1024, 128, 2.039e12, 19.5e12,
       1.41e9},
      {"rtx4090", "NVIDIA GeForce RTX 4090", "sm_89", 128, 48, 24, 65536, 256, 102400, 101376, 1024, 128, 1.008e12,
       82.6e12, 2.52e9},
  };
  return targets;
}

const GpuTarget* find_gpu_target(std::string_view key) {
  std::string wanted;
  for (const char c : key) {
    if (std::isalnum(static_cast<unsigned char>(c))) wanted += static_cast<char>(std::tolower(c));
  }
  if (wanted.starts_with("nvidia")) wanted.erase(0, 6);
  if (wanted.starts_with("geforce")) wanted.erase(0, 7);
  if (wanted == "4090") wanted = "rtx4090";
  for (const auto& t : gpu_targets()) {
    if (t.key == wanted) return &t;
  }
  return nullptr;
}

const char* occupancy_limit_name(OccupancyLimit limit) {
  switch (limit) {
    case OccupancyLimit::warps:
      return "warps per SM";
    case OccupancyLimit::blocks:
      return "blocks per SM";
    case OccupancyLimit::registers:
      return "registers";
    case OccupancyLimit::shared_memory:
      return "shared memory";
    case OccupancyLimit::grid:
      return "blocks in the grid";
  }
  return "?";
}

Occupancy theoretical_occupancy(const GpuTarget& target, unsigned threads, unsigned registers, std::size_t shared_bytes,
                                std::uint64_t grid_blocks) {
  Occupancy o;
  const unsigned warps = std::max(1u, (threads + 31) / 32);
  // Each limit as blocks per SM; the first that gives the fewest binds.
  const unsigned by_warps = target.max_warps_per_sm / warps;
  const unsigned by_blocks = target.max_blocks_per_sm;
  // Registers go to a warp in units (256 on every target here): 32 × registers, rounded up.
  const unsigned per_warp =
      (std::max(1u, registers) * 32 + target.register_unit - 1) / target.register_unit * target.register_unit;
  const unsigned by_registers = (target.registers_per_sm / per_warp) / warps;
  const std::size_t per_block = (shared_bytes + target.shared_unit - 1) / target.shared_unit * target.shared_unit +
                                target.shared_reserved_per_block;
  const auto by_shared = static_cast<unsigned>(target.shared_per_sm / per_block);
  o.blocks_per_sm = by_warps;
  o.limit = OccupancyLimit::warps;
  const std::pair<unsigned, OccupancyLimit> others[] = {{by_blocks, OccupancyLimit::blocks},
                                                        {by_registers, OccupancyLimit::registers},
                                                        {by_shared, OccupancyLimit::shared_memory}};
  for (const auto& [blocks, limit] : others) {
    if (blocks < o.blocks_per_sm) {
      o.blocks_per_sm = blocks;
      o.limit = limit;
    }
  }
  o.theoretical = static_cast<double>(o.blocks_per_sm * warps) / target.max_warps_per_sm;
  // A grid smaller than what the SMs could hold: each SM gets only its share of the blocks.
  if (grid_blocks > 0) {
    const std::uint64_t share = (grid_blocks + target.sms - 1) / target.sms;
    if (share < o.blocks_per_sm) {
      o.blocks_per_sm = static_cast<unsigned>(share);
      o.limit = OccupancyLimit::grid;
    }
  }
  o.warps_per_sm = o.blocks_per_sm * warps;
  o.fraction = static_cast<double>(o.warps_per_sm) / target.max_warps_per_sm;
  return o;
}

std::map<std::string, unsigned> parse_ptxas_registers(const std::string& output) {
  // ptxas info    : Compiling entry function '_Z9transposePKfPfii' for 'sm_90'
  // ptxas info    : Used 32 registers, used 1 barriers, 4224 bytes smem
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex used(R"(Used (\d+) registers)");
  std::map<std::string, unsigned> out;
  std::istringstream lines(output);
  std::string line;
  std::string current;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, entry)) {
      current = m[1];
    } else if (!current.empty() && std::regex_search(line, m, used)) {
      out[current] = static_cast<unsigned>(std::stoul(m[1]));
      current.clear();
    }
  }
  return out;
}

std::optional<unsigned> registers_of(const std::map<std::string, unsigned>& entries, const std::string& kernel) {
  // The launch's text: "k", "k<T, 4>", "ns::k": the identifier before any template arguments.
  std::string name = kernel.substr(0, kernel.find('<'));
  if (const auto colon = name.rfind("::"); colon != std::string::npos) name.erase(0, colon + 2);
  while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
  if (name.empty()) return std::nullopt;
  // Itanium mangling writes an identifier as its length, then its letters.
  const std::string mangled = std::to_string(name.size()) + name;
  std::optional<unsigned> most;
  for (const auto& [entry, registers] : entries) {
    for (std::size_t at = entry.find(mangled); at != std::string::npos; at = entry.find(mangled, at + 1)) {
      // "12my_kernel" must not be found as "2my_kernel".
      if (at == 0 || !std::isdigit(static_cast<unsigned char>(entry[at - 1]))) {
        most = std::max(most.value_or(0), registers);
        break;
      }
    }
  }
  return most;
}

namespace {

fs::path find_nvcc() {
  if (const char* env = std::getenv("CUDALAB_NVCC"); env != nullptr && *env != '\0') return env;
  if (auto on_path = find_on_path("nvcc"); !on_path.empty()) return on_path;
  if (is_executable("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  return {};
}

}  // namespace

NvccRegisters nvcc_registers(const fs::path& source, const std::string& arch, const fs::path& cache_dir) {
  NvccRegisters r;
  const fs::path nvcc = find_nvcc();
  if (nvcc.empty()) {
    r.note = fmt::format("registers unknown (no nvcc to ask): assumed {} per thread", kAssumedRegisters);
    return r;
  }
  std::string text;
  try {
    text = read_file(source);
  } catch (const std::exception&) {
    r.note = fmt::format("registers unknown (cannot read the source): assumed {} per thread", kAssumedRegisters);
    return r;
  }
  // Kept by content, as modules are: the same file asks nvcc once.
  const std::string key = content_key({"ptxas-registers-1", text, local_includes(source, text), arch, nvcc.string()});
  const fs::path kept = cache_dir.empty() ? fs::path() : cache_dir / "explain" / (key + ".ptxas");
  std::string output;
  if (!kept.empty() && fs::exists(kept)) {
    output = read_file(kept);
  } else {
    ProcessOptions opts;
    opts.argv = {nvcc.string(), "-arch=" + arch, "-Xptxas", "-v", "-cubin", "-o", "/dev/null", source.string()};
    opts.timeout = std::chrono::minutes(2);
    const ProcessResult p = run_process(opts);
    if (p.status != ProcessResult::Status::exited || p.exit_code != 0) {
      r.note = fmt::format("registers unknown (nvcc could not compile the file for {}): assumed {} per thread", arch,
                           kAssumedRegisters);
      return r;
    }
    output = p.output;
    if (!kept.empty()) {
      std::error_code ec;
      fs::create_directories(kept.parent_path(), ec);
      try {
        write_file_atomically(kept, output);
      } catch (const std::system_error&) {
        // Not kept: nvcc is asked again next time.
      }
    }
  }
  r.entries = parse_ptxas_registers(output);
  r.note = fmt::format("registers per thread from nvcc -arch={} -Xptxas -v", arch);
  return r;
}

}  // namespace cudalab
