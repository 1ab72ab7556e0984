"""Warp-wide execution of the commonest SASS families: FADD / FMUL / FFMA, IADD3, IMAD, LOP3 and
MOV on 32-bit registers, immediates and constants.

sass_ops.exec_sass runs a row lane by lane, and each lane walks the family dispatch and reads
every operand through a chain of calls; here the operands are decoded once per warp, a constant
or immediate is read once, and one loop runs the lanes.  The values come from the same scalar
semantics (fastpath.f32_op, sass_ops.lop3 / f32_result), so results are bit-identical; anything
else (carries, .WIDE / .HI / .X, predicate results, uniform rows, special registers) returns False
and goes the lane-by-lane way.
"""
from __future__ import annotations

import numpy as np

from simt_sim.engine.functional.bits import f32_from_bits
from simt_sim.engine.functional.fastpath import f32_op
from simt_sim.engine.functional.regfile import opnd
from simt_sim.engine.functional.sass_ops import M32, f32_result, float_mods, int_mods, lop3, raw, signed32
from simt_sim.engine.jit import compiled, compiled_inline
from simt_sim.isa import encoding as E

NO_OPERAND = -2          # a source slot the row does not have


@compiled_inline
def warp_source(code, regs, mem, row, k, base_t, w, geom, slot_block, counters):
    """(register row or -1, value when not a register, modifiers) of source k, or register row
    NO_OPERAND when the warp path cannot read it (a pair, predicate, special register)."""
    kind, idx, _, mods = opnd(row, k)
    if kind == E.K_R32:
        return idx, np.int64(0), mods
    if kind == E.K_IMM or kind == E.K_CONST:      # the same for every lane
        return np.int64(-1), raw(code, regs, mem, row, k, base_t, w, 0, geom, slot_block, counters) & M32, mods
    return np.int64(NO_OPERAND), np.int64(0), mods


@compiled_inline
def lane_bits(regs, t, reg, value):
    return np.int64(regs.r32[reg, t]) if reg >= 0 else value


@compiled
def sass_alu_warp(code, regs, mem, row, op, lanes, base_t, wsz, w, geom, slot_block, counters):
    """Run row for the lanes in `lanes` if it is one of this file's forms; False otherwise."""
    fl = row[E.F_FLAGS]
    dk, di, _, _ = opnd(row, 0)
    if row[E.F_NDST] != 1 or fl & (E.SM_UNIFORM | E.SM_X | E.SM_WIDE | E.SM_HI) \
            or (dk != E.K_R32 and dk != E.K_NONE):
        return False
    ra, va, ma = warp_source(code, regs, mem, row, 1, base_t, w, geom, slot_block, counters)
    rb, vb, mb = np.int64(NO_OPERAND), np.int64(0), np.int64(0)
    rc, vc, mc = np.int64(NO_OPERAND), np.int64(0), np.int64(0)
    if row[E.F_NOPS] > 2:
        rb, vb, mb = warp_source(code, regs, mem, row, 2, base_t, w, geom, slot_block, counters)
    if row[E.F_NOPS] > 3:
        rc, vc, mc = warp_source(code, regs, mem, row, 3, base_t, w, geom, slot_block, counters)
    if op == E.OP_S_MOV:
        if ra == NO_OPERAND:
            return False
    elif op == E.OP_S_FADD or op == E.OP_S_FMUL or op == E.OP_S_FFMA:
        if ra == NO_OPERAND or rb == NO_OPERAND or (op == E.OP_S_FFMA and rc == NO_OPERAND):
            return False
    elif op == E.OP_S_IADD3 or op == E.OP_S_IMAD:
        if ra == NO_OPERAND or rb == NO_OPERAND or rc == NO_OPERAND:
            return False
    elif op == E.OP_S_LOP3:
        if ra == NO_OPERAND or rb == NO_OPERAND or rc == NO_OPERAND or row[E.F_NOPS] < 5 \
                or opnd(row, 4)[0] != E.K_IMM:
            return False
    else:
        return False
    if dk == E.K_NONE:                             # RZ destination: nothing to write
        return True
    rnd = row[E.F_RND] if row[E.F_RND] > 0 else E.RND_RN
    pflags = (E.FL_FTZ if fl & E.SM_FTZ else 0) | (E.FL_SAT if fl & E.SM_SAT else 0)
    pop = E.OP_FMA if op == E.OP_S_FFMA else (E.OP_ADD if op == E.OP_S_FADD else E.OP_MUL)
    lut = raw(code, regs, mem, row, 4, base_t, w, 0, geom, slot_block, counters) if op == E.OP_S_LOP3 else 0
    zero = np.float32(0.0)
    for lane in range(wsz):
        if (lanes >> lane) & 1:
            t = base_t + lane
            a = lane_bits(regs, t, ra, va)
            if op == E.OP_S_MOV:
                result = a
            elif op == E.OP_S_IADD3:
                # -x is ~x + 1 (sass_ops.exec_int); the sum's upper bits are dropped
                result = int_mods(a, ma) + int_mods(lane_bits(regs, t, rb, vb), mb) \
                    + int_mods(lane_bits(regs, t, rc, vc), mc)
            elif op == E.OP_S_IMAD:                 # low word of a*b + c: the same signed or unsigned
                b = lane_bits(regs, t, rb, vb)
                if mb & E.OM_NEG:
                    b = (-b) & M32
                result = ((signed32(a) * signed32(b)) & M32) + int_mods(lane_bits(regs, t, rc, vc), mc)
            elif op == E.OP_S_LOP3:
                result = lop3(int_mods(a, ma), int_mods(lane_bits(regs, t, rb, vb), mb),
                              int_mods(lane_bits(regs, t, rc, vc), mc), lut)
            else:
                fa = f32_from_bits(float_mods(a, ma))
                fb = f32_from_bits(float_mods(lane_bits(regs, t, rb, vb), mb))
                fc = zero
                if op == E.OP_S_FFMA:
                    fc = f32_from_bits(float_mods(lane_bits(regs, t, rc, vc), mc))
                result = f32_result(f32_op(pop, fa, fb, fc, pflags, rnd))
            regs.r32[di, t] = np.uint32(result & M32)
    return True
