#include "cudalab/status_store.hpp"

#include "cudalab/files.hpp"

#include <unistd.h>

#include <chrono>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cudalab/detail/module_cache.hpp"
#include "cudalab/paths.hpp"

namespace cudalab {

namespace fs = std::filesystem;

namespace {

std::string key_of(const fs::path& source) { return fs::absolute(source).lexically_normal().string(); }

/// What the file holds now, for telling whether a recorded speed still belongs to it.
std::string content_of(const fs::path& source) {
  try {
    return content_key({read_file(source)});
  } catch (const std::exception&) {
    return {};
  }
}

/// Writes `status` to `file` beside it and renames it over: readers see the old file or the new one.
bool save(const fs::path& file, const nlohmann::json& status) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  try {
    write_file_atomically(file, status.dump(2));
    return true;
  } catch (const std::system_error&) {
    return false;  // the status is a convenience: a check that cannot record it still counts
  }
}

nlohmann::json load(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return nlohmann::json::object();
  try {
    auto status = nlohmann::json::parse(in);
    return status.is_object() ? status : nlohmann::json::object();
  } catch (const std::exception&) {
    return nlohmann::json::object();  // a damaged status file only loses the `list` column
  }
}

}  // namespace

bool is_complete_run(const ExerciseResult& result, const CheckOptions& options) {
  if (!options.only_sizes.empty()) return false;
  return !result.cases.empty() || result.verdict != Verdict::passed;
}

StatusStore::StatusStore(fs::path file) : file_(std::move(file)) {}

StatusStore StatusStore::in_cache() { return StatusStore(cache_dir() / "status.json"); }

std::optional<StoredStatus> StatusStore::find(const fs::path& source) const {
  const auto status = load(file_);
  const auto it = status.find(key_of(source));
  if (it == status.end() || !it->is_object()) return std::nullopt;
  StoredStatus s;
  s.verdict = it->value("verdict", "");
  s.title = it->value("title", "checked");
  s.backend = it->value("backend", "");
  s.time = it->value("time", std::int64_t{0});
  s.full_check = it->value("full_check", false);
  if (const auto speed = it->find("speed_vs_reference");
      speed != it->end() && speed->is_number() && it->value("speed_content", "") == content_of(source)) {
    s.speed_vs_reference = speed->get<double>();
  }
  return s;
}

bool StatusStore::record_speed(const fs::path& source, double vs_reference) const {
  auto status = load(file_);
  auto& entry = status[key_of(source)];
  if (!entry.is_object()) entry = nlohmann::json::object();
  entry["speed_vs_reference"] = vs_reference;
  entry["speed_content"] = content_of(source);
  return save(file_, status);
}

Standing standing_of(const std::optional<StoredStatus>& status) {
  if (!status || status->verdict.empty() || status->verdict == "not_implemented") return Standing::not_started;
  if (status->verdict != "passed") return Standing::failing;
  // A fast check skips the checked run, which finds races and out-of-bounds reads: not a pass yet.
  if (!status->full_check) return Standing::passed_fast_check;
  if (status->speed_vs_reference && *status->speed_vs_reference >= kFastVsReference) return Standing::passing_and_fast;
  return Standing::passing;
}

const char* standing_name(Standing s) {
  switch (s) {
    case Standing::not_started:
      return "not started";
    case Standing::failing:
      return "failing";
    case Standing::passed_fast_check:
      return "passed a fast check";
    case Standing::passing:
      return "passing";
    case Standing::passing_and_fast:
      return "passing and fast";
  }
  return "?";
}

std::size_t StatusStore::record(const std::vector<ExerciseResult>& results, const CheckOptions& options) const {
  auto status = load(file_);
  const auto now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::size_t recorded = 0;
  for (const auto& r : results) {
    if (!is_complete_run(r, options)) continue;
    // A check keeps the entry's speed: it is dropped only when the file changes (content_of).
    auto& entry = status[key_of(r.source)];
    if (!entry.is_object()) entry = nlohmann::json::object();
    entry["verdict"] = verdict_name(r.verdict);
    entry["title"] = verdict_title(r.verdict);
    entry["backend"] = backend_name(r.backend);
    entry["time"] = now;
    entry["full_check"] = r.full_check;
    ++recorded;
  }
  if (recorded == 0 || !save(file_, status)) return 0;
  return recorded;
}

}  // namespace cudalab
