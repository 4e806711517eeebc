// When copies and kernels ran on the GPU, per stream: whether a copy overlapped other work (the
// streams exercise's requirement) and a drawing of it for reports.
#pragma once

#include <string>
#include <vector>

#include "cudalab/protocol.hpp"

namespace cudalab {

/// Whether some copy ran, at least in part, at the same time as a kernel or as a copy in the other
/// direction on another stream. Needs the GPU's transfer times (`records.transfers`); false without.
[[nodiscard]] bool copies_overlap(const protocol::Records& records);

/// The transfers and launches of `records` drawn per stream across `width` columns of time, one
/// line per stream and a scale line: "stream 13 |HHHH KK DDDD      |". Empty without transfers.
[[nodiscard]] std::vector<std::string> draw_timeline(const protocol::Records& records, int width = 60);

}  // namespace cudalab
