#!/usr/bin/env python3
"""The naming rule of .clang-tidy (every constexpr variable is kCamelCase), run as a test.

Usage: check-naming.py BUILD_DIR SOURCE_DIR [JOBS]

The rule is read from .clang-tidy (ConstexprVariablePrefix and ConstexprVariableCase) and asked of
each file's syntax tree with clang-query, as one AST matcher: a constexpr variable declared in a
project file whose name is not the prefix and the case. clang-tidy's identifier-naming check says
the same but also follows every use of every failing name in the system headers, for fix-its: 60 %
more time a file for the same verdict.

The rule concerns constexpr variables only, so only the files that can hold one are parsed: every
project file whose text says `constexpr`, and, for each project header that says it, one file that
includes it (from the build's own dependency record, `ninja -t deps`). That is about a third of the
files for the same verdict; clang parses each in seconds. Without the dependency record (not a
Ninja build, or not built yet) every file is checked. In a unity build (the default preset) a file
parsed is the build's own unity file, a batch of one target's sources: each header once a batch.

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
# clang-tidy's own patterns for the cases of identifier-naming (IdentifierNamingCheck.cpp).
CASES = {"CamelCase": "[A-Z][a-zA-Z0-9]*", "camelBack": "[a-z][a-zA-Z0-9]*", "lower_case": "[a-z][a-z0-9_]*",
         "UPPER_CASE": "[A-Z][A-Z0-9_]*", "Camel_Snake_Case": "[A-Z][a-zA-Z0-9]*(_[A-Z][a-zA-Z0-9]*)*",
         "camel_Snake_Back": "[a-z][a-zA-Z0-9]*(_[A-Z][a-zA-Z0-9]*)*"}
# The name in clang's dump of a declaration: `VarDecl 0x… <range> col:15 used max_threads 'const int' …`.
DUMPED_NAME = re.compile(r"^\w*VarDecl\w* 0x[0-9a-f]+ <.*?> \S+(?: (?:used|referenced|invalid|implicit|"
                         r"(?:prev|parent) 0x[0-9a-f]+))* (\w+) '")
LOCATION = re.compile(r'^(\S+?:\d+:\d+): note: "v" binds here')


def naming_rule(source):
    """(prefix, case) of constexpr variables in SOURCE/.clang-tidy."""
    try:
        with open(os.path.join(source, ".clang-tidy"), encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        sys.exit(f"check-naming: cannot read {source}/.clang-tidy: {e.strerror}")

    def option(name, default):
        m = re.search(r"key:\s*readability-identifier-naming\." + name + r"\s*\n\s*value:\s*(\S*)", text)
        return m.group(1) if m else default

    case = option("ConstexprVariableCase", None)
    if case not in CASES:
        sys.exit(f"check-naming: {source}/.clang-tidy names no ConstexprVariableCase this check knows ({case})")
    return option("ConstexprVariablePrefix", ""), case


NOLINT = re.compile(r"//\s*NOLINT(NEXTLINE)?(?:\(([^)]*)\))?")


@functools.cache
def lines_of(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


def silenced(where):
    """Whether a `// NOLINT` on the line, or a `// NOLINTNEXTLINE` above it, covers the naming
    check, as clang-tidy would honour it (no list, or a list naming the check or a glob of it)."""
    path, line = where.rsplit(":", 2)[0], int(where.rsplit(":", 2)[1])
    text = lines_of(path)
    for number, next_line in ((line, False), (line - 1, True)):
        if 1 <= number <= len(text):
            m = NOLINT.search(text[number - 1])
            if m and bool(m.group(1)) == next_line:
                checks = [c.strip() for c in (m.group(2) or "*").split(",")]
                if any(re.fullmatch(c.replace("*", ".*"), "readability-identifier-naming") for c in checks):
                    return True
    return False


def violations(output):
    """(where, name) of each match in clang-query's output, each declaration once, less those a
    NOLINT comment silences."""
    found, where = [], None
    for line in output.splitlines():
        m = LOCATION.match(line)
        if m:
            where = m.group(1)
            continue
        m = DUMPED_NAME.match(line)
        if m and where is not None:
            if (where, m.group(1)) not in found and not silenced(where):
                found.append((where, m.group(1)))
            where = None
    return found


# A unity build's compile command (CMAKE_UNITY_BUILD) compiles a generated file that includes a batch
# of the target's sources; parsing it checks them all at once, as the build compiled them.
UNITY_FILE = re.compile(r"/Unity/unity_\d+_cxx\.cxx$")


@functools.cache
def sources_of(unit):
    """The files a compile command compiles: its own, or those a unity file includes."""
    if not UNITY_FILE.search(unit):
        return (unit,)
    return tuple(os.path.normpath(p) for p in re.findall(r'^#include "([^"]+)"', "\n".join(lines_of(unit)), re.M))


def says_constexpr(path):
    return any("constexpr" in line for line in lines_of(path))


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

    units = {}  # one compile command per file (a unity file stands for the sources it includes)
    for entry in database:
        path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
        if any(in_project.match(p) for p in sources_of(path)) and path not in units:
            units[path] = entry

    deps = ninja_deps(build)
    if deps is None:
        chosen = set(units)
        print(f"check-naming: no Ninja dependency record in {build}: checking all {len(units)} files")
    else:
        chosen = {p for p in units if any(says_constexpr(f) for f in sources_of(p))}
        includers = {}  # project header that says constexpr -> files that include it
        for path, entry in units.items():
            obj = entry.get("output") or re.search(r"\s-o\s+(\S+)", entry.get("command", "")).group(1)
            for dep in deps.get(obj, []):
                if in_project.match(dep) and dep not in sources_of(path) and says_constexpr(dep):
                    includers.setdefault(dep, []).append(path)
        for header, files in sorted(includers.items()):
            if not any(f in chosen for f in files):
                chosen.add(sorted(files)[0])
        print(f"check-naming: {len(chosen)} of {len(units)} compiled files say constexpr or include a header that does")

    prefix, case = naming_rule(source)
    matcher = (f'varDecl(isConstexpr(), isExpansionInFileMatching("/({"|".join(PROJECT_DIRS)})/"), '
               f'unless(matchesName("::{re.escape(prefix)}{CASES[case]}$"))).bind("v")')

    def name_of(unit):
        files = [os.path.relpath(f, source) for f in sources_of(unit)]
        return files[0] if len(files) == 1 else f"{os.path.relpath(unit, build)} ({', '.join(files)})"

    def check(path):
        entry = units[path]
        command = [os.environ.get("CLANG_QUERY", "clang-query"), "-c", "set bind-root false", "-c", "set output diag",
                   "-c", "enable output dump", "-c", f"match {matcher}", path, "--"] + compile_flags(entry, path)
        r = subprocess.run(command, cwd=entry["directory"], capture_output=True, text=True)
        # clang-query exits 0 on a file that does not parse: its errors are on stderr.
        errors = [l for l in r.stderr.splitlines() if " error: " in l or l.startswith("error: ")]
        found = violations(r.stdout)
        lines = [f"{where}: constexpr variable '{name}' is not {prefix}{case} (the naming rule of .clang-tidy)"
                 for where, name in found]
        if r.returncode != 0 or errors:
            lines += [f"{name_of(path)} does not parse:"] + (r.stderr.strip().splitlines() or
                                                                          [f"clang-query exited {r.returncode}"])
        elif "match" not in r.stdout:  # clang-query always counts its matches: without a count it did not run
            lines += [f"clang-query said nothing about {name_of(path)}: {r.stdout.strip()}"]
        return path, 1 if lines else 0, "\n".join(lines)

    failed = 0
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for path, rc, output in pool.map(check, sorted(chosen)):
            if rc != 0:
                failed += 1
                print(f"--- {name_of(path)}\n{output}")
    if failed:
        sys.exit(f"check-naming: {failed} file(s) break the naming rule or do not parse (above)")
    print("check-naming: no violation")


if __name__ == "__main__":
    main()
