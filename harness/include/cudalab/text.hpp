// Text as the tools print it, written once for every stage: times, byte counts, significant digits,
// percentages, kernel names, and colour where it is on.
#pragma once

#include <string>

#include <fmt/color.h>

namespace cudalab {

/// `v` rounded to `digits` significant digits, so that 999.96 is taken as 1000 before choosing
/// decimals or units.
double round_significant(double v, int digits = 4);

/// `digits` significant digits without an exponent; with four: 0.1235, 1.235, 12.35, 123.5, 1235.
std::string format_significant(double v, int digits = 4);

/// Three significant digits, at least one decimal: "29.0%", "1.23%", "0.0325%".
std::string format_percent(double percent);

/// A time with a unit chosen so that it reads as 1 to 999, `digits` significant digits: with four
/// (measurements) "1.234 ms", "12.35 µs", "2.000 s"; with three (estimates) "4.17 µs", "511 ns";
/// "-" for NaN.
std::string format_seconds(double seconds, int digits = 4);

/// A size in binary units: whole ones as they are ("4 GiB", "512 MiB", "64 KiB"), others with one
/// decimal ("1.5 MiB"); under a KiB in bytes ("12 bytes", "1 byte").
std::string format_bytes(double bytes);

/// A kernel's name as a person reads it, from a demangled one (CUPTI's, Nsight Compute's): without
/// its return type, parameters and qualifiers. "void reduce<256>(const float *, int)" → "reduce<256>";
/// "(anonymous namespace)::k(int)" → "k".
std::string kernel_display_name(std::string demangled);

/// `text` in `style` (ANSI escapes) where colour is on, else as it is.
std::string paint(bool color, fmt::text_style style, const std::string& text);

}  // namespace cudalab
