// What a submission did to the device while `solve` ran: allocations, copies and kernel launches.
// The GPU runner fills these by interposing the CUDA runtime's entry points; the simulator fills
// them from its own runtime. The runner turns them into the JSON result it hands to the parent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cudalab::runner {

/// One device allocation made through cudaMalloc (or cudaMallocHost, with `host` set).
struct AllocationRecord {
  std::uintptr_t address = 0;
  std::size_t bytes = 0;
  bool host = false;  ///< pinned host memory
  bool freed = false;
};

/// The name of a cudaMemcpyKind value (0 HostToHost … 3 DeviceToDevice, 4 Default), as the
/// records spell it; both runtimes use the enum's documented numbering.
inline const char* copy_kind_name(int kind) {
  constexpr const char* names[] = {"HostToHost", "HostToDevice", "DeviceToHost", "DeviceToDevice"};
  return kind >= 0 && kind < 4 ? names[kind] : "Default";
}

/// One copy: `kind` is "HostToDevice", "DeviceToHost", "DeviceToDevice", "HostToHost" or "Default".
struct CopyRecord {
  std::string kind;
  std::size_t bytes = 0;
  std::uintptr_t dst = 0;
  std::uintptr_t src = 0;
};

/// One kernel launch with its configuration.
struct LaunchRecord {
  std::string kernel;  ///< name where known, else empty
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  std::size_t dynamic_shared_bytes = 0;
  std::size_t static_shared_bytes = 0;
  double duration_s = 0;  ///< on the device (GPU: CUPTI), 0 where unknown
};

struct RunRecords {
  std::vector<AllocationRecord> allocations;
  std::vector<CopyRecord> copies;
  std::vector<LaunchRecord> launches;
  bool recording = false;  ///< only calls made while `solve` runs are recorded
};

/// The process-wide records, defined by whichever runtime the runner is linked with.
RunRecords& run_records();

}  // namespace cudalab::runner
