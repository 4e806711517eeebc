// Reading a class's submissions: folders in the layouts students hand in, and archives built here
// with libarchive's write API, hostile entries included (`..`, absolute paths, links, devices, too
// big, too many, a zip that lies about its size, garbage). Each bad entry is one note, nothing is
// written outside work_dir/<student>, and the next student is still read.
#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/files.hpp"
#include "cudalab/errors.hpp"
#include "cudalab/grading/submissions.hpp"

namespace cudalab::grading {
namespace {

using testing_support::read_text;
using testing_support::write_text;

namespace fs = std::filesystem;

const std::vector<std::string> kExercises = {"01_increment", "02_vector_add", "03_matmul", "04_normalize", "05_reduce"};

/// One entry of an archive to write.
struct Entry {
  enum Kind { file, dir, symlink, hardlink, chardev, fifo };
  std::string name{};
  std::string data{};
  Kind kind = file;
  std::string link{};  ///< symlink or hardlink target
};

/// Writes `entries` as a zip or a tar.gz (by `path`'s extension), names exactly as given.
void write_archive(const fs::path& path, const std::vector<Entry>& entries) {
  struct archive* a = archive_write_new();
  const bool zip = path.extension() == ".zip";
  if (zip) {
    archive_write_set_format_zip(a);
  } else {
    archive_write_set_format_pax_restricted(a);
    archive_write_add_filter_gzip(a);
  }
  ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK) << archive_error_string(a);
  for (const auto& e : entries) {
    struct archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, e.name.c_str());
    archive_entry_set_perm(entry, 0644);
    switch (e.kind) {
      case Entry::file:
        archive_entry_set_filetype(entry, AE_IFREG);
        archive_entry_set_size(entry, static_cast<la_int64_t>(e.data.size()));
        break;
      case Entry::dir:
        archive_entry_set_filetype(entry, AE_IFDIR);
        archive_entry_set_perm(entry, 0755);
        break;
      case Entry::symlink:
        archive_entry_set_filetype(entry, AE_IFLNK);
        archive_entry_set_symlink(entry, e.link.c_str());
        break;
      case Entry::hardlink:
        archive_entry_set_filetype(entry, AE_IFREG);
        archive_entry_set_hardlink(entry, e.link.c_str());
        break;
      case Entry::chardev:
        archive_entry_set_filetype(entry, AE_IFCHR);
        archive_entry_set_rdevmajor(entry, 1);
        archive_entry_set_rdevminor(entry, 3);
        break;
      case Entry::fifo:
        archive_entry_set_filetype(entry, AE_IFIFO);
        break;
    }
    ASSERT_EQ(archive_write_header(a, entry), ARCHIVE_OK) << e.name << ": " << archive_error_string(a);
    if (e.kind == Entry::file && !e.data.empty()) {
      ASSERT_EQ(archive_write_data(a, e.data.data(), e.data.size()), static_cast<la_ssize_t>(e.data.size()));
    }
    archive_entry_free(entry);
  }
  ASSERT_EQ(archive_write_close(a), ARCHIVE_OK);
  archive_write_free(a);
}

const std::string kMatmul = "// alice's matmul\nvoid solve(const float*, const float*, float*, int, int, int) {}\n";
const std::string kIncrement = "// increment\nvoid solve(int*, int) {}\n";

class SubmissionsTest : public testing::Test {
 protected:
  void SetUp() override {
    const auto* info = testing::UnitTest::GetInstance()->current_test_info();
    base_ = fs::temp_directory_path() / ("cudalab-submissions-" + std::string(info->test_suite_name()) + "-" +
                                         info->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(base_);
    dir_ = base_ / "submissions";
    work_ = base_ / "work";
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(base_); }

  std::vector<Submission> read(const SubmissionLimits& limits = {}) {
    skipped_.clear();
    return read_submissions(dir_, work_, kExercises, limits, &skipped_);
  }

  static const Submission& find(const std::vector<Submission>& subs, const std::string& student) {
    for (const auto& s : subs) {
      if (s.student == student) return s;
    }
    throw std::runtime_error("no student " + student);
  }

  static std::string notes_of(const Submission& s) {
    std::string out;
    for (const auto& n : s.notes) out += n + "\n";
    return out;
  }

  /// Every path under `root`, and that none is a link and none lies outside work_.
  static std::vector<std::string> files_under(const fs::path& root) {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      EXPECT_FALSE(e.is_symlink()) << e.path();
      if (e.is_regular_file()) out.push_back(e.path().lexically_relative(root).generic_string());
    }
    std::ranges::sort(out);
    return out;
  }

  fs::path base_, dir_, work_;
  std::vector<std::string> skipped_;
};

using SubmissionTest = SubmissionsTest;
using ArchiveTest = SubmissionsTest;

TEST_F(SubmissionTest, RepositoryCloneAndFlatUploadAreBothFound) {
  write_text(dir_ / "alice/exercises/03_matmul/kernel.cu", kMatmul);
  write_text(dir_ / "alice/exercises/01_increment/kernel.cu", kIncrement);
  write_text(dir_ / "alice/exercises/03_matmul/README.md", "task");
  write_text(dir_ / "alice/.git/objects/03_matmul/kernel.cu", "hidden: ignored");
  write_text(dir_ / "bob/matmul/kernel.cu", kMatmul);
  write_text(dir_ / "bob/increment.cu", kIncrement);
  write_text(dir_ / "bob/05_Reduce.cu", "reduce");
  write_text(dir_ / "bob/__MACOSX/02_vector_add/kernel.cu", "resource fork");
  write_text(dir_ / "bob/build/CMakeCache.txt", "a build tree is not searched");
  write_text(dir_ / "bob/build/04_normalize/kernel.cu", "a copy the build made");
  const auto subs = read();
  ASSERT_EQ(subs.size(), 2u);
  const auto& alice = find(subs, "alice");
  EXPECT_EQ(alice.root, fs::weakly_canonical(dir_ / "alice"));
  ASSERT_EQ(alice.kernels.size(), 2u);
  EXPECT_EQ(alice.kernels.at("03_matmul"), alice.root / "exercises/03_matmul/kernel.cu");
  EXPECT_EQ(alice.kernels.at("01_increment"), alice.root / "exercises/01_increment/kernel.cu");
  EXPECT_TRUE(alice.notes.empty()) << notes_of(alice);
  const auto& bob = find(subs, "bob");
  ASSERT_EQ(bob.kernels.size(), 3u) << notes_of(bob);
  EXPECT_EQ(bob.kernels.at("03_matmul"), bob.root / "matmul/kernel.cu");
  EXPECT_EQ(bob.kernels.at("01_increment"), bob.root / "increment.cu");
  EXPECT_EQ(bob.kernels.at("05_reduce"), bob.root / "05_Reduce.cu");
  EXPECT_FALSE(bob.kernels.contains("02_vector_add")) << "__MACOSX is not the student's work";
  EXPECT_FALSE(bob.kernels.contains("04_normalize")) << "nor is a build tree";
  EXPECT_EQ(alice.content_hash.size(), 32u);
  EXPECT_NE(alice.content_hash, bob.content_hash);
  EXPECT_TRUE(skipped_.empty());
}

TEST_F(SubmissionTest, ShallowestOfTwoCandidatesIsGradedAndTheNoteNamesBoth) {
  write_text(dir_ / "carol/old/attempt/03_matmul/kernel.cu", "old");
  write_text(dir_ / "carol/exercises/03_matmul/kernel.cu", kMatmul);
  write_text(dir_ / "carol/exercises/matmul.cu", "a flat file at the same depth: the folder wins");
  const auto subs = read();
  const auto& carol = find(subs, "carol");
  EXPECT_EQ(carol.kernels.at("03_matmul"), carol.root / "exercises/03_matmul/kernel.cu");
  ASSERT_EQ(carol.notes.size(), 1u) << notes_of(carol);
  EXPECT_EQ(carol.notes[0],
            "03_matmul: 3 candidates; graded exercises/03_matmul/kernel.cu (the shallowest), not "
            "exercises/matmul.cu, old/attempt/03_matmul/kernel.cu");
}

TEST_F(SubmissionTest, NamesAreSanitizedSortedAndOtherEntriesSkipped) {
  write_text(dir_ / "zoe smith/03_matmul/kernel.cu", kMatmul);
  write_text(dir_ / "Bob/03_matmul/kernel.cu", kMatmul);
  write_text(dir_ / "notes.txt", "not a submission");
  write_text(dir_ / ".DS_Store", "ignored silently");
  write_archive(dir_ /
                    "Jos\xc3\xa9 Garc\xc3\xad"
                    "a.tar.gz",
                {{"03_matmul/kernel.cu", kMatmul}});
  const auto subs = read();
  std::vector<std::string> names;
  for (const auto& s : subs) names.push_back(s.student);
  EXPECT_EQ(names, (std::vector<std::string>{"Bob", "Jos_Garc_a", "zoe_smith"}));
  EXPECT_EQ(skipped_, (std::vector<std::string>{"notes.txt: neither a folder nor a .zip, .tar.gz or .tgz archive"}));
  EXPECT_EQ(find(subs, "Jos_Garc_a").root, fs::weakly_canonical(work_) / "Jos_Garc_a");

  EXPECT_EQ(student_name("alice.ZIP"), "alice");
  EXPECT_EQ(student_name("alice.tgz"), "alice");
  EXPECT_EQ(student_name("alice.v2"), "alice.v2");
  EXPECT_EQ(student_name(".."), "__");
  EXPECT_EQ(student_name("..zip"), "_");    // "." once the extension is gone
  EXPECT_EQ(student_name(".zip"), "_zip");  // not an extension alone: a hidden name, made visible
  EXPECT_EQ(student_name("...x.tgz"), "___x");
  EXPECT_EQ(student_name("\xc3\xa9.zip"), "_");
  EXPECT_EQ(student_name(".tgz.zip"), "_tgz");
  EXPECT_EQ(student_name(""), "unnamed");
  EXPECT_EQ(student_name("a/../b"), "a_.._b");
}

TEST_F(SubmissionTest, SameStudentTwiceIsGradedOnceWithANote) {
  write_text(dir_ / "alice/03_matmul/kernel.cu", kMatmul);
  write_archive(dir_ / "alice.zip", {{"01_increment/kernel.cu", kIncrement}});
  const auto subs = read();
  ASSERT_EQ(subs.size(), 1u);
  EXPECT_EQ(subs[0].root, fs::weakly_canonical(dir_ / "alice")) << "name order: the folder comes first";
  EXPECT_EQ(subs[0].kernels.size(), 1u);
  EXPECT_NE(notes_of(subs[0]).find("'alice.zip' was also found for this student and not graded (only 'alice' was)"),
            std::string::npos)
      << notes_of(subs[0]);
  ASSERT_EQ(skipped_.size(), 1u);
  EXPECT_EQ(skipped_[0], "alice.zip: maps to student 'alice', already graded from 'alice'");
  EXPECT_FALSE(fs::exists(work_ / "alice")) << "the second entry is not even unpacked";
}

TEST_F(SubmissionTest, LinksInsideAFolderAreNeverFollowed) {
  write_text(base_ / "secret/solution.cu", "the reference solution");
  write_text(dir_ / "mallory/01_increment/kernel.cu", kIncrement);
  fs::create_directories(dir_ / "mallory/03_matmul");
  fs::create_symlink(base_ / "secret/solution.cu", dir_ / "mallory/03_matmul/kernel.cu");
  fs::create_directory_symlink(base_ / "secret", dir_ / "mallory/04_normalize");
  write_text(base_ / "secret/04_normalize/kernel.cu", "through a linked folder");
  const auto subs = read();
  const auto& m = find(subs, "mallory");
  EXPECT_EQ(m.kernels.size(), 1u) << notes_of(m);
  EXPECT_FALSE(m.kernels.contains("03_matmul"));
  EXPECT_FALSE(m.kernels.contains("04_normalize"));
  EXPECT_NE(notes_of(m).find("ignored '03_matmul/kernel.cu': a symbolic link (links are not followed)"),
            std::string::npos)
      << notes_of(m);
}

TEST_F(SubmissionTest, ContentHashFollowsTheKernelsOnly) {
  write_text(dir_ / "dan/03_matmul/kernel.cu", kMatmul);
  write_text(dir_ / "dan/notes.md", "v1");
  const std::string first = read()[0].content_hash;
  EXPECT_EQ(read()[0].content_hash, first) << "the same files give the same hash";
  write_text(dir_ / "dan/notes.md", "v2");
  EXPECT_EQ(read()[0].content_hash, first) << "a file that is not graded does not count";
  write_text(dir_ / "dan/03_matmul/kernel.cu", kMatmul + "// changed\n");
  EXPECT_NE(read()[0].content_hash, first);
  write_text(dir_ / "dan/03_matmul/kernel.cu", kMatmul);
  fs::rename(dir_ / "dan/03_matmul", dir_ / "dan/matmul");
  EXPECT_NE(read()[0].content_hash, first) << "the path is part of it";
}

TEST_F(SubmissionTest, SubmittedAtIsTheNewestFileOrTheArchiveTime) {
  write_text(dir_ / "erin/03_matmul/kernel.cu", kMatmul);
  write_text(dir_ / "erin/01_increment/kernel.cu", kIncrement);
  using namespace std::chrono;
  const auto at = [](sys_seconds t) { return file_clock::from_sys(t); };
  const sys_seconds older = sys_days{2026y / 12 / 1} + 9h;
  const sys_seconds newer = sys_days{2026y / 12 / 11} + 23h + 59min + 30s;
  fs::last_write_time(dir_ / "erin/03_matmul/kernel.cu", at(older));
  fs::last_write_time(dir_ / "erin/01_increment/kernel.cu", at(newer));
  write_archive(dir_ / "fred.zip", {{"03_matmul/kernel.cu", kMatmul}});
  fs::last_write_time(dir_ / "fred.zip", at(older));
  const auto subs = read();
  EXPECT_EQ(find(subs, "erin").submitted_at, "2026-12-11T23:59:30Z");
  EXPECT_EQ(find(subs, "fred").submitted_at, "2026-12-01T09:00:00Z");
}

TEST_F(SubmissionTest, NoKernelAtAllIsSaid) {
  write_text(dir_ / "gina/README.md", "forgot everything");
  const auto subs = read();
  ASSERT_EQ(subs.size(), 1u);
  EXPECT_TRUE(subs[0].kernels.empty());
  ASSERT_EQ(subs[0].notes.size(), 1u);
  EXPECT_EQ(subs[0].notes[0].rfind("no kernel found: expected NN_name/kernel.cu", 0), 0u) << subs[0].notes[0];
}

TEST_F(ArchiveTest, ZipAndTarGzAreUnpackedAndSearched) {
  write_archive(dir_ / "alice.zip", {{"alice-main/", "", Entry::dir},
                                     {"alice-main/exercises/03_matmul/kernel.cu", kMatmul},
                                     {"alice-main/exercises/01_increment/kernel.cu", kIncrement},
                                     {"alice-main/.git/config", "ignored"},
                                     {"__MACOSX/alice-main/exercises/03_matmul/._kernel.cu", "ignored"}});
  write_archive(dir_ / "bob.tgz", {{"./matmul.cu", kMatmul}, {"reduce/kernel.cu", "reduce"}});
  write_archive(dir_ / "win.zip", {{"exercises\\03_matmul\\kernel.cu", kMatmul}});
  const auto subs = read();
  ASSERT_EQ(subs.size(), 3u);
  const auto& alice = find(subs, "alice");
  EXPECT_EQ(alice.root, fs::weakly_canonical(work_) / "alice");
  EXPECT_EQ(alice.kernels.at("03_matmul"), alice.root / "alice-main/exercises/03_matmul/kernel.cu");
  EXPECT_EQ(read_text(alice.kernels.at("03_matmul")), kMatmul);
  EXPECT_TRUE(alice.notes.empty()) << notes_of(alice);
  EXPECT_EQ(files_under(alice.root), (std::vector<std::string>{"alice-main/exercises/01_increment/kernel.cu",
                                                               "alice-main/exercises/03_matmul/kernel.cu"}));
  const auto& bob = find(subs, "bob");
  EXPECT_EQ(read_text(bob.kernels.at("03_matmul")), kMatmul);
  EXPECT_EQ(bob.kernels.at("05_reduce"), bob.root / "reduce/kernel.cu");
  EXPECT_EQ(find(subs, "win").kernels.at("03_matmul"), find(subs, "win").root / "exercises/03_matmul/kernel.cu");
  // Unpacked files are data, never programs.
  EXPECT_EQ(fs::status(alice.kernels.at("03_matmul")).permissions() & fs::perms::owner_exec, fs::perms::none);
}

TEST_F(ArchiveTest, HostileEntriesAreRefusedOneNoteEachAndTheRestIsUnpacked) {
  const std::string big(2 << 20, 'x');
  write_archive(dir_ / "mallory.tar.gz", {{"../../escaped.txt", "out"},
                                          {"03_matmul/../../../escaped2.txt", "out"},
                                          {"/tmp/cudalab-absolute-escape.txt", "out"},
                                          {"link", "", Entry::symlink, "/etc/passwd"},
                                          {"03_matmul/kernel.cu", "", Entry::symlink, "../../../secret/solution.cu"},
                                          {"hard", "", Entry::hardlink, "/etc/passwd"},
                                          {"null", "", Entry::chardev},
                                          {"pipe", "", Entry::fifo},
                                          {"big.bin", big},
                                          {"exercises/01_increment/kernel.cu", kIncrement},
                                          {"exercises/03_matmul/kernel.cu", kMatmul}});
  write_text(dir_ / "zed/03_matmul/kernel.cu", kMatmul);
  SubmissionLimits limits;
  limits.max_file_bytes = 1 << 20;
  const auto subs = read(limits);
  ASSERT_EQ(subs.size(), 2u);
  const auto& m = find(subs, "mallory");
  EXPECT_EQ(m.notes, (std::vector<std::string>{
                         "refused entry '../../escaped.txt': a path outside the submission",
                         "refused entry '03_matmul/../../../escaped2.txt': a path outside the submission",
                         "refused entry '/tmp/cudalab-absolute-escape.txt': an absolute path",
                         "refused entry 'link': a symbolic link",
                         "refused entry '03_matmul/kernel.cu': a symbolic link",
                         "refused entry 'hard': a hard link",
                         "refused entry 'null': a device file or other special file",
                         "refused entry 'pipe': a device file or other special file",
                         "refused entry 'big.bin': larger than 1 MiB (the limit per file)",
                     }));
  EXPECT_EQ(m.kernels.size(), 2u);
  EXPECT_EQ(read_text(m.kernels.at("03_matmul")), kMatmul) << "the good entries after the bad ones are unpacked";
  EXPECT_EQ(files_under(m.root),
            (std::vector<std::string>{"exercises/01_increment/kernel.cu", "exercises/03_matmul/kernel.cu"}));
  EXPECT_EQ(files_under(work_), (std::vector<std::string>{"mallory/exercises/01_increment/kernel.cu",
                                                          "mallory/exercises/03_matmul/kernel.cu"}));
  EXPECT_FALSE(fs::exists(base_ / "escaped.txt"));
  EXPECT_FALSE(fs::exists(dir_ / "escaped.txt"));
  EXPECT_FALSE(fs::exists(base_ / "escaped2.txt"));
  EXPECT_FALSE(fs::exists("/tmp/cudalab-absolute-escape.txt"));
  EXPECT_EQ(find(subs, "zed").kernels.size(), 1u) << "a later student is still read";
}

TEST_F(ArchiveTest, ZipTraversalAndLinksAreRefusedToo) {
  write_archive(dir_ / "mallory.zip", {{"../escaped.txt", "out"},
                                       {"a/../../escaped.txt", "out"},
                                       {"03_matmul/kernel.cu", "", Entry::symlink, "/etc/passwd"},
                                       {"01_increment/kernel.cu", kIncrement}});
  const auto subs = read();
  const auto& m = find(subs, "mallory");
  EXPECT_EQ(m.notes, (std::vector<std::string>{"refused entry '../escaped.txt': a path outside the submission",
                                               "refused entry 'a/../../escaped.txt': a path outside the submission",
                                               "refused entry '03_matmul/kernel.cu': a symbolic link"}));
  EXPECT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(files_under(work_), (std::vector<std::string>{"mallory/01_increment/kernel.cu"}));
  EXPECT_FALSE(fs::exists(base_ / "escaped.txt"));
  EXPECT_FALSE(fs::exists(dir_ / "escaped.txt"));
}

TEST_F(ArchiveTest, FileCountAndTotalSizeLimitsCountWhatIsWritten) {
  std::vector<Entry> many;
  for (int i = 0; i < 8; ++i) many.push_back({"f" + std::to_string(i) + ".txt", "x"});
  many.push_back({"03_matmul/kernel.cu", kMatmul});  // the 9th file: refused too
  write_archive(dir_ / "many.tgz", many);
  std::vector<Entry> heavy;
  for (int i = 0; i < 5; ++i) heavy.push_back({"part" + std::to_string(i) + ".bin", std::string(400, 'y')});
  write_archive(dir_ / "heavy.zip", heavy);
  SubmissionLimits limits;
  limits.max_files = 5;
  limits.max_total_bytes = 1000;
  const auto subs = read(limits);
  const auto& many_sub = find(subs, "many");
  EXPECT_EQ(files_under(many_sub.root).size(), 5u);
  EXPECT_EQ(std::ranges::count_if(many_sub.notes,
                                  [](const std::string& n) {
                                    return n.find("more than 5 files in the submission") != std::string::npos;
                                  }),
            4)
      << notes_of(many_sub);
  EXPECT_NE(notes_of(many_sub).find("refused entry '03_matmul/kernel.cu': more than 5 files"), std::string::npos);
  const auto& heavy_sub = find(subs, "heavy");
  EXPECT_EQ(files_under(heavy_sub.root), (std::vector<std::string>{"part0.bin", "part1.bin"}));
  EXPECT_NE(notes_of(heavy_sub).find("stopped unpacking at 'part2.bin': the submission holds more than 1000 bytes"),
            std::string::npos)
      << notes_of(heavy_sub);
}

/// Rewrites the uncompressed size that a small zip's local header and central directory give for
/// `name` to `claimed`: the archive now lies about how much that entry holds.
void claim_uncompressed_size(const fs::path& zip, const std::string& name, std::uint32_t claimed) {
  std::string bytes = read_text(zip);
  auto u16 = [&](std::size_t at) {
    std::uint16_t v = 0;
    std::memcpy(&v, bytes.data() + at, 2);
    return std::size_t{v};
  };
  auto u32 = [&](std::size_t at) {
    std::uint32_t v = 0;
    std::memcpy(&v, bytes.data() + at, 4);
    return v;
  };
  auto set32 = [&](std::size_t at, std::uint32_t v) { std::memcpy(bytes.data() + at, &v, 4); };
  int patched = 0;
  for (std::size_t i = 0; i + 46 < bytes.size(); ++i) {
    const std::uint32_t sig = u32(i);
    if (sig == 0x04034b50 && bytes.compare(i + 30, u16(i + 26), name) == 0) {  // local file header
      set32(i + 22, claimed);
      ++patched;
    } else if (sig == 0x02014b50 && bytes.compare(i + 46, u16(i + 28), name) == 0) {  // central directory
      set32(i + 24, claimed);
      ++patched;
    }
  }
  ASSERT_EQ(patched, 2);
  std::ofstream(zip, std::ios::binary | std::ios::trunc) << bytes;
}

TEST_F(ArchiveTest, ZipThatClaimsTenBytesButHoldsMegabytesIsCutAtTheLimit) {
  const std::string zeros(8 << 20, '\0');  // deflates to a few KiB
  write_archive(dir_ / "bomb.zip", {{"bomb.bin", zeros}, {"03_matmul/kernel.cu", kMatmul}});
  claim_uncompressed_size(dir_ / "bomb.zip", "bomb.bin", 10);
  ASSERT_LT(fs::file_size(dir_ / "bomb.zip"), 100u << 10);
  SubmissionLimits limits;
  limits.max_file_bytes = 1 << 20;
  const auto subs = read(limits);
  const auto& bomb = find(subs, "bomb");
  // libarchive either hands out more than the claim (cut at the limit) or calls the entry damaged;
  // never a file past the limit.
  std::uintmax_t total = 0;
  for (const auto& f : files_under(work_)) total += fs::file_size(work_ / f);
  EXPECT_LE(total, limits.max_file_bytes + kMatmul.size() * 2);
  EXPECT_FALSE(fs::exists(bomb.root / "bomb.bin")) << notes_of(bomb);
  ASSERT_EQ(bomb.notes.size(), 1u) << notes_of(bomb);
  EXPECT_EQ(bomb.notes[0].rfind("refused entry 'bomb.bin': ", 0), 0u) << notes_of(bomb);
  EXPECT_EQ(read_text(bomb.kernels.at("03_matmul")), kMatmul) << "the entry after the bomb is unpacked";
}

TEST_F(ArchiveTest, CorruptArchivesAreNotesAndTheClassGoesOn) {
  std::mt19937 random(42);
  std::string garbage(4096, '\0');
  for (char& c : garbage) c = static_cast<char>(random());
  write_text(dir_ / "garbage.zip", garbage);
  write_text(dir_ / "empty.tar.gz", "");
  // A tar.gz cut in the middle of its second file (random bytes: the cut lands in its data).
  std::string noise(200000, '\0');
  for (char& c : noise) c = static_cast<char>(random());
  write_archive(dir_ / "truncated.tar.gz", {{"01_increment/kernel.cu", kIncrement}, {"03_matmul/kernel.cu", noise}});
  const std::string whole = read_text(dir_ / "truncated.tar.gz");
  write_text(dir_ / "truncated.tar.gz", whole.substr(0, whole.size() / 2));
  write_text(dir_ / "zoe/03_matmul/kernel.cu", kMatmul);
  std::vector<Submission> subs;
  ASSERT_NO_THROW(subs = read());
  ASSERT_EQ(subs.size(), 4u);
  for (const char* broken : {"garbage", "empty"}) {
    const auto& s = find(subs, broken);
    EXPECT_TRUE(s.kernels.empty()) << broken;
    ASSERT_EQ(s.notes.size(), 1u) << notes_of(s);
    EXPECT_NE(s.notes[0].find("could not be read as an archive"), std::string::npos) << s.notes[0];
    EXPECT_NE(s.notes[0].find("nothing was graded"), std::string::npos) << s.notes[0];
  }
  const auto& truncated = find(subs, "truncated");
  EXPECT_EQ(truncated.kernels.size(), 1u) << notes_of(truncated);
  EXPECT_TRUE(truncated.kernels.contains("01_increment"));
  EXPECT_FALSE(fs::exists(truncated.root / "03_matmul/kernel.cu")) << "a file cut short is not kept";
  EXPECT_FALSE(truncated.notes.empty());
  EXPECT_EQ(find(subs, "zoe").kernels.size(), 1u);
}

TEST_F(ArchiveTest, ManyRefusalsAreSummarizedAndDuplicatesRefused) {
  std::vector<Entry> links;
  for (int i = 0; i < 50; ++i) links.push_back({"l" + std::to_string(i), "", Entry::symlink, "/"});
  links.push_back({"03_matmul/kernel.cu", kMatmul});
  links.push_back({"03_matmul/kernel.cu", "// a second copy: the first one stays"});
  write_archive(dir_ / "links.tgz", links);
  const auto subs = read();
  const auto& s = find(subs, "links");
  ASSERT_EQ(s.notes.size(), 21u) << notes_of(s);
  EXPECT_EQ(s.notes[19], "refused entry 'l19': a symbolic link");
  EXPECT_EQ(s.notes[20], "... and 31 more entries refused");
  EXPECT_EQ(read_text(s.kernels.at("03_matmul")), kMatmul);
}

TEST_F(ArchiveTest, RegradingUnpacksAfreshAndTheWorkFolderIsNotAStudent) {
  work_ = dir_ / "unpacked";
  write_archive(dir_ / "amy.zip", {{"03_matmul/kernel.cu", kMatmul}});
  (void)read();
  write_text(work_ / "amy/stale/01_increment/kernel.cu", "left from an earlier run");
  const auto subs = read();
  ASSERT_EQ(subs.size(), 1u);
  EXPECT_EQ(subs[0].kernels.size(), 1u) << notes_of(subs[0]);
  EXPECT_FALSE(fs::exists(work_ / "amy/stale"));
  EXPECT_EQ(skipped_,
            (std::vector<std::string>{"unpacked: the work folder the archives are unpacked into, not a student"}));
  EXPECT_THROW((void)read_submissions(dir_, dir_, kExercises), UsageError);
}

}  // namespace
}  // namespace cudalab::grading
