"""Device-function calls of one warp: entering a function and returning from it.

The lanes that execute a `call` enter the function together (simt_stack.push_call); lanes that
execute `ret` there wait in the call entry (simt_stack.leave_function), and the warp returns to the
caller, with every lane that was active at the call, once no lane is left in the function
(`finish_returns`).  Per thread, a call copies its .param arguments into the callee's parameters
and the return copies the callee's return values back (all of them live in the thread's local
memory, at offsets fixed by the assembler).  When the callee may already be active in the thread
(recursion), its window (registers, parameters, return values and .local variables) is saved in
the thread's call stack, a region of its local memory (one frame per call depth), at the call and
restored at the return.
"""
from __future__ import annotations

import numpy as np

from simt_sim.engine.functional import address as M
from simt_sim.engine.functional import simt_stack as S
from simt_sim.engine.jit import compiled
from simt_sim.isa import encoding as E
from simt_sim.machine.layout import G, WF_CALL_DEPTH, WF_PC

G_LOCAL, G_CALL_BASE, G_FRAME_BYTES, G_CALL_DEPTH = (G["local_bytes"], G["call_base"], G["frame_bytes"],
                                                     G["call_depth"])
G_WS = G["warp_size"]

# enter_call results
CALL_OK, CALL_TOO_DEEP, CALL_STACK_FULL = 0, 1, 2


@compiled
def copy_local(mem, base, src, dst, n):
    for i in range(n):
        mem.lmem[base + dst + i] = mem.lmem[base + src + i]


@compiled
def copy_params(code, mem, call, first, count, base):
    """The copy rows first .. first+count-1 after call-table row `call`, for the thread whose local
    memory starts at base."""
    for k in range(first, first + count):
        c = code.calls[call + 1 + k]
        copy_local(mem, base, c[E.CP_SRC], c[E.CP_DST], c[E.CP_BYTES])


@compiled
def move_registers(file, lmem, off, first, count, width, t, save):
    """Save (or restore) registers first..first+count-1 of thread t (a 32- or 64-bit register file)
    to (from) local memory at byte off, width bytes each; returns the byte after them."""
    for i in range(count):
        if save:
            M.write_word(lmem, off, width, np.int64(file[first + i, t]))
        else:
            value = M.read_word(lmem, off, width)
            if width == 4:
                file[first + i, t] = np.uint32(value)
            else:
                file[first + i, t] = np.uint64(value)
        off += width
    return off


@compiled
def move_window(code, regs, mem, call, t, base, frame, save):
    """Save (or restore) the callee's window of thread t to (from) the frame at byte `frame` of the
    local memory: 32-bit registers, 64-bit registers, predicates, then the local bytes."""
    r = code.calls[call]
    off = move_registers(regs.r32, mem.lmem, frame, r[E.CA_R32], r[E.CA_N_R32], 4, t, save)
    off = move_registers(regs.r64, mem.lmem, off, r[E.CA_R64], r[E.CA_N_R64], 8, t, save)
    for i in range(r[E.CA_N_PRED]):
        reg = r[E.CA_PRED] + i
        if save:
            mem.lmem[off] = regs.pred[reg, t]
        else:
            regs.pred[reg, t] = mem.lmem[off]
        off += 1
    if save:
        copy_local(mem, base, r[E.CA_LOCAL], off - base, r[E.CA_N_LOCAL])
    else:
        copy_local(mem, base, off - base, r[E.CA_LOCAL], r[E.CA_N_LOCAL])


@compiled
def frame_of(geom, t, depth):
    """(start of thread t's local memory, byte of its call-stack frame at depth)."""
    base = t * geom[G_LOCAL]
    return base, base + geom[G_CALL_BASE] + depth * geom[G_FRAME_BYTES]


@compiled
def enter_call(code, regs, ws, mem, w, row, pc, callers, geom, ev, counters):
    """`call` by the lanes `callers` of warp w: CALL_OK, CALL_TOO_DEEP (simt.call_depth) or
    CALL_STACK_FULL (the SIMT stack)."""
    depth = ws.f[w, WF_CALL_DEPTH]
    if depth >= geom[G_CALL_DEPTH]:
        return CALL_TOO_DEEP
    if not S.push_call(ws, w, pc + 1, pc, callers, ev, counters):
        return CALL_STACK_FULL
    call = row[E.F_OPS + 1]
    save = code.calls[call, E.CA_SAVE] != 0
    n_args = code.calls[call, E.CA_N_ARGS]
    base_t = w * geom[G_WS]
    for lane in range(geom[G_WS]):
        if (callers >> lane) & 1:
            base, frame = frame_of(geom, base_t + lane, depth)
            if save:
                move_window(code, regs, mem, call, base_t + lane, base, frame, True)
            copy_params(code, mem, call, 0, n_args, base)
    ws.f[w, WF_CALL_DEPTH] = depth + 1
    ws.f[w, WF_PC] = row[E.F_TARGET]
    return CALL_OK


@compiled
def finish_returns(code, regs, ws, mem, w, geom, ev, counters):
    """Return to the caller while every lane of the innermost function has returned: copy the return
    values, restore a saved window, continue after the call with the call's mask."""
    while S.in_call(ws, w):
        call_pc, callers = S.pop_call(ws, w, ev, counters)
        depth = ws.f[w, WF_CALL_DEPTH] - 1
        ws.f[w, WF_CALL_DEPTH] = depth
        call = code.rows[call_pc, E.F_OPS + 1]
        save = code.calls[call, E.CA_SAVE] != 0
        n_args = code.calls[call, E.CA_N_ARGS]
        n_rets = code.calls[call, E.CA_N_RETS]
        base_t = w * geom[G_WS]
        for lane in range(geom[G_WS]):
            if (callers >> lane) & 1:
                base, frame = frame_of(geom, base_t + lane, depth)
                copy_params(code, mem, call, n_args, n_rets, base)
                if save:
                    move_window(code, regs, mem, call, base_t + lane, base, frame, False)
        S.settle(ws, w, ev, counters)
