"""What the host does between the engine's slices, alike in functional and timed runs: the
wall-clock budget (limits.wall_seconds), and the place where Ctrl-C reaches the run.

The compiled loops cannot see signals or the clock cheaply, so they return to Python every
SLICE_INSTS warp-instructions (functional: counters[C_SLICE_END]; timed: now[N_SLICE]).  Python
runs the SIGINT handler there (KeyboardInterrupt is raised in the host loop, which keeps the
statistics so far), and `Slices.spent()` checks the clock.  The budget counts from the end of
the first slice, so a cold JIT compile is not charged to the kernel.

SIMT_SIM_SIGINT_AT_SLICE=N (tests) sends this process a real SIGINT after its Nth slice: a
deterministic Ctrl-C that goes through the same signal handler a terminal's does.
"""
from __future__ import annotations

import os
import signal
import time

import numpy as np

from simt_sim.machine import layout as L

SIGINT_AT_SLICE = "SIMT_SIM_SIGINT_AT_SLICE"


class Slices:
    def __init__(self, wall_seconds: float | None):
        self.limit = float(wall_seconds or 0.0)
        self.start: float | None = None
        self.count = 0
        try:
            self.sigint_at = int(os.environ.get(SIGINT_AT_SLICE, "0") or 0)
        except ValueError:
            self.sigint_at = 0

    def spent(self) -> bool:
        """After a slice: True when the wall-clock budget is used up (a SIGINT for the test hook
        is raised here as KeyboardInterrupt)."""
        now = time.monotonic()
        if self.start is None:
            self.start = now
        self.count += 1
        if self.count == self.sigint_at:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.01)            # the handler runs at the next bytecode; let the signal land
        return self.limit > 0 and now - self.start >= self.limit

    def elapsed(self) -> float:
        return 0.0 if self.start is None else time.monotonic() - self.start


def first_lane(mask: int) -> int:
    mask &= (1 << 64) - 1
    return (mask & -mask).bit_length() - 1 if mask else -1


def stopped_warp(warps, prefer: int = -1) -> int:
    """The warp slot a limit names: `prefer` when it holds a live warp, else the first warp that
    can issue or waits at a barrier (0 when none does)."""
    f = warps.f
    if 0 <= prefer < len(f) and f[prefer, L.WF_STATUS] in (L.W_READY, L.W_BARRIER):
        return prefer
    for w in range(len(f)):
        if f[w, L.WF_STATUS] in (L.W_READY, L.W_BARRIER):
            return w
    return 0


def wall_fault(fault, warps, limit: float, prefer: int = -1) -> None:
    """Set the fault record for a spent wall-clock budget, at the warp `stopped_warp` picks."""
    w = stopped_warp(warps, prefer)
    f = warps.f
    fault[0] = L.FAULT_WALL_CLOCK
    fault[1] = f[w, L.WF_GID]
    fault[2] = first_lane(int(f[w, L.WF_MASK]))
    fault[3] = f[w, L.WF_PC]
    fault[4] = 0
    fault[5] = int(round(limit * 1000))        # milliseconds


def name_thread(fault, warps) -> None:
    """A fault the engine sets for a whole warp (a limit, a deadlock, a trap of old) names the
    warp's first active thread, as an access fault names its thread; a deadlock names the pc of
    the barrier its warp waits at (the timed loop records the warp's next pc)."""
    f = warps.f
    live = np.flatnonzero((f[:, L.WF_GID] == fault[1]) & (f[:, L.WF_STATUS] != L.W_EMPTY))
    if not len(live):
        return
    w = int(live[0])
    if fault[2] < 0:
        fault[2] = first_lane(int(f[w, L.WF_MASK]))
    if fault[0] == L.FAULT_DEADLOCK and f[w, L.WF_STATUS] == L.W_BARRIER:
        fault[3] = f[w, L.WF_PC] - 1
