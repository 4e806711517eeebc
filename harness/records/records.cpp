#include "records/records.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>

namespace cudalab::records {

namespace {

struct Keeper {
  std::mutex mutex;
  bool recording = false;
  protocol::Records records;
  std::map<std::uintptr_t, LiveAllocation> live;  // by base address
  std::vector<HostBuffer> host_buffers;
};

Keeper& keeper() {
  static auto* k = new Keeper;  // never destroyed: CUPTI and kernels may record during exit
  return *k;
}

/// Appends to a bounded list, counting what does not fit.
template <typename T>
void append(protocol::Records& r, std::vector<T>& list, T value) {
  if (list.size() < protocol::kMaxRecordsPerKind) {
    list.push_back(std::move(value));
  } else {
    ++r.dropped;
  }
}

std::optional<LiveAllocation> find_locked(const Keeper& k, std::uintptr_t a) {
  auto it = k.live.upper_bound(a);
  if (it == k.live.begin()) return std::nullopt;
  --it;
  if (a - it->first > it->second.bytes) return std::nullopt;
  return it->second;
}

const char* memcpy_kind_text(int kind) {
  constexpr const char* kNames[] = {"cudaMemcpyHostToHost", "cudaMemcpyHostToDevice", "cudaMemcpyDeviceToHost",
                                    "cudaMemcpyDeviceToDevice", "cudaMemcpyDefault"};
  return kind >= 0 && kind <= 4 ? kNames[kind] : "an invalid cudaMemcpyKind";
}

/// What a pointer is, for messages: "device 0x7f…(4000-byte allocation)" or "host 0x7ffd…".
std::string describe_pointer(const void* p, const std::optional<LiveAllocation>& a) {
  char buf[128];
  if (p == nullptr) return "nullptr";
  if (!a) {
    std::snprintf(buf, sizeof buf, "host %p", p);
  } else {
    const char* kind = a->kind == protocol::MemoryKind::device    ? "device"
                       : a->kind == protocol::MemoryKind::managed ? "managed"
                                                                  : "pinned host";
    std::snprintf(buf, sizeof buf, "%s %p (allocation of %zu byte%s)", kind, p, a->bytes, a->bytes == 1 ? "" : "s");
  }
  return buf;
}

std::string bytes_text(std::size_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

bool on_device(const std::optional<LiveAllocation>& a) { return a && a->kind != protocol::MemoryKind::pinned; }

/// Bytes from `p` to the end of its allocation.
std::size_t room(const void* p, const LiveAllocation& a) {
  return a.bytes - static_cast<std::size_t>(static_cast<const char*>(p) - static_cast<const char*>(a.base));
}

}  // namespace

void start_recording() {
  Keeper& k = keeper();
  std::lock_guard lock(k.mutex);
  k.recording = true;
}

void stop_recording() {
  Keeper& k = keeper();
  std::lock_guard lock(k.mutex);
  k.recording = false;
}

bool recording() {
  Keeper& k = keeper();
  std::lock_guard lock(k.mutex);
  return k.recording;
}

void record_allocation(const char* api, protocol::MemoryKind kind, const void* address, std::size_t bytes) {
  if (address == nullptr) return;
  Keeper& k = keeper();
  std::lock_guard lock(k.mutex);
  k.live[reinterpret_cast<std::uintptr_t>(address)] = LiveAllocation{address, bytes, kind};
  if (k.recording) {
    append(k.records, k.records.allocations,
           protocol::Allocation{api, kind, bytes, false, reinterpret_cast<std::uintptr_t>(address)});
  }
}

void record_free(const void* address) {
  if (address == nullptr) return;
  Keeper& k = keeper();
  std::lock_guard lock(k.mutex);
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  k.live.erase(a);
  if (!k.recording) return;
  // The latest allocation at this address: addresses are reused after a free.
  for (auto r = k.records.allocations.rbegin(); r != k.records.allocations.rend(); ++r) {
    if (r->address == a && !r->freed) {
      r->freed = true;
      break;
    }
  }
}

void record_copy(const char* api, int kind, const void* dst, const void* src, std::size_t bytes, const void* stream) {
  Keeper& k = keeper();
  std::lock_guard lock(k.mutex);
  if (!k.recording) return;
  protocol::Copy copy;
  copy.api = api;
  copy.kind = protocol::copy_kind(kind);
  copy.bytes = bytes;
  copy.dst = reinterpret_cast<std::uintptr_t>(dst);
  copy.src = reinterpret_cast<std::uintptr_t>(src);
  copy.stream = reinterpret_cast<std::uintptr_t>(stream);
  append(k.records, k.records.copies, std::move(copy));
}

void record_transfer(protocol::Transfer transfer) {
  Keeper& k = keeper();
  std::lock_guard lock(k.mutex);
  if (k.recording) append(k.records, k.records.transfers, transfer);
}

void record_launch(protocol::Launch launch) {
  Keeper& k = keeper();
  std::lock_guard lock(k.mutex);
  if (k.recording) append(k.records, k.records.launches, std::move(launch));
}

void record_failed_call(protocol::FailedCall call) {
  Keeper& k = keeper();
  std::lock_guard lock(k.mutex);
  if (k.recording && !k.records.first_failed_call) k.records.first_failed_call = std::move(call);
}

protocol::Records snapshot_records() {
  Keeper& k = keeper();
  std::lock_guard lock(k.mutex);
  return k.records;
}

void clear_records() {
  Keeper& k = keeper();
  std::lock_guard lock(k.mutex);
  k.records = {};
}

std::size_t launch_count() {
  Keeper& k = keeper();
  std::lock_guard lock(k.mutex);
  return k.records.launches.size();
}

void truncate_launches(std::size_t count) {
  Keeper& k = keeper();
  std::lock_guard lock(k.mutex);
  if (k.records.launches.size() > count) k.records.launches.resize(count);
}

std::optional<LiveAllocation> find_allocation(const void* address) {
  Keeper& k = keeper();
  std::lock_guard lock(k.mutex);
  return find_locked(k, reinterpret_cast<std::uintptr_t>(address));
}

void name_host_buffers(std::vector<HostBuffer> buffers) {
  Keeper& k = keeper();
  std::lock_guard lock(k.mutex);
  k.host_buffers = std::move(buffers);
}

std::optional<HostBuffer> find_host_buffer(const void* address) {
  Keeper& k = keeper();
  std::lock_guard lock(k.mutex);
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  for (const auto& b : k.host_buffers) {
    const auto begin = reinterpret_cast<std::uintptr_t>(b.base);
    if (a >= begin && a - begin < std::max<std::size_t>(b.bytes, 1)) return b;
  }
  return std::nullopt;
}

std::string host_buffer_overrun(const char* api, const void* p, std::size_t bytes, bool reads) {
  const auto b = find_host_buffer(p);
  if (!b) return {};
  const std::size_t offset = static_cast<std::size_t>(static_cast<const char*>(p) - static_cast<const char*>(b->base));
  if (bytes <= b->bytes - offset) return {};
  return std::string(api) + (reads ? " reads " : " writes ") + bytes_text(bytes) + (reads ? " from" : " to") +
         " the host buffer `" + b->name + "` of " + bytes_text(b->bytes) +
         (offset != 0 ? " (from byte " + std::to_string(offset) + " on)" : "") +
         ": cudaMemcpy counts bytes, so n elements take n * sizeof(element)";
}

protocol::FailedCall explain_failed_copy(const char* api, const void* dst, const void* src, std::size_t bytes, int kind,
                                         const char* error) {
  const auto d = find_allocation(dst);
  const auto s = find_allocation(src);
  protocol::FailedCall f;
  f.error = error;
  f.call = std::string(api) + "(dst=" + describe_pointer(dst, d) + ", src=" + describe_pointer(src, s) + ", " +
           std::to_string(bytes) + " bytes, " + memcpy_kind_text(kind) + ")";
  const bool want_dst_device = kind == 1 || kind == 3;
  const bool want_src_device = kind == 2 || kind == 3;
  if (dst == nullptr || src == nullptr) {
    f.cause = std::string(dst == nullptr ? "dst" : "src") + " is a null pointer: was it allocated?";
  } else if (kind < 0 || kind > 4) {
    f.cause = "the last argument must be a cudaMemcpyKind such as cudaMemcpyHostToDevice";
  } else if (kind != 4 && kind != 0 && on_device(d) != want_dst_device && on_device(s) != want_src_device) {
    f.cause = std::string("dst is ") + (on_device(d) ? "a device" : "a host") + " pointer and src " +
              (on_device(s) ? "a device" : "a host") + " pointer, the other way round from " + memcpy_kind_text(kind) +
              ": the destination comes first, cudaMemcpy(dst, src, bytes, kind)";
  } else if (kind != 4 && kind != 0 && want_dst_device && !on_device(d)) {
    f.cause = "dst is not device memory: copy into a pointer that cudaMalloc returned";
  } else if (kind != 4 && kind != 0 && want_src_device && !on_device(s)) {
    f.cause = "src is not device memory: copy from a pointer that cudaMalloc returned";
  } else if (kind != 4 && !want_dst_device && on_device(d)) {
    f.cause = std::string("dst is device memory, but ") + memcpy_kind_text(kind) + " copies to the host";
  } else if (kind != 4 && !want_src_device && on_device(s)) {
    f.cause = std::string("src is device memory, but ") + memcpy_kind_text(kind) + " copies from the host";
  } else if (d && bytes > room(dst, *d)) {
    f.cause = std::to_string(bytes) + " bytes do not fit in the " + bytes_text(room(dst, *d)) +
              " allocated at dst: cudaMalloc and cudaMemcpy count bytes, so n elements take n * sizeof(element)";
  } else if (s && bytes > room(src, *s)) {
    f.cause = std::to_string(bytes) + " bytes are more than the " + bytes_text(room(src, *s)) +
              " allocated at src: cudaMalloc and cudaMemcpy count bytes, so n elements take n * sizeof(element)";
  }
  return f;
}

protocol::FailedCall explain_failed_memset(const char* api, const void* ptr, int value, std::size_t bytes,
                                           const char* error) {
  const auto a = find_allocation(ptr);
  protocol::FailedCall f;
  f.error = error;
  f.call = std::string(api) + "(" + describe_pointer(ptr, a) + ", " + std::to_string(value) + ", " +
           std::to_string(bytes) + " bytes)";
  if (!on_device(a)) {
    f.cause = "the pointer is not device memory: cudaMemset works on memory from cudaMalloc";
  } else if (bytes > room(ptr, *a)) {
    f.cause = std::to_string(bytes) + " bytes do not fit in the " + bytes_text(room(ptr, *a)) +
              " allocated there: cudaMemset counts bytes";
  }
  return f;
}

}  // namespace cudalab::records
