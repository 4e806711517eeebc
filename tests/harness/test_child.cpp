// Misbehaves on request, so that the process tests can watch the parent survive it.
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

extern char** environ;

namespace {

// Whole or not at all: the test polls for the file while it is being written.
void write_pids(const char* path, const std::string& pids) {
  const std::string partial = std::string(path) + ".partial";
  FILE* f = std::fopen(partial.c_str(), "w");
  if (f == nullptr) std::_Exit(90);
  std::fputs(pids.c_str(), f);
  std::fclose(f);
  std::rename(partial.c_str(), path);
}

[[noreturn]] void spin() {
  volatile unsigned long n = 0;
  for (;;) n = n + 1;
}

[[noreturn]] void sleep_forever() {
  for (;;) pause();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const char* pid_file = argc > 2 ? argv[2] : "/dev/null";
  if (mode == "crash") std::raise(SIGSEGV);
  if (mode == "abort") std::abort();
  if (mode == "hang") {
    for (;;) pause();
  }
  if (mode == "flood") {
    for (;;) std::fputs("spam spam spam spam spam spam spam spam spam spam spam spam spam spam\n", stdout);
  }
  if (mode == "exit3") return 3;
  if (mode == "gate" || mode == "gate-then-hang") {  // one byte out on fd 6, one back, then on
    char byte = 'r';
    if (write(6, &byte, 1) != 1 || read(6, &byte, 1) != 1) return 4;
    std::printf("let on with %c\n", byte);
    std::fflush(stdout);
    while (mode == "gate-then-hang") pause();
    return 0;
  }
  if (mode == "gate-rounds") {  // at the gate until told 'f', a round number sent along from the second visit
    for (int round = 0;; ++round) {
      char byte = 'r';
      if (write(6, &byte, 1) != 1) return 4;
      if (round > 0 && write(6, &round, sizeof round) != sizeof round) return 4;
      if (read(6, &byte, 1) != 1) return 4;
      std::printf("%c", byte);
      if (byte == 'f') break;
    }
    std::printf("\n");
    return 0;
  }
  if (mode == "result") {  // writes its second argument to fd 4
    const char* text = argc > 2 ? argv[2] : "";
    (void)!write(4, text, std::strlen(text));
    std::puts("hello from the child");
    return 0;
  }
  if (mode == "close-and-spin") {  // leaves the parent no pipe to wait on
    close(1);
    close(2);
    close(4);
    spin();
  }
  if (mode == "spin") {  // writes its pid to the file argv[2]
    write_pids(pid_file, std::to_string(getpid()));
    spin();
  }
  if (mode == "grandchild") {  // leaves a sleeping grandchild (holding stdout) and exits; its pid in argv[2]
    const pid_t grandchild = fork();
    if (grandchild == 0) sleep_forever();
    write_pids(pid_file, std::to_string(grandchild));
    return 0;
  }
  if (mode == "spin-family") {  // spins beside a sleeping grandchild; "child grandchild" pids in argv[2]
    const pid_t grandchild = fork();
    if (grandchild == 0) sleep_forever();
    write_pids(pid_file, std::to_string(getpid()) + " " + std::to_string(grandchild));
    spin();
  }
  if (mode == "result-flood") {  // 2 MiB on fd 4
    const std::vector<char> chunk(64 << 10, 'r');
    for (int i = 0; i < 32; ++i) {
      if (write(4, chunk.data(), chunk.size()) < 0) return 5;
    }
    return 0;
  }
  if (mode == "pipe-burst") {  // 512 KiB on stdout at once, through a pipe enlarged to hold them, then exits
    if (fcntl(1, F_SETPIPE_SZ, 1 << 20) < (1 << 20)) return 6;
    const std::vector<char> burst(512 << 10, 'o');
    if (write(1, burst.data(), burst.size()) != static_cast<ssize_t>(burst.size())) return 7;
    return 0;
  }
  if (mode == "nap") {  // 200 ms, then a word
    usleep(200'000);
    std::puts("rested");
    return 0;
  }
  if (mode == "env") {  // its environment, one variable a line
    for (char** e = environ; *e != nullptr; ++e) std::puts(*e);
    return 0;
  }
  if (mode == "cwd") {  // its working directory
    char dir[4096];
    std::puts(getcwd(dir, sizeof dir) != nullptr ? dir : "?");
    return 0;
  }
  if (mode == "limits") {  // "cpu S H" … for the limits run_process may set
    const std::pair<const char*, int> limits[] = {{"cpu", RLIMIT_CPU},       {"as", RLIMIT_AS},
                                                  {"data", RLIMIT_DATA},     {"fsize", RLIMIT_FSIZE},
                                                  {"nofile", RLIMIT_NOFILE}, {"nproc", RLIMIT_NPROC}};
    for (const auto& [name, resource] : limits) {
      rlimit l{};
      getrlimit(resource, &l);
      std::printf("%s %lld %lld\n", name, l.rlim_cur == RLIM_INFINITY ? -1LL : static_cast<long long>(l.rlim_cur),
                  l.rlim_max == RLIM_INFINITY ? -1LL : static_cast<long long>(l.rlim_max));
    }
    return 0;
  }
  if (mode == "fds") {  // the numbers of its open fds, one a line
    std::vector<int> fds;
    if (DIR* dir = opendir("/proc/self/fd")) {
      const int own = dirfd(dir);
      while (const dirent* e = readdir(dir)) {
        if (e->d_name[0] != '.' && std::atoi(e->d_name) != own) fds.push_back(std::atoi(e->d_name));
      }
      closedir(dir);
    }
    for (int fd : fds) std::printf("%d\n", fd);
    return 0;
  }
  if (mode == "big-file") {  // writes 2 MiB to ./big.bin in its working directory
    FILE* f = std::fopen("big.bin", "wb");
    if (f == nullptr) return 8;
    const std::vector<char> block(64 << 10, 'b');
    for (int i = 0; i < 32; ++i) {
      if (std::fwrite(block.data(), 1, block.size(), f) != block.size() || std::fflush(f) != 0) return 9;
    }
    std::fclose(f);
    return 0;
  }
  return 0;
}
