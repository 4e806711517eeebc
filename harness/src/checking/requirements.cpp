// The exercises' rules beyond the output (judge.hpp): a kernel does the work, shared memory where the
// exercise teaches it, each input copied in and the result out once, streams where they are the point.
#include "cudalab/judge.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "cudalab/parallel.hpp"
#include "cudalab/timeline.hpp"

namespace cudalab {

namespace {

/// Input bytes from which the streams rules want chunks on several streams: smaller checks may
/// move everything in one copy.
constexpr std::size_t kStreamsFromBytes = std::size_t{1} << 20;

/// The streams exercise's rules (TaskInfo::requires_streams), most basic first.
std::vector<std::string> stream_failures(const std::vector<Buffer>& buffers, const protocol::Records& records,
                                         bool launches_recorded) {
  std::vector<std::string> failures;
  std::size_t in_bytes = 0, out_bytes = 0;
  std::string inputs, outputs;
  for (const auto& b : buffers) {
    if (b.role != Role::output) in_bytes += b.bytes.size(), inputs += (inputs.empty() ? "" : ", ") + b.name;
    if (b.role != Role::input) out_bytes += b.bytes.size(), outputs += (outputs.empty() ? "" : ", ") + b.name;
  }
  std::size_t to_device = 0, to_host = 0, chunks = 0;
  std::set<std::uint64_t> copy_streams, launch_streams;
  bool synchronous = false, on_default = false;
  auto is_default = [](std::uint64_t s) { return s <= 2; };  // 0, cudaStreamLegacy, cudaStreamPerThread
  for (const auto& c : records.copies) {
    if (c.kind != protocol::CopyKind::host_to_device && c.kind != protocol::CopyKind::device_to_host) continue;
    (c.kind == protocol::CopyKind::host_to_device ? to_device : to_host) += c.bytes;
    chunks += c.kind == protocol::CopyKind::host_to_device ? 1 : 0;
    if (!c.api.ends_with("Async")) {
      synchronous = true;
    } else if (is_default(c.stream)) {
      on_default = true;
    } else {
      copy_streams.insert(c.stream);
    }
  }
  for (const auto& l : records.launches) launch_streams.insert(l.stream);
  // Past max_records_per_kind the copies are counted, not kept: their bytes are unknown.
  const bool all_copies_kept = records.dropped == 0;
  if (all_copies_kept && to_device != in_bytes) {
    failures.push_back(
        fmt::format("{} bytes were copied to the device, and {} hold{} {}: copy each element in "
                    "exactly once, chunk by chunk",
                    to_device, inputs, inputs.find(',') == std::string::npos ? "s" : "", in_bytes));
  }
  if (all_copies_kept && to_host != out_bytes) {
    failures.push_back(
        fmt::format("{} bytes were copied back to the host, and {} hold{} {}: copy each result "
                    "back exactly once, chunk by chunk",
                    to_host, outputs, outputs.find(',') == std::string::npos ? "s" : "", out_bytes));
  }
  if (synchronous) {
    failures.push_back(
        "a copy used cudaMemcpy, which waits for the copy to finish before solve goes on: use cudaMemcpyAsync on one "
        "of your streams, so that the next chunk's copy can start while this chunk's kernel runs");
  }
  if (on_default) {
    failures.push_back(
        "a cudaMemcpyAsync went to the default stream (0), which waits for every other stream: pass one of the "
        "streams you made with cudaStreamCreate");
  }
  if (in_bytes < kStreamsFromBytes) return failures;
  if (chunks < 2) {
    failures.push_back(
        fmt::format("{} went to the device in one copy: split the work into chunks, so that one "
                    "chunk's copy overlaps another chunk's kernel",
                    inputs));
  }
  if (copy_streams.size() < 2) {
    failures.push_back(
        fmt::format("the copies used {} stream{}: give the chunks two or more streams (round robin), "
                    "or each chunk's copy waits for the previous chunk's kernel",
                    copy_streams.size(), copy_streams.size() == 1 ? "" : "s"));
  }
  if (launches_recorded && !records.launches.empty() && launch_streams.size() < 2) {
    failures.push_back(
        "every kernel ran on one stream: launch each chunk's kernel on its chunk's stream, the fourth launch "
        "parameter: kernel<<<blocks, threads, 0, stream>>>(...)");
  }
  if (failures.empty() && !records.transfers.empty() && !copies_overlap(records)) {
    failures.push_back(
        "no copy ran at the same time as a kernel or as a copy the other way: the timeline below shows what waited "
        "— a cudaDeviceSynchronize or cudaStreamSynchronize inside the loop over chunks serialises them");
  }
  return failures;
}

}  // namespace

std::vector<std::string> host_work_failures(const std::vector<Buffer>& buffers, const protocol::Records& records) {
  std::vector<std::string> failures;
  std::set<std::string> named;  // one line per buffer and direction
  const auto buffer_named = [&](const std::string& name) {
    return std::ranges::find_if(buffers, [&](const Buffer& b) { return b.name == name; });
  };
  for (const auto& c : records.copies) {
    // An input's values on the host are what host code computes with (an output read back, to
    // print it, is not: memoising it is bench's business).
    const auto source = buffer_named(c.from_device_buffer);
    if (source != buffers.end() && source->role != Role::output && c.to_host_memory &&
        named.insert("from " + c.from_device_buffer).second) {
      failures.push_back(fmt::format(
          "{} was copied to host memory ({}, {} bytes): the work must be done by kernels on the GPU — keep the data "
          "on the device and compute with it there",
          c.from_device_buffer, c.api, c.bytes));
    }
    const auto target = buffer_named(c.to_device_buffer);
    if (target == buffers.end() || target->role == Role::input || !c.from_host_memory || c.bytes <= 8 ||
        c.bytes < target->bytes.size() || !named.insert("into " + target->name).second) {
      continue;
    }
    failures.push_back(fmt::format(
        "{} was written by a copy from the host ({}, {} bytes): the result must be computed by kernels, not "
        "copied in",
        target->name, c.api, c.bytes));
  }
  return failures;
}

bool filled_constant_memory(const protocol::Records& records) {
  return std::ranges::any_of(records.copies,
                             [](const protocol::Copy& c) { return c.api.starts_with("cudaMemcpyToSymbol"); });
}

std::vector<std::string> requirement_failures(const TaskInfo& info, const std::vector<Buffer>& buffers,
                                              const protocol::Records& records, bool launches_recorded) {
  std::vector<std::string> failures;
  const auto& launches = records.launches;
  // Who failed a launch requirement: "its launch did not", "none of its 3 launches did".
  const std::string none_did = launches.size() == 1
                                   ? std::string("its launch did not")
                                   : "none of its " + std::to_string(launches.size()) + " launches did";
  if (launches_recorded && launches.empty()) {
    failures.push_back(info.pointers == PointerKind::host
                           ? "no kernel ran on the GPU: the result was computed on the host; launch a kernel that "
                             "computes it on the device"
                           : "no kernel ran on the GPU: solve must launch a kernel");
    return failures;
  }
  if (launches_recorded && info.requires_shared_memory) {
    const bool any_shared = std::ranges::any_of(
        launches, [](const protocol::Launch& l) { return l.static_shared_bytes + l.dynamic_shared_bytes > 0; });
    if (!any_shared) {
      failures.push_back(
          fmt::format("{} must use shared memory, and {} ({})", info.id, none_did, describe_launches(records)));
    }
  }
  if (launches_recorded && info.requires_2d_launch) {
    const bool any_2d = std::ranges::any_of(launches, [](const protocol::Launch& l) {
      return l.grid[1] > 1 || l.block[1] > 1 || l.grid[2] > 1 || l.block[2] > 1;
    });
    if (!any_2d) {
      failures.push_back(
          fmt::format("{} must launch a 2D grid or a 2D block (dim3 with a y extent above 1), and {} ({}): give the "
                      "block a y extent, e.g. dim3 block(32, 8), so that every shape launches in 2D, a single row too",
                      info.id, none_did, describe_launches(records)));
    }
  }
  if (info.requires_constant_memory) {
    if (!filled_constant_memory(records)) {
      failures.push_back(
          fmt::format("{} must keep its coefficients in __constant__ memory: declare a __constant__ "
                      "array and fill it with cudaMemcpyToSymbol (no such copy was made)",
                      info.id));
    }
  }
  if (info.requires_streams) {
    auto more = stream_failures(buffers, records, launches_recorded);
    failures.insert(failures.end(), more.begin(), more.end());
    return failures;  // chunks replace the copy-once rules below
  }
  if (info.pointers != PointerKind::host) {
    auto more = host_work_failures(buffers, records);
    failures.insert(failures.end(), more.begin(), more.end());
    return failures;
  }
  // Host-pointer exercises teach transfers: each input goes in once, each output comes out once.
  for (const auto& b : buffers) {
    std::size_t in = 0, out = 0;
    for (const auto& c : records.copies) {
      if (c.from_host_buffer == b.name) ++in;
      if (c.to_host_buffer == b.name) ++out;
    }
    const bool needs_in = b.role != Role::output;
    const bool needs_out = b.role != Role::input;
    // A kernel that worked on the host buffer itself (possible where device code can reach host
    // memory) copies nothing: the transfers this exercise teaches never happened.
    if (needs_in && in == 0) {
      failures.push_back(
          fmt::format("{} was never copied to the device: the kernel must work on device memory — cudaMalloc a "
                      "device buffer and cudaMemcpy {} into it (cudaMemcpyHostToDevice)",
                      b.name, b.name));
    }
    if (needs_out && out == 0) {
      failures.push_back(fmt::format(
          "{} was never copied back to the host: cudaMemcpy the device result into {} (cudaMemcpyDeviceToHost)", b.name,
          b.name));
    }
    if (!needs_out && out > 0) {
      failures.push_back(
          fmt::format("{} was copied back to the host but never changed: copy back only the result", b.name));
    }
    if (!needs_in && in > 0) {
      failures.push_back(
          fmt::format("{} was copied to the device, but solve only writes it: allocate it on the device "
                      "without copying it in",
                      b.name));
    }
    if (needs_in && in > 1)
      failures.push_back(fmt::format("{} was copied to the device {} times; once is enough", b.name, in));
    if (needs_out && out > 1)
      failures.push_back(fmt::format("{} was copied back {} times; once is enough", b.name, out));
  }
  return failures;
}

}  // namespace cudalab
