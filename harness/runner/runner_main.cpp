// The untrusted side: a short-lived child process that loads one student module, moves the
// buffers the parent prepared to where `solve` expects them, calls it, and hands the buffers and
// a result back. It never sees expected values: comparing happens in the parent. Compiled twice,
// against the CUDA runtime (cudalab-runner-gpu) and against the simulator (cudalab-runner-sim).
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol.hpp"
#include "records.hpp"

namespace {

using nlohmann::json;
using cudalab::runner::run_records;

struct BufferSlot {
  std::string name;
  std::size_t offset = 0;
  std::size_t bytes = 0;
  std::string role;
  void* device = nullptr;  // device copy, for device-pointer exercises
};

void write_result(const json& result) {
  std::string text = result.dump();
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = write(cudalab::protocol::result_fd, p, left);
    if (n <= 0) break;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  close(cudalab::protocol::result_fd);
}

json error_result(const std::string& status, const std::string& message) {
  return json{{"status", status}, {"message", message}};
}

json cuda_error_result(cudaError_t err, const std::string& during) {
  return json{{"status", "cuda_error"},
              {"cuda_error", cudaGetErrorName(err)},
              {"message", std::string(cudaGetErrorString(err)) + " (" + during + ")"}};
}

json records_json() {
  const auto& r = run_records();
  json allocations = json::array();
  for (const auto& a : r.allocations) {
    allocations.push_back({{"bytes", a.bytes}, {"host", a.host}, {"freed", a.freed}});
  }
  json copies = json::array();
  for (const auto& c : r.copies) copies.push_back({{"kind", c.kind}, {"bytes", c.bytes}});
  json launches = json::array();
  for (const auto& l : r.launches) {
    launches.push_back({{"kernel", l.kernel},
                        {"grid", {l.grid[0], l.grid[1], l.grid[2]}},
                        {"block", {l.block[0], l.block[1], l.block[2]}},
                        {"dynamic_shared_bytes", l.dynamic_shared_bytes},
                        {"static_shared_bytes", l.static_shared_bytes}});
  }
  return json{{"allocations", allocations}, {"copies", copies}, {"launches", launches}};
}

// Calls `fn` with arguments whose kinds are known only at run time. All contract parameters are
// pointers or ints, so the recursion instantiates at most 2^6 call shapes.
using Arg = std::intptr_t;
constexpr std::size_t max_args = 6;

template <typename... Ts>
void call_solve(void* fn, const std::vector<std::pair<bool, Arg>>& args, Ts... done) {
  constexpr std::size_t have = sizeof...(Ts);
  if (have == args.size()) {
    reinterpret_cast<void (*)(Ts...)>(fn)(done...);
    return;
  }
  if constexpr (have < max_args) {
    const auto& [is_pointer, value] = args[have];
    if (is_pointer) {
      call_solve(fn, args, done..., reinterpret_cast<void*>(value));
    } else {
      call_solve(fn, args, done..., static_cast<int>(value));
    }
  }
}

int probe() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  json out{{"count", err == cudaSuccess ? count : 0}};
  if (err != cudaSuccess) out["error"] = std::string(cudaGetErrorString(err));
  json devices = json::array();
  for (int i = 0; err == cudaSuccess && i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    devices.push_back({{"name", prop.name},
                       {"compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
                       {"sm_count", prop.multiProcessorCount},
                       {"memory_bytes", prop.totalGlobalMem}});
  }
  out["devices"] = devices;
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

json run(const json& spec) {
  const std::size_t total = spec.at("total_bytes").get<std::size_t>();
  auto* base = static_cast<std::byte*>(
      mmap(nullptr, total == 0 ? 1 : total, PROT_READ | PROT_WRITE, MAP_SHARED, cudalab::protocol::buffers_fd, 0));
  if (base == MAP_FAILED) return error_result("runner_error", "cannot map the buffers");

  void* module = dlopen(spec.at("module").get<std::string>().c_str(), RTLD_NOW | RTLD_LOCAL);
  if (module == nullptr) return error_result("load_error", dlerror());
  const auto symbol = spec.at("symbol").get<std::string>();
  void* solve = dlsym(module, symbol.c_str());
  if (solve == nullptr) return error_result("missing_symbol", "no function " + symbol + " in the module");

  // Create the context now, so that its cost and its failures are not blamed on `solve`.
  int devices = 0;
  if (cudaError_t err = cudaGetDeviceCount(&devices); err != cudaSuccess || devices == 0) {
    return error_result("no_device", err == cudaSuccess ? "no CUDA device is visible" : cudaGetErrorString(err));
  }
  if (cudaError_t err = cudaFree(nullptr); err != cudaSuccess) return cuda_error_result(err, "creating the context");

  const bool device_pointers = spec.at("pointers") == "device";
  std::vector<BufferSlot> slots;
  for (const auto& b : spec.at("buffers")) {
    slots.push_back({b.at("name"), b.at("offset"), b.at("bytes"), b.at("role"), nullptr});
  }
  if (device_pointers) {
    for (auto& s : slots) {
      if (cudaError_t err = cudaMalloc(&s.device, s.bytes == 0 ? 1 : s.bytes); err != cudaSuccess) {
        return cuda_error_result(err, "allocating " + s.name);
      }
      if (cudaError_t err = cudaMemcpy(s.device, base + s.offset, s.bytes, cudaMemcpyHostToDevice); err != cudaSuccess) {
        return cuda_error_result(err, "copying " + s.name + " to the device");
      }
    }
  }

  std::vector<std::pair<bool, Arg>> args;
  for (const auto& a : spec.at("args")) {
    if (a.contains("buffer")) {
      const auto& s = slots.at(a.at("buffer").get<std::size_t>());
      void* p = device_pointers ? s.device : static_cast<void*>(base + s.offset);
      args.emplace_back(true, reinterpret_cast<Arg>(p));
    } else {
      args.emplace_back(false, a.at("int").get<Arg>());
    }
  }
  if (args.size() > max_args) return error_result("runner_error", "too many parameters");

  // Reset the sticky state before the call so that errors are the submission's.
  (void)cudaGetLastError();
  run_records().recording = true;
  const auto start = std::chrono::steady_clock::now();
  json result{{"status", "ok"}};
  try {
    call_solve(solve, args);
  } catch (const std::exception& e) {
    result = error_result("exception", e.what());
  } catch (...) {
    result = error_result("exception", "solve threw something that is not a std::exception");
  }
  const cudaError_t sync_err = cudaDeviceSynchronize();
  const cudaError_t last_err = cudaGetLastError();
  const auto stop = std::chrono::steady_clock::now();
  run_records().recording = false;
  result["solve_ms"] = std::chrono::duration<double, std::milli>(stop - start).count();
  result["records"] = records_json();
  if (result["status"] != "ok") return result;

  const cudaError_t err = sync_err != cudaSuccess ? sync_err : last_err;
  if (err != cudaSuccess) {
    json r = cuda_error_result(err, "after solve returned: a launch or a kernel failed");
    r["solve_ms"] = result["solve_ms"];
    r["records"] = result["records"];
    return r;
  }
  if (device_pointers) {
    // Inputs come back too: the parent checks that they were left unchanged.
    for (auto& s : slots) {
      if (cudaError_t e = cudaMemcpy(base + s.offset, s.device, s.bytes, cudaMemcpyDeviceToHost); e != cudaSuccess) {
        return cuda_error_result(e, "copying " + s.name + " back to the host");
      }
      (void)cudaFree(s.device);
    }
  }
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--probe") == 0) return probe();
  if (argc != 3 || std::strcmp(argv[1], "--spec") != 0) {
    std::fprintf(stderr, "usage: %s --spec JSON | --probe\n(started by cudalab; not meant to be run by hand)\n", argv[0]);
    return 2;
  }
  json result;
  try {
    result = run(json::parse(argv[2]));
  } catch (const std::exception& e) {
    result = error_result("runner_error", e.what());
  }
  std::fflush(stdout);
  std::fflush(stderr);
  write_result(result);
  return 0;
}
