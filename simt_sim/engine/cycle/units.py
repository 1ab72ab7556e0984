"""Functional-unit pipes per sub-partition: a pipe accepts a warp-instruction when its previous
one has moved on (its initiation interval, ceil(warp_size / lanes), has passed)."""
from __future__ import annotations

from simt_sim.engine.jit import compiled_inline
from simt_sim.machine.layout import INF


@compiled_inline
def pipe_free(unit_free, tab, sm, sp, pc, cycle):
    """Index of a pipe of pc's unit that accepts an instruction at cycle, or -1.  Pipes are tried
    from tab.pipe_from[pc] on, round to the first (which a unit may spare for the instructions
    that can use only it)."""
    u = tab.unit[pc]
    n = tab.pipes_of[pc]
    for i in range(n):
        p = i + tab.pipe_from[pc]
        if p >= n:
            p -= n
        if unit_free[sm, sp, u, p] <= cycle:
            return p
    return -1


@compiled_inline
def earliest_pipe(unit_free, tab, sm, sp, pc):
    u = tab.unit[pc]
    best = INF
    for p in range(tab.pipes_of[pc]):
        best = min(best, unit_free[sm, sp, u, p])
    return best


@compiled_inline
def pipe_time(tab, passes, pc):
    """Cycles pc's instruction holds its pipe: its interval, or a shared-memory access's passes through
    the banks times its cycles per pass, if longer."""
    return max(tab.ii[pc], passes * tab.pass_cycles[pc])


@compiled_inline
def occupy_pipe(unit_free, tab, sm, sp, pc, cycle, busy):
    """Send pc's instruction into a free pipe of its unit for busy cycles; returns the pipe."""
    p = pipe_free(unit_free, tab, sm, sp, pc, cycle)
    unit_free[sm, sp, tab.unit[pc], p] = cycle + busy
    return p
