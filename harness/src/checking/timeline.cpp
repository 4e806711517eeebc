#include "cudalab/timeline.hpp"

#include <algorithm>
#include <cstdint>
#include <map>

#include <fmt/format.h>

namespace cudalab {
namespace {

/// One stretch of GPU work: a copy (H: to the device, D: to the host) or a kernel (K).
struct Span {
  char what = 'K';
  std::uint64_t stream = 0;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
};

std::vector<Span> spans_of(const protocol::Records& records) {
  std::vector<Span> spans;
  for (const auto& t : records.transfers) {
    if (t.kind != protocol::CopyKind::host_to_device && t.kind != protocol::CopyKind::device_to_host) continue;
    spans.push_back({t.kind == protocol::CopyKind::host_to_device ? 'H' : 'D', t.stream, t.start_ns, t.end_ns});
  }
  for (const auto& l : records.launches) {
    if (l.end_ns > 0) spans.push_back({'K', l.stream, l.start_ns, l.end_ns});
  }
  return spans;
}

}  // namespace

bool copies_overlap(const protocol::Records& records) {
  const std::vector<Span> spans = spans_of(records);
  for (const Span& copy : spans) {
    if (copy.what == 'K') continue;
    for (const Span& other : spans) {
      // A copy overlaps a kernel, or a copy the other way (the two copy engines), of another stream.
      if (other.stream == copy.stream || other.what == copy.what) continue;
      if (std::min(copy.end, other.end) > std::max(copy.start, other.start)) return true;
    }
  }
  return false;
}

std::vector<std::string> draw_timeline(const protocol::Records& records, int width) {
  const std::vector<Span> spans = spans_of(records);
  if (records.transfers.empty() || spans.empty() || width < 8) return {};
  std::uint64_t first = spans.front().start, last = spans.front().end;
  std::map<std::uint64_t, std::uint64_t> stream_start;  // streams in the order they started work
  for (const Span& s : spans) {
    first = std::min(first, s.start);
    last = std::max(last, s.end);
    auto [it, fresh] = stream_start.emplace(s.stream, s.start);
    if (!fresh) it->second = std::min(it->second, s.start);
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> order;  // (first start, stream)
  for (const auto& [stream, start] : stream_start) order.emplace_back(start, stream);
  std::ranges::sort(order);
  const double span_ns = static_cast<double>(std::max<std::uint64_t>(last - first, 1));
  auto column = [&](std::uint64_t t) {
    return std::clamp(static_cast<int>(static_cast<double>(t - first) / span_ns * width), 0, width - 1);
  };
  std::vector<std::string> lines;
  for (const auto& [start, stream] : order) {
    std::string row(static_cast<std::size_t>(width), ' ');
    for (const Span& s : spans) {
      if (s.stream != stream) continue;
      for (int c = column(s.start); c <= column(s.end > s.start ? s.end - 1 : s.end); ++c) row[c] = s.what;
    }
    lines.push_back(fmt::format("stream {:<4} |{}|", stream, row));
  }
  const std::string length =
      span_ns >= 1e6 ? fmt::format("{:.2f} ms", span_ns * 1e-6) : fmt::format("{:.1f} µs", span_ns * 1e-3);
  lines.push_back(fmt::format("{:12}0{:>{}}   H copy to the device, K kernel, D copy to the host", "", length,
                              width + 1 + (length.size() - fmt::detail::compute_width(length))));
  return lines;
}

}  // namespace cudalab
