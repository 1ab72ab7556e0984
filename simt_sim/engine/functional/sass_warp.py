"""Semantics of the SASS warp-collective rows MATCH and REDUX, and of the integer rows VIADDMNMX,
VABSDIFF and the division range check FCHK (one lane at a time).

  MATCH.ANY[.U64] d, a        d = the active lanes whose a equals this lane's (a: R or R.64)
  MATCH.ALL[.U64] [P,] d, a   d = the active mask when every active lane holds the same a, else 0;
                              P = whether they do
  REDUX.op[.S32] d, a         op in SUM / MIN / MAX / AND / OR / XOR over the active lanes (MIN / MAX
                              unsigned unless .S32); d is usually a uniform register: every lane gets it
  VIADDMNMX[.U32] d, a, b, c, p   min (p) or max (!p) of (a + b) and c, signed unless .U32
  VABSDIFF[.U32] d, a, b[, c]     |a - b| + c (32 bits), signed unless .U32
  VABSDIFF4.U8[.ACC] d, a, b, c   the bytes |a_i - b_i| (.ACC: c + their sum), PTX vabsdiff4's arithmetic
  FCHK P, a, b                P = "a / b needs the slow path" (see fchk_needs_slow_path)
"""
from __future__ import annotations

import numpy as np

from simt_sim.engine.functional.alu import video_absdiff
from simt_sim.engine.functional.sass_ops import M32, min_max32, pred_src, put, raw, signed32, src_int
from simt_sim.engine.jit import allocating, compiled
from simt_sim.isa import encoding as E
from simt_sim.machine.layout import G

G_WS = G["warp_size"]


@allocating
def exec_match(code, regs, mem, row, w, exec_mask, base_t, wsz, geom, slot_block, counters):
    """Every lane's value is read before any lane's result is written: `MATCH.ANY R29, R29`
    overwrites its own source."""
    nd = row[E.F_NDST]
    agree = True
    first = np.int64(-1)
    ref = np.int64(0)
    values = np.zeros(wsz, dtype=np.int64)
    for lane in range(wsz):
        if (exec_mask >> lane) & 1:
            v = raw(code, regs, mem, row, nd, base_t + lane, w, lane, geom, slot_block, counters)
            values[lane] = v
            if first < 0:
                first = lane
                ref = v
            elif v != ref:
                agree = False
    for lane in range(wsz):
        if not (exec_mask >> lane) & 1:
            continue
        t = base_t + lane
        if row[E.F_CMP] == E.MATCH_ANY:
            same = np.int64(0)
            for j in range(wsz):
                if (exec_mask >> j) & 1 and values[j] == values[lane]:
                    same |= np.int64(1) << j
            put(regs, row, nd - 1, t, same)
        else:
            for k in range(nd):
                if row[E.F_OPS + k * E.OPERAND_FIELDS] == E.K_PRED:
                    put(regs, row, k, t, np.int64(1 if agree else 0))
                else:
                    put(regs, row, k, t, exec_mask if agree else np.int64(0))


@compiled
def redux_step(mode, r, v):
    if mode == E.REDUX_ADD:
        return r + v
    if mode == E.REDUX_MIN:
        return min(r, v)
    if mode == E.REDUX_MAX:
        return max(r, v)
    if mode == E.REDUX_AND:
        return r & v
    if mode == E.REDUX_OR:
        return r | v
    return r ^ v


@compiled
def exec_redux(code, regs, mem, row, w, exec_mask, base_t, wsz, geom, slot_block, counters):
    mode = row[E.F_CMP]
    signed = row[E.F_TYPE] == E.T_S32
    r = np.int64(0)
    first = True
    for lane in range(wsz):
        if (exec_mask >> lane) & 1:
            v = raw(code, regs, mem, row, 1, base_t + lane, w, lane, geom, slot_block, counters) & M32
            if signed:
                v = signed32(v)
            r = v if first else redux_step(mode, r, v)
            first = False
    # a uniform destination (UR) has one value per warp: every lane gets it
    lanes = (np.int64(1) << wsz) - 1 if row[E.F_FLAGS] & E.SM_UNIFORM else exec_mask
    for lane in range(wsz):
        if (lanes >> lane) & 1:
            put(regs, row, 0, base_t + lane, r)


@compiled
def f32_fields(bits):
    """(biased exponent, fraction) of a float32 bit pattern."""
    return (bits >> 23) & 0xFF, bits & 0x7FFFFF


@compiled
def fchk_needs_slow_path(a, b):
    """Whether ptxas's fast IEEE division of a by b (reciprocal, multiply, two FFMA corrections) may
    be inexact, so FCHK sends it to the slow path (which computes the same correctly rounded quotient,
    zero signs included, so this choice changes instruction counts, not values).  True when b is zero, subnormal,
    infinite or NaN, when a is infinite, NaN, subnormal or zero, when 1/b is near the subnormal range
    (|b| >= 2^126), when a is small enough that the residual a - q*b may lose bits (a's exponent
    below -102 = -126 + 24), or when the quotient's exponent may leave [-125, 126]."""
    ea, _ = f32_fields(a)
    eb, _ = f32_fields(b)
    if eb == 0 or eb == 255 or ea == 255:
        return True
    if ea == 0:
        return True                         # zero too: the H100 takes the slow path (the fast one
                                            # would give +0 for -0 / 1; s-fp32 measured -0)
    if eb >= 127 + 126:
        return True
    if ea - 127 < -102:
        return True
    q = (ea - 127) - (eb - 127)
    return q >= 126 or q <= -125


@compiled
def exec_warp_lane(code, regs, mem, row, op, t, w, lane, geom, slot_block, counters):
    """VIADDMNMX / VABSDIFF / FCHK for thread t.  False when op is none of them."""
    unsigned = row[E.F_TYPE] == E.T_U32
    if op == E.OP_S_VIADDMNMX:
        s = (src_int(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
             + src_int(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters)) & M32
        put(regs, row, 0, t, min_max32(s, src_int(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters),
                                       unsigned,
                                       pred_src(code, regs, mem, row, 4, t, w, lane, geom, slot_block, counters)))
    elif op == E.OP_S_VABSDIFF:
        a = src_int(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
        b = src_int(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters)
        if not unsigned:
            a, b = signed32(a), signed32(b)
        c = src_int(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters) if row[E.F_NOPS] > 3 else 0
        put(regs, row, 0, t, abs(a - b) + c)
    elif op == E.OP_S_VABSDIFF4:
        put(regs, row, 0, t, video_absdiff(E.OP_VABSDIFF4,
                                           src_int(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters) & M32,
                                           src_int(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters) & M32,
                                           src_int(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters) & M32,
                                           False, False, row[E.F_CMP] == 1))
    elif op == E.OP_S_FCHK:
        a = raw(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters) & M32
        b = raw(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters) & M32
        put(regs, row, 0, t, np.int64(1 if fchk_needs_slow_path(a, b) else 0))
    else:
        return False
    return True


@compiled
def is_collective(op):
    return op == E.OP_S_MATCH or op == E.OP_S_REDUX


@compiled
def exec_collective(code, regs, mem, row, op, w, exec_mask, base_t, geom, slot_block, counters):
    """MATCH / REDUX over the active lanes of the warp."""
    wsz = geom[G_WS]
    if exec_mask == 0:
        return
    if op == E.OP_S_MATCH:
        exec_match(code, regs, mem, row, w, exec_mask, base_t, wsz, geom, slot_block, counters)
    else:
        exec_redux(code, regs, mem, row, w, exec_mask, base_t, wsz, geom, slot_block, counters)
