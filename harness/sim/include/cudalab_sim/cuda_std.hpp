// cudalab CPU simulator: libcu++'s cuda::std, for the <cuda/std/...> headers. Every CUDA thread is
// host code here, so cuda::std names the host's own standard library: cuda::std::numeric_limits is
// std::numeric_limits, cuda::std::min is std::min.
#pragma once

namespace cuda::std {
using namespace ::std;
}  // namespace cuda::std
