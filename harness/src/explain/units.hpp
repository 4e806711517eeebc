// Quantities as explain's findings and report write them: "10.33 MB", "4 KiB".
#pragma once

#include <cstddef>
#include <string>

#include <fmt/format.h>

namespace cudalab {

/// Bytes in decimal units, as bandwidths are quoted: "370.7 KB", "27.16 MB".
inline std::string bytes_text(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.2f} MB", bytes / 1e6);
  if (bytes >= 1e3) return fmt::format("{:.1f} KB", bytes / 1e3);
  return fmt::format("{:.0f} bytes", bytes);
}

/// Shared memory as the data sheets count it: "40.0 KiB", "228 KiB".
inline std::string kib_text(std::size_t bytes) {
  if (bytes % 1024 == 0) return fmt::format("{} KiB", bytes / 1024);
  return bytes >= 1024 ? fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024) : fmt::format("{} bytes", bytes);
}

}  // namespace cudalab
