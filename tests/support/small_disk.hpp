// A full disk, made for one test: a tmpfs of a chosen size in a user and mount namespace of the
// test's own (`unshare -rm`), so that nothing of the machine is mounted over or filled.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "cudalab/paths.hpp"
#include "cudalab/process.hpp"

namespace cudalab::testing_support {

/// Runs `command` (sh) where `at` is a tmpfs of `size` ("64k"); nullopt where this machine allows
/// no such namespace (the caller skips, saying so).
inline std::optional<ProcessResult> with_small_disk(const std::filesystem::path& at, const std::string& size,
                                                    const std::string& command) {
  const std::filesystem::path unshare = find_on_path("unshare");
  if (unshare.empty()) return std::nullopt;
  ProcessOptions probe;
  probe.argv = {unshare.string(), "-rm", "/bin/sh", "-c", "mount -t tmpfs -o size=64k tmpfs \"$0\"", at.string()};
  probe.timeout = std::chrono::seconds(10);
  if (!run_process(probe).ok()) return std::nullopt;
  ProcessOptions opts;
  opts.argv = {
      unshare.string(), "-rm", "/bin/sh", "-c", "mount -t tmpfs -o size=\"$1\" tmpfs \"$0\" && exec sh -c \"$2\"",
      at.string(),      size,  command};
  opts.timeout = std::chrono::seconds(300);
  return run_process(opts);
}

}  // namespace cudalab::testing_support
