// Texts explain's findings and the reports of explain and `bench --profile` share: quantities
// ("10.33 MB", "4 KiB"), launch shapes, paths, colours.
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <string>

#include <fmt/color.h>
#include <fmt/format.h>

#include "cudalab/text.hpp"

namespace cudalab {

/// An estimated time: three significant digits ("4.17 µs", "511 ns"), as estimates deserve.
inline std::string estimate_seconds(double s) { return format_seconds(s, 3); }

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

/// A grid or block as a launch writes it: "256", "(32,8)", "(4,4,2)".
inline std::string triple(const std::array<unsigned, 3>& v) {
  if (v[2] > 1) return fmt::format("({},{},{})", v[0], v[1], v[2]);
  if (v[1] > 1) return fmt::format("({},{})", v[0], v[1]);
  return fmt::format("{}", v[0]);
}

/// `p` relative to the working folder where it lies below it, else as given.
inline std::string display_path(const std::filesystem::path& p) {
  std::error_code ec;
  auto rel = std::filesystem::relative(p, std::filesystem::current_path(ec), ec);
  return (ec || rel.empty() || rel.string().starts_with("..")) ? p.string() : rel.string();
}

}  // namespace cudalab
