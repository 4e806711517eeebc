#include "cudalab/paths.hpp"

#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <string>

namespace cudalab {

namespace fs = std::filesystem;

namespace {
fs::path env_path(const char* name) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? fs::path(v) : fs::path();
}
}  // namespace

namespace {
/// A cudalab project holds exercises/NN_name/kernel.cu (a build folder's exercises/ holds none).
bool is_project(const fs::path& dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir / "exercises", ec)) {
    if (fs::is_regular_file(entry.path() / "kernel.cu", ec)) return true;
  }
  return false;
}
}  // namespace

fs::path project_root() {
  if (auto root = env_path("CUDALAB_ROOT"); !root.empty()) return fs::absolute(root);
  std::error_code ec;
  for (fs::path dir = fs::current_path(ec); !ec && !dir.empty(); dir = dir.parent_path()) {
    if (is_project(dir)) return dir;
    if (dir == dir.parent_path()) break;
  }
  return fs::path(CUDALAB_SOURCE_DIR);
}

fs::path program_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : exe.parent_path();
}

fs::path cache_dir() {
  if (auto dir = env_path("CUDALAB_CACHE_DIR"); !dir.empty()) return dir;
  if (auto xdg = env_path("XDG_CACHE_HOME"); !xdg.empty()) return xdg / "cudalab";
  if (auto home = env_path("HOME"); !home.empty()) return home / ".cache" / "cudalab";
  return fs::temp_directory_path() / "cudalab-cache";
}

bool is_executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

fs::path find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return {};
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && is_executable(fs::path(dir) / name)) return fs::path(dir) / name;
  }
  return {};
}

}  // namespace cudalab
