// 01_increment, as a student who wants the class's secret seed would write it: solve reads
// everything of its own process that the runner might have been handed — its command line, its
// environment, every open file descriptor, its auxiliary vector — prints every number it finds and
// throws with them, so that they reach the student's feedback and every report.
// (A fixture of tests/grading/test_grade.cpp: Grade.NoSeedReachesASubmissionsFeedback.)
#include <cuda_runtime.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <stdexcept>
#include <string>

__global__ void increment(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

// Up to `limit` bytes of a file (a pipe or socket would block: those are read non-blocking).
static std::string read_some(const std::string& path, std::size_t limit) {
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK);
  if (fd < 0) return {};
  std::string text(limit, '\0');
  const ssize_t n = pread(fd, text.data(), limit, 0);
  const ssize_t m = n >= 0 ? n : read(fd, text.data(), limit);
  close(fd);
  text.resize(m > 0 ? static_cast<std::size_t>(m) : 0);
  return text;
}

// Every run of digits (decimal and hexadecimal) of `text`, space-separated.
static std::string numbers_in(const std::string& text) {
  std::string out, run;
  for (const char c : text + " ") {
    if (std::isxdigit(static_cast<unsigned char>(c))) {
      run += c;
    } else {
      if (run.size() >= 6) out += run + " ";
      run.clear();
    }
  }
  return out;
}

void solve(int* data, int n) {
  increment<<<(n + 255) / 256, 256>>>(data, n);
  cudaDeviceSynchronize();
  std::string found = read_some("/proc/self/cmdline", 1 << 20) + " " + read_some("/proc/self/environ", 1 << 20) + " " +
                      read_some("/proc/self/auxv", 4096);
  if (DIR* fds = opendir("/proc/self/fd")) {
    while (const dirent* e = readdir(fds)) {
      const std::string link = std::string("/proc/self/fd/") + e->d_name;
      char target[512] = {};
      if (readlink(link.c_str(), target, sizeof target - 1) > 0) found += std::string(" ") + target + " ";
      found += read_some(link, 1 << 16);
    }
    closedir(fds);
  }
  const std::string numbers = numbers_in(found);
  std::printf("numbers: %s\n", numbers.c_str());
  throw std::runtime_error("numbers: " + numbers);
}
