"""The numba engine: encoding, state arrays, semantics, SIMT stack, run loop.

Compiled functions are cached on disk (`cache=True`).  Numba's cache does not notice changes to
the globals a function reads (opcode numbers from isa/*.yaml, constants in sibling modules), so
the cache is dropped whenever the ISA table, the encoding, the state layout or any engine source
changes.
"""
from __future__ import annotations

import hashlib
import os
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
    value = digest.hexdigest()
    places = [(here / "__pycache__" / "engine-digest.txt",
               list(here.rglob("__pycache__/*.nbi")) + list(here.rglob("__pycache__/*.nbc")))]
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root:
        # numba keeps a module's cache in NUMBA_CACHE_DIR/<dir name>_<sha1 of the dir's path>
        # (its _CacheLocator): drop the engine's there too, or a private cache outlives an edit
        dirs = {p.parent for p in here.rglob("*.py")}
        subs = [Path(root) / f"{d.name}_{hashlib.sha1(str(d).encode()).hexdigest()}" for d in dirs]
        places.append((Path(root) / f"engine-digest-{hashlib.sha1(str(here).encode()).hexdigest()}.txt",
                       [f for s in subs for f in list(s.glob("*.nbi")) + list(s.glob("*.nbc"))]))
    for stamp, cached in places:
        try:
            if stamp.exists() and stamp.read_text() == value:
                continue
            for path in cached:
                path.unlink(missing_ok=True)
            stamp.parent.mkdir(parents=True, exist_ok=True)
            stamp.write_text(value)
        except OSError:
            pass   # read-only install: numba falls back to compiling in memory


_guard_cache()
