#include "cudalab/paths.hpp"

#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#if !defined(CUDALAB_SOURCE_DIR) || !defined(CUDALAB_INSTALL_BIN_TO_PROGRAMS) || \
    !defined(CUDALAB_INSTALL_PROGRAMS_TO_DATA)
#error "harness/CMakeLists.txt defines the source tree and the install layout's relative paths"
#endif

namespace cudalab {

namespace fs = std::filesystem;

namespace {
fs::path env_path(const char* name) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? fs::path(v) : fs::path();
}

// The installed layout as paths relative to each other (cmake/Install.cmake computes them from
// the GNUInstallDirs folders), so that a prefix chosen at install time, or a .deb unpacked
// anywhere, still finds itself.
constexpr const char* kBinToPrograms = CUDALAB_INSTALL_BIN_TO_PROGRAMS;
constexpr const char* kProgramsToData = CUDALAB_INSTALL_PROGRAMS_TO_DATA;

fs::path executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : exe.parent_path();
}

/// Only an installation's data folder holds the simulator's headers (a build tree uses them from
/// the source tree), so finding them there cannot mistake a build tree for an installation.
bool is_install_data(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "sim-include" / "cuda_runtime.h", ec);
}

std::optional<InstallLayout> find_install_layout() {
  const fs::path exe = executable_dir();
  // bin/cudalab reaches lib/cudalab from bin/; cudalab-grading runs from lib/cudalab itself.
  for (const fs::path& programs : {exe / kBinToPrograms, exe}) {
    const fs::path data = programs / kProgramsToData;
    if (is_install_data(data)) return InstallLayout{programs.lexically_normal(), data.lexically_normal()};
  }
  return std::nullopt;
}
}  // namespace

std::optional<InstallLayout> install_layout() {
  static const std::optional<InstallLayout> kLayout = find_install_layout();  // the program does not move
  return kLayout;
}

fs::path data_dir() {
  if (auto layout = install_layout()) return layout->data;
  return fs::path(CUDALAB_SOURCE_DIR);
}

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
  return data_dir();
}

fs::path solutions_dir() {
  std::error_code ec;
  if (fs::path own = project_root() / "solutions"; fs::is_directory(own, ec)) return own;
  return data_dir() / "solutions";
}

fs::path program_dir() {
  if (auto layout = install_layout()) return layout->programs;
  return executable_dir();
}

std::optional<fs::path> documentation_page(const std::string& html, const std::string& markdown) {
  std::vector<fs::path> candidates;
  if (const auto layout = install_layout()) {
    const fs::path doc = layout->data / ".." / "doc" / "cudalab";  // GNUInstallDirs: share/cudalab, share/doc/cudalab
    candidates = {doc / "html" / html, doc / markdown};
  } else {
    candidates = {program_dir() / ".." / "docs" / "html" / html, data_dir() / markdown};
  }
  std::error_code ec;
  for (const auto& p : candidates) {
    if (fs::is_regular_file(p, ec)) return p.lexically_normal();
  }
  return std::nullopt;
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

fs::path find_tool(const char* env_var, const std::string& name, const std::vector<fs::path>& usual_places) {
  if (const char* env = std::getenv(env_var); env != nullptr && *env != '\0') return env;
  if (fs::path p = find_on_path(name); !p.empty()) return p;
  for (const auto& p : usual_places) {
    if (is_executable(p)) return p;
  }
  return {};
}

}  // namespace cudalab
