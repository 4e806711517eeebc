#include "cudalab/text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

namespace cudalab {

double round_significant(double v, int digits) {
  if (v == 0 || !std::isfinite(v)) return v;
  const std::string text = fmt::format("{:.{}e}", v, digits - 1);
  double rounded = v;
  std::from_chars(text.data(), text.data() + text.size(), rounded);  // locale-independent, unlike stod
  return rounded;
}

std::string format_significant(double v, int digits) {
  v = round_significant(v, digits);
  if (v == 0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  return fmt::format("{:.{}f}", v, std::clamp(digits - 1 - magnitude, 0, digits - 1));
}

std::string format_percent(double percent) {
  const double magnitude = percent == 0 ? 0 : std::floor(std::log10(std::fabs(round_significant(percent, 3))));
  return fmt::format("{:.{}f}%", percent, std::clamp(2 - static_cast<int>(magnitude), 1, 4));
}

std::string format_seconds(double seconds, int digits) {
  if (!std::isfinite(seconds)) return "-";
  struct Unit {
    double scale;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "µs"}, {1e-9, "ns"}};
  const double rounded = round_significant(seconds, digits);
  for (const auto& u : kUnits) {
    if (std::fabs(rounded) >= u.scale || u.scale == 1e-9) {
      return fmt::format("{} {}", format_significant(rounded / u.scale, digits), u.name);
    }
  }
  return "-";
}

std::string format_bytes(double bytes) {
  struct Unit {
    double size;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{1024.0 * 1024 * 1024, "GiB"}, {1024.0 * 1024, "MiB"}, {1024.0, "KiB"}};
  for (const auto& u : kUnits) {
    if (bytes < u.size) continue;
    const double value = bytes / u.size;
    return value == std::floor(value) ? fmt::format("{} {}", static_cast<std::uint64_t>(value), u.name)
                                      : fmt::format("{:.1f} {}", value, u.name);
  }
  return fmt::format("{} byte{}", static_cast<std::uint64_t>(bytes), bytes == 1 ? "" : "s");
}

std::string kernel_display_name(std::string name) {
  if (name.starts_with("void ")) name.erase(0, 5);
  // The parameter list: the last top-level "(…)".
  if (!name.empty() && name.back() == ')') {
    int depth = 0;
    for (std::size_t i = name.size(); i-- > 0;) {
      if (name[i] == ')') ++depth;
      if (name[i] == '(' && --depth == 0) {
        name.erase(i);
        break;
      }
    }
  }
  // Qualifiers before the name itself (outside template arguments).
  int angle = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i + 1 < name.size(); ++i) {
    if (name[i] == '<') ++angle;
    if (name[i] == '>') --angle;
    if (angle == 0 && name[i] == ':' && name[i + 1] == ':') start = i + 2;
  }
  return name.substr(start);
}

std::string paint(bool color, fmt::text_style style, const std::string& text) {
  return color ? fmt::format(style, "{}", text) : text;
}

}  // namespace cudalab
