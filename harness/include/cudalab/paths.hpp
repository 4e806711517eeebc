// Where things are: the project (exercises, solutions), the build's programs, the module cache.
#pragma once

#include <filesystem>

namespace cudalab {

/// The project root: $CUDALAB_ROOT, else the nearest folder at or above the working directory
/// whose `exercises/` holds an exercise (NN_name/kernel.cu), else the source tree cudalab was
/// built from.
std::filesystem::path project_root();

/// The folder holding the running `cudalab` executable and its runner programs.
std::filesystem::path program_dir();

/// Compiled modules: $CUDALAB_CACHE_DIR, else $XDG_CACHE_HOME/cudalab, else ~/.cache/cudalab.
std::filesystem::path cache_dir();

/// Whether `p` names a file that exists and can be executed.
bool is_executable(const std::filesystem::path& p);

/// Looks `name` up on $PATH; empty when absent.
std::filesystem::path find_on_path(const std::string& name);

}  // namespace cudalab
