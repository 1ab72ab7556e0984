"""The "compiling the simulator engine" notice of a first run.

The engine's loops (engine/functional/loop.run_functional, engine/cycle/loop.run_timed) are numba
functions cached on disk.  A run whose flavour (functional or timed; PTX, PTX with calls /
tensor-core rows / asynchronous copies, or SASS code: the argument types) has no cached
compilation waits minutes on its first call, which used to print nothing.  `EngineCall` wraps
such a loop: on its first call it asks `needs_compile` and, when numba is about to compile,
writes a line to stderr before the compile and one with the seconds it took after it (on a
terminal also a running count of seconds in between).  On a warm cache, and with
NUMBA_DISABLE_JIT=1, it prints nothing.

`needs_compile` decides as numba's dispatcher does (Dispatcher.compile): the argument types, an
overload compiled in this process, else an entry for the same index key in the function's
on-disk cache index (the .nbi file numba itself reads, under NUMBA_CACHE_DIR when set); reading
that small index costs a millisecond or so.  The seconds a compile took are kept beside numba's
cache (COMPILE_TIMES) so that the next cold compile's estimate is this machine's own.
"""
from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from pathlib import Path

# Measured cold compiles (README): 1.3-1.5 minutes on a quiet 2-core machine, up to twice that loaded.
DEFAULT_MINUTES = 2
COMPILE_TIMES = "simt-sim-compile-seconds.json"
TICK_SECONDS = 5.0

_enabled = True


def set_enabled(flag: bool) -> bool:
    """Turn the notice on or off for this process; -> the setting before."""
    global _enabled
    before, _enabled = _enabled, bool(flag)
    return before


@contextlib.contextmanager
def silenced(quiet: bool = True):
    """No notice inside the block when `quiet` (`simt-sim run --quiet`); the setting is restored after."""
    before = set_enabled(_enabled and not quiet)
    try:
        yield
    finally:
        set_enabled(before)


def needs_compile(dispatcher, args) -> bool:
    """Whether calling the numba `dispatcher` with `args` compiles (False: an overload for these
    argument types is in memory or in numba's on-disk cache; False too for a plain function, as
    under NUMBA_DISABLE_JIT=1)."""
    overloads = getattr(dispatcher, "overloads", None)
    typeof = getattr(dispatcher, "typeof_pyval", None)
    if overloads is None or typeof is None:
        return False
    sig = tuple(typeof(a) for a in args)
    if sig in overloads:
        return False
    cache = getattr(dispatcher, "_cache", None)
    index_file = getattr(cache, "_cache_file", None)
    if index_file is None or not hasattr(cache, "_index_key"):
        return True                   # caching off: every process compiles
    try:
        key = cache._index_key(sig, dispatcher.targetctx.codegen())
        data_name = index_file._load_index().get(key)
    except Exception:                 # an unreadable index: numba would compile too
        return True
    return data_name is None or not os.path.exists(os.path.join(cache.cache_path, data_name))


def _times_file(dispatcher) -> Path | None:
    path = getattr(getattr(dispatcher, "_cache", None), "cache_path", None)
    return Path(path) / COMPILE_TIMES if path else None


def estimate_minutes(dispatcher, what: str) -> int:
    """Minutes the compile of `what` is expected to take: the last one measured here, else any
    flavour's last, else DEFAULT_MINUTES."""
    times = _read_times(_times_file(dispatcher))
    seconds = times.get(what) or (max(times.values()) if times else None)
    return max(1, round(seconds / 60)) if seconds else DEFAULT_MINUTES


def _read_times(path: Path | None) -> dict:
    try:
        data = json.loads(path.read_text()) if path else {}
    except (OSError, ValueError):
        return {}
    return {k: float(v) for k, v in data.items() if isinstance(v, (int, float))} if isinstance(data, dict) else {}


def _record_time(dispatcher, what: str, seconds: float) -> None:
    path = _times_file(dispatcher)
    if path is None:
        return
    times = _read_times(path)
    times[what] = round(seconds, 1)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(times, indent=1, sort_keys=True))
        os.replace(tmp, path)
    except OSError:
        pass                          # a read-only cache: the estimate stays the default


class _Ticker:
    """On a terminal: '\r  compiling ... N s' every TICK_SECONDS until stopped."""

    def __init__(self, stream, start: float):
        self.stream, self.start = stream, start
        self.stop_event = threading.Event()
        self.thread = None
        self.shown = False
        isatty = getattr(stream, "isatty", None)
        if isatty is not None and isatty():
            self.thread = threading.Thread(target=self.run, daemon=True)
            self.thread.start()

    def run(self) -> None:
        while not self.stop_event.wait(TICK_SECONDS):
            self.stream.write(f"\r  compiling ... {time.monotonic() - self.start:.0f} s")
            self.stream.flush()
            self.shown = True

    def stop(self) -> None:
        if self.thread is not None:
            self.stop_event.set()
            self.thread.join()
            if self.shown:
                self.stream.write("\r")


class EngineCall:
    """A compiled engine loop that announces its own cold compile (see the module's docstring).
    `what` names the flavour in the message, e.g. "timed SASS runs"."""

    def __init__(self, dispatcher, what: str, stream=None):
        self.dispatcher, self.what = dispatcher, what
        self.stream = stream
        self.first = True

    def __call__(self, *args):
        if not self.first:
            return self.dispatcher(*args)
        self.first = False
        if not _enabled or not needs_compile(self.dispatcher, args):
            return self.dispatcher(*args)
        stream = self.stream or sys.stderr
        minutes = estimate_minutes(self.dispatcher, self.what)
        stream.write(f"compiling the simulator engine for {self.what} (first run only, about {minutes} "
                     f"minute{'s' if minutes != 1 else ''}; later runs load it from numba's cache) ...\n")
        stream.flush()
        start = time.monotonic()
        ticker = _Ticker(stream, start)
        try:
            result = self.dispatcher(*args)
        finally:
            ticker.stop()
        seconds = time.monotonic() - start
        stream.write(f"compiled the simulator engine for {self.what} in {seconds:.0f} s\n")
        stream.flush()
        _record_time(self.dispatcher, self.what, seconds)
        return result


def flavour(code, mode: str) -> str:
    """The words for a launch's compiled flavour: mode ("timed" or "functional") and the code's
    instruction sets (Code.sass / Code.ptx / Code.ext markers, machine/lower.py)."""
    sets = [name for name, marker in (("SASS", getattr(code, "sass", None)), ("PTX", getattr(code, "ptx", None)))
            if marker]
    kind = " and ".join(sets) or "PTX"
    extra = " with calls, tensor-core rows or async copies" if getattr(code, "ext", None) and "SASS" not in sets else ""
    return f"{mode} {kind} runs{extra}"
