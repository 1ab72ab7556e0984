"""One SASS row of a warp: the convergence and branch families here (convergence.py keeps their
state), everything else in sass_ops.py.  Memory, barrier and exit families arrive as PTX rows
and never come here (frontend/sass_lower.py)."""
from __future__ import annotations

import numpy as np

from simt_sim.engine.functional import convergence as C
from simt_sim.engine.functional import sass_fast as SF
from simt_sim.engine.functional import sass_half as SH
from simt_sim.engine.functional import sass_tensor as ST
from simt_sim.engine.functional import sass_warp as SW
from simt_sim.engine.functional.sass_ops import exec_sass, raw
from simt_sim.engine.functional.simt_stack import first_lane
from simt_sim.engine.jit import compiled
from simt_sim.isa import encoding as E
from simt_sim.machine.layout import (CB_ARRIVED, CB_MEMBERS, CB_PC, FAULT_BAD_TARGET, FAULT_STACK, FAULT_UNSUPPORTED,
                                     G, KIND_PENDING, KIND_PENDING_FALL,
                                     UNSUPPORTED_MMA_LANES, UNSUPPORTED_SASS, WF_GID, WF_LIVE, WF_MASK, WF_PC)

G_POLICY, G_WS = G["policy"], G["warp_size"]
NO_SEMANTICS = UNSUPPORTED_SASS          # a FAULT_UNSUPPORTED's extra field: the SASS opcode has no semantics


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
    ctx = C.call_context(regs, base_t, ws.f[w, WF_MASK])
    if op == E.OP_S_BRA:
        if row[E.F_NOPS] == 1 and exec_mask != 0:
            exec_mask = branch_lanes(code, regs, ws, mem, row, w, exec_mask, base_t, geom, slot_block, counters)
        if not C.branch(ws, w, row[E.F_TARGET], exec_mask, pc + 1, geom[G_POLICY], ev, counters, ctx):
            sass_fault(fault, FAULT_STACK, gid, pc, ws.stack.shape[1])
            return -1
        return ws.f[w, WF_PC]
    if op == E.OP_S_CALL or op == E.OP_S_RET:
        if row[E.F_NOPS] == 0:                  # CALL.REL.NOINC label: a jump (the caller set the return address)
            count_call(regs, exec_mask, base_t, geom[G_WS], 1)
            if not C.branch(ws, w, row[E.F_TARGET], exec_mask, pc + 1, geom[G_POLICY], ev, counters, ctx):
                sass_fault(fault, FAULT_STACK, gid, pc, ws.stack.shape[1])
                return -1
            return ws.f[w, WF_PC]
        if op == E.OP_S_RET and row[E.F_NOPS] == 2 and exec_mask != 0:
            exec_mask = condition_lanes(code, regs, mem, row, 1, w, exec_mask, base_t, geom, slot_block, counters)
        if exec_mask != 0:                      # CALL Rn goes one level deeper, RET Rn one back
            count_call(regs, exec_mask, base_t, geom[G_WS], 1 if op == E.OP_S_CALL else -1)
        return jump_through_register(code, regs, ws, mem, row, w, pc, exec_mask, base_t, geom, slot_block,
                                     counters, ev, fault)
    if op == E.OP_S_BSSY:
        b = row[E.F_CMP]
        left = C.abandoned_waiters(ws, w, b, ws.f[w, WF_MASK])
        ws.cbar[w, b, CB_ARRIVED] &= ~left
        while left != 0:                        # each group of waiters at the pc after its own BSYNC
            first = first_lane(left)
            at = C.wait_pc(regs, base_t, first, ws.cbar[w, b, CB_PC])
            group = np.int64(0)
            for lane in range(geom[G_WS]):
                if (left >> lane) & 1 and C.wait_pc(regs, base_t, lane, ws.cbar[w, b, CB_PC]) == at:
                    group |= np.int64(1) << lane
            left &= ~group
            if not C.push_pending(ws, w, at, group, KIND_PENDING_FALL, C.call_context(regs, base_t, group)):
                sass_fault(fault, FAULT_STACK, gid, pc, ws.stack.shape[1])
                return -1
        C.open_barrier(ws, w, b, ws.f[w, WF_MASK])
        return pc + 1
    if op == E.OP_S_BSYNC:
        C.note_arrival(regs, base_t, exec_mask, geom[G_WS], pc + 1)
        if not C.arrive(ws, w, row[E.F_CMP], exec_mask, pc + 1, ev, counters, ctx):
            sass_fault(fault, FAULT_STACK, gid, pc, ws.stack.shape[1])
            return -1
        return ws.f[w, WF_PC]
    if op == E.OP_S_BREAK:
        C.break_out(ws, w, row[E.F_CMP], exec_mask)
        return pc + 1
    if op == E.OP_S_WARPSYNC:
        if exec_mask == 0:                      # guarded off in every lane
            return pc + 1
        first = first_lane(exec_mask)           # the mask register of the first executing lane
        wanted = raw(code, regs, mem, row, 0, base_t + first, w, first, geom, slot_block,
                     counters) & ((np.int64(1) << 32) - 1)
        if not C.warpsync(ws, w, wanted, exec_mask, pc + 1, ev, counters, ctx):
            sass_fault(fault, FAULT_STACK, gid, pc, ws.stack.shape[1])
            return -1
        return ws.f[w, WF_PC]
    if op == E.OP_S_BMOV:
        b = row[E.F_CMP]
        if row[E.F_NDST] == 1:                  # BMOV.32 Rd, Bx: read (and with .CLEAR empty) it
            for lane in range(geom[G_WS]):
                if (exec_mask >> lane) & 1:
                    regs.r32[row[E.F_OPS + 1], base_t + lane] = np.uint32(ws.cbar[w, b, CB_MEMBERS] & 0xFFFFFFFF)
            if row[E.F_FLAGS] & E.SM_CLEAR:
                # the threads already waiting at this barrier stay waiting: a callee saves its
                # caller's barrier (BMOV.32.CLEAR R2, B6 ... BMOV.32 B6, R2) and reuses it
                ws.cbar[w, b, CB_MEMBERS] = 0
        elif exec_mask != 0:
            first = first_lane(exec_mask)
            ws.cbar[w, b, CB_MEMBERS] = raw(code, regs, mem, row, 0, base_t + first, w, first, geom, slot_block,
                                            counters) & 0xFFFFFFFF
            # the restored use's waiters go on after their own BSYNC, whose pc the callee's use of
            # the barrier overwrote in CB_PC
            waiters = ws.cbar[w, b, CB_ARRIVED] & ws.cbar[w, b, CB_MEMBERS] & ws.f[w, WF_LIVE]
            if waiters != 0:
                ws.cbar[w, b, CB_PC] = C.wait_pc(regs, base_t, first_lane(waiters), ws.cbar[w, b, CB_PC])
        return pc + 1
    if op == E.OP_S_YIELD:
        if exec_mask == 0:                      # guarded off in every lane
            return pc + 1
        if not C.yield_group(ws, w, pc + 1, ev, counters, ctx):
            sass_fault(fault, FAULT_STACK, gid, pc, ws.stack.shape[1])
            return -1
        return ws.f[w, WF_PC]
    if (op == E.OP_S_NOP or op == E.OP_S_DEPBAR or op == E.OP_S_LDGDEPBAR
            or op == E.OP_S_ERRBAR or op == E.OP_S_CGAERRBAR):
        return pc + 1
    if ST.is_tensor(op):
        if geom[G_WS] != 32 or exec_mask != 0xFFFFFFFF:      # warp-collective: all 32 lanes, as in PTX
            sass_fault(fault, FAULT_UNSUPPORTED, gid, pc, UNSUPPORTED_MMA_LANES)
            fault[4] = exec_mask
            return -1
        ST.exec_sass_tensor(regs, row, op, base_t)
        return pc + 1
    if SF.sass_alu_warp(code, regs, mem, row, op, exec_mask, base_t, geom[G_WS], w, geom, slot_block, counters):
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


@compiled
def count_call(regs, exec_mask, base_t, wsz, step):
    """The CALL depth of the executing threads goes up (CALL) or down (RET) by one
    (convergence.call_context)."""
    for lane in range(wsz):
        if (exec_mask >> lane) & 1:
            v = np.int64(regs.r32[E.SASS_CALL_DEPTH_ROW, base_t + lane])
            regs.r32[E.SASS_CALL_DEPTH_ROW, base_t + lane] = np.uint32((v & ~C.DEPTH_BITS) | ((v + step) & C.DEPTH_BITS))


@compiled
def code_target(code, regs, mem, row, t, w, lane, geom, slot_block, counters):
    """The pc a CALL / RET through a register sends thread t to: the kernel's first pc
    (F_TARGET) plus the register's byte offset / 16; -1 when that is not an instruction of the
    kernel (F_TARGET .. F_TARGET2)."""
    value = raw(code, regs, mem, row, 0, t, w, lane, geom, slot_block, counters)
    if value < 0 or value % 16 != 0 or value // 16 >= row[E.F_TARGET2] - row[E.F_TARGET]:
        return np.int64(-1)
    return row[E.F_TARGET] + value // 16


@compiled
def jump_through_register(code, regs, ws, mem, row, w, pc, exec_mask, base_t, geom, slot_block, counters, ev,
                          fault):
    """RET Rn / CALL Rn (a function pointer): each thread jumps to its own register's address.
    Threads with one target go on as one group.  With several targets (a divergent indirect
    call) the group of the lowest lane runs first and the others wait as pending groups, the
    next-lowest lane's first (an assumption: the H100 order is not measured yet); threads whose
    guard is false fall through as with a branch."""
    first = -1
    target = np.int64(-1)
    for lane in range(geom[G_WS]):
        if (exec_mask >> lane) & 1:
            tgt = code_target(code, regs, mem, row, base_t + lane, w, lane, geom, slot_block, counters)
            if tgt < 0:
                sass_fault(fault, FAULT_BAD_TARGET, ws.f[w, WF_GID], pc, (row[E.F_TARGET2] - row[E.F_TARGET]) * 16)
                fault[2] = lane
                fault[4] = raw(code, regs, mem, row, 0, base_t + lane, w, lane, geom, slot_block, counters)
                return -1
            if first < 0:
                first, target = lane, tgt
    if first < 0:                               # no thread's guard is true: everyone falls through
        return pc + 1
    others = np.int64(0)
    for lane in range(geom[G_WS]):
        if (exec_mask >> lane) & 1 and code_target(code, regs, mem, row, base_t + lane, w, lane, geom, slot_block,
                                                   counters) != target:
            others |= np.int64(1) << lane
    while others != 0:                          # highest lanes' group first: it pops last
        hi = 63
        while not (others >> hi) & 1:
            hi -= 1
        tgt = code_target(code, regs, mem, row, base_t + hi, w, hi, geom, slot_block, counters)
        group = np.int64(0)
        for lane in range(hi + 1):
            if (others >> lane) & 1 and code_target(code, regs, mem, row, base_t + lane, w, lane, geom, slot_block,
                                                    counters) == tgt:
                group |= np.int64(1) << lane
        if not C.push_pending(ws, w, tgt, group, KIND_PENDING, C.call_context(regs, base_t, group)):
            sass_fault(fault, FAULT_STACK, ws.f[w, WF_GID], pc, ws.stack.shape[1])
            return -1
        ws.f[w, WF_MASK] &= ~group
        others &= ~group
    if not C.branch(ws, w, target, exec_mask & ws.f[w, WF_MASK], pc + 1, geom[G_POLICY], ev, counters,
                    C.call_context(regs, base_t, ws.f[w, WF_MASK])):
        sass_fault(fault, FAULT_STACK, ws.f[w, WF_GID], pc, ws.stack.shape[1])
        return -1
    return ws.f[w, WF_PC]


@compiled
def condition_lanes(code, regs, mem, row, k, w, exec_mask, base_t, geom, slot_block, counters):
    """The lanes of exec_mask where predicate source k holds (`@!P0 RET.REL.NODEC !P1, R24`: those
    return, the others fall through)."""
    taken = np.int64(0)
    for lane in range(geom[G_WS]):
        if (exec_mask >> lane) & 1 and raw(code, regs, mem, row, k, base_t + lane, w, lane, geom, slot_block,
                                            counters) & 1:
            taken |= np.int64(1) << lane
    return taken


@compiled
def branch_lanes(code, regs, ws, mem, row, w, exec_mask, base_t, geom, slot_block, counters):
    """The threads a BRA with an operand sends to its target: `@P0 BRA !P2, t` those whose second
    predicate also holds (F_CMP 0); `BRA.DIV URn, t` all of them when a thread URn names is not in
    the running group (the warp is diverged), none otherwise (F_CMP 1)."""
    if row[E.F_CMP] == 0:
        taken = np.int64(0)
        for lane in range(geom[G_WS]):
            if (exec_mask >> lane) & 1 and raw(code, regs, mem, row, 0, base_t + lane, w, lane, geom, slot_block,
                                                counters) != 0:
                taken |= np.int64(1) << lane
        return taken
    first = first_lane(exec_mask)
    named = raw(code, regs, mem, row, 0, base_t + first, w, first, geom, slot_block, counters) & 0xFFFFFFFF
    return exec_mask if (named & ~ws.f[w, WF_MASK]) != 0 else np.int64(0)
