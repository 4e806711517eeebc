#include "cudalab/status_store.hpp"

#include <unistd.h>

#include <chrono>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cudalab/paths.hpp"

namespace cudalab {

namespace fs = std::filesystem;

namespace {

std::string key_of(const fs::path& source) { return fs::absolute(source).lexically_normal().string(); }

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
  return s;
}

std::size_t StatusStore::record(const std::vector<ExerciseResult>& results, const CheckOptions& options) const {
  auto status = load(file_);
  const auto now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::size_t recorded = 0;
  for (const auto& r : results) {
    if (!is_complete_run(r, options)) continue;
    status[key_of(r.source)] = {{"verdict", verdict_name(r.verdict)},
                                {"title", verdict_title(r.verdict)},
                                {"backend", backend_name(r.backend)},
                                {"time", now}};
    ++recorded;
  }
  if (recorded == 0) return 0;
  std::error_code ec;
  fs::create_directories(file_.parent_path(), ec);
  // Written beside the file and renamed over it: readers see the old file or the new one.
  const fs::path tmp = file_.string() + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp);
    out << status.dump(2);
    if (!out.flush()) {
      fs::remove(tmp, ec);
      return 0;
    }
  }
  fs::rename(tmp, file_, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return 0;
  }
  return recorded;
}

}  // namespace cudalab
