// Per-kernel records on the GPU through CUPTI's activity API: name, configuration, shared memory
// and duration of every kernel launched while tracing is on. The simulator has no CUPTI; its
// runtime fills the launch records itself, and these functions are no-ops there.
#pragma once

namespace cudalab::runner {

/// Whether launches are recorded at all (CUPTI could be unavailable); without them the parent
/// skips the launch-based requirement checks.
bool kernel_tracing_available();
/// Starts recording kernel activity (call right before `solve`).
void start_kernel_tracing();
/// Stops, waits for the records and appends them to run_records().launches; returns the summed
/// kernel time in seconds of the records appended.
double stop_kernel_tracing();

}  // namespace cudalab::runner
