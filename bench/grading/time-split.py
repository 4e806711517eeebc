#!/usr/bin/env python3
"""Where a grading's time went, per exercise, from the progress lines `cudalab grade` writes to
stderr when it is not a terminal ("graded 3/94: ada 02_vector_add: passed in 19.8 s (compiling 3.5,
checking 10.6 [run 0.6, checked build's compile 2.2, …], timing 5.8, the GPU held 1.4: …)"):

    bench/grading/time-split.py PROGRESS.txt [PROGRESS.txt ...]

For each file and exercise: the attempts, then the mean seconds of compiling, checking and each
of the check's parts, timing, the GPU held and each of the timing's phases (means over the attempts
that had the part). The parts of a check overlap (the checked build runs beside the plain one), so
they need not add up to the checking. Exits 1 when a file holds no progress line.
"""
import re
import sys
from collections import defaultdict

LINE = re.compile(
    r"^graded \d+/\d+: (?P<student>\S+) (?P<exercise>\S+): (?P<verdict>\S+) in [\d.]+ s "
    r"\(compiling (?P<compiling>[\d.]+), checking (?P<checking>[\d.]+)(?: \[(?P<check_parts>[^\]]*)\])?, "
    r"timing (?P<timing>[\d.]+)(?:, the GPU held (?P<held>[\d.]+))?(?:: (?P<timing_parts>.*))?\)$")
PART = re.compile(r"^(?P<name>.+) (?P<seconds>[\d.]+)$")


def parts(text):
    """{name: seconds} of "a 1.0, b, c 2.0": a name may hold commas ("tracing, witnesses,
    statistics"), and only the last of its pieces ends in the seconds."""
    out = {}
    pending = ""
    for item in (text or "").split(", "):
        m = PART.match(item.strip())
        if not m:
            pending += item.strip() + ", "
            continue
        name = pending + m["name"]
        pending = ""
        out[name] = out.get(name, 0.0) + float(m["seconds"])
    return out


def split(path):
    """{exercise: {column: [seconds, ...]}} and the attempts per exercise."""
    columns = defaultdict(lambda: defaultdict(list))
    attempts = defaultdict(int)
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if not m:
                continue
            e = m["exercise"]
            attempts[e] += 1
            columns[e]["compiling"].append(float(m["compiling"]))
            columns[e]["checking"].append(float(m["checking"]))
            for name, s in parts(m["check_parts"]).items():
                columns[e]["checking: " + name].append(s)
            if float(m["timing"]) > 0:
                columns[e]["timing"].append(float(m["timing"]))
            if m["held"]:
                columns[e]["timing: the GPU held"].append(float(m["held"]))
            for name, s in parts(m["timing_parts"]).items():
                columns[e]["timing: " + name].append(s)
    return columns, attempts


def main(paths):
    status = 0
    for path in paths:
        columns, attempts = split(path)
        if not attempts:
            print(f"{path}: no progress lines of `cudalab grade`", file=sys.stderr)
            status = 1
            continue
        print(f"{path}: {sum(attempts.values())} attempts")
        for e in sorted(attempts):
            print(f"  {e} ({attempts[e]} attempts), mean seconds (over the attempts that had the part):")
            for name, values in columns[e].items():
                print(f"    {name:<45} {sum(values) / len(values):7.2f}  ({len(values)})")
    return status


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
