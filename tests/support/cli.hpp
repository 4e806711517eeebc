// The `cudalab` command as a test program runs it: with the test programs' module cache, so that
// the kernels the test compiled itself are cache hits for the command.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "cudalab/process.hpp"
#include "toolchains.hpp"

namespace cudalab::testing_support {

/// Runs CUDALAB_CLI with `args`, its module cache `cache`, for at most two minutes.
inline ProcessResult run_cudalab(const std::filesystem::path& cache, const std::vector<std::string>& args) {
  ProcessOptions opts;
  opts.argv = {"/usr/bin/env", "CUDALAB_CACHE_DIR=" + cache.string(), CUDALAB_CLI};
  opts.argv.insert(opts.argv.end(), args.begin(), args.end());
  opts.timeout = std::chrono::seconds(120);
  return run_process(opts);
}

/// Runs CUDALAB_CLI with `args` and the test programs' module cache: the kernels the tests compiled
/// are cache hits for the command.
inline ProcessResult run_cudalab(const std::vector<std::string>& args) {
  return run_cudalab(test_module_cache(), args);
}

}  // namespace cudalab::testing_support
