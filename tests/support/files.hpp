// Files as the tests make and read them: the source tree, scratch folders, whole-file reads and
// writes (a folder made where one is missing). One copy for every test program.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace cudalab::testing_support {

#ifdef CUDALAB_SOURCE_DIR
/// The project's source tree (the test program's CUDALAB_SOURCE_DIR).
inline const std::filesystem::path kSourceDir{CUDALAB_SOURCE_DIR};
#endif

/// The bytes of `path`; "" where it cannot be read.
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Writes `text` to `path`, making its folder first; returns `path`.
inline std::filesystem::path write_text(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

/// Copies `file` to `to` (over a file there), making its folder first.
inline void copy_file_to(const std::filesystem::path& file, const std::filesystem::path& to) {
  std::filesystem::create_directories(to.parent_path());
  std::filesystem::copy_file(file, to, std::filesystem::copy_options::overwrite_existing);
}

/// An empty folder of this process's own in the temporary folder: cudalab-`kind`-`name`-pid.
inline std::filesystem::path fresh_dir(const std::string& kind, const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("cudalab-" + kind + "-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace cudalab::testing_support

/// Skips a test whose file is not in this tree: `cudalab export` leaves solutions/, tests/wrong/
/// and the other corpora out of the students' distribution.
#define REQUIRE_FILE(path)            \
  if (!std::filesystem::exists(path)) \
  GTEST_SKIP() << (path) << " is not in this distribution (cudalab export leaves it out)"
