#!/usr/bin/env python3
"""(Re)generate kernel.ptx and kernel.trace.ptx for every programs/*/*/kernel.cu with nvcc.

    python tools/build_programs.py                 # regenerate all
    python tools/build_programs.py v-lat-fp32 ...  # only these programs (names or directories)
    python tools/build_programs.py --check         # exit 1 listing stale or missing files

Flags are exactly `nvcc -ptx -arch=sm_90 -O3` (kernel.ptx) and the same plus `-DSIMT_TRACE`
(kernel.trace.ptx, the mask-trace instrumented variant; programs/include/simt_trace.cuh).
nvcc runs inside the program directory so the output does not depend on where the tree lives.
--check compiles into a temporary directory and compares the PTX, ignoring the leading `//`
comment block (compiler build id) only.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from simt_sim.programs import program_dir, program_dirs as all_program_dirs  # noqa: E402

FLAGS = ["-ptx", "-arch=sm_90", "-O3"]
VARIANTS = (("kernel.ptx", []), ("kernel.trace.ptx", ["-DSIMT_TRACE"]))


def program_dirs(names: list[str] | None = None) -> list[Path]:
    if names:
        dirs = [Path(n) if Path(n).is_dir() else program_dir(n) for n in names]
        missing = [str(d) for d in dirs if not (d / "kernel.cu").exists()]
        if missing:
            raise SystemExit(f"no kernel.cu in: {', '.join(missing)}")
        return [d.resolve() for d in dirs]
    return all_program_dirs(ROOT, needs="kernel.cu")


def nvcc_path() -> str | None:
    return shutil.which("nvcc")


def compile_one(nvcc: str, prog: Path, out: Path, extra: list[str]) -> None:
    cmd = [nvcc, *FLAGS, *extra, "-o", str(out), "kernel.cu"]
    r = subprocess.run(cmd, cwd=prog, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{prog.name}: {' '.join(cmd)} failed:\n{r.stderr}")


def strip_header(text: str) -> str:
    lines = text.splitlines()
    i = 0
    while i < len(lines) and (lines[i].startswith("//") or not lines[i].strip()):
        i += 1
    return "\n".join(lines[i:]).rstrip() + "\n"


def jobs(dirs: list[Path]):
    return [(d, name, extra) for d in dirs for name, extra in VARIANTS]


def build(dirs: list[Path], nvcc: str) -> None:
    def work(job):
        d, name, extra = job
        compile_one(nvcc, d, d / name, extra)
        return f"{d.name}/{name}"
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        for done in ex.map(work, jobs(dirs)):
            print("built", done)


def stale(dirs: list[Path], nvcc: str) -> list[str]:
    """-> 'programs/PURPOSE/NAME/FILE' for each generated file that is missing or differs from nvcc's output."""
    with tempfile.TemporaryDirectory() as tmp:
        def work(job):
            d, name, extra = job
            out = Path(tmp) / f"{d.name}.{name}"
            compile_one(nvcc, d, out, extra)
            have = d / name
            if not have.exists() or strip_header(have.read_text()) != strip_header(out.read_text()):
                return f"{have.relative_to(ROOT) if have.is_relative_to(ROOT) else have}"
            return None
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            return [s for s in ex.map(work, jobs(dirs)) if s]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("programs", nargs="*", help="program names or directories (default: all with kernel.cu)")
    ap.add_argument("--check", action="store_true", help="exit 1 listing stale or missing PTX files")
    ns = ap.parse_args(argv)
    nvcc = nvcc_path()
    if nvcc is None:
        print("nvcc not found on PATH", file=sys.stderr)
        return 2
    dirs = program_dirs(ns.programs)
    if ns.check:
        bad = stale(dirs, nvcc)
        if bad:
            print("stale PTX (run python tools/build_programs.py):")
            for s in bad:
                print("  " + s)
            return 1
        print(f"{len(dirs)} programs: PTX current")
        return 0
    build(dirs, nvcc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
