"""The run loop: places blocks in resident slots and issues warps until the grid is done.

Functional mode issues one instruction per ready warp per round, in warp order (loose round
robin), which is deterministic.  The cycle-level timing model replaces only the choice of which
warp issues when; execution itself is execute.step_warp.
"""
from __future__ import annotations

import numpy as np
from simt_sim.engine.jit import compiled

from simt_sim.engine.functional.execute import STEP_FAULT, set_fault, step_warp
from simt_sim.machine.layout import (C_BLOCKS_DONE, C_CLOCK, C_CURSOR, C_EVENTS, C_HIST, C_NEXT_BLOCK, EVENTS_PER_STEP,
                                     C_PROGRESSED, C_SLICE_END, C_WARP_INSTS, FAULT_DEADLOCK, FAULT_LIMIT, G,
                                     RUN_DONE, RUN_EVENTS_FULL, RUN_FAULT, RUN_HISTORY_FULL, RUN_SLICE, WF_ARRIVED, WF_BAR_COUNT, WF_BAR_MASK, WF_CALL_DEPTH, WF_FULL,
                                     WF_GID, WF_LIVE, WF_MASK, WF_MAX_SP, WF_PC, WF_SP, WF_STATUS, W_BARRIER,
                                     W_DONE, W_EMPTY, W_READY)

G_WS, G_WPB, G_TPB, G_SLOTS, G_BLOCKS, G_SHARED, G_LOCAL, G_MAXI = (
    G["warp_size"], G["wpb"], G["tpb"], G["slots"], G["blocks"], G["shared_bytes"], G["local_bytes"],
    G["max_warp_insts"])


@compiled
def launch_block(slot, block, regs, ws, mem, geom, slot_block):
    """Reset a slot's warps, registers, shared and local memory for a new block."""
    wsz = geom[G_WS]
    wpb = geom[G_WPB]
    tpb = geom[G_TPB]
    slot_block[slot] = block
    for wib in range(wpb):
        w = slot * wpb + wib
        first_t = w * wsz
        n = min(wsz, tpb - wib * wsz)
        full = np.int64(-1) if n >= 64 else (np.int64(1) << n) - 1
        regs.r32[:, first_t:first_t + wsz] = 0
        regs.r64[:, first_t:first_t + wsz] = 0
        regs.pred[:, first_t:first_t + wsz] = 0
        ws.f[w, WF_PC] = 0
        ws.f[w, WF_MASK] = full
        ws.f[w, WF_LIVE] = full
        ws.f[w, WF_FULL] = full
        ws.f[w, WF_SP] = 0
        ws.f[w, WF_MAX_SP] = 0
        ws.f[w, WF_CALL_DEPTH] = 0
        ws.f[w, WF_BAR_MASK] = 0
        ws.f[w, WF_BAR_COUNT] = -1
        ws.f[w, WF_ARRIVED] = 0
        ws.cbar[w, :, :] = 0
        ws.f[w, WF_GID] = block * wpb + wib
        ws.f[w, WF_STATUS] = W_READY if n > 0 else W_DONE
    sb = geom[G_SHARED]
    mem.smem[slot * sb:(slot + 1) * sb] = 0
    lb = geom[G_LOCAL]
    if lb > 0:
        mem.lmem[slot * wpb * wsz * lb:(slot + 1) * wpb * wsz * lb] = 0


@compiled
def slot_finished(ws, slot, wpb):
    for w in range(slot * wpb, slot * wpb + wpb):
        if ws.f[w, WF_STATUS] != W_DONE:
            return False
    return True


@compiled
def retire_slot(ws, s, wpb, slot_block, warp_max_sp, counters):
    """Free a finished block's slot, keeping its per-warp statistics."""
    counters[C_BLOCKS_DONE] += 1
    slot_block[s] = -1
    for w in range(s * wpb, s * wpb + wpb):
        if warp_max_sp.shape[0] > 0:
            warp_max_sp[ws.f[w, WF_GID]] = ws.f[w, WF_MAX_SP]
        ws.f[w, WF_STATUS] = W_EMPTY


@compiled
def fill_slots(regs, ws, mem, geom, slot_block, counters, warp_max_sp):
    """Retire finished blocks and launch waiting ones."""
    wpb = geom[G_WPB]
    for s in range(geom[G_SLOTS]):
        if ws.f[s * wpb, WF_STATUS] == W_EMPTY or (slot_block[s] >= 0 and slot_finished(ws, s, wpb)):
            if slot_block[s] >= 0 and ws.f[s * wpb, WF_STATUS] != W_EMPTY:
                retire_slot(ws, s, wpb, slot_block, warp_max_sp, counters)
            if counters[C_NEXT_BLOCK] < geom[G_BLOCKS]:
                launch_block(s, counters[C_NEXT_BLOCK], regs, ws, mem, geom, slot_block)
                counters[C_NEXT_BLOCK] += 1


@compiled
def run_functional(code, regs, ws, mem, geom, slot_block, counters, thread_icount, warp_max_sp, hist, ev,
                   fault):
    """Rounds over the warp slots, one instruction per ready warp per round.  A full history or
    event buffer, or counters[C_SLICE_END] warp-instructions reached (RUN_SLICE), returns to the
    host mid-round; counters[C_CURSOR] keeps the place, so the issue order never depends on buffer
    sizes or slices.  The instruction limit is checked only when a slice ends (the host never sets
    slice_end past it)."""
    n_warps = ws.f.shape[0]
    max_insts = geom[G_MAXI]
    while True:
        if counters[C_CURSOR] == 0:
            fill_slots(regs, ws, mem, geom, slot_block, counters, warp_max_sp)
            counters[C_PROGRESSED] = 0
        for w in range(counters[C_CURSOR], n_warps):
            if ws.f[w, WF_STATUS] != W_READY:
                continue
            counters[C_CURSOR] = w
            if hist.shape[0] > 0 and counters[C_HIST] >= hist.shape[0]:
                return RUN_HISTORY_FULL
            if counters[C_EVENTS] + EVENTS_PER_STEP >= ev.shape[0]:
                return RUN_EVENTS_FULL
            if counters[C_WARP_INSTS] >= counters[C_SLICE_END]:
                if counters[C_WARP_INSTS] >= max_insts:
                    set_fault(fault, FAULT_LIMIT, ws.f[w, WF_GID], -1, ws.f[w, WF_PC], 0, max_insts)
                    return RUN_FAULT
                return RUN_SLICE      # the host checks Ctrl-C and the wall clock, moves slice_end on
            if step_warp(code, regs, ws, mem, w, geom, slot_block, counters, thread_icount,
                         hist, ev, fault) == STEP_FAULT:
                return RUN_FAULT
            counters[C_CLOCK] += 1      # functional mode: %clock counts warp-instructions
            counters[C_PROGRESSED] = 1
        counters[C_CURSOR] = 0
        if counters[C_PROGRESSED]:
            continue
        waiting = first_with_status(ws, W_BARRIER)
        if waiting >= 0:
            # Every unfinished warp waits at a barrier that cannot complete.
            set_fault(fault, FAULT_DEADLOCK, ws.f[waiting, WF_GID], -1, ws.f[waiting, WF_PC] - 1, 0,
                      waiting // geom[G_WPB])
            return RUN_FAULT
        fill_slots(regs, ws, mem, geom, slot_block, counters, warp_max_sp)
        if first_with_status(ws, W_READY) < 0:
            return RUN_DONE


@compiled
def first_with_status(ws, status):
    for w in range(ws.f.shape[0]):
        if ws.f[w, WF_STATUS] == status:
            return w
    return -1
