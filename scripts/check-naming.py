#!/usr/bin/env python3
"""The naming rule of .clang-tidy (every constexpr variable is kCamelCase), run as a test.

Usage: check-naming.py BUILD_DIR SOURCE_DIR [JOBS]

The rule concerns constexpr variables only, so only the files that can hold one are parsed: every
project file whose text says `constexpr`, and, for each project header that says it, one file that
includes it (from the build's own dependency record, `ninja -t deps`). That is about a third of the
files for the same verdict; clang-tidy parses each in seconds. Without the dependency record (not a
Ninja build, or not built yet) every file is checked.

The build's compile commands force-include GCC's precompiled header of the test programs, which
clang cannot read: that option is left out, and each file is parsed from its own includes.
"""
import functools
import json
import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

PROJECT_DIRS = ("harness", "exercises", "grading", "tests", "bench")


@functools.cache
def says_constexpr(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "constexpr" in f.read()
    except OSError:
        return False


def ninja_deps(build):
    """Object file -> the files it was compiled from, or None without a Ninja dependency record."""
    try:
        out = subprocess.run(["ninja", "-C", build, "-t", "deps"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    deps, current = {}, None
    for line in out.splitlines():
        if line and not line.startswith(" "):
            current = line.split(":", 1)[0]
            deps[current] = []
        elif line.strip() and current is not None:
            p = line.strip()
            deps[current].append(os.path.normpath(p if os.path.isabs(p) else os.path.join(build, p)))
    return deps or None


def compile_flags(entry, path):
    """The compiler's flags of one compile command, without the compiler, the source, the object
    file and the precompiled header."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    flags, i = [], 1
    while i < len(args):
        a = args[i]
        if a in ("-o", "-include"):
            i += 2  # the object file; the precompiled header (GCC's, which clang cannot read)
            continue
        if a not in ("-c", "-Winvalid-pch", entry["file"], path):
            flags.append(a)
        i += 1
    return flags


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: check-naming.py BUILD_DIR SOURCE_DIR [JOBS]")
    build, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    jobs = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    in_project = re.compile("^" + re.escape(source) + "/(" + "|".join(PROJECT_DIRS) + ")/")
    try:
        with open(os.path.join(build, "compile_commands.json")) as f:
            database = json.load(f)
    except OSError as e:
        sys.exit(f"check-naming: cannot read the compile commands of {build}: {e.strerror}")

    units = {}  # one compile command per file
    for entry in database:
        path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
        if in_project.match(path) and path not in units:
            units[path] = entry

    deps = ninja_deps(build)
    if deps is None:
        chosen = set(units)
        print(f"check-naming: no Ninja dependency record in {build}: checking all {len(units)} files")
    else:
        chosen = {p for p in units if says_constexpr(p)}
        includers = {}  # project header that says constexpr -> files that include it
        for path, entry in units.items():
            obj = entry.get("output") or re.search(r"\s-o\s+(\S+)", entry.get("command", "")).group(1)
            for dep in deps.get(obj, []):
                if in_project.match(dep) and dep != path and says_constexpr(dep):
                    includers.setdefault(dep, []).append(path)
        for header, files in sorted(includers.items()):
            if not any(f in chosen for f in files):
                chosen.add(sorted(files)[0])
        print(f"check-naming: {len(chosen)} of {len(units)} files say constexpr or include a header that does")

    def check(path):
        entry = units[path]
        # The header filter is .clang-tidy's own (HeaderFilterRegex).
        command = [os.environ.get("CLANG_TIDY", "clang-tidy"), "-quiet", "-checks=-*,readability-identifier-naming",
                   path, "--"] + compile_flags(entry, path)
        r = subprocess.run(command, cwd=entry["directory"], capture_output=True, text=True)
        return path, r.returncode, (r.stdout + r.stderr).strip()

    failed = 0
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for path, rc, output in pool.map(check, sorted(chosen)):
            if rc != 0:
                failed += 1
                print(f"--- {os.path.relpath(path, source)}\n{output}")
    if failed:
        sys.exit(f"check-naming: {failed} file(s) break the naming rule or do not parse (above)")
    print("check-naming: no violation")


if __name__ == "__main__":
    main()
