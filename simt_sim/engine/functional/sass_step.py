"""One SASS row of a warp: the convergence and branch families here (convergence.py keeps their
state), everything else in sass_ops.py.  Memory, barrier and exit families arrive as PTX rows
and never come here (frontend/sass_lower.py)."""
from __future__ import annotations

import numpy as np

from simt_sim.engine.functional import convergence as C
from simt_sim.engine.functional import sass_half as SH
from simt_sim.engine.functional import sass_tensor as ST
from simt_sim.engine.functional import sass_warp as SW
from simt_sim.engine.functional.sass_ops import exec_sass, raw
from simt_sim.engine.jit import compiled
from simt_sim.isa import encoding as E
from simt_sim.machine.layout import (CB_ARRIVED, CB_MEMBERS, FAULT_STACK, FAULT_UNSUPPORTED, G,
                                     UNSUPPORTED_MMA_LANES, WF_GID, WF_MASK, WF_PC)

G_POLICY, G_WS = G["policy"], G["warp_size"]
NO_SEMANTICS = 2          # a FAULT_UNSUPPORTED's extra field: the SASS opcode has no semantics


@compiled
def sass_fault(fault, code, gid, pc, extra):
    fault[0] = code
    fault[1] = gid
    fault[2] = -1
    fault[3] = pc
    fault[4] = 0
    fault[5] = extra


@compiled
def step_sass(code, regs, ws, mem, row, op, w, pc, exec_mask, base_t, geom, slot_block, counters, ev, fault):
    """Execute SASS row `row` at pc for exec_mask; returns the pc the running group continues at,
    or -1 after a fault."""
    gid = ws.f[w, WF_GID]
    if op == E.OP_S_BRA:
        if not C.branch(ws, w, row[E.F_TARGET], exec_mask, pc + 1, geom[G_POLICY], ev, counters):
            sass_fault(fault, FAULT_STACK, gid, pc, ws.stack.shape[1])
            return -1
        return ws.f[w, WF_PC]
    if op == E.OP_S_BSSY:
        C.open_barrier(ws, w, row[E.F_CMP], ws.f[w, WF_MASK])
        return pc + 1
    if op == E.OP_S_BSYNC:
        C.arrive(ws, w, row[E.F_CMP], exec_mask, pc + 1, ev, counters)
        return ws.f[w, WF_PC]
    if op == E.OP_S_BREAK:
        C.break_out(ws, w, row[E.F_CMP], exec_mask)
        return pc + 1
    if op == E.OP_S_WARPSYNC:
        wanted = raw(code, regs, mem, row, 0, base_t, w, 0, geom, slot_block, counters) & ((np.int64(1) << 32) - 1)
        C.warpsync(ws, w, wanted, exec_mask, pc + 1, ev, counters)
        return ws.f[w, WF_PC]
    if op == E.OP_S_BMOV:
        b = row[E.F_CMP]
        if row[E.F_NDST] == 1:                  # BMOV.32 Rd, Bx: read (and with .CLEAR empty) it
            for lane in range(geom[G_WS]):
                if (exec_mask >> lane) & 1:
                    regs.r32[row[E.F_OPS + 1], base_t + lane] = np.uint32(ws.cbar[w, b, CB_MEMBERS] & 0xFFFFFFFF)
            if row[E.F_FLAGS] & E.SM_CLEAR:
                ws.cbar[w, b, CB_MEMBERS] = 0
                ws.cbar[w, b, CB_ARRIVED] = 0
        elif exec_mask != 0:
            first = 0
            while not (exec_mask >> first) & 1:
                first += 1
            ws.cbar[w, b, CB_MEMBERS] = raw(code, regs, mem, row, 0, base_t + first, w, first, geom, slot_block,
                                            counters) & 0xFFFFFFFF
        return pc + 1
    if (op == E.OP_S_NOP or op == E.OP_S_YIELD or op == E.OP_S_DEPBAR or op == E.OP_S_LDGDEPBAR
            or op == E.OP_S_ERRBAR or op == E.OP_S_CGAERRBAR):
        return pc + 1
    if ST.is_tensor(op):
        if geom[G_WS] != 32 or exec_mask != 0xFFFFFFFF:      # warp-collective: all 32 lanes, as in PTX
            sass_fault(fault, FAULT_UNSUPPORTED, gid, pc, UNSUPPORTED_MMA_LANES)
            fault[4] = exec_mask
            return -1
        ST.exec_sass_tensor(regs, row, op, base_t)
        return pc + 1
    if not exec_sass(code, regs, mem, row, op, w, exec_mask, base_t, geom, slot_block, counters) and \
            not exec_more(code, regs, mem, row, op, w, exec_mask, base_t, geom, slot_block, counters):
        sass_fault(fault, FAULT_UNSUPPORTED, gid, pc, NO_SEMANTICS)
        return -1
    return pc + 1


@compiled
def exec_more(code, regs, mem, row, op, w, exec_mask, base_t, geom, slot_block, counters):
    """The half and warp families (sass_half.py, sass_warp.py); False when op is none of them."""
    if SW.is_collective(op):
        SW.exec_collective(code, regs, mem, row, op, w, exec_mask, base_t, geom, slot_block, counters)
        return True
    for lane in range(geom[G_WS]):
        if (exec_mask >> lane) & 1:
            t = base_t + lane
            if not SH.exec_half_lane(code, regs, mem, row, op, t, w, lane, geom, slot_block, counters) and \
                    not SW.exec_warp_lane(code, regs, mem, row, op, t, w, lane, geom, slot_block, counters):
                return False
    return True
