// The parent ↔ runner protocol. The parent (trusted) generates inputs, poisons outputs and
// compares; the runner (untrusted: it loads student code) only moves buffers and calls `solve`.
//
//   runner --spec JSON        run one case; buffers live in a shared memory file on fd 3 and the
//                             result JSON is written to fd 4
//   runner --probe            print the visible devices as JSON on stdout
//
// Spec: {"module": path, "symbol": mangled solve, "pointers": "host"|"device",
//        "buffers": [{"name", "offset", "bytes", "role": "input"|"output"|"inout"}],
//        "args": [{"buffer": i} | {"int": v}], "total_bytes": n}
// Result: {"status": "ok"|"load_error"|"missing_symbol"|"exception"|"cuda_error"|"no_device",
//          "message", "cuda_error", "solve_ms", "records": {...}}
#pragma once

namespace cudalab::protocol {

inline constexpr int buffers_fd = 3;  ///< memfd holding every buffer, laid out by the parent
inline constexpr int result_fd = 4;   ///< pipe the runner writes its result JSON to

}  // namespace cudalab::protocol
