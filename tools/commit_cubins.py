"""Write each program's sm_90 cubins beside its PTX (programs/PURPOSE/NAME/kernel.sm_90.cubin + .key, and
kernel.trace.sm_90.cubin + .key for the mask-trace variant), so that `--isa sass` runs and
`simt-sim hw record` use the very SASS ptxas made, also on machines without ptxas (the key is the
sha256 of the ptxas flags and the PTX; a stale cubin is ignored).

    python tools/commit_cubins.py [NAME ...] [--check]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simt_sim.errors import InputError  # noqa: E402
from simt_sim.frontend.sass import (DEFAULT_ARCH, _MASK_ISA_RE, commit_cubin, committed_cubin,  # noqa: E402
                                    ptxas_flags)
from simt_sim.programs import program_dir, program_dirs  # noqa: E402


VARIANTS = ("kernel.ptx", "kernel.trace.ptx")      # the kernel and its mask-trace variant


def program_ptx(names: list[str]) -> list[Path]:
    dirs = [program_dir(n) for n in names] if names else program_dirs(ROOT, needs="kernel*.ptx")
    files = [d / v for d in dirs for v in VARIANTS if (d / v).is_file()]
    return [f for f in files if not _MASK_ISA_RE.search(f.read_bytes())]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--check", action="store_true", help="exit 1 listing programs whose cubin is missing or stale")
    ns = ap.parse_args()
    stale = []
    for ptx in program_ptx(ns.names):
        text = ptx.read_bytes()
        if committed_cubin(ptx, text, ptxas_flags(text, DEFAULT_ARCH), DEFAULT_ARCH) is not None:
            continue
        if ns.check:
            stale.append(f"{ptx.parent.name}/{ptx.name}")
            continue
        try:
            print(f"{ptx.parent.name}: {commit_cubin(ptx).relative_to(ROOT)}")
        except InputError as e:
            print(f"{ptx.parent.name}: skipped ({e})")
    if stale:
        print("missing or stale cubins:", " ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
