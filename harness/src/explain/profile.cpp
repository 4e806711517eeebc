// `cudalab bench --profile` (profile.hpp): one call of solve under Nsight Compute, its CSV read
// into per-kernel counters, and explain's counts of the same call on the simulator beside them.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudalab/exercise_check.hpp"
#include "cudalab/paths.hpp"
#include "cudalab/process.hpp"
#include "cudalab/profile.hpp"
#include "cudalab/text.hpp"

namespace cudalab {

namespace fs = std::filesystem;
using protocol::MemorySpace;

namespace {

// The counters, by what they measure (Nsight Compute's metric names on Volta and later).
constexpr const char* kGlobalLoadRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
constexpr const char* kGlobalLoadSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
constexpr const char* kGlobalStoreRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
constexpr const char* kGlobalStoreSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
constexpr const char* kSharedLoadRequests = "smsp__sass_inst_executed_op_shared_ld.sum";
constexpr const char* kSharedLoadWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
constexpr const char* kSharedStoreRequests = "smsp__sass_inst_executed_op_shared_st.sum";
constexpr const char* kSharedStoreWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
constexpr const char* kSharedLoadConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
constexpr const char* kSharedStoreConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
constexpr const char* kTheoreticalOccupancy = "sm__maximum_warps_per_active_cycle_pct";
constexpr const char* kAchievedOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr const char* kActiveLanes = "smsp__thread_inst_executed_per_inst_executed.ratio";
constexpr const char* kBranchTargets = "smsp__sass_branch_targets.sum";
constexpr const char* kBranchUniform = "smsp__sass_branch_targets_threads_uniform.sum";
constexpr const char* kDramRead = "dram__bytes_read.sum";
constexpr const char* kDramWrite = "dram__bytes_write.sum";
constexpr const char* kDramPeak = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kDuration = "gpu__time_duration.sum";
constexpr const char* kRegisters = "launch__registers_per_thread";

/// Kernels profiled at most: every launch of a call of solve in every exercise is well under it.
constexpr int kMaxProfiledLaunches = 256;

/// One CSV line's fields (RFC 4180 quoting: "a ""b""" is a "b").
std::vector<std::string> csv_fields(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        fields.back() += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      fields.emplace_back();
    } else if (ch != '\r') {
      fields.back() += ch;
    }
  }
  return fields;
}

/// A number as ncu prints it ("1,048,576", "72.35"); nullopt for "", "n/a" and the like.
std::optional<double> csv_number(std::string text) {
  std::erase(text, ',');
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return std::nullopt;
  return v;
}

/// "(256, 1, 1)" as three numbers.
std::array<unsigned, 3> csv_triple(const std::string& text) {
  std::array<unsigned, 3> v{1, 1, 1};
  std::istringstream in(text);
  char ch = 0;
  in >> ch >> v[0] >> ch >> v[1] >> ch >> v[2];
  return v;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.pop_back();
  const auto first = s.find_first_not_of(" \t");
  return first == std::string::npos ? "" : s.substr(first);
}

/// One line for people from ncu's errors.
std::string problem_of(const std::vector<std::string>& errors) {
  for (const auto& e : errors) {
    if (e.find("ERR_NVGPUCTRPERM") != std::string::npos) {
      return "the GPU's performance counters are not open to this user (ERR_NVGPUCTRPERM): an administrator can "
             "open them with `options nvidia NVreg_RestrictProfilingToAdminUsers=0` in a file under "
             "/etc/modprobe.d/ and a reboot, or run cudalab as root; "
             "https://developer.nvidia.com/ERR_NVGPUCTRPERM says more";
    }
  }
  if (!errors.empty()) return "Nsight Compute failed: " + errors.front();
  return "";
}

/// Adds one launch's row to the kernel's counters (sums, and ratios weighted by duration).
void add_launch(KernelCounters& k, const std::map<std::string, double>& v, double& weight) {
  auto get = [&](const char* name) -> std::optional<double> {
    const auto it = v.find(name);
    return it == v.end() ? std::nullopt : std::optional<double>(it->second);
  };
  auto sum = [&](double& into, const char* name) { into += get(name).value_or(0); };
  sum(k.global_loads.requests, kGlobalLoadRequests);
  sum(k.global_loads.units, kGlobalLoadSectors);
  sum(k.global_stores.requests, kGlobalStoreRequests);
  sum(k.global_stores.units, kGlobalStoreSectors);
  sum(k.shared_loads.requests, kSharedLoadRequests);
  sum(k.shared_loads.units, kSharedLoadWavefronts);
  sum(k.shared_stores.requests, kSharedStoreRequests);
  sum(k.shared_stores.units, kSharedStoreWavefronts);
  sum(k.shared_loads.conflicts, kSharedLoadConflicts);
  sum(k.shared_stores.conflicts, kSharedStoreConflicts);
  const double duration = get(kDuration).value_or(0) * 1e-9;  // ns, as --print-units base gives it
  const double w = std::max(duration, 1e-12);
  auto average = [&](std::optional<double>& into, std::optional<double> value, double scale) {
    if (!value) return;
    into = (into.value_or(0) * weight + *value * scale * w) / (weight + w);
  };
  average(k.theoretical_occupancy, get(kTheoreticalOccupancy), 0.01);
  average(k.achieved_occupancy, get(kAchievedOccupancy), 0.01);
  average(k.active_lanes, get(kActiveLanes), 1.0);
  average(k.dram_peak_share, get(kDramPeak), 0.01);
  if (const auto r = get(kRegisters)) k.registers = std::max(k.registers.value_or(0), static_cast<unsigned>(*r));
  if (const auto read = get(kDramRead), write = get(kDramWrite); read || write) {
    k.dram_bytes = k.dram_bytes.value_or(0) + read.value_or(0) + write.value_or(0);
  }
  k.duration_s = k.duration_s.value_or(0) + duration;
  weight += w;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// "Version 2025.3.1.0 (build 36398880) (public-release)" → "Nsight Compute 2025.3.1.0".
std::string ncu_version(const fs::path& tool) {
  ProcessOptions o;
  o.argv = {tool.string(), "--version"};
  o.timeout = std::chrono::milliseconds(30'000);
  const ProcessResult p = run_process(o);
  std::istringstream lines(p.output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with("Version ")) {
      std::istringstream words(line.substr(8));
      std::string v;
      words >> v;
      return "Nsight Compute " + v;
    }
  }
  return "Nsight Compute";
}

/// A private folder for one ncu log, removed with the object: made by mkdtemp (a name nobody can
/// guess or create first, mode 700), never a path another user could have prepared.
class ScratchFolder {
 public:
  ScratchFolder() {
    std::string pattern = (fs::temp_directory_path() / "cudalab-ncu-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::system_error(errno, std::generic_category(),
                              "cannot make a folder for Nsight Compute's log in " + fs::temp_directory_path().string());
    }
    path_ = pattern;
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  ~ScratchFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

}  // namespace

std::optional<double> AccessCount::per_request() const {
  if (requests <= 0) return std::nullopt;
  return units / requests;
}

std::optional<double> AccessCount::ideal_per_request() const {
  if (requests <= 0 || ideal <= 0) return std::nullopt;
  return ideal / requests;
}

const std::vector<std::string>& profile_metrics() {
  static const std::vector<std::string> metrics = {kGlobalLoadRequests,
                                                   kGlobalLoadSectors,
                                                   kGlobalStoreRequests,
                                                   kGlobalStoreSectors,
                                                   kSharedLoadRequests,
                                                   kSharedLoadWavefronts,
                                                   kSharedStoreRequests,
                                                   kSharedStoreWavefronts,
                                                   kSharedLoadConflicts,
                                                   kSharedStoreConflicts,
                                                   kTheoreticalOccupancy,
                                                   kAchievedOccupancy,
                                                   kActiveLanes,
                                                   kBranchTargets,
                                                   kBranchUniform,
                                                   kDramRead,
                                                   kDramWrite,
                                                   kDramPeak,
                                                   kDuration,
                                                   kRegisters};
  return metrics;
}

NcuLog parse_ncu_log(std::string_view text) {
  NcuLog log;
  std::vector<std::string> header;
  bool units_row = false;
  std::map<std::string, std::size_t> index;  // kernel name → log.kernels
  std::vector<double> weights;
  std::vector<std::pair<double, double>> branches;  // uniform, all
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("==ERROR==")) {
      log.errors.push_back(trim(line.substr(9)));
      continue;
    }
    if (line.starts_with("==")) continue;  // ==PROF==, ==WARNING==
    if (line.empty()) continue;
    auto fields = csv_fields(line);
    if (header.empty()) {
      if (!fields.empty() && fields.front() == "ID") {
        header = std::move(fields);
        units_row = true;
      }
      continue;
    }
    if (units_row) {  // the row under the header gives each column's unit
      units_row = false;
      continue;
    }
    std::map<std::string, double> values;
    std::string name;
    std::array<unsigned, 3> grid{1, 1, 1};
    std::array<unsigned, 3> block{1, 1, 1};
    for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i) {
      if (header[i] == "Kernel Name") name = kernel_display_name(fields[i]);
      if (header[i] == "Grid Size") grid = csv_triple(fields[i]);
      if (header[i] == "Block Size") block = csv_triple(fields[i]);
      if (const auto v = csv_number(fields[i])) values[header[i]] = *v;
    }
    if (name.empty()) continue;
    auto [it, added] = index.try_emplace(name, log.kernels.size());
    if (added) {
      KernelCounters k;
      k.kernel = name;
      k.grid = grid;
      k.block = block;
      log.kernels.push_back(std::move(k));
      weights.push_back(0);
      branches.emplace_back(0, 0);
    }
    KernelCounters& k = log.kernels[it->second];
    ++k.launches;
    add_launch(k, values, weights[it->second]);
    if (const auto all = values.find(kBranchTargets); all != values.end()) {
      branches[it->second].second += all->second;
      if (const auto u = values.find(kBranchUniform); u != values.end()) branches[it->second].first += u->second;
    }
  }
  for (std::size_t i = 0; i < log.kernels.size(); ++i) {
    if (branches[i].second > 0) log.kernels[i].branch_uniformity = branches[i].first / branches[i].second;
  }
  log.problem = problem_of(log.errors);
  if (log.problem.empty() && log.kernels.empty()) {
    log.problem = header.empty() ? "Nsight Compute wrote no counters (no CSV in its log)"
                                 : "Nsight Compute profiled no kernel: did solve launch any?";
  }
  return log;
}

std::vector<KernelCounters> simulated_counters(const ExplainResult& explained) {
  std::vector<KernelCounters> out;
  for (const auto& k : explained.kernels) {
    KernelCounters c;
    c.kernel = k.kernel;
    c.launches = k.launches;
    c.grid = k.grid;
    c.block = k.block;
    c.registers = k.registers;
    c.theoretical_occupancy = k.occupancy.theoretical;  // ncu's theoretical: the grid aside
    if (k.requests > 0) c.active_lanes = k.active_lanes / k.requests;
    c.duration_s = k.estimate.total();
    for (const auto& l : explained.lines) {
      if (l.kernel != k.kernel || l.atomic) continue;
      AccessCount& a = l.space == MemorySpace::global ? (l.write ? c.global_stores : c.global_loads)
                                                      : (l.write ? c.shared_stores : c.shared_loads);
      a.requests += l.requests;
      a.units += l.units;
      a.ideal += l.ideal_units;
      if (l.space == MemorySpace::shared) a.conflicts += l.units - l.ideal_units;
    }
    out.push_back(std::move(c));
  }
  return out;
}

fs::path find_ncu() {
  std::vector<fs::path> places = {"/usr/local/cuda/bin/ncu"};
  std::vector<fs::path> versions;  // /opt/nvidia/nsight-compute/<version>/ncu, the newest first
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/opt/nvidia/nsight-compute", ec)) versions.push_back(e.path() / "ncu");
  std::ranges::sort(versions, std::greater<>{});
  places.insert(places.end(), versions.begin(), versions.end());
  return find_tool("CUDALAB_NCU", "ncu", places);
}

std::string target_for_device(std::string_view device_name) {
  std::string name(device_name);
  std::ranges::transform(name, name.begin(), [](unsigned char ch) { return std::tolower(ch); });
  for (const auto& t : gpu_targets()) {
    if (name.find(t.key) != std::string::npos) return t.key;
  }
  if (name.find("4090") != std::string::npos) return "rtx4090";
  return gpu_targets().front().key;
}

ProfileResult profile_exercise(const Task& task, const Toolchain& gpu, const Toolchain& sim, const fs::path& source,
                               const ProfileOptions& options) {
  ProfileResult r;
  r.task = &task;
  r.source = source;
  r.device = options.device_name;
  r.c = representative_case(task, options.only_sizes);

  // The simulator's side: explain at the same size, with the same inputs.
  ExplainOptions explain;
  explain.target = target_for_device(options.device_name);
  explain.seed = options.seed;
  explain.only_sizes = options.only_sizes;
  explain.cache_dir = options.cache_dir;
  explain.count_every_block = true;  // exact counts, as the GPU's are
  r.explained = explain_exercise(task, sim, source, explain);
  r.predicted = simulated_counters(r.explained);

  const fs::path tool = options.ncu.empty() ? find_ncu() : options.ncu;
  if (tool.empty()) {
    r.problem =
        "--profile runs Nsight Compute (ncu), which was not found: it comes with the CUDA toolkit; put its folder on "
        "PATH or set CUDALAB_NCU";
    return r;
  }
  r.tool = ncu_version(tool);
  const CompileResult compiled = gpu.compile(source);
  if (!compiled.ok) {
    r.verdict = Verdict::compile_error;
    r.message = "the file does not compile for the GPU";
    return r;
  }
  const ScratchFolder scratch;
  const fs::path log_file = scratch.path() / "ncu.csv";
  std::string metrics;
  for (const auto& m : profile_metrics()) metrics += (metrics.empty() ? "" : ",") + m;
  CheckOptions run;
  run.seed = options.seed;
  run.timeout = options.timeout;
  run.visible_devices = options.visible_devices;
  // The clocks as they are (no locking to base clocks, which needs more rights and slows the
  // GPU for everyone); the caches flushed before each pass, so that device-memory traffic is a
  // cold kernel's.
  run.runner_prefix = {tool.string(),
                       "--clock-control",
                       "none",
                       "--cache-control",
                       "all",
                       "--target-processes",
                       "all",
                       "--launch-count",
                       std::to_string(kMaxProfiledLaunches),
                       "--csv",
                       "--page",
                       "raw",
                       "--print-units",
                       "base",
                       "--kernel-name-base",
                       "demangled",
                       "--metrics",
                       metrics,
                       "--log-file",
                       log_file.string()};
  std::string output;
  run.runner_output = &output;
  const std::vector<CaseResult> cases = run_cases(task, gpu, compiled.module, {r.c}, run);
  if (!cases.empty()) {
    r.verdict = cases.front().verdict;
    if (r.verdict != Verdict::passed) r.message = cases.front().message;
  }
  NcuLog log = parse_ncu_log(slurp(log_file));
  r.problem = log.problem;
  r.measured = std::move(log.kernels);
  return r;
}

}  // namespace cudalab
