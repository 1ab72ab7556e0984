"""The cycle loop: SMs and their sub-partition schedulers issue warp-instructions into functional
units (issue.py); the block scheduler (blocks.py) places blocks of one or more kernels under the
SM's occupancy limits.

Scheduling is event-driven: each scheduler keeps the cycle it next needs a look (`SC_WAKE`: the
next cycle after it issued, otherwise the earliest cycle one of its warps can become eligible),
each SM the earliest of its schedulers' (`U_WAKE`); SMs and schedulers with nothing due are
skipped, and cycles in which no scheduler can issue are skipped in one step.  Stall cycles are attributed per warp when it next issues.
"""
from __future__ import annotations

from simt_sim.engine.cycle.blocks import place_blocks
from simt_sim.engine.cycle.issue import scan_scheduler
from simt_sim.engine.functional.execute import set_fault
from simt_sim.engine.jit import compiled, compiled_inline
from simt_sim.machine.layout import (C_EVENTS, C_HIST, C_WARP_INSTS, EVENTS_PER_STEP, FAULT_CYCLE_LIMIT, FAULT_DEADLOCK,
                                     FAULT_LIMIT, G, INF, KF_STATE, KSTATE_DONE, N_NOW, N_PLACE, N_SLICE,
                                     N_TLOG, N_TRACE, RUN_DONE, RUN_EVENTS_FULL, RUN_FAULT, RUN_HISTORY_FULL,
                                     RUN_SLICE, RUN_TRACE_FULL, SC_WAKE, TC, U_WAKE, W_BARRIER, W_READY, WF_GID, WF_PC,
                                     WF_STATUS)

G_WPB, G_MAXI = G["wpb"], G["max_warp_insts"]
T_NSM, T_NSP, T_WIDTH, T_MAXC, T_TRACE = TC["n_sm"], TC["n_sp"], TC["issue_width"], TC["max_cycles"], TC["record_trace"]


@compiled
def all_done(ki):
    for k in range(ki.shape[0]):
        if ki[k, KF_STATE] != KSTATE_DONE:
            return False
    return True


@compiled
def stuck_warp(wf):
    for w in range(wf.shape[0]):
        if wf[w, WF_STATUS] == W_BARRIER or wf[w, WF_STATUS] == W_READY:
            return w
    return 0


@compiled
def buffer_full(run, ts, tc, per_cycle, n_warps):
    """The status to return when a buffer the host drains could overflow this cycle, else RUN_DONE."""
    counters, hist, ev = run[2], run[5], run[6]
    if hist.shape[0] > 0 and counters[C_HIST] + per_cycle >= hist.shape[0]:
        return RUN_HISTORY_FULL
    if counters[C_EVENTS] + EVENTS_PER_STEP * per_cycle >= ev.shape[0]:
        return RUN_EVENTS_FULL
    if tc[T_TRACE] and (ts.now[N_TRACE] + per_cycle >= ts.trace.shape[0]
                        or ts.now[N_TLOG] + 3 * per_cycle + 3 * n_warps >= ts.tlog.shape[0]):
        return RUN_TRACE_FULL
    return RUN_DONE


@compiled
def stop(fault, wf, code, extra):
    w = stuck_warp(wf)
    set_fault(fault, code, wf[w, WF_GID], -1, wf[w, WF_PC], 0, extra)
    return RUN_FAULT


@compiled
def next_event(ts, n_sm, kernel_wake):
    nxt = kernel_wake
    for sm in range(n_sm):
        nxt = min(nxt, ts.sm_use[sm, U_WAKE])
    return nxt


@compiled
def run_timed(code, regs, ws, mem, run, tc, tf, tab, ts, mt):
    """Run until every kernel is done (RUN_DONE), a fault, a full buffer or the end of a slice
    (the caller empties buffers / prints progress and calls again).
    run: (kgeom, slot_block, counters, thread_icount, warp_max_sp, hist, ev, fault)."""
    kgeom, slot_block, counters, fault = run[0], run[1], run[2], run[7]
    n_sm = tc[T_NSM]
    n_sp = tc[T_NSP]
    per_cycle = n_sm * n_sp * tc[T_WIDTH]
    n_warps = ws.f.shape[0]
    kernel_wake = place_blocks(regs, ws, mem, kgeom, slot_block, ts, tc, mt, ts.now[N_NOW])
    while True:
        cycle = ts.now[N_NOW]
        if ts.now[N_PLACE] or cycle >= kernel_wake:
            ts.now[N_PLACE] = 0
            kernel_wake = place_blocks(regs, ws, mem, kgeom, slot_block, ts, tc, mt, cycle)
        if all_done(ts.kinfo):
            return RUN_DONE
        if cycle >= tc[T_MAXC]:
            return stop(fault, ws.f, FAULT_CYCLE_LIMIT, tc[T_MAXC])
        if counters[C_WARP_INSTS] + per_cycle > kgeom[0][G_MAXI]:
            return stop(fault, ws.f, FAULT_LIMIT, kgeom[0][G_MAXI])
        full = buffer_full(run, ts, tc, per_cycle, n_warps)
        if full != RUN_DONE:
            return full
        if ts.now[N_SLICE] <= 0:
            return RUN_SLICE
        any_issue = False
        for sm in range(n_sm):
            if ts.sm_use[sm, U_WAKE] > cycle:        # none of its schedulers is due
                continue
            # each due scheduler gets its cycle; the SM wakes with its earliest scheduler.  Written
            # here, not as a function: numba copies an inlined function's IR once per level of
            # nesting, and this chain (scheduler -> issue -> step) is most of the engine
            wake = INF
            for sp in range(n_sp):
                if ts.sched[sm, sp, SC_WAKE] <= cycle:
                    got = scan_scheduler(code, regs, ws, mem, run, tc, tf, tab, ts, mt, sm, sp, cycle)
                    if got < 0:
                        return RUN_FAULT
                    if got > 0:
                        any_issue = True
                wake = min(wake, ts.sched[sm, sp, SC_WAKE])
            ts.sm_use[sm, U_WAKE] = wake
        if any_issue or ts.now[N_PLACE]:
            ts.now[N_NOW] = cycle + 1
            continue
        nxt = next_event(ts, n_sm, kernel_wake)
        if nxt >= INF:
            if all_done(ts.kinfo):
                return RUN_DONE
            w = stuck_warp(ws.f)
            set_fault(fault, FAULT_DEADLOCK, ws.f[w, WF_GID], -1, ws.f[w, WF_PC], 0, w // kgeom[0][G_WPB])
            return RUN_FAULT
        ts.now[N_NOW] = max(nxt, cycle + 1)
