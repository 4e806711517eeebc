// Checked reads of the JSON fields of a reply, for the wire's record mappings (access_trace.cpp,
// access_profile.cpp). A reply comes from a process that ran student code: every field is type- and
// range-checked, and an error names the record and the field ("trace field 'grid' is missing").
// Internal to harness/src/wire.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cudalab/protocol.hpp"

namespace cudalab::protocol::wire_detail {

/// The longest kernel, buffer or target name a reply may hold.
inline constexpr std::size_t kMaxNameBytes = 512;
/// The longest source file a line number may come from.
inline constexpr std::uint64_t kMaxLine = 10'000'000;

/// The checked readers of one record's fields; `record` begins each error.
class JsonFields {
 public:
  using json = nlohmann::json;

  explicit constexpr JsonFields(const char* record) : record_(record) {}

  [[noreturn]] void bad(std::string_view key, const char* why) const {
    throw ProtocolError(std::string(record_) + " field '" + std::string(key) + "' " + why);
  }

  const json& member(const json& j, const char* key) const {
    if (!j.is_object()) bad(key, "is not in an object");
    const auto it = j.find(key);
    if (it == j.end()) bad(key, "is missing");
    return *it;
  }

  /// `v` as a count from 0 to `max`.
  std::uint64_t count(const json& v, const char* key,
                      std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const {
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0)) bad(key, "is not a count");
    const auto n = v.get<std::uint64_t>();
    if (n > max) bad(key, "is out of range");
    return n;
  }

  std::uint64_t count_field(const json& j, const char* key,
                            std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const {
    return count(member(j, key), key, max);
  }

  /// A list of at most `max` entries.
  const json& list_field(const json& j, const char* key, std::size_t max) const {
    const json& v = member(j, key);
    if (!v.is_array()) bad(key, "is not a list");
    if (v.size() > max) bad(key, "is too long");
    return v;
  }

  /// A name of at most kMaxNameBytes.
  std::string name_field(const json& j, const char* key) const {
    const json& v = member(j, key);
    if (!v.is_string() || v.get_ref<const std::string&>().size() > kMaxNameBytes) bad(key, "is not a short text");
    return v.get<std::string>();
  }

  /// A finite amount, 0 or more.
  double amount_field(const json& j, const char* key) const {
    const json& v = member(j, key);
    if (!v.is_number()) bad(key, "is not a number");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < 0) bad(key, "is out of range");
    return d;
  }

  bool flag_field(const json& j, const char* key) const {
    const json& v = member(j, key);
    if (!v.is_boolean()) bad(key, "is not true or false");
    return v.get<bool>();
  }

 private:
  const char* record_;
};

}  // namespace cudalab::protocol::wire_detail
