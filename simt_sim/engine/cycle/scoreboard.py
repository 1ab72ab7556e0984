"""The scoreboard: when each warp's registers are written, and what the next instruction waits on.

Registers of all files share one numbering per warp (see simt_sim/machine/tables.py): a pending
result has a ready cycle and a stall class (wait: fixed-latency ALU, short_scoreboard: shared
memory or SFU, long_scoreboard: global/local memory).  An instruction may issue once all its
sources and destinations (no write-after-write overtaking) are ready.

SASS rows are timed from ptxas's control codes instead (config `sass.control_codes`): the
compiler's stall counts cover fixed-latency results, and a variable-latency instruction names a
dependence barrier (SB0..SB5) that is pending until its result is written (write barrier) or its
sources are read (read barrier); a later instruction's wait mask lists the barriers that must be
clear before it issues.  Each barrier keeps the cycle its last pending event happens.
cp.async copies (LDGSTS) count per group instead: LDGDEPBAR commits the copies issued since the
last commit as one group, and `DEPBAR.LE SBn, N` waits until at most N groups are incomplete.
"""
from __future__ import annotations

from simt_sim.engine.jit import compiled_inline

from simt_sim.isa import encoding as E
from simt_sim.machine.layout import (N_COPY_GROUPS, N_SB, R_LONG, R_WAIT, WF_COPIES_OPEN, WF_GROUP, WF_GROUPS, WF_SB,
                                     WF_SB_KIND)


@compiled_inline
def latest(regs_of_pc, reg_ready, reg_kind, w, best, kind):
    """The latest ready cycle (and its stall class) among a -1-terminated register list."""
    for r in regs_of_pc:
        if r < 0:
            break
        if reg_ready[w, r] > best:
            best = reg_ready[w, r]
            kind = reg_kind[w, r]
    return best, kind


@compiled_inline
def operands_ready(tab, reg_ready, reg_kind, w, pc):
    """(cycle from which pc's operands are all ready for warp w, stall reason until then)."""
    best, kind = latest(tab.srcs[pc], reg_ready, reg_kind, w, 0, R_WAIT)
    return latest(tab.dsts[pc], reg_ready, reg_kind, w, best, kind)


@compiled_inline
def write_results(tab, reg_ready, reg_kind, w, pc, ready, kind):
    for j in range(tab.dsts.shape[1]):
        r = tab.dsts[pc, j]
        if r < 0:
            break
        reg_ready[w, r] = ready
        reg_kind[w, r] = kind


@compiled_inline
def hold_barrier(wf, w, b, until, kind):
    if b != E.CTRL_NO_BARRIER and until >= wf[w, WF_SB + b]:
        wf[w, WF_SB + b] = until
        wf[w, WF_SB_KIND + b] = kind


@compiled_inline
def set_barriers(wf, w, ctrl, ready, kind, read_at):
    """An issued SASS instruction's write barrier is pending until its result is ready, its read
    barrier until its sources are read."""
    hold_barrier(wf, w, (ctrl >> E.CTRL_WBAR_SHIFT) & 7, ready, kind)
    hold_barrier(wf, w, (ctrl >> E.CTRL_RBAR_SHIFT) & 7, read_at, kind)


@compiled_inline
def barriers_clear(wf, w, ctrl):
    """(cycle from which every barrier in the wait mask of control code ctrl is clear, stall class
    until then)."""
    mask = (ctrl >> E.CTRL_WAIT_SHIFT) & 0x3F
    best = 0
    kind = R_WAIT
    for b in range(N_SB):
        if (mask >> b) & 1 and wf[w, WF_SB + b] > best:
            best = wf[w, WF_SB + b]
            kind = wf[w, WF_SB_KIND + b]
    return best, kind


@compiled_inline
def track_copy_groups(wf, w, op, ready, cycle):
    """LDGSTS extends the open group to its data's arrival; LDGDEPBAR commits it."""
    if op == E.OP_CP_ASYNC:
        wf[w, WF_COPIES_OPEN] = max(wf[w, WF_COPIES_OPEN], ready)
    elif op == E.OP_S_LDGDEPBAR:
        g = wf[w, WF_GROUPS]
        wf[w, WF_GROUP + g % N_COPY_GROUPS] = max(wf[w, WF_COPIES_OPEN], cycle)
        wf[w, WF_GROUPS] = g + 1
        wf[w, WF_COPIES_OPEN] = 0


@compiled_inline
def groups_done(wf, w, keep):
    """Cycle from which at most `keep` committed cp.async groups are incomplete (groups older than
    the ring are taken as complete)."""
    g = wf[w, WF_GROUPS]
    done = 0
    for j in range(max(0, g - N_COPY_GROUPS), g - keep):
        done = max(done, wf[w, WF_GROUP + j % N_COPY_GROUPS])
    return done, R_LONG
