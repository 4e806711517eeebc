// The toolchains of a test program: one per backend and build (plain, or the simulator's checked
// one), made once for the whole program and sharing the test programs' module cache, so that a
// kernel compiled by one test is a cache hit for the others.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "cudalab/toolchain.hpp"

namespace cudalab::testing_support {

/// The module cache every test program shares (beside the build's bin/ folder).
inline std::filesystem::path test_module_cache() {
  return std::filesystem::path(CUDALAB_BIN_DIR) / ".." / "test-module-cache";
}

/// The toolchain of `backend` (with `checked`: the checked build: the simulator's instrumented one,
/// a GPU's with line information for compute-sanitizer), or null with the reason it cannot run here.
inline const Toolchain* toolchain_of(Backend backend, bool checked, std::string& why) {
  static std::map<std::pair<Backend, bool>, std::pair<std::unique_ptr<Toolchain>, std::string>> made;
  auto it = made.find({backend, checked});
  if (it == made.end()) {
    ToolchainConfig config;
    config.cache_dir = test_module_cache();
    config.runner_dir = CUDALAB_BIN_DIR;
    config.checked = checked;
    std::unique_ptr<Toolchain> tc;
    std::string reason;
    if (backend == Backend::gpu) {
      tc = make_gpu_toolchain(config);
    } else {
#ifdef CUDALAB_HAVE_SIM
      tc = make_sim_toolchain(config);
#else
      reason = "this build has no simulator";
#endif
    }
    if (tc && !tc->available(reason)) tc.reset();
    it = made.emplace(std::make_pair(backend, checked), std::make_pair(std::move(tc), reason)).first;
  }
  why = it->second.second;
  return it->second.first.get();
}

}  // namespace cudalab::testing_support

/// The simulator's checked build as `var`, or a skip with the reason it cannot run here.
#define REQUIRE_CHECKED_SIM(var)                                                                  \
  std::string why_##var;                                                                          \
  const Toolchain* var = ::cudalab::testing_support::toolchain_of(Backend::sim, true, why_##var); \
  if (var == nullptr) GTEST_SKIP() << "sim backend unavailable: " << why_##var
