// Misbehaves on request, so that the process tests can watch the parent survive it.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "crash") std::raise(SIGSEGV);
  if (mode == "abort") std::abort();
  if (mode == "hang") {
    for (;;) pause();
  }
  if (mode == "flood") {
    for (;;) std::fputs("spam spam spam spam spam spam spam spam spam spam spam spam spam spam\n", stdout);
  }
  if (mode == "exit3") return 3;
  if (mode == "result") {  // writes its second argument to fd 4
    const char* text = argc > 2 ? argv[2] : "";
    (void)!write(4, text, std::strlen(text));
    std::puts("hello from the child");
    return 0;
  }
  return 0;
}
