#!/usr/bin/env python3
"""Acceptance runs for `cudalab bench` on a GPU: are the numbers repeatable, do they agree with
Nsight Compute, and where do the reference solutions stand against the libraries?

  repeat   RUNS=5: `cudalab bench --all --solution --json` RUNS times in a row (SELECT="1 2" for
           some exercises only); for each exercise the spread of the medians, (max - min) / min,
           must stay under 2 %.
  ncu      for each exercise, cudalab's median per call (the kernels alone for host-pointer
           exercises) against the median per call of ncu's gpu__time_duration.sum, summed over the
           kernels one call launches (--clock-control none: both at the clocks the GPU chooses).
  table    the full table for docs/performance.md (CPU baselines, reference), Markdown and JSON,
           with 03_matmul also at 1024 and 4096
  ladder   `cudalab bench NAME --ladder` for 03_matmul (2048 and 4096) and 05_reduce
  anchors  the library anchors (build/device/bin/cudalab-bench-gpu), JSON

Run it through `scripts/device.sh run python3 scripts/gpu_acceptance.py [MODE...|all]`; every
output is also written to $OUT.
"""
import csv
import io
import json
import os
import statistics
import subprocess
import sys

CLI = "./build/device/bin/cudalab"
ANCHORS = "./build/device/bin/cudalab-bench-gpu"
FLUSH_KERNEL = "cudalab_l2_flush"  # the runner's own L2 flush between samples: not the solution's
OUT = os.environ.get("OUT", "/tmp")
EXERCISES = ["01_increment", "02_vector_add", "03_matmul", "04_normalize", "05_reduce"]


def bench_json(args):
    cmd = [CLI, "bench", *args, "--solution", "--json", "--no-cpu", "--no-reference", "--time-cap", "4"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def per_call(m):
    """Seconds per call as cudalab reports it: kernels only where the median is end to end."""
    return m["kernel_median_s"] if m.get("kernel_median_s") else m["time"]["median_s"]


def repeat(runs):
    medians = {}
    for i in range(runs):
        doc = bench_json(os.environ.get("SELECT", "--all").split())
        with open(os.path.join(OUT, f"repeat{i}.json"), "w") as f:
            json.dump(doc, f)
        for m in doc["measurements"]:
            medians.setdefault(m["exercise"], []).append(m["time"]["median_s"])
    print(f"\n{'exercise':16} {'medians (ms)':60} spread")
    worst = 0.0
    for ex, values in medians.items():
        spread = (max(values) - min(values)) / min(values)
        worst = max(worst, spread)
        print(f"{ex:16} {' '.join(f'{v * 1e3:9.4f}' for v in values):60} {spread * 100:5.2f} %")
    print(f"largest spread {worst * 100:.2f} % (target < 2 %)")
    return worst < 0.02


def ncu_compare():
    ok = True
    print(f"\n{'exercise':16} {'cudalab (µs)':>14} {'ncu (µs)':>12} {'kernels/call':>13} {'difference':>11}")
    for ex in EXERCISES:
        ours = per_call(bench_json([ex])["measurements"][0])
        cmd = ["ncu", "--target-processes", "all", "--clock-control", "none", "--cache-control", "all",
               "--metrics", "gpu__time_duration.sum", "--csv", "--launch-skip", "24", "--launch-count", "96",
               CLI, "bench", ex, "--solution", "--no-cpu", "--no-reference", "--time-cap", "3"]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        with open(os.path.join(OUT, f"ncu_{ex}.csv"), "w") as f:
            f.write(done.stdout)
        rows = [r for r in csv.DictReader(io.StringIO(done.stdout[done.stdout.find('"ID"'):]))
                if r.get("Metric Name") == "gpu__time_duration.sum" and FLUSH_KERNEL not in r["Kernel Name"]]
        if not rows:
            print(f"{ex:16} ncu gave no rows: {done.stderr[-500:]}")
            ok = False
            continue
        scale = {"nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3,
                 "second": 1.0, "s": 1.0}
        names = []
        for r in rows:
            if r["Kernel Name"] not in names:
                names.append(r["Kernel Name"])
        k = len(names)  # kernels one call launches, in launch order
        start = next(i for i, r in enumerate(rows) if r["Kernel Name"] == names[0])
        calls = []
        for i in range(start, len(rows) - k + 1, k):
            group = rows[i:i + k]
            calls.append(sum(float(r["Metric Value"].replace(",", "")) * scale[r["Metric Unit"]] for r in group))
        theirs = statistics.median(calls)
        diff = (ours - theirs) / theirs
        ok = ok and abs(diff) <= 0.05
        print(f"{ex:16} {ours * 1e6:14.2f} {theirs * 1e6:12.2f} {k:13d} {diff * 100:10.2f} %")
    print("target: within 5 %")
    return ok


def save(name, cmd):
    """Runs cmd, prints and saves its standard output (progress lines go to stderr)."""
    print(f"\n$ {' '.join(cmd)}", flush=True)
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    with open(os.path.join(OUT, name), "w") as f:
        f.write(done.stdout)
    print(done.stdout if done.returncode == 0 else done.stdout + done.stderr[-3000:], flush=True)
    return done.returncode == 0


def table():
    ok = save("table.md", [CLI, "bench", "--all", "--solution", "--markdown", "--time-cap", "5"])
    return save("matmul_sizes.md", [CLI, "bench", "03_matmul", "--solution", "--size", "1024", "--size", "4096",
                                    "--markdown", "--time-cap", "5"]) and ok


def ladder():
    ok = save("ladder_matmul.md", [CLI, "bench", "03_matmul", "--ladder", "--size", "2048", "--size", "4096",
                                   "--no-cpu", "--markdown", "--time-cap", "3"])
    return save("ladder_reduce.md", [CLI, "bench", "05_reduce", "--ladder", "--no-cpu", "--markdown",
                                     "--time-cap", "3"]) and ok


def anchors():
    return save("anchors.json", [ANCHORS, "--benchmark_format=json", "--benchmark_min_time=0.5"])


if __name__ == "__main__":
    modes = sys.argv[1:] or ["all"]
    if modes == ["all"]:
        modes = ["repeat", "ncu", "table", "ladder", "anchors"]
    good = True
    for mode in modes:
        if mode == "repeat":
            good = repeat(int(os.environ.get("RUNS", "5"))) and good
        elif mode == "ncu":
            good = ncu_compare() and good
        elif mode in ("table", "ladder", "anchors"):
            good = globals()[mode]() and good
        else:
            sys.exit(f"unknown mode {mode}: repeat, ncu, table, ladder, anchors or all")
    sys.exit(0 if good else 1)
