"""Stall accounting: every cycle of a warp between two of its issues gets one reason, named
after Nsight Compute's where they map (layout.STALL_NAMES), optionally logged as intervals.

The same cycles also count as the PC samples Nsight Compute would take of them (`sampled`): its
sampler takes, at a fixed interval of cycles, one of the active warps of each SM, so a warp's
cycle counts 1 / the SM's active warps (U_LIVE: started and not exited), taken when the warp
issues (a wait over which other warps exit is weighed at its end).  An SM's lone last warp so
gets as many samples a cycle as all its warps did together (docs/timing.md, "What Nsight
Compute's PC samples weigh").  Per pc only: run/timed.py shares them out over the pc's reasons
in proportion to its warp-cycles."""
from __future__ import annotations

from simt_sim.engine.buffers import append4
from simt_sim.engine.jit import compiled, compiled_inline
from simt_sim.machine.layout import (N_TLOG, R_BRANCH, R_DISPATCH, R_NO_INST, R_NOT_SELECTED, R_WAIT, TC, WF_ACCOUNTED,
                                     WF_HELD, WF_NOT_SELECTED, WF_OPERANDS_AT, WF_OPERANDS_KIND, WF_RESUME,
                                     WF_RESUME_KIND, WF_WAIT_UNTIL)

T_TRACE, T_RESOLVE = TC["record_trace"], TC["branch_resolve"]


@compiled_inline
def sampled(pc_samples, pc, cycles, weight):
    """A warp's `cycles` at pc (its waits and its issue) as expected samples, `weight` a cycle."""
    pc_samples[pc] += cycles * weight


@compiled_inline
def log_stall(tlog, now, record, gid, start, end, reason):
    if record and end > start:
        append4(tlog, now, N_TLOG, gid, start, end, reason)


@compiled_inline
def account_span(pc_stalls, tlog, now, record, gid, pc, start, end, reason):
    """Cycles start..end (none where end <= start) waiting for `reason` at pc; returns where the
    next span starts."""
    if end > start:
        pc_stalls[pc, reason] += end - start
        log_stall(tlog, now, record, gid, start, end, reason)
        return end
    return start


@compiled
def account(wf, pc_stalls, tlog, now, tc, w, gid, pc, cycle, throttle):
    """Attribute warp w's cycles since it could last issue, up to `cycle`, to stall reasons:
    resume delay (branch, barrier, launch), then operands, then unit or selection; per pc, the
    instruction the warp waited to issue (a kernel's totals are the sums over its pcs)."""
    a = wf[w, WF_ACCOUNTED]
    if cycle <= a:
        return
    record = tc[T_TRACE]
    rkind = wf[w, WF_RESUME_KIND]
    r_end = min(max(wf[w, WF_RESUME], a), cycle)
    waited = wf[w, WF_WAIT_UNTIL]
    if waited > 0:                        # after a taken branch: its stall count, resolving, fetching
        a = account_span(pc_stalls, tlog, now, record, gid, pc, a, min(waited, r_end), R_WAIT)
        a = account_span(pc_stalls, tlog, now, record, gid, pc, a, min(waited + tc[T_RESOLVE], r_end), R_BRANCH)
        if rkind == R_BRANCH:
            rkind = R_NO_INST
    account_span(pc_stalls, tlog, now, record, gid, pc, a, r_end, rkind)
    okind = wf[w, WF_OPERANDS_KIND]
    o_end = min(max(wf[w, WF_OPERANDS_AT], r_end), cycle)
    pc_stalls[pc, okind] += o_end - r_end
    log_stall(tlog, now, record, gid, r_end, o_end, okind)
    rest = cycle - o_end
    held = min(wf[w, WF_HELD], rest)
    notsel = min(wf[w, WF_NOT_SELECTED], rest - held)
    pc_stalls[pc, R_DISPATCH] += held
    pc_stalls[pc, R_NOT_SELECTED] += notsel
    pc_stalls[pc, throttle] += rest - held - notsel
    # which of the ready cycles were unit waits, lost selection or were held is counted, not
    # ordered: the log shows the unit waits first, the held cycles last
    unit_end = cycle - notsel - held
    log_stall(tlog, now, record, gid, o_end, unit_end, throttle)
    log_stall(tlog, now, record, gid, unit_end, cycle - held, R_NOT_SELECTED)
    log_stall(tlog, now, record, gid, cycle - held, cycle, R_DISPATCH)
    wf[w, WF_NOT_SELECTED] = 0
    wf[w, WF_HELD] = 0
    wf[w, WF_ACCOUNTED] = cycle


@compiled_inline
def account_ahead(wf, pc_stalls, tlog, now, tc, w, gid, pc, coded_end, end):
    """Charge warp w's coming wait now, up to `end`, to pc: until coded_end (its stall count) as
    wait, then as branch resolving.  For a BSYNC that leaves its group waiting: Nsight Compute counts
    the switch to the next group at the instruction after the BSYNC, where the waiting group goes
    on (CUDA-EC: `python -m simt_sim.calibrate.pc_stalls compare w-regroup-ec-base`)."""
    record = tc[T_TRACE]
    a = account_span(pc_stalls, tlog, now, record, gid, pc, wf[w, WF_ACCOUNTED], coded_end, R_WAIT)
    a = account_span(pc_stalls, tlog, now, record, gid, pc, a, end, R_BRANCH)
    wf[w, WF_ACCOUNTED] = a
