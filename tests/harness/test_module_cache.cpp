// The compiled-module cache: content keys, and age-based eviction that goes by last use.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "cudalab/detail/module_cache.hpp"

namespace cudalab {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("cudalab-cache-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void touch(const fs::path& p, std::chrono::hours age) {
  std::ofstream(p) << "x";
  fs::last_write_time(p, fs::file_time_type::clock::now() - age);
}

TEST(ModuleCache, KeysDependOnEveryPartAndItsBoundaries) {
  EXPECT_EQ(content_key({"a", "bc"}), content_key({"a", "bc"}));
  EXPECT_NE(content_key({"a", "bc"}), content_key({"ab", "c"}));
  EXPECT_NE(content_key({"nvcc 12.4", "x"}), content_key({"nvcc 13.0", "x"}));
  EXPECT_EQ(content_key({"x"}).size(), 32u);
}

TEST(ModuleCache, AKernelsOwnHeadersArePartOfItsKey) {
  const fs::path dir = fresh_dir("includes");
  fs::create_directories(dir / "util");
  std::ofstream(dir / "util" / "sum.cuh") << "#include \"../common.h\"\nint sum();\n";
  std::ofstream(dir / "common.h") << "int common();\n";
  const std::string kernel = "#include <cuda_runtime.h>\n#include \"util/sum.cuh\"\n  #  include \"missing.h\"\n";
  const std::string before = local_includes(dir / "kernel.cu", kernel);
  EXPECT_NE(before.find("int sum();"), std::string::npos) << before;
  EXPECT_NE(before.find("int common();"), std::string::npos) << "included by the header, found beside it: " << before;
  EXPECT_EQ(before.find("cuda_runtime"), std::string::npos) << "system headers belong to the toolkit's version";
  std::ofstream(dir / "common.h") << "int common(int);\n";
  EXPECT_NE(local_includes(dir / "kernel.cu", kernel), before) << "an edited header must change the key";
  // A header that includes itself ends.
  std::ofstream(dir / "loop.h") << "#include \"loop.h\"\n";
  EXPECT_NE(local_includes(dir / "kernel.cu", "#include \"loop.h\"\n").find("loop.h"), std::string::npos);
  fs::remove_all(dir);
}

TEST(ModuleCache, ModulesUnusedForLongAreEvictedAndRecentOnesKept) {
  const fs::path dir = fresh_dir("evict");
  touch(dir / "old.so", std::chrono::hours(24 * 40));
  touch(dir / "old.log", std::chrono::hours(24 * 40));
  touch(dir / "recent.so", std::chrono::hours(24 * 2));
  touch(dir / "dead.tmp.123.456.so", std::chrono::hours(48));
  touch(dir / "live.tmp.123.457.so", std::chrono::hours(0));
  touch(dir / "status.json", std::chrono::hours(24 * 400));  // not a module: never touched
  evict_stale_modules(dir, kModuleMaxAge);
  EXPECT_FALSE(fs::exists(dir / "old.so"));
  EXPECT_FALSE(fs::exists(dir / "old.log"));
  EXPECT_TRUE(fs::exists(dir / "recent.so"));
  EXPECT_FALSE(fs::exists(dir / "dead.tmp.123.456.so"));
  EXPECT_TRUE(fs::exists(dir / "live.tmp.123.457.so"));
  EXPECT_TRUE(fs::exists(dir / "status.json"));
  fs::remove_all(dir);
}

TEST(ModuleCache, AHitCountsAsAUse) {
  const fs::path dir = fresh_dir("hit");
  const std::string key = content_key({"hit"});
  touch(dir / (key + ".so"), std::chrono::hours(24 * 29));
  bool compiled = false;
  const CompileResult r = cached_compile(dir, key, [&](const fs::path&, std::string&) {
    compiled = true;
    return ProcessResult{};
  });
  EXPECT_TRUE(r.ok && r.cached);
  EXPECT_FALSE(compiled);
  EXPECT_LT(fs::file_time_type::clock::now() - fs::last_write_time(dir / (key + ".so")), std::chrono::hours(1));
  fs::remove_all(dir);
}

// Two compiles of one source at once (two students handing in the same file, the reference
// solution timed beside several submissions): the module stored first stays, never replaced under
// a runner whose sandbox allows that file as it was.
TEST(ModuleCache, AModuleStoredMeanwhileIsKeptNotReplaced) {
  const fs::path dir = fresh_dir("race");
  const std::string key = content_key({"race"});
  const fs::path module = dir / (key + ".so");
  const auto succeed = [](const fs::path& output, const std::string& text) {
    std::ofstream(output) << text;
    ProcessResult p;
    p.status = ProcessResult::Status::exited;
    p.exit_code = 0;
    return p;
  };
  ino_t stored_first = 0;
  const CompileResult outer = cached_compile(dir, key, [&](const fs::path& output, std::string&) {
    // While this compile runs, another one of the same source ends and stores its module.
    const CompileResult inner =
        cached_compile(dir, key, [&](const fs::path& out, std::string&) { return succeed(out, "first"); });
    EXPECT_TRUE(inner.ok && !inner.cached);
    struct stat st {};
    EXPECT_EQ(stat(module.c_str(), &st), 0);
    stored_first = st.st_ino;
    return succeed(output, "second");
  });
  ASSERT_TRUE(outer.ok);
  EXPECT_EQ(outer.module, module);
  struct stat st {};
  ASSERT_EQ(stat(module.c_str(), &st), 0);
  EXPECT_EQ(st.st_ino, stored_first) << "the module a runner may be loading was replaced";
  std::ifstream in(module);
  std::string text;
  in >> text;
  EXPECT_EQ(text, "first");
  // No temporary file is left behind.
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.path().extension() == ".so" ? 1 : 0;
  EXPECT_EQ(files, 1u);
  fs::remove_all(dir);
}

// A compiler's name is part of every key: asked once per tool binary and remembered in the cache,
// so that each check does not start the compiler only to ask it; asked again once the tool changes.
TEST(ModuleCache, AToolsVersionIsAskedOnceUntilTheToolChanges) {
  const fs::path dir = fresh_dir("tool-version");
  const fs::path tool = dir / "fake-cxx";
  const fs::path asked = dir / "asked";
  const auto write_tool = [&](const std::string& version) {
    std::ofstream(tool) << "#!/bin/sh\necho x >> " << asked.string() << "\necho '" << version
                        << "'\necho 'second line'\n";
    fs::permissions(tool, fs::perms::owner_all);
  };
  const auto times_asked = [&] {
    std::ifstream in(asked);
    return std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n');
  };
  write_tool("fake 1.0");
  EXPECT_EQ(tool_version(tool, dir / "cache", VersionLine::first), "fake 1.0");
  EXPECT_EQ(tool_version(tool, dir / "cache", VersionLine::last), "second line");
  EXPECT_EQ(times_asked(), 2);
  EXPECT_EQ(tool_version(tool, dir / "cache", VersionLine::first), "fake 1.0");  // this process remembers
  EXPECT_EQ(times_asked(), 2);
  // Another cache folder holding the same file (as another process would find it) reads it.
  fs::copy(dir / "cache", dir / "other-cache", fs::copy_options::recursive);
  EXPECT_EQ(tool_version(tool, dir / "other-cache", VersionLine::first), "fake 1.0");
  EXPECT_EQ(times_asked(), 2);
  // An upgraded tool (new size and time) is asked again.
  write_tool("fake 2.0 (upgraded)");
  fs::last_write_time(tool, fs::file_time_type::clock::now() + std::chrono::seconds(5));
  EXPECT_EQ(tool_version(tool, dir / "cache", VersionLine::first), "fake 2.0 (upgraded)");
  EXPECT_EQ(times_asked(), 3);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cudalab
