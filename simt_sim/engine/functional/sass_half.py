"""Semantics of the SASS half-precision rows HFMA2, HADD2, HMUL2, HMNMX2, HSETP2 and F2FP, one lane at a
time, on half.py's arithmetic (the PTX path's f16 / bf16 rules: one rounding, canonical NaN 0x7fff).

A packed source is a register (or a two-half immediate, frontend/sass_lower_more.py) whose halves
the operand's selector may replace (.H0_H0: both the low half, .H1_H1: both the high half,
.H0_NH1: the low half goes high and the high half, negated, low), then
|x| and -x act on both sign bits.  .BF16_V2 rows compute bf16x2, the others f16x2.

  HFMA2          d, a, b, c       both halves, fused (.MMA, the tensor-pipe form, computes the same)
  HADD2 / HMUL2  d, a, b          both halves; HADD2.F32 d, a, b: the f32 sum of the low halves
                                  (ptxas's cvt.f32.f16 is HADD2.F32 d, -RZ, b.H0_H0)
  HMNMX2         d, a, b, p       p: min, !p: max (.NAN: a NaN operand gives the canonical NaN)
  VHMNMX         d, a, b, c, p    min (p) / max (!p) of three: HMNMX2's of HMNMX2's (hmin(hmin(a, b), c))
  HSETP2.cmp.bop P, Q, a, b, p    P = cmp(low halves) bop p, Q = cmp(high halves) bop p
                                  (.H_AND: both = cmp(low) and cmp(high), then bop p)
  HSET2[.BF].cmp.bop d, a, b, p  each half of d: cmp(that half of a, b) bop p, written as 1.0 in
                                  the row's half format (.BF) or as 0xffff; false: 0
  F2FP.{F16,BF16}.F32.PACK_AB d, a, b   d = {high: round(a), low: round(b)} (.RZ, .RELU)
"""
from __future__ import annotations

import numpy as np

from simt_sim.engine.functional import alu
from simt_sim.engine.functional import half as H
from simt_sim.engine.functional.bits import f32_from_bits, f32_to_bits
from simt_sim.engine.functional.sass_ops import (combine, mods_of, pred_src, put, raw, sign_mods,
                                                 src_f32_bits)
from simt_sim.engine.jit import compiled
from simt_sim.isa import encoding as E

SIGNS = np.int64(0x80008000)
M32 = np.int64(0xFFFFFFFF)


@compiled
def src_pair(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters):
    """Packed source k: selector, then |x| and -x on both halves."""
    v = raw(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters) & M32
    m = mods_of(row, k)
    if m & E.OM_H0_H0:
        v = (v & 0xFFFF) | ((v & 0xFFFF) << 16)
    elif m & E.OM_H1_H1:
        v = ((v >> 16) & 0xFFFF) | (v & 0xFFFF0000)
    elif m & E.OM_H0_NH1:                   # {high: the low half, low: the high half with its sign flipped}
        v = ((v & 0xFFFF) << 16) | (((v >> 16) ^ 0x8000) & 0xFFFF)
    return sign_mods(v, m, SIGNS)


@compiled
def half_flags(fl):
    """The PTX half flags (half.py) of a row's SASS modifiers."""
    return ((E.FL_FTZ if fl & E.SM_FTZ else 0) | (E.FL_SAT if fl & E.SM_SAT else 0)
            | (E.FL_RELU if fl & E.SM_RELU else 0) | (E.FL_NAN if fl & E.SM_NAN else 0))


@compiled
def pair_op(pop, a, b, flags, bf):
    lo = H.arith(pop, a & 0xFFFF, b & 0xFFFF, np.int64(0), flags, bf)
    hi = H.arith(pop, (a >> 16) & 0xFFFF, (b >> 16) & 0xFFFF, np.int64(0), flags, bf)
    return (hi << 16) | lo


@compiled
def exec_half_lane(code, regs, mem, row, op, t, w, lane, geom, slot_block, counters):
    """One half row for thread t.  False when op is not a half family."""
    fl = row[E.F_FLAGS]
    bf = (fl & E.SM_BF16_V2) != 0
    flags = half_flags(fl)
    if op == E.OP_S_HFMA2:
        a = src_pair(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
        b = src_pair(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters)
        c = src_pair(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters)
        put(regs, row, 0, t, H.arith_bits(E.OP_FMA, E.T_BF16X2 if bf else E.T_F16X2, a, b, c, flags))
    elif op == E.OP_S_HADD2 or op == E.OP_S_HMUL2:
        a = src_pair(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
        b = src_pair(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters)
        if fl & E.SM_F32:                   # HADD2.F32: one f32 result from the low halves
            x = H.decode(H.flush(a & 0xFFFF, bf, flags & E.FL_FTZ), bf)
            y = H.decode(H.flush(b & 0xFFFF, bf, flags & E.FL_FTZ), bf)
            r = x * y if op == E.OP_S_HMUL2 else x + y
            bits = f32_to_bits(np.float32(r)) if r == r else np.int64(0x7FFFFFFF)
            put(regs, row, 0, t, bits)      # NaN: the canonical 0x7fffffff, as the H100 (s-convert)
        else:
            put(regs, row, 0, t, pair_op(E.OP_MUL if op == E.OP_S_HMUL2 else E.OP_ADD, a, b, flags, bf))
    elif op == E.OP_S_HMNMX2:
        a = src_pair(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
        b = src_pair(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters)
        want_min = pred_src(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters)
        put(regs, row, 0, t, pair_op(E.OP_MIN if want_min else E.OP_MAX, a, b, flags, bf))
    elif op == E.OP_S_VHMNMX:               # VHMNMX d, a, b, c, p: the min (p) or max (!p) of three
        a = src_pair(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
        b = src_pair(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters)
        c = src_pair(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters)
        pop = E.OP_MIN if pred_src(code, regs, mem, row, 4, t, w, lane, geom, slot_block, counters) else E.OP_MAX
        put(regs, row, 0, t, pair_op(pop, pair_op(pop, a, b, flags, bf), c, flags, bf))
    elif op == E.OP_S_HSETP2:
        exec_hsetp2(code, regs, mem, row, t, w, lane, geom, slot_block, counters, bf, fl)
    elif op == E.OP_S_HSET2:
        exec_hset2(code, regs, mem, row, t, w, lane, geom, slot_block, counters, bf, fl)
    elif op == E.OP_S_F2FP:
        exec_f2fp(code, regs, mem, row, t, w, lane, geom, slot_block, counters, fl)
    else:
        return False
    return True


@compiled
def half_compare(cmp, a, b, k, bf, ftz):
    """cmp of half k of a and b (1 or 0)."""
    x = H.decode(H.flush((a >> (16 * k)) & 0xFFFF, bf, ftz), bf)
    y = H.decode(H.flush((b >> (16 * k)) & 0xFFFF, bf, ftz), bf)
    if cmp == E.CMP_TRUE:
        return np.int64(1)
    if cmp == E.CMP_FALSE:
        return np.int64(0)
    return np.int64(1 if alu.float_compare(cmp, x, y) else 0)


@compiled
def exec_hsetp2(code, regs, mem, row, t, w, lane, geom, slot_block, counters, bf, fl):
    a = src_pair(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters)
    b = src_pair(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters)
    ftz = fl & E.SM_FTZ
    cmp = row[E.F_CMP]
    r0 = half_compare(cmp, a, b, 0, bf, ftz)
    r1 = half_compare(cmp, a, b, 1, bf, ftz)
    if fl & E.SM_H_AND:
        r0 = r0 & r1
        r1 = r0
    p = pred_src(code, regs, mem, row, 4, t, w, lane, geom, slot_block, counters)
    put(regs, row, 0, t, combine(r0, row[E.F_BOOL], p))
    put(regs, row, 1, t, combine(r1, row[E.F_BOOL], p))


@compiled
def exec_hset2(code, regs, mem, row, t, w, lane, geom, slot_block, counters, bf, fl):
    """HSET2: set.cmp.bop.{f16x2,u32}.{f16x2,bf16x2}: per half, true -> 1.0 (.BF) or 0xffff."""
    a = src_pair(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
    b = src_pair(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters)
    p = pred_src(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters)
    true_half = H.one(bf) if fl & E.SM_BF else np.int64(0xFFFF)
    out = np.int64(0)
    for k in range(2):
        if combine(half_compare(row[E.F_CMP], a, b, k, bf, fl & E.SM_FTZ), row[E.F_BOOL], p):
            out |= true_half << (16 * k)
    put(regs, row, 0, t, out)


@compiled
def exec_f2fp(code, regs, mem, row, t, w, lane, geom, slot_block, counters, fl):
    """F2FP.PACK_AB: two f32 sources rounded to f16 / bf16 (F_RND, .RELU), a to the high half."""
    bf = row[E.F_TYPE] == E.T_BF16
    rnd = row[E.F_RND] if row[E.F_RND] > 0 else E.RND_RN
    flags = E.FL_RELU if fl & E.SM_RELU else 0
    out = np.int64(0)
    for k in range(2):
        x = np.float64(f32_from_bits((src_f32_bits(code, regs, mem, row, 1 + k, t, w, lane, geom,
                                                          slot_block, counters))))
        out |= H.convert(x, rnd, flags, bf) << (16 * (1 - k))
    put(regs, row, 0, t, out)
