"""The numba engine: encoding, state arrays, semantics, SIMT stack, run loop.

Compiled functions are cached on disk (`cache=True`).  Numba's cache does not notice changes to
the globals a function reads (opcode numbers from isa/*.yaml, constants in sibling modules), so
the cache is dropped whenever the ISA table, the encoding, the state layout or any engine source
changes.
"""
from __future__ import annotations

import hashlib
from pathlib import Path


def _guard_cache() -> None:
    here = Path(__file__).resolve().parent
    package = here.parent
    sources = (sorted(here.rglob("*.py")) + sorted((package / "isa").glob("*.py"))
               + [package / "machine" / "layout.py", package / "machine" / "state.py"])
    digest = hashlib.sha256()
    for path in sources + sorted((here.parents[1] / "isa").glob("*.yaml")):
        digest.update(str(path.relative_to(here.parents[1])).encode())
        digest.update(path.read_bytes())
    stamp = here / "__pycache__" / "engine-digest.txt"
    value = digest.hexdigest()
    try:
        if stamp.exists() and stamp.read_text() == value:
            return
        for cached in list(here.rglob("__pycache__/*.nbi")) + list(here.rglob("__pycache__/*.nbc")):
            cached.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(value)
    except OSError:
        pass   # read-only install: numba falls back to compiling in memory


_guard_cache()
