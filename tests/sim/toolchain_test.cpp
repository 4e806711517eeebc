// The sim toolchain as the harness uses it: availability, diagnostics that name the student's
// file and line, the module cache.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "cudalab/toolchain.hpp"
#include "sim_module.hpp"

namespace cudalab::sim::test {
namespace {

namespace fs = std::filesystem;

fs::path kernel(const char* name) { return fs::path(CUDALAB_SIM_TEST_KERNELS) / name; }

TEST(SimToolchain, AvailableWithRunnerBesideTheRuntime) {
  auto tc = make_sim_toolchain(test_config());
  std::string why;
  EXPECT_TRUE(tc->available(why)) << why;
  EXPECT_EQ(tc->backend(), Backend::sim);
  EXPECT_EQ(tc->runner(), fs::path(CUDALAB_SIM_RUNNER_DIR) / "cudalab-runner-sim");
  EXPECT_NE(tc->describe().find("CPU simulator"), std::string::npos) << tc->describe();
}

TEST(SimToolchain, CompilerErrorsPointAtTheStudentsLine) {
  auto tc = make_sim_toolchain(test_config());
  const fs::path src = kernel("compile_error.cu");
  const CompileResult r = tc->compile(src);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find(src.string() + ":14:"), std::string::npos) << r.diagnostics;
  EXPECT_NE(r.diagnostics.find("undeclared_identifier"), std::string::npos) << r.diagnostics;
  EXPECT_FALSE(r.command.empty());
}

TEST(SimToolchain, TranslatorErrorsPointAtTheStudentsLine) {
  auto tc = make_sim_toolchain(test_config());
  const fs::path src = kernel("translate_error.cu");
  const CompileResult r = tc->compile(src);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.diagnostics.rfind(src.string() + ":5:", 0), 0u) << r.diagnostics;
}

TEST(SimToolchain, MissingFileIsAnErrorNotAThrow) {
  auto tc = make_sim_toolchain(test_config());
  const CompileResult r = tc->compile(kernel("no_such_file.cu"));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("no_such_file.cu"), std::string::npos);
}

TEST(SimToolchain, SecondCompileComesFromTheCache) {
  auto tc = make_sim_toolchain(test_config());
  const CompileResult first = tc->compile(kernel("blocks.cu"));
  ASSERT_TRUE(first.ok) << first.diagnostics;
  const CompileResult second = tc->compile(kernel("blocks.cu"));
  ASSERT_TRUE(second.ok);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(first.module, second.module);
  // Another cache directory: compiled again.
  ToolchainConfig other = test_config();
  other.cache_dir = fs::path(CUDALAB_SIM_TEST_CACHE) / "other";
  fs::remove_all(other.cache_dir);
  const CompileResult third = make_sim_toolchain(other)->compile(kernel("blocks.cu"));
  ASSERT_TRUE(third.ok);
  EXPECT_FALSE(third.cached);
}

TEST(SimToolchain, ErrorsInAQuotedHeaderNameTheHeadersLine) {
  auto tc = make_sim_toolchain(test_config());
  const fs::path header = (kernel("header_launch") / "broken.cuh").lexically_normal();
  const CompileResult r = tc->compile(kernel("header_error.cu"));
  EXPECT_FALSE(r.ok);
  // The header was translated (its launch compiled) and keeps its own name and lines.
  EXPECT_NE(r.diagnostics.find(header.string() + ":9:"), std::string::npos) << r.diagnostics;
  EXPECT_NE(r.diagnostics.find("undeclared_in_header"), std::string::npos) << r.diagnostics;
  EXPECT_NE(r.diagnostics.find(kernel("header_error.cu").string() + ":5"), std::string::npos)
      << "the include chain names the .cu file: " << r.diagnostics;
  EXPECT_EQ(r.diagnostics.find("<<<"), std::string::npos) << "the launch was rewritten: " << r.diagnostics;
}

/// A folder of its own for a test's sources, and a cache of its own (nothing comes from earlier runs).
struct Scratch {
  explicit Scratch(const std::string& name) : root(fs::path(CUDALAB_SIM_TEST_CACHE) / ("scratch-" + name)) {
    fs::remove_all(root);
    fs::create_directories(root / "src");
    config = test_config();
    config.cache_dir = root / "cache";
  }
  ~Scratch() { fs::remove_all(root); }
  void write(const std::string& path, const std::string& text) const {
    fs::create_directories((root / "src" / path).parent_path());
    std::ofstream(root / "src" / path) << text;
  }
  fs::path root;
  ToolchainConfig config;
};

TEST(SimToolchain, TranslatorErrorsInAHeaderNameTheHeader) {
  const Scratch s("translate-error-in-header");
  s.write("kernel.cu", "#include \"util/bad.cuh\"\n");
  s.write("util/bad.cuh", "#pragma once\nvoid f() {\n  k<<<1, 1>>>;\n}\n");
  const CompileResult r = make_sim_toolchain(s.config)->compile(s.root / "src" / "kernel.cu");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.diagnostics.rfind((s.root / "src" / "util" / "bad.cuh").string() + ":3:", 0), 0u) << r.diagnostics;
}

// libcu++ headers the simulator cannot run fail with a line that names them, not "No such file".
TEST(SimToolchain, AnUnsimulatedLibcuHeaderSaysSoInOneLine) {
  const Scratch s("unsimulated-libcu");
  s.write("kernel.cu", "#include <cuda/std/limits>\n#include <cuda/barrier>\n__global__ void k() {}\n");
  const CompileResult r = make_sim_toolchain(s.config)->compile(s.root / "src" / "kernel.cu");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("cudalab's CPU simulator does not run <cuda/barrier>"), std::string::npos)
      << r.diagnostics;
  EXPECT_NE(r.diagnostics.find((s.root / "src" / "kernel.cu").string() + ":2"), std::string::npos) << r.diagnostics;
  EXPECT_EQ(r.diagnostics.find("No such file"), std::string::npos) << r.diagnostics;
}

// A file without headers of its own compiles once wherever its copies lie (a scratch copy of the
// project, identical submissions): the second copy's module comes from the cache, and the
// compiler's messages name the copy asked for. With a header of its own, each copy compiles.
TEST(SimToolchain, CopiesOfAFileWithoutHeadersShareOneModuleAndNameThemselves) {
  const Scratch s("shared-copies");
  const std::string text =
      "__global__ void k(int* p) { p[0] = 1; }\n"
      "void solve(int* p) { int z = 1 / 0; k<<<1, 1>>>(p + z); }\n";
  s.write("alice/kernel.cu", text);
  s.write("bob/kernel.cu", text);
  auto tc = make_sim_toolchain(s.config);
  const CompileResult a = tc->compile(s.root / "src" / "alice" / "kernel.cu");
  ASSERT_TRUE(a.ok) << a.diagnostics;
  const CompileResult b = tc->compile(s.root / "src" / "bob" / "kernel.cu");
  ASSERT_TRUE(b.ok) << b.diagnostics;
  EXPECT_TRUE(b.cached) << "the same text elsewhere compiled again";
  EXPECT_EQ(a.module, b.module);
  const std::string bob_line = (s.root / "src" / "bob" / "kernel.cu").string() + ":2:";
  EXPECT_NE(a.diagnostics.find((s.root / "src" / "alice" / "kernel.cu").string() + ":2:"), std::string::npos)
      << a.diagnostics;
  EXPECT_NE(b.diagnostics.find(bob_line), std::string::npos) << "the warning names bob's copy: " << b.diagnostics;
  EXPECT_EQ(b.diagnostics.find("alice"), std::string::npos) << b.diagnostics;
  EXPECT_EQ(b.diagnostics.find(kSharedSourceFolder), std::string::npos) << b.diagnostics;

  s.write("carol/kernel.cu", "#include \"k.cuh\"\n" + text);
  s.write("carol/k.cuh", "#pragma once\n");
  s.write("dave/kernel.cu", "#include \"k.cuh\"\n" + text);
  s.write("dave/k.cuh", "#pragma once\n");
  ASSERT_TRUE(tc->compile(s.root / "src" / "carol" / "kernel.cu").ok);
  const CompileResult d = tc->compile(s.root / "src" / "dave" / "kernel.cu");
  ASSERT_TRUE(d.ok) << d.diagnostics;
  EXPECT_FALSE(d.cached) << "a file with a header of its own is compiled where it lies";
}

TEST(SimToolchain, EditingANestedHeaderRecompiles) {
  const Scratch s("nested-headers");
  // kernel.cu -> outer/launch.cuh (launches) -> outer/inner/value.cuh (beside it) -> config.cuh
  // (not beside value.cuh: found in the source's folder, where -iquote points).
  s.write("kernel.cu", "#include \"outer/launch.cuh\"\nextern \"C\" int value() { return run(); }\n");
  s.write("outer/launch.cuh",
          "#pragma once\n"
          "#include <cuda_runtime.h>\n"
          "#include \"inner/value.cuh\"\n"
          "__device__ int result;\n"
          "__global__ void put() { result = kValue + kOffset; }\n"
          "inline int run() {\n"
          "  put<<<1, 1>>>();\n"
          "  int r = -1;\n"
          "  cudaMemcpyFromSymbol(&r, result, sizeof r);\n"
          "  return r;\n"
          "}\n");
  s.write("outer/inner/value.cuh", "#pragma once\n#include \"config.cuh\"\nconstexpr int kValue = 1;\n");
  s.write("config.cuh", "#pragma once\nconstexpr int kOffset = 10;\n");
  auto tc = make_sim_toolchain(s.config);
  std::vector<void*> loaded;
  const auto run = [&](bool cached) {
    const CompileResult r = tc->compile(s.root / "src" / "kernel.cu");
    EXPECT_TRUE(r.ok) << r.command << "\n" << r.diagnostics;
    EXPECT_EQ(r.cached, cached) << r.module;
    void* h = r.ok ? dlopen(r.module.c_str(), RTLD_NOW | RTLD_LOCAL) : nullptr;
    if (h == nullptr) return -1;
    loaded.push_back(h);
    auto* value = reinterpret_cast<int (*)()>(dlsym(h, "value"));
    return value != nullptr ? value() : -1;
  };
  EXPECT_EQ(run(false), 11);
  EXPECT_EQ(run(true), 11);
  s.write("outer/inner/value.cuh", "#pragma once\n#include \"config.cuh\"\nconstexpr int kValue = 2;\n");
  EXPECT_EQ(run(false), 12) << "a header's header was edited";
  s.write("config.cuh", "#pragma once\nconstexpr int kOffset = 20;\n");
  EXPECT_EQ(run(false), 22) << "a header found through -iquote was edited";
  EXPECT_EQ(run(true), 22);
  for (void* h : loaded) dlclose(h);
}

}  // namespace
}  // namespace cudalab::sim::test
