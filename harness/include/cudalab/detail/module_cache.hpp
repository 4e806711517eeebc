// Content-addressed storage for compiled modules: the same source, flags and compiler give the
// same key, so re-checking an unchanged kernel.cu skips the compiler.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cudalab/files.hpp"
#include "cudalab/process.hpp"
#include "cudalab/toolchain.hpp"

namespace cudalab {

/// A file a source includes with `#include "name"`.
struct LocalInclude {
  std::filesystem::path path;  ///< absolute, lexically normal (the compiler may see `..` in it)
  std::string text;            ///< its content
};

/// The files `source` (content `text`) includes with `#include "name"`, recursively, in the order
/// met: each name is looked up beside the file that includes it, then beside `source` (where an
/// `-iquote` of the source's folder finds it); angle-bracket includes are left out. At most 256.
std::vector<LocalInclude> local_include_files(const std::filesystem::path& source, const std::string& text);

/// local_include_files as one string of paths and contents: part of a module's cache key, so that
/// editing a header of one's own (or a header's header) recompiles the kernel that includes it.
std::string local_includes(const std::filesystem::path& source, const std::string& text);

/// The name the compiler is given for `source`: in kSharedSourceFolder when it has no local
/// includes (what local_include_files finds), otherwise `source` itself.
std::filesystem::path compiled_name(const std::filesystem::path& source, bool has_local_includes);

/// `text` (a compiler's messages, a debug line's file) with kSharedSourceFolder replaced by the
/// folder of `source`.
std::string from_shared_folder(std::string text, const std::filesystem::path& source);

/// Every `from` in `text` replaced by `to`.
std::string replace_all(std::string text, std::string_view from, std::string_view to);

/// A folder of one compile's own, removed with everything in it at the end of its scope.
struct RemoveTree {
  std::filesystem::path path;  ///< empty: nothing to remove
  /// Removes `folder` (created by the caller, or never) at the end of the scope.
  explicit RemoveTree(std::filesystem::path folder) : path(std::move(folder)) {}
  RemoveTree(const RemoveTree&) = delete;
  RemoveTree& operator=(const RemoveTree&) = delete;
  ~RemoveTree() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

/// How long a compiled module stays in the cache after its last use.
inline constexpr std::chrono::hours kModuleMaxAge{24 * 30};

/// Removes modules (and their logs) last used more than `max_age` ago, and leftovers of compiles
/// that were killed more than a day ago. cached_compile does this once per process and folder.
void evict_stale_modules(const std::filesystem::path& cache_dir, std::chrono::hours max_age);

/// Throws SetupError, naming the folder and how to fix it, when `cache_dir` cannot be created or
/// written (tried, not inferred from permissions).
void require_writable_cache(const std::filesystem::path& cache_dir);

/// After a failed compile: throws SetupError when the machine, not the file, may be why — a
/// file-size limit (`ulimit -f`) or a disk (the cache's or the temporary folder's) with less than
/// 64 MiB free. A source cannot cause either, so a student's file never stops a class's grading.
void require_room_to_compile(const std::filesystem::path& cache_dir);

/// Returns `cache_dir/<key>.so` if present (and marks it used); otherwise runs `compile(tmp_output)` and, when the
/// compiler succeeded, moves its output into place atomically (concurrent graders are safe).
/// Throws SetupError when the cache cannot be written, the compiler cannot be started, or a failed
/// compile had no room (require_room_to_compile). `compile` returns the compiler's process result and fills `command`
/// with its command line.
CompileResult cached_compile(
    const std::filesystem::path& cache_dir, const std::string& key,
    const std::function<ProcessResult(const std::filesystem::path& output, std::string& command)>& compile);

/// Which line of a tool's `--version` output names it.
enum class VersionLine { first, last };

/// A line of `tool --version` (a compiler's "c++ (Debian 12.2.0-14) 12.2.0", nvcc's last "Build …"),
/// part of every module's cache key. Remembered per process and in `cache_dir/tools`, keyed by the
/// tool's resolved path, size and modification time, so that a check does not start the compiler
/// once more only to ask its name (some 30 ms each); empty when the tool does not answer.
std::string tool_version(const std::filesystem::path& tool, const std::filesystem::path& cache_dir, VersionLine line);

/// Quotes a command line for display.
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace cudalab
