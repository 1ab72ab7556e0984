"""Rows the engine appends to buffers that the host drains between calls (mask history, stall
log): the fill level lives in a counter, which may run past the end when the host has not drained
yet; the row is then dropped and the run loop returns for draining before that can happen."""
from __future__ import annotations

from simt_sim.engine.jit import compiled_inline


@compiled_inline
def append4(buf, fills, slot, a, b, c, d):
    i = fills[slot]
    if i < buf.shape[0]:
        buf[i, 0] = a
        buf[i, 1] = b
        buf[i, 2] = c
        buf[i, 3] = d
    fills[slot] = i + 1
