// The JSON mapping of what `cudalab explain` counts (access_profile.hpp). The reply comes from a
// process that ran student code: every field is type- and range-checked.
#include "cudalab/access_profile.hpp"

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "cudalab/protocol.hpp"
#include "json_fields.hpp"

namespace cudalab::protocol {

using nlohmann::json;

namespace {

/// Widest access a lane makes (the checked build reports ranges up to 4 KiB).
constexpr std::size_t kMaxAccessBytes = 4096;
constexpr wire_detail::JsonFields kProfile{"profile"};

}  // namespace

const char* memory_space_name(MemorySpace space) { return space == MemorySpace::shared ? "shared" : "global"; }

void to_json(json& j, const AccessProfile& p) {
  json kernels = json::array();
  for (const auto& k : p.kernels) {
    json intervals = json::array();
    for (const auto& i : k.intervals) {
      intervals.push_back(json{{"from_line", i.from_line},
                               {"to_line", i.to_line},
                               {"requests", i.requests},
                               {"active_lanes", i.active_lanes}});
    }
    kernels.push_back(json{{"kernel", k.kernel},
                           {"launches", k.launches},
                           {"blocks", k.blocks},
                           {"counted_blocks", k.counted_blocks},
                           {"intervals", std::move(intervals)}});
  }
  json sites = json::array();
  for (const auto& s : p.sites) {
    sites.push_back(json{{"kernel", s.kernel},
                         {"pc", s.pc},
                         {"space", memory_space_name(s.space)},
                         {"write", s.write},
                         {"atomic", s.atomic},
                         {"bytes", s.bytes},
                         {"target", s.target},
                         {"element_bytes", s.element_bytes},
                         {"row_elements", s.row_elements},
                         {"target_bytes", s.target_bytes},
                         {"requests", s.requests},
                         {"active_lanes", s.active_lanes},
                         {"units", s.units},
                         {"ideal_units", s.ideal_units},
                         {"worst_units", s.worst_units},
                         {"worst_ideal", s.worst_ideal},
                         {"stride", s.stride}});
  }
  j = json{{"kernels", std::move(kernels)}, {"sites", std::move(sites)}, {"truncated", p.truncated}};
}

void from_json(const json& j, AccessProfile& p) {
  const json& kernels = kProfile.member(j, "kernels");
  const json& sites = kProfile.member(j, "sites");
  if (!kernels.is_array() || kernels.size() > kMaxProfiledKernels) kProfile.bad("kernels", "is not a short list");
  if (!sites.is_array() || sites.size() > kMaxAccessSites) kProfile.bad("sites", "is not a short list");
  p = AccessProfile{};
  for (const json& k : kernels) {
    KernelProfile kp;
    kp.kernel = kProfile.name_field(k, "kernel");
    kp.launches = kProfile.count_field(k, "launches");
    kp.blocks = kProfile.count_field(k, "blocks");
    kp.counted_blocks = kProfile.count_field(k, "counted_blocks");
    if (kp.counted_blocks > kp.blocks) kProfile.bad("counted_blocks", "is more than the blocks");
    const json& intervals = kProfile.member(k, "intervals");
    if (!intervals.is_array() || intervals.size() > kMaxBarrierIntervals)
      kProfile.bad("intervals", "is not a short list");
    for (const json& i : intervals) {
      BarrierInterval b;
      const std::uint64_t from = kProfile.count_field(i, "from_line");
      const std::uint64_t to = kProfile.count_field(i, "to_line");
      if (from > wire_detail::kMaxLine || to > wire_detail::kMaxLine) kProfile.bad("from_line", "is out of range");
      b.from_line = static_cast<int>(from);
      b.to_line = static_cast<int>(to);
      b.requests = kProfile.amount_field(i, "requests");
      b.active_lanes = kProfile.amount_field(i, "active_lanes");
      if (b.active_lanes > 32 * b.requests * (1 + 1e-9)) kProfile.bad("active_lanes", "is more than 32 a request");
      kp.intervals.push_back(b);
    }
    p.kernels.push_back(std::move(kp));
  }
  for (const json& one : sites) {
    AccessSite s;
    s.kernel = kProfile.name_field(one, "kernel");
    s.pc = kProfile.count_field(one, "pc");
    const std::string space = kProfile.name_field(one, "space");
    if (space != "global" && space != "shared") kProfile.bad("space", "is neither global nor shared");
    s.space = space == "shared" ? MemorySpace::shared : MemorySpace::global;
    s.write = kProfile.flag_field(one, "write");
    s.atomic = kProfile.flag_field(one, "atomic");
    const std::uint64_t bytes = kProfile.count_field(one, "bytes");
    if (bytes == 0 || bytes > kMaxAccessBytes) kProfile.bad("bytes", "is out of range");
    s.bytes = static_cast<unsigned>(bytes);
    s.target = kProfile.name_field(one, "target");
    s.element_bytes = kProfile.count_field(one, "element_bytes");
    s.row_elements = kProfile.count_field(one, "row_elements");
    s.target_bytes = kProfile.count_field(one, "target_bytes");
    s.requests = kProfile.amount_field(one, "requests");
    s.active_lanes = kProfile.amount_field(one, "active_lanes");
    s.units = kProfile.amount_field(one, "units");
    s.ideal_units = kProfile.amount_field(one, "ideal_units");
    if (s.active_lanes > 32 * s.requests * (1 + 1e-9)) kProfile.bad("active_lanes", "is more than 32 a request");
    const std::uint64_t worst = kProfile.count_field(one, "worst_units");
    const std::uint64_t worst_ideal = kProfile.count_field(one, "worst_ideal");
    if (worst > kMaxAccessBytes * 32 || worst_ideal > worst) kProfile.bad("worst_units", "is out of range");
    s.worst_units = static_cast<unsigned>(worst);
    s.worst_ideal = static_cast<unsigned>(worst_ideal);
    const json& stride = kProfile.member(one, "stride");
    if (!stride.is_number_integer()) kProfile.bad("stride", "is not a whole number");
    s.stride = stride.get<std::int64_t>();
    p.sites.push_back(std::move(s));
  }
  p.truncated = kProfile.flag_field(j, "truncated");
}

}  // namespace cudalab::protocol
