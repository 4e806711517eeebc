// cudalab CPU simulator: CUDA header name kept for source compatibility.
#pragma once
#include "cuda_runtime.h"
