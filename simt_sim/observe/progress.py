"""Progress of the long commands (`simt-sim validate`, `simt-sim study`, `python -m
simt_sim.calibrate.pc_stalls compare`): one line on stderr per finished program or variant,
"[3/24] w-matmul-plain 2.1 s".  A loop reports through `steps`; the command line passes a
`StepLines` (its --quiet passes none)."""
from __future__ import annotations

import sys
import time
from typing import Callable, Iterable, Iterator, TypeVar

T = TypeVar("T")
Report = Callable[[int, int, str, float], None]      # (done, total, name, seconds of this step)


def steps(items: Iterable[T], report: Report | None, name: Callable[[T], str] = str) -> Iterator[T]:
    """Yield the items; after the loop's body finishes with each, report (done, total, its name,
    the seconds the body took).  Without a report the items pass through untouched."""
    items = list(items)
    for i, item in enumerate(items, 1):
        start = time.monotonic()
        yield item
        if report is not None:
            report(i, len(items), name(item), time.monotonic() - start)


class StepLines:
    """A report for `steps` that writes "[done/total] NAME S.S s" lines to a stream (stderr)."""

    def __init__(self, stream=None):
        self.stream = stream

    def __call__(self, done: int, total: int, name: str, seconds: float) -> None:
        stream = self.stream or sys.stderr
        stream.write(f"[{done}/{total}] {name} {seconds:.1f} s\n")
        stream.flush()


def step_lines(quiet: bool) -> StepLines | None:
    """What a command with --quiet passes on: no report when quiet."""
    return None if quiet else StepLines()
