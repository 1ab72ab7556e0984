"""Functional-unit pipes per sub-partition: a pipe accepts a warp-instruction when its previous
one has moved on (its initiation interval, ceil(warp_size / lanes), has passed).  With a memory
queue (sass.memory_queue), memory instructions issue into the sub-partition's queue while it has
room and enter the LD/ST pipe in order, each when the pipe has served the one before it."""
from __future__ import annotations

from simt_sim.engine.jit import compiled_inline
from simt_sim.machine.layout import (W_LOAD, W_LOAD_PASS_CYCLES, W_STORE, CL_MEM, INF, SCRATCH_PORT_WAIT, SCRATCH_STORE_WAIT, SCRATCH_WAVEFRONTS, TC,
                                     WF_SHARED_FREE)

T_MEMQ, T_WARP_PASS, T_WARP_STORE_PASS = TC["memory_queue"], TC["warp_pass_cycles"], TC["warp_store_pass_cycles"]
T_WARP_CONFLICT_PASS = TC["warp_conflict_pass_cycles"]
T_STORE_CYCLES = TC["shared_store_cycles"]


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
def pipe_time(tab, tc, scratch, pc):
    """Cycles pc's instruction holds its pipe: its interval, or a shared-memory access's passes through
    the banks times its cycles per pass if longer.  With a memory queue a shared access holds it for
    its passes alone (a store for its data and units.ldst.shared_store_cycles, its bank conflicts
    costing the SM's port only: tables.shared_store_passes), and until the SM's shared port has started
    taking it (so the queue fills when the port, not the pipe, is the bottleneck)."""
    passes = scratch[SCRATCH_WAVEFRONTS]
    if passes == 0 or tab.pass_cycles[pc] == 0:
        if tab.cls[pc] == CL_MEM:       # a global store waiting for the SM's store port holds it too
            return tab.ii[pc] + scratch[SCRATCH_STORE_WAIT]
        return tab.ii[pc]
    if tc[T_MEMQ] > 0:
        if tab.shared_width[pc, W_STORE] > 0:        # its data move while it waits for the port
            own = tab.shared_width[pc, W_STORE] * tab.pass_cycles[pc] + tc[T_STORE_CYCLES]
            return max(own, scratch[SCRATCH_PORT_WAIT] + passes)
        return passes * tab.pass_cycles[pc] + scratch[SCRATCH_PORT_WAIT]
    return max(tab.ii[pc], passes * tab.pass_cycles[pc])


@compiled_inline
def occupy_pipe(unit_free, tab, sm, sp, pc, cycle, busy):
    """Send pc's instruction into a free pipe of its unit for busy cycles; returns the pipe."""
    p = pipe_free(unit_free, tab, sm, sp, pc, cycle)
    unit_free[sm, sp, tab.unit[pc], p] = cycle + busy
    return p


@compiled_inline
def queued(tab, tc, pc):
    """Whether pc's instruction goes through the sub-partition's memory queue."""
    return tc[T_MEMQ] > 0 and tab.cls[pc] == CL_MEM


@compiled_inline
def accepts(unit_free, mem_queue, tab, tc, sm, sp, pc, cycle):
    """Whether pc's instruction can issue at cycle: its queue has room (the oldest of the last
    sass.memory_queue instructions has entered the pipe), or else a pipe of its unit is free."""
    if queued(tab, tc, pc):
        return mem_queue[sm, sp, 1 + mem_queue[sm, sp, 0]] <= cycle
    return pipe_free(unit_free, tab, sm, sp, pc, cycle) >= 0


@compiled_inline
def accept_at(unit_free, mem_queue, tab, tc, sm, sp, pc):
    """The earliest cycle at which pc's instruction can issue, as far as its unit decides."""
    if queued(tab, tc, pc):
        return mem_queue[sm, sp, 1 + mem_queue[sm, sp, 0]]
    return earliest_pipe(unit_free, tab, sm, sp, pc)


@compiled_inline
def enqueue(unit_free, mem_queue, wf, tab, tc, w, sm, sp, pc, cycle):
    """The cycle warp w's instruction at pc, issued at cycle, enters its pipe: at once, or for a
    queued one when the pipe has served those before it and the warp's own shared accesses have
    passed (recorded in the queue's ring of entry cycles)."""
    if not queued(tab, tc, pc):
        return cycle
    start = max(cycle, earliest_pipe(unit_free, tab, sm, sp, pc), wf[w, WF_SHARED_FREE])
    slot = mem_queue[sm, sp, 0]
    mem_queue[sm, sp, 1 + slot] = start
    mem_queue[sm, sp, 0] = (slot + 1) % tc[T_MEMQ]
    return start


@compiled_inline
def hold_warp(wf, tab, tc, scratch, w, pc, start):
    """A queued shared access of warp w that entered its pipe at start: the warp's next memory
    instruction waits for its passes at the warp's own rate (units.ldst.warp_shared_bytes_per_cycle;
    a store's for its width's passes at that rate, or its passes at warp_shared_store_bytes_per_cycle
    if longer; a load's for its width's passes at that rate (an ldmatrix's at
    warp_ldsm_bytes_per_cycle) and its bank conflicts' at warp_shared_conflict_bytes_per_cycle)."""
    if queued(tab, tc, pc) and tc[T_WARP_PASS] > 0 and tab.pass_cycles[pc] > 0:
        held = scratch[SCRATCH_WAVEFRONTS] * tc[T_WARP_PASS]
        widths = tab.shared_width[pc]
        if widths[W_STORE] > 0 and tc[T_WARP_STORE_PASS] > 0:    # its width, or its conflicts
            held = max(widths[W_STORE] * tc[T_WARP_PASS], scratch[SCRATCH_WAVEFRONTS] * tc[T_WARP_STORE_PASS])
        elif widths[W_LOAD] > 0:
            width = min(widths[W_LOAD], scratch[SCRATCH_WAVEFRONTS])
            held = width * widths[W_LOAD_PASS_CYCLES] + (scratch[SCRATCH_WAVEFRONTS] - width) * tc[T_WARP_CONFLICT_PASS]
        wf[w, WF_SHARED_FREE] = start + held
