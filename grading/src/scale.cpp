// --gpus, --shard and --seed-file: parsing and the shard hash. The merge is in merge.cpp.
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "cudalab/grading/scale.hpp"

namespace cudalab::grading {

namespace fs = std::filesystem;

namespace {

/// A whole decimal number of type T, nothing else ("07" is 7; "", "-1", "1.5", "1e3" are not).
template <typename T>
std::optional<T> decimal(std::string_view text) {
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, by);) out.push_back(part);
  if (!text.empty() && text.back() == by) out.emplace_back();
  return out;
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

}  // namespace

std::vector<unsigned> parse_gpu_list(const std::string& text) {
  if (trimmed(text).empty()) throw UsageError("--gpus: empty list (e.g. --gpus 0,1)");
  std::vector<unsigned> out;
  std::set<unsigned> seen;
  for (const std::string& part : split(text, ',')) {
    const auto gpu = decimal<unsigned>(trimmed(part));
    if (!gpu) {
      throw UsageError(fmt::format(
          "--gpus {}: '{}' is not a GPU number (GPU numbers such as 0,1, as nvidia-smi lists them)", text, part));
    }
    if (!seen.insert(*gpu).second) throw UsageError(fmt::format("--gpus {}: GPU {} is listed twice", text, *gpu));
    out.push_back(*gpu);
  }
  return out;
}

std::string visible_device_for(unsigned gpu, const char* inherited) {
  if (inherited == nullptr) return std::to_string(gpu);
  std::vector<std::string> entries;
  for (const std::string& e : split(inherited, ',')) {
    if (!trimmed(e).empty()) entries.push_back(trimmed(e));
  }
  if (gpu >= entries.size()) {
    throw UsageError(fmt::format(
        "--gpus: GPU {} is not visible: cudalab sees {} GPU{} (CUDA_VISIBLE_DEVICES={}); GPU numbers count those", gpu,
        entries.size(), entries.size() == 1 ? "" : "s", inherited));
  }
  return entries[gpu];
}

GpuPool::GpuPool(std::size_t count) : gpus_(std::max<std::size_t>(count, 1)) {}

std::size_t GpuPool::share() {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (const auto g = fewest_checks()) {
      ++gpus_[*g].checks;
      return *g;
    }
    changed_.wait(lock);
  }
}

std::size_t GpuPool::take_alone() {
  std::unique_lock lock(mutex_);
  std::optional<std::size_t> reserved;
  for (;;) {
    if (reserved && gpus_[*reserved].checks == 0) {
      gpus_[*reserved].checks = 0;
      hold_alone(gpus_[*reserved]);
      gpus_[*reserved].reserved = false;
      return *reserved;
    }
    for (std::size_t g = 0; g < gpus_.size(); ++g) {
      if (gpus_[g].checks == 0 && !gpus_[g].alone && !gpus_[g].reserved) {
        if (reserved) {
          // Open to checks again.
          gpus_[*reserved].reserved = false;
          changed_.notify_all();
        }
        hold_alone(gpus_[g]);
        return g;
      }
    }
    if (!reserved) {
      reserved = fewest_checks();
      if (reserved) gpus_[*reserved].reserved = true;
    }
    changed_.wait(lock);
  }
}

void GpuPool::take_alone(std::size_t gpu) {
  std::unique_lock lock(mutex_);
  State& s = gpus_.at(gpu);
  s.reserved = true;  // no new checks meanwhile
  changed_.wait(lock, [&] { return s.checks == 0 && !s.alone; });
  s.checks = 0;
  hold_alone(s);
  s.reserved = false;
}

void GpuPool::hold_alone(State& s) {
  s.alone = true;
  s.alone_since = Clock::now();
}

double GpuPool::release(std::size_t gpu, bool alone) {
  double held_s = 0;
  {
    std::lock_guard lock(mutex_);
    if (alone) {
      gpus_[gpu].alone = false;
      held_s = std::chrono::duration<double>(Clock::now() - gpus_[gpu].alone_since).count();
      gpus_[gpu].alone_s += held_s;
    } else {
      --gpus_[gpu].checks;
    }
  }
  changed_.notify_all();
  return held_s;
}

void GpuPool::keep_for_timing(std::size_t gpu, bool timing_only) {
  {
    std::lock_guard lock(mutex_);
    gpus_.at(gpu).timing_only = timing_only;
  }
  changed_.notify_all();
}

double GpuPool::seconds_alone(std::size_t gpu) {
  std::lock_guard lock(mutex_);
  const State& s = gpus_.at(gpu);
  return s.alone_s + (s.alone ? std::chrono::duration<double>(Clock::now() - s.alone_since).count() : 0);
}

void TimingQueue::push(std::size_t index) {
  {
    std::lock_guard lock(mutex_);
    ready_.push_back(index);
  }
  changed_.notify_all();
}

std::optional<TimingQueue::Turn> TimingQueue::take() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return stopped_ || !ready_.empty() || (checks_over_ && timing_ == 0); });
  if (stopped_ || ready_.empty()) return std::nullopt;
  const std::size_t index = ready_.front();
  ready_.pop_front();
  ++timing_;
  return Turn{index, !checks_over_};
}

void TimingQueue::done(const Turn& turn, bool again) {
  {
    std::lock_guard lock(mutex_);
    --timing_;
    if (again) ++put_back_;
    if (again && checks_over_) {
      ready_.push_back(turn.index);
    } else if (again) {
      when_quiet_.push_back(turn.index);
    }
  }
  changed_.notify_all();
}

void TimingQueue::end_checks() {
  {
    std::lock_guard lock(mutex_);
    checks_over_ = true;
    ready_.insert(ready_.end(), when_quiet_.begin(), when_quiet_.end());
    when_quiet_.clear();
  }
  changed_.notify_all();
}

std::size_t TimingQueue::put_back() const {
  std::lock_guard lock(mutex_);
  return put_back_;
}

void TimingQueue::stop() {
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
  }
  changed_.notify_all();
}

std::optional<std::size_t> GpuPool::fewest_checks() const {
  std::optional<std::size_t> best;
  for (std::size_t g = 0; g < gpus_.size(); ++g) {
    if (gpus_[g].alone || gpus_[g].reserved || gpus_[g].timing_only) continue;
    if (!best || gpus_[g].checks < gpus_[*best].checks) best = g;
  }
  return best;
}

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  const auto k = slash == std::string::npos ? std::nullopt : decimal<unsigned>(text.substr(0, slash));
  const auto n = slash == std::string::npos ? std::nullopt : decimal<unsigned>(text.substr(slash + 1));
  if (!k || !n || *n == 0) {
    throw UsageError(fmt::format("--shard {}: expected K/N, shard K (0-based) of N ≥ 1, e.g. --shard 0/4 … 3/4", text));
  }
  if (*k >= *n) {
    throw UsageError(fmt::format(
        "--shard {}: K must be below N (shards are 0-based: 0/{} … {}/{}, as $SLURM_ARRAY_TASK_ID with --array=0-{})",
        text, *n, *n - 1, *n, *n - 1));
  }
  return {*k, *n};
}

unsigned shard_of(const std::string& student, unsigned count) {
  if (count <= 1) return 0;
  // FNV-1a 64, then splitmix64's finalizer: FNV-1a alone leaves its low bits depending only on the
  // low bits of the bytes, and `% count` reads mostly those.
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char c : student) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 31;
  return static_cast<unsigned>(h % count);
}

std::uint64_t read_seed_file(const fs::path& file, std::string& warning) {
  warning.clear();
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UsageError(fmt::format("--seed-file {}: cannot be read", file.string()));
  std::stringstream text;
  text << in.rdbuf();
  const std::string content = trimmed(text.str());
  const auto seed = decimal<std::uint64_t>(content);
  if (!seed) {
    throw UsageError(
        fmt::format("--seed-file {}: must hold one decimal number below 2^64 and nothing else (e.g. written by "
                    "`od -An -N8 -tu8 /dev/urandom`)",
                    file.string()));
  }
  struct stat st {};
  if (::stat(file.c_str(), &st) == 0 && (st.st_mode & (S_IRGRP | S_IROTH)) != 0) {
    warning =
        fmt::format("{} can be read by other users: the seed is secret (chmod 600 {})", file.string(), file.string());
  }
  return *seed;
}

}  // namespace cudalab::grading
