"""Lower the SASS of PTX / CUDA files strictly and list what is refused (issue 61): every kernel of
each file is compiled (ptxas sm_90, cached) and lowered; refusals are grouped by message with one
example instruction each, so a new corpus shows at once which opcodes, modifiers and operand forms
the simulator does not take yet.

    python tools/sass_strict_walk.py                          # programs/*/*/kernel.ptx and tests/cuda/*.ptx
    python tools/sass_strict_walk.py build/corpus/m000/*.ptx  # any PTX or .cu files

Exit status 1 when some lowering stopped with an error that is not a refusal by name (a bug).
"""
from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simt_sim.errors import InputError  # noqa: E402
from simt_sim.frontend.sass import corpus_files, sass_listing  # noqa: E402
from simt_sim.frontend.sass_lower import load_sass_program  # noqa: E402

_ERR_RE = re.compile(r"error: (?:SASS '(?P<inst>.*?)' at pc \w+: )?(?P<msg>.*)", re.S)


_ENTRY_RE = re.compile(r"^\s*\.(?:visible\s+|weak\s+)?\.entry\s+([\w$]+)", re.M)


def _entries(f: Path) -> set[str] | None:
    """The kernels (.entry) a PTX file defines; None for a .cu (every listed function is tried)."""
    if f.suffix != ".ptx":
        return None
    return set(_ENTRY_RE.findall(f.read_text(errors="replace")))


def walk(files: list[Path]) -> tuple[int, dict[str, list[str]], list[str]]:
    """(kernels lowered, {refusal message: [file:kernel: instruction]}, crashes)."""
    refused: dict[str, list[str]] = defaultdict(list)
    crashes: list[str] = []
    count = 0
    for f in files:
        try:
            kernels = sass_listing(str(f)).kernels
        except InputError as e:
            refused[f"no SASS listing: {e}"].append(str(f))
            continue
        entries = _entries(f)
        for kernel in kernels:
            if entries is not None and kernel.name not in entries:
                continue                            # a device function nvdisasm lists on its own (-G code)
            count += 1
            try:
                load_sass_program(str(f), kernel.name)
            except InputError as e:
                m = _ERR_RE.search(str(e))
                msg, inst = (m.group("msg"), m.group("inst") or "") if m else (str(e), "")
                refused[msg].append(f"{f.name}:{kernel.name}: {inst}")
            except Exception as e:                  # a traceback is a bug of the lowering
                crashes.append(f"{f}:{kernel.name}: {e!r}")
    return count, refused, crashes


def main(argv: list[str]) -> int:
    files = [Path(a) for a in argv] or corpus_files(ROOT)
    count, refused, crashes = walk(files)
    n_refused = sum(len(v) for v in refused.values())
    print(f"{count} kernels, {count - n_refused} lowered, {n_refused} refused, {len(crashes)} crashed")
    for msg, where in sorted(refused.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(where):5d}  {msg}\n       e.g. {where[0]}")
    for c in crashes:
        print(f"CRASH  {c}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
