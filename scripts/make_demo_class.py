#!/usr/bin/env python3
"""Writes a class of N generated submissions for trying `cudalab grade` end to end:

    scripts/make_demo_class.py OUT_DIR [N]     (default N = 20)
    scripts/make_demo_class.py OUT_DIR --corpus   the grading tests' corpus (tests/grading/test_grade.cpp):
                                                  one student per kind of submission

Each student submits some exercises, drawn (with a fixed seed) from the reference solutions, the
speed ladders' slower steps, the known-wrong corpus (tests/wrong) and the misbehaving corpus
(tests/misbehaving): right and fast, right and slow, wrong answers, compile errors, crashes, hangs.
Every file ends with a line naming its student, so that none shares a compiled module. A few
come as .zip or .tar.gz archives, as an upload would. Nothing here is graded: it only builds input.
"""
import os
import random
import shutil
import sys
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXERCISES = ["01_increment", "02_vector_add", "03_matmul", "04_normalize", "05_reduce"]
NAMES = ["ada", "alan", "barbara", "claude", "donald", "edsger", "frances", "grace", "guido", "john",
         "ken", "linus", "margaret", "niklaus", "radia", "robin", "shafi", "sophie", "tim", "yukihiro"]


def candidates(exercise):
    """(weight, path) of the kernels a student may hand in for `exercise`."""
    sol = os.path.join(ROOT, "solutions", exercise)
    out = [(6, os.path.join(sol, "kernel.cu"))]
    out += [(2, os.path.join(sol, f)) for f in sorted(os.listdir(sol)) if f.startswith("step")]
    wrong = os.path.join(ROOT, "tests", "wrong", exercise)
    out += [(1, os.path.join(wrong, f)) for f in sorted(os.listdir(wrong)) if f.endswith(".cu")]
    if exercise == "01_increment":
        out += [(1, os.path.join(ROOT, "tests", "misbehaving", "crash.cu"))]
        out += [(1, os.path.join(ROOT, "tests", "misbehaving", "hang.cu"))]
    return out


def copy(src, dest):
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.copyfile(os.path.join(ROOT, src), dest)


def corpus(out):
    """The same class as the grading tests build: a correct student, a wrong answer, a compile
    error, a wrong signature, a crash, a hang, a flood, a CPU-computed result, a `../` archive."""
    c = lambda *p: os.path.join(out, *p)
    copy("solutions/01_increment/kernel.cu", c("alice/exercises/01_increment/kernel.cu"))
    copy("solutions/05_reduce/kernel.cu", c("alice/exercises/05_reduce/kernel.cu"))
    copy("tests/wrong/05_reduce/grid_too_small.cu", c("bob/05_reduce/kernel.cu"))
    os.makedirs(c("carol/01_increment"), exist_ok=True)
    with open(c("carol/01_increment/kernel.cu"), "w") as f:
        f.write("void solve(int* data, int n) { int x = ; }\n")
    copy("tests/misbehaving/wrong_signature.cu", c("dave/increment.cu"))
    copy("tests/misbehaving/crash.cu", c("erin/01_increment/kernel.cu"))
    copy("tests/misbehaving/hang.cu", c("frank/01_increment/kernel.cu"))
    copy("tests/misbehaving/flood.cu", c("grace/01_increment/kernel.cu"))
    copy("tests/wrong/05_reduce/cpu_sum.cu", c("heidi/05_reduce/kernel.cu"))
    with tarfile.open(c("mallory.tar.gz"), "w:gz") as t:
        t.add(os.path.join(ROOT, "solutions/01_increment/kernel.cu"), arcname="01_increment/kernel.cu")
        t.add(os.path.join(ROOT, "README.md"), arcname="../escape.txt")
    print(f"the grading corpus in {out}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    if len(sys.argv) > 2 and sys.argv[2] == "--corpus":
        corpus(out)
        return
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    rng = random.Random(20261123)
    os.makedirs(out, exist_ok=True)
    for i in range(n):
        name = NAMES[i % len(NAMES)] + ("" if i < len(NAMES) else str(i // len(NAMES)))
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        for exercise in EXERCISES:
            if rng.random() < 0.1:
                continue  # not submitted
            weights, paths = zip(*candidates(exercise))
            source = rng.choices(paths, weights=weights)[0]
            dest = os.path.join(folder, "exercises", exercise, "kernel.cu")
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            if rng.random() < 0.05:
                with open(dest, "w") as f:
                    f.write("void solve(int* data, int n) { int x = ; }\n")  # a compile error
            else:
                shutil.copyfile(source, dest)
                # Each student's file is their own: no two share a compiled module, as in a real class.
                with open(dest, "a") as f:
                    f.write(f"\n// submitted by {name}\n")
        kind = rng.random()
        if kind < 0.15:
            with zipfile.ZipFile(folder + ".zip", "w") as z:
                for base, _, files in os.walk(folder):
                    for f in files:
                        z.write(os.path.join(base, f), os.path.relpath(os.path.join(base, f), folder))
            shutil.rmtree(folder)
        elif kind < 0.3:
            with tarfile.open(folder + ".tar.gz", "w:gz") as t:
                t.add(folder, arcname=".")
            shutil.rmtree(folder)
    print(f"{n} submissions in {out}")


if __name__ == "__main__":
    main()
