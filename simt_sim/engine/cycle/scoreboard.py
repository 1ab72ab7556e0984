"""The scoreboard: when each warp's registers are written, and what the next instruction waits on.

Registers of all files share one numbering per warp (see simt_sim/machine/tables.py): a pending
result has a ready cycle and a stall class (wait: fixed-latency ALU, short_scoreboard: shared
memory or SFU, long_scoreboard: global/local memory).  An instruction may issue once all its
sources and destinations (no write-after-write overtaking) are ready.
"""
from __future__ import annotations

from simt_sim.engine.jit import compiled_inline

from simt_sim.machine.layout import R_WAIT


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
