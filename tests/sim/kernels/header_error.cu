// Deliberately broken: the compiler's error is in an included header, after a launch the
// translator rewrote there, and must name the header's own file and line.
#include <cuda_runtime.h>

#include "header_launch/broken.cuh"

extern "C" void run() { broken(); }
