// Test helper: compiles a .cu file from tests/sim/kernels through the real sim toolchain (the same
// path `cudalab check --backend sim` takes) and looks up its entry points.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "cudalab/toolchain.hpp"

namespace cudalab::sim::test {

inline ToolchainConfig test_config() {
  ToolchainConfig c;
  c.cache_dir = CUDALAB_SIM_TEST_CACHE;
  c.runner_dir = CUDALAB_SIM_RUNNER_DIR;
  return c;
}

/// The loaded module for `tests/sim/kernels/<name>`; compiled at most once per process.
inline void* module(const std::string& name) {
  static std::map<std::string, void*> loaded;
  if (auto it = loaded.find(name); it != loaded.end()) return it->second;
  auto tc = make_sim_toolchain(test_config());
  const CompileResult r = tc->compile(std::filesystem::path(CUDALAB_SIM_TEST_KERNELS) / name);
  EXPECT_TRUE(r.ok) << r.command << "\n" << r.diagnostics;
  if (!r.ok) return nullptr;
  void* h = dlopen(r.module.c_str(), RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(h, nullptr) << dlerror();
  loaded[name] = h;
  return h;
}

/// Entry point `symbol` of module `name`, typed as F.
template <class F>
F* entry(const std::string& name, const char* symbol) {
  void* h = module(name);
  if (h == nullptr) return nullptr;
  void* f = dlsym(h, symbol);
  EXPECT_NE(f, nullptr) << symbol << ": " << dlerror();
  return reinterpret_cast<F*>(f);
}

}  // namespace cudalab::sim::test
