"""Register-file reads of SASS instructions: banks, the operand collector and the reuse cache.

Each sub-partition's register file has `sass.register_banks` banks (register number mod banks),
and each bank reads one register per cycle.  The operand collector holds two instructions of a
warp, so an instruction's reads may begin when the instruction before its predecessor issued;
it issues one cycle after its last read.  A source slot whose register the previous instruction
kept with its reuse flag (and did not write) needs no read.  Measured on the H100 with the
t-regbank-* probes: three reads per FFMA sustain 1.5 cycles per instruction, one read 1.0.

Writes: the fixed-latency results of `sass.write_port_units` share one register-file write per
cycle, taken at issue + latency.  Pipes of one latency never collide (one issue per cycle); a
DMUL's result (8 cycles) lands with that of an FMUL issued 4 cycles after it, and the FMUL waits.
"""
from __future__ import annotations

from simt_sim.engine.jit import compiled_inline
from simt_sim.isa import encoding as E
from simt_sim.machine.layout import N_REUSE_SLOTS, N_WRITE_RING, SC_BANK, SC_WRITE, TC, WF_PREV_ISSUE, WF_REUSE

T_BANKS, T_WRITE_PORT = TC["register_banks"], TC["write_port"]


@compiled_inline
def read_before(tab, pc, s):
    """Whether an earlier source slot of pc reads the same registers as slot s (read once for both)."""
    for k in range(s):
        if tab.rf_first[pc, k] == tab.rf_first[pc, s] and tab.rf_count[pc, k] == tab.rf_count[pc, s]:
            return True
    return False


@compiled_inline
def read_operands(wf, sched, tab, tc, w, sm, sp, pc):
    """Reserve the bank reads of warp w's next instruction pc; the cycle it may issue after them."""
    banks = tc[T_BANKS]
    start = wf[w, WF_PREV_ISSUE]
    last = -1
    for s in range(N_REUSE_SLOTS):
        first = tab.rf_first[pc, s]
        if first < 0 or wf[w, WF_REUSE + s] == first + 1 or read_before(tab, pc, s):
            continue
        for r in range(first, first + tab.rf_count[pc, s]):
            b = SC_BANK + r % banks
            t = max(sched[sm, sp, b], start)
            sched[sm, sp, b] = t + 1
            last = max(last, t)
    return last + 1


@compiled_inline
def keep_reused(wf, tab, w, pc, ctrl):
    """After warp w issued pc: the operands its reuse flags keep, less the registers it writes."""
    reuse = (ctrl >> E.CTRL_REUSE_SHIFT) & 0xF
    for s in range(N_REUSE_SLOTS):
        first = tab.rf_first[pc, s]
        keep = first >= 0 and (reuse >> s) & 1 == 1
        for j in range(tab.dsts.shape[1]):
            d = tab.dsts[pc, j]
            if d < 0:
                break
            if first <= d < first + tab.rf_count[pc, s]:
                keep = False
        wf[w, WF_REUSE + s] = first + 1 if keep else 0


@compiled_inline
def write_port_taken(sched, tab, sm, sp, pc, cycle):
    """Whether pc's result would land in a cycle whose register-file write is already booked."""
    lat = tab.rf_write[pc]
    if lat == 0:
        return False
    at = cycle + lat
    return sched[sm, sp, SC_WRITE + at % N_WRITE_RING] == at


@compiled_inline
def book_write(sched, tab, sm, sp, pc, cycle):
    lat = tab.rf_write[pc]
    if lat > 0:
        at = cycle + lat
        sched[sm, sp, SC_WRITE + at % N_WRITE_RING] = at
