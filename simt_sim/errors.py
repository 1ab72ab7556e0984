"""The two kinds of error a user sees: bad input (exit 2) and a runtime fault (exit 3).

Both carry a complete one-line message; the CLI prints it without a traceback.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLoc:
    file: str
    line: int
    col: int
    ptx: str = ""          # SASS rows: the PTX file:line ptxas made the instruction from ("" unknown)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}" + (f", from {self.ptx}" if self.ptx else "")


class SimError(Exception):
    exit_code = 1


class InputError(SimError):
    """Malformed program, manifest, config or command line.  Exit code 2."""

    exit_code = 2

    def __init__(self, message: str, loc: SourceLoc | None = None):
        self.loc = loc
        self.message = message
        super().__init__(f"{loc}: error: {message}" if loc else f"error: {message}")


class RuntimeFault(SimError):
    """A fault while the kernel runs (out of bounds, deadlock, stack overflow, limit).  Exit code 3."""

    exit_code = 3


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) stopped a run between two of the engine's slices.  `result` holds what the
    run had done so far: its statistics (marked interrupted / not finished), never outputs to
    trust.  The command line prints them and exits with 130.  A KeyboardInterrupt, so code that
    does not look for it (a sweep, validate, a script's loop) stops as on any Ctrl-C."""

    exit_code = 130

    def __init__(self, result=None):
        super().__init__("interrupted")
        self.result = result
