// Where things are: the project (exercises, solutions), the build's programs, the module cache.
// The same binaries work from the build tree and from an installation (`cmake --install`, the
// .deb): an installed cudalab finds its parts relative to its own location, never through the
// source tree it was built from.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cudalab {

/// Where an installed cudalab keeps its parts (GNUInstallDirs layout under one prefix).
struct InstallLayout {
  std::filesystem::path programs;  ///< lib/cudalab: the runners, libcudalab_sim.so, cudalab-grading
  std::filesystem::path data;      ///< share/cudalab: exercises/, solutions/ (if installed), sim-include/
};

/// The installation the running program belongs to, found relative to the program itself
/// (bin/cudalab, or a program in lib/cudalab); nullopt when it runs from a build tree.
std::optional<InstallLayout> install_layout();

/// cudalab's own course data (exercises/, solutions/): share/cudalab of an installation, else the
/// source tree cudalab was built from.
std::filesystem::path data_dir();

/// The project root: $CUDALAB_ROOT, else the nearest folder at or above the working directory
/// whose `exercises/` holds an exercise (NN_name/kernel.cu), else data_dir().
std::filesystem::path project_root();

/// The reference solutions: the project's own `solutions/` where it has one, else those of
/// data_dir() (a student's folder from `cudalab init` holds exercises only).
std::filesystem::path solutions_dir();

/// The folder holding cudalab's runner programs and the simulator's runtime library: beside the
/// running executable in a build tree, install_layout()'s `programs` when installed.
std::filesystem::path program_dir();

/// Where to read a page of cudalab's documentation: its page of the built site (a build tree's
/// docs/html beside bin/; an installation's share/doc/cudalab/html), else its Markdown source (the
/// source tree's, or the installed copy in share/doc/cudalab). `html` is the site's file name
/// ("md_docs_failures.html"), `markdown` the source relative to the source tree
/// ("docs/failures.md"). nullopt when neither exists (a students' export without docs).
std::optional<std::filesystem::path> documentation_page(const std::string& html, const std::string& markdown);

/// Compiled modules: $CUDALAB_CACHE_DIR, else $XDG_CACHE_HOME/cudalab, else ~/.cache/cudalab.
std::filesystem::path cache_dir();

/// Whether `p` names a file that exists and can be executed.
bool is_executable(const std::filesystem::path& p);

/// Looks `name` up on $PATH; empty when absent.
std::filesystem::path find_on_path(const std::string& name);

/// A tool of the CUDA toolkit (compute-sanitizer, ncu): the path in $`env_var` where it is set,
/// else `name` on $PATH, else the first executable of `usual_places`; empty when none is.
std::filesystem::path find_tool(const char* env_var, const std::string& name,
                                const std::vector<std::filesystem::path>& usual_places);

}  // namespace cudalab
