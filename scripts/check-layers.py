#!/usr/bin/env python3
"""Checks every project #include against the stages' one-way arrows (docs/architecture.md).

Each header and source folder belongs to one stage; a stage may include its own headers and those
of the stages listed under it in ALLOWED, nothing above it. Known backward arrows that are still
to be undone are listed in KNOWN, each with its reason: one that no longer occurs fails too, so
that the list only shrinks. Prints one line per violation; exit 1 if any.

  scripts/check-layers.py [ROOT]        ROOT: the source tree (default: this script's parent)
  scripts/check-layers.py --arrows      prints the arrows, as docs/architecture.md draws them
"""
import re
import sys
from pathlib import Path

# Headers under harness/include/cudalab/, by stage.
HEADERS = {
    "contract": ["task.hpp", "registry.hpp", "verdict.hpp"],
    "support": ["paths.hpp", "files.hpp", "sampling.hpp", "process.hpp", "parallel.hpp", "errors.hpp",
                "file_watch.hpp", "text.hpp"],
    "wire": ["protocol.hpp", "access_profile.hpp", "access_trace.hpp"],
    "toolchains": ["toolchain.hpp", "backend.hpp", "gpu_probe.hpp", "detail/module_cache.hpp"],
    "execution": ["sandbox.hpp", "case_data.hpp", "runner_call.hpp", "detail/runner_session.hpp"],
    "checking": ["judge.hpp", "exercise_check.hpp", "findings.hpp", "status_store.hpp", "timeline.hpp",
                 "detail/case_judge.hpp"],
    "timing": ["timing.hpp", "exercise_bench.hpp", "ladder.hpp"],
    "explain": ["explain.hpp", "profile.hpp", "show.hpp"],
    "reports": ["report.hpp", "diagnostics.hpp", "bench_report.hpp"],
}

# Source files and folders (relative to the root), by stage; the first match wins.
SOURCES = [
    ("harness/src/contract/", "contract"),
    ("harness/src/support/", "support"),
    ("harness/src/wire/", "wire"),
    ("harness/src/toolchains/", "toolchains"),
    ("harness/src/execution/", "execution"),
    ("harness/src/checking/", "checking"),
    ("harness/src/timing/", "timing"),
    ("harness/src/explain/", "explain"),
    ("harness/src/reports/", "reports"),
    ("harness/cli/", "app"),
    ("grading/", "grading"),
    ("harness/runner/", "runner"),
    ("harness/sim/", "simulator"),
]

# What each stage may include besides itself. The parent's stages run upwards in this order; the
# runner and the simulator are the untrusted side, which sees the wire and nothing of the parent.
ORDER = ["contract", "support", "wire", "toolchains", "execution", "checking", "timing", "reports", "explain"]
ALLOWED = {
    "contract": set(),
    "support": set(),
    "wire": {"support"},
    "toolchains": {"support"},
    "execution": {"contract", "support", "wire", "toolchains"},
    "checking": {"contract", "support", "wire", "toolchains", "execution"},
    "timing": {"contract", "support", "wire", "toolchains", "execution", "checking"},
    "reports": {"contract", "support", "wire", "toolchains", "execution", "checking", "timing"},
    "explain": {"contract", "support", "wire", "toolchains", "execution", "checking", "timing", "reports"},
    "app": set(ORDER),
    "grading": set(ORDER),
    "runner": {"support", "wire"},
    "simulator": {"support", "wire"},
}

# Headers private to the harness (detail/): the grader and the simulator do not include them.
PRIVATE_TO_CORE = {"grading", "simulator"}

# Tests see the harness through its public headers; a detail/ header only in its own unit test.
DETAIL_TESTS = {
    "cudalab/detail/module_cache.hpp": {"tests/harness/test_module_cache.cpp"},
}

# Backward arrows still to be undone: (file, included header) -> why it is there.
KNOWN = {
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def header_stage(name):
    """The stage of an included "cudalab/…" header, or None for a header of no stage."""
    if not name.startswith("cudalab/"):
        return None
    rest = name[len("cudalab/"):]
    for stage, headers in HEADERS.items():
        if rest in headers:
            return stage
    return None


def file_stage(rel):
    if rel.startswith("harness/include/cudalab/"):
        return header_stage(rel[len("harness/include/"):])
    for prefix, stage in SOURCES:
        if rel.startswith(prefix):
            return stage
    return None


STAGE_CALL = re.compile(r"cudalab_stage\(\s*cudalab_(\w+)(.*?)\)", re.DOTALL)


def check_stage_targets(root):
    """Each stage of ORDER is one library in harness/CMakeLists.txt, cudalab_stage(cudalab_<stage> SOURCES
    ... PUBLIC ...): its sources are its folder's files, every one, and it links only stages it may include."""
    cmake = root / "harness/CMakeLists.txt"
    if not cmake.exists():
        return []
    problems = []
    found = {}
    for stage, body in STAGE_CALL.findall(cmake.read_text()):
        words = body.split()
        sections, current = {}, None
        for w in words:
            if w in ("SOURCES", "PUBLIC", "PRIVATE"):
                current = sections.setdefault(w, [])
            elif current is not None:
                current.append(w)
        found[stage] = sections
    for stage in ORDER:
        if stage not in found:
            problems.append(f"harness/CMakeLists.txt: the {stage} stage has no cudalab_stage(cudalab_{stage} ...)")
            continue
        sources = set(found[stage].get("SOURCES", []))
        folder = root / "harness/src" / stage
        files = {f"src/{stage}/{f.name}" for f in folder.glob("*.cpp")} if folder.exists() else set()
        for extra in sorted(sources - files):
            problems.append(f"harness/CMakeLists.txt: cudalab_{stage} builds {extra}, which is not a file of src/{stage}/")
        for missing in sorted(files - sources):
            problems.append(f"harness/CMakeLists.txt: cudalab_{stage} does not build {missing}")
        for section in ("PUBLIC", "PRIVATE"):
            for lib in found[stage].get(section, []):
                if lib.startswith("cudalab_") and lib[len("cudalab_"):] not in ALLOWED[stage]:
                    problems.append(f"harness/CMakeLists.txt: cudalab_{stage} links {lib}: {stage} may not use that stage")
    for stage in found:
        if stage not in ORDER:
            problems.append(f"harness/CMakeLists.txt: cudalab_{stage} is a stage library of no stage in ORDER")
    return problems


def main(argv):
    if "--arrows" in argv:
        for stage in ALLOWED:
            below = [s for s in ORDER if s in ALLOWED[stage]]
            print(f"{stage} → {', '.join(below) if below else '(nothing)'}")
        return 0
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent
    problems = []
    seen_known = set()
    unstaged = [h for h in (root / "harness/include/cudalab").rglob("*.hpp")
                if header_stage(str(h.relative_to(root / "harness/include"))) is None]
    for h in unstaged:
        problems.append(f"{h.relative_to(root)}: a header of no stage: add it to HEADERS in scripts/check-layers.py")
    for path in sorted(list(root.glob("harness/**/*.[ch]pp")) + list(root.glob("grading/**/*.[ch]pp"))):
        rel = str(path.relative_to(root))
        stage = file_stage(rel)
        if stage is None:
            continue
        for included in INCLUDE.findall(path.read_text(errors="replace")):
            key = (rel, included)
            target = header_stage(included)
            backward = target is not None and target != stage and target not in ALLOWED[stage]
            private = "/detail/" in included and stage in PRIVATE_TO_CORE
            untrusted = stage == "simulator" and included.startswith("runner/")
            if not (backward or private or untrusted):
                continue
            if key in KNOWN:
                seen_known.add(key)
                continue
            why = (f"{stage} may not include the {target} stage" if backward else
                   "detail/ headers are private to the harness" if private else
                   "the simulator may not include the runner's headers")
            problems.append(f"{rel}: #include \"{included}\": {why}")
    for path in sorted(root.glob("tests/**/*.[ch]pp")):
        rel = str(path.relative_to(root))
        for included in INCLUDE.findall(path.read_text(errors="replace")):
            if "/detail/" in included and rel not in DETAIL_TESTS.get(included, set()):
                problems.append(f"{rel}: #include \"{included}\": tests use the public headers (a detail/ header "
                                "only in its own unit test, DETAIL_TESTS in scripts/check-layers.py)")
    problems += check_stage_targets(root)
    # The architecture page draws the same arrows.
    page = root / "docs/architecture.md"
    if page.exists():
        text = page.read_text()
        for stage in ALLOWED:
            below = [s for s in ORDER if s in ALLOWED[stage]]
            line = f"{stage} → {', '.join(below) if below else '(nothing)'}"
            if line not in text.splitlines():
                problems.append(f"docs/architecture.md: the arrow `{line}` is not drawn (scripts/check-layers.py --arrows)")
    for key in sorted(set(KNOWN) - seen_known):
        problems.append(f"{key[0]}: no longer includes {key[1]}: remove it from KNOWN in scripts/check-layers.py")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
