"""Instruction fetch of SASS warps: a per-sub-partition L0 instruction cache in front of a per-SM
L1 instruction cache, fed by one fetch path per sub-partition (config `sass.fetch`).

A warp that moves to another instruction line (straight on, or by a taken branch) needs that line
in its sub-partition's L0.  A hit costs nothing once the line has arrived; a miss occupies the
fetch path for the line time of the level that holds it (L1 or L2), one line after another, so
straight-line code streams at line_cycles / instructions-per-line cycles per instruction.  Each
access also requests the next line (next-line prefetch), which is what lets that stream overlap
issue.  Warps of one sub-partition running the same code share its L0 lines.  After a taken
branch the line after the target's reaches the warp sass.fetch.redirect_next_line_cycles after
it resumes, so a target among the last instructions of its line costs the difference.  Every level is
set-associative LRU over line numbers (a tag holds line + 1; 0 is empty).  The L1 starts holding
the launch's code up to its capacity (filled on the host: the H100's first pass over a kernel runs
at its L1 rate, not at its L2 rate; docs/timing.md).
"""
from __future__ import annotations

from simt_sim.engine.cycle.slots import sub_partition
from simt_sim.engine.jit import compiled, compiled_inline
from simt_sim.machine.layout import (FT_READY, FT_STAMP, FT_TAG, R_NO_INST, SC_FETCH_FREE, TC, WF_NEXT_LINE, WF_NEXT_LINE_AT,
                                     WF_PC, WF_RESUME, WF_RESUME_KIND)

T_FETCH, T_LINE_INSTS, T_NEXT_LINE = TC["fetch"], TC["fetch_line_insts"], TC["fetch_next_line"]
T_L1I_CYCLES, T_L2I_CYCLES, T_FLUSHED_FIRST = TC["l1i_line_cycles"], TC["l2i_line_cycles"], TC["fetch_flushed_first"]


@compiled_inline
def find_way(ways, line):
    """Way of `ways` ([n_ways, FT_FIELDS]) holding line, or -1."""
    for wy in range(ways.shape[0]):
        if ways[wy, FT_TAG] == line + 1:
            return wy
    return -1


@compiled_inline
def lru_way(ways):
    victim = 0
    for wy in range(1, ways.shape[0]):
        if ways[wy, FT_STAMP] < ways[victim, FT_STAMP]:
            victim = wy
    return victim


@compiled
def request_line(ts, tc, sm, sp, line, now):
    """Cycle from which `line` is in sm/sp's L0, fetching it when it is missing."""
    l0 = ts.l0i[sm, sp, line % ts.l0i.shape[2]]
    wy = find_way(l0, line)
    if wy >= 0:
        l0[wy, FT_STAMP] = now
        return l0[wy, FT_READY]
    l1 = ts.l1i[sm, line % ts.l1i.shape[1]]
    wy = find_way(l1, line)
    cost = tc[T_L1I_CYCLES]
    if wy < 0:
        wy = lru_way(l1)
        l1[wy, FT_TAG] = line + 1
        cost = tc[T_L2I_CYCLES]
    l1[wy, FT_STAMP] = now
    if ts.sched[sm, sp, SC_FETCH_FREE] == 0:        # the path's first line of the run
        cost += tc[T_FLUSHED_FIRST]
    ready = max(now, ts.sched[sm, sp, SC_FETCH_FREE]) + cost
    ts.sched[sm, sp, SC_FETCH_FREE] = ready
    wy = lru_way(l0)
    l0[wy, FT_TAG] = line + 1
    l0[wy, FT_READY] = ready
    l0[wy, FT_STAMP] = now
    return ready


@compiled
def first_line(wf, ts, tc, w, sm, start):
    """Warp w, starting at `start`, waits until its first code line is in its sub-partition's L0
    (requested then, with the next line)."""
    sp = sub_partition(tc, w, sm)
    line = wf[w, WF_PC] // tc[T_LINE_INSTS]
    ready = request_line(ts, tc, sm, sp, line, start)
    request_line(ts, tc, sm, sp, line + 1, start)
    wf[w, WF_RESUME] = max(start, ready)


@compiled_inline
def after_redirect(wf, tc, w, sequential, line, ready):
    """sass.fetch.redirect_next_line_cycles: a taken branch to `line` books when the line after it
    reaches warp w; the first step into that line waits for it.  Returns when `line` is there."""
    if sequential:
        if wf[w, WF_NEXT_LINE] == line + 1:             # stored + 1: 0 is none pending
            ready = max(ready, wf[w, WF_NEXT_LINE_AT])
        wf[w, WF_NEXT_LINE] = 0
    else:
        wf[w, WF_NEXT_LINE] = line + 2
        wf[w, WF_NEXT_LINE_AT] = max(ready, wf[w, WF_RESUME]) + tc[T_NEXT_LINE]
    return ready


@compiled_inline
def fetch_next(wf, ts, tc, w, pc, sm, sp, cycle):
    """Warp w, having issued pc, continues at wf[w, WF_PC]: when that is on another line, it
    waits until the line is in the L0 (stall `no_instruction`)."""
    nxt = wf[w, WF_PC]
    line = nxt // tc[T_LINE_INSTS]
    if line == pc // tc[T_LINE_INSTS] and nxt == pc + 1:
        return
    ready = request_line(ts, tc, sm, sp, line, cycle)
    request_line(ts, tc, sm, sp, line + 1, cycle)          # next-line prefetch
    if tc[T_NEXT_LINE] > 0:
        ready = after_redirect(wf, tc, w, nxt == pc + 1, line, ready)
    if ready > wf[w, WF_RESUME]:
        wf[w, WF_RESUME] = ready
        wf[w, WF_RESUME_KIND] = R_NO_INST
