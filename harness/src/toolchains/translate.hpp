// The simulator's source pre-pass: rewrites the two CUDA constructs the preprocessor cannot
// express, and nothing else, keeping every line where it was.
//
//   kernel<<<grid, block[, shmem[, stream]]>>>(args)
//     -> ::cudalab_sim::launch("kernel", "args", address, [&](auto&... a) { kernel(a...); },
//                              ::cudalab_sim::config(grid, block[, shmem[, stream]]), args)
//        ("args" is the argument list as written, for the runtime's messages)
//   extern __shared__ T name[];          (in a function)
//     -> T* const name = static_cast<T*>(::cudalab_sim::dynamic_shared());
//   extern __shared__ T name[];          (at namespace scope)
//     -> removed; later uses of `name` become the same pointer expression
//   __shared__ T a[N], b;                (in a function)
//     -> __shared__ T cudalab_sim_shared_a[N], cudalab_sim_shared_b;
//        CUDALAB_SIM_SHARED(a, cudalab_sim_shared_a); ... (declares `a` as a reference to its
//        storage: poisoned per block, sized for the launch records, and checked under --sanitize)
//   __shared__ T a[N];                   (at namespace scope)
//     -> unchanged, followed by CUDALAB_SIM_NAMESPACE_SHARED(a); (poisoned before every block)
//   __managed__ T m;                     (at namespace scope)
//     -> unchanged, followed by CUDALAB_SIM_MANAGED_VARIABLE(m); (kernels may take its address)
//
// The output starts with `#include <cudalab_sim/prelude.hpp>` and `#line 1 "<filename>"`, so the
// compiler's messages name the student's file and lines. Launches are found by a tokenizer that
// knows comments, string/char/raw-string literals, preprocessor lines and template brackets.
#pragma once

#include <string>
#include <string_view>

namespace cudalab::sim {

/// Result of translating one .cu file.
struct Translation {
  bool ok = false;
  std::string text;   ///< the translated source, when ok
  std::string error;  ///< "file:line:col: error: what", when not ok
};

/// Translates CUDA C++ `source`, read from `filename` (used in #line and messages).
Translation translate(std::string_view source, const std::string& filename);

}  // namespace cudalab::sim
