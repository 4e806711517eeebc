// cudalab CPU simulator: included first by every translated kernel.cu (the translator writes
// `#include <cudalab_sim/prelude.hpp>` then `#line 1 "kernel.cu"`), as nvcc implicitly includes
// cuda_runtime.h. Everything a .cu file may use without including anything.
#pragma once
#include "device.hpp"

// `#pragma unroll` is an nvcc hint; the host compiler would warn about it under -Wall.
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
