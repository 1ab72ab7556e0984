"""Every file simt-sim writes goes through here: written under a temporary name in the target's
folder, then renamed over the target (os.replace), so that a reader, a crash or a Ctrl-C in the
middle never leaves half a file under the real name.  An interrupted or failed write removes its
temporary file and leaves an earlier file of that name as it was.

    write_atomic(path, text_or_bytes)
    with atomic_open(path, "w") as f: ...          # a file object
    with atomic_path(path) as tmp: writer(tmp)     # for writers that take a path (savefig, pyarrow)
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path


def temporary_name(path: Path) -> Path:
    """A hidden name beside `path`, unique to this process, with path's suffix (writers that
    pick a format by suffix still see it)."""
    return path.with_name(f".{path.stem}.{os.getpid()}.tmp{path.suffix}")


@contextmanager
def atomic_path(path):
    """Yield a temporary path beside `path`; when the block ends without an exception (Ctrl-C
    included) it replaces `path`, otherwise it is removed."""
    path = Path(path)
    tmp = temporary_name(path)
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise


@contextmanager
def atomic_open(path, mode: str = "w", **kwargs):
    """open(path, mode) into a temporary file that replaces `path` when the block ends cleanly
    (text modes default to UTF-8)."""
    if "b" not in mode:
        kwargs.setdefault("encoding", "utf-8")
    with atomic_path(path) as tmp:
        with open(tmp, mode, **kwargs) as f:
            yield f


def write_atomic(path, data: str | bytes) -> None:
    """path.write_text / write_bytes, atomically."""
    with atomic_open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
