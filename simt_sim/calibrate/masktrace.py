"""Decode the mask-trace buffer written by programs/include/simt_trace.cuh (hardware or simulator).

Each entry is two 64-bit words: warp << 40 | site << 32 | active mask, then clock64.  The buffer
is a module global (`simt_trace`), its fill level `simt_trace_count`.
"""
from __future__ import annotations

import numpy as np

CAPACITY = 65536


def decode(trace_bytes: np.ndarray, count_bytes: np.ndarray) -> dict[int, list[tuple[int, int, int]]]:
    """-> {global warp id: [(site, mask, clock), ...] in program order}."""
    words = np.ascontiguousarray(trace_bytes).view(np.uint64).reshape(-1, 2)
    n = min(int(np.ascontiguousarray(count_bytes).view(np.uint32)[0]), CAPACITY, len(words))
    out: dict[int, list[tuple[int, int, int]]] = {}
    for w0, clock in words[:n].tolist():
        out.setdefault(w0 >> 40, []).append(((w0 >> 32) & 0xFF, w0 & 0xFFFFFFFF, clock))
    return dict(sorted(out.items()))


def site_masks(trace: dict[int, list[tuple[int, int, int]]]) -> dict[int, list[tuple[int, int]]]:
    """The comparable part: per warp, the (site, mask) sequence without clocks."""
    return {w: [(s, m) for s, m, _ in entries] for w, entries in trace.items()}


def overflowed(count_bytes: np.ndarray) -> bool:
    return int(np.ascontiguousarray(count_bytes).view(np.uint32)[0]) > CAPACITY
