"""Warp-wide execution of the commonest ALU instructions: float32 / float64 arithmetic, integer
arithmetic and logic, setp, selp and register moves.

An instruction is decoded once and one loop runs it over the lanes of the mask with the operand
readers inlined (regfile.py); the generic path (execute.exec_lane_alu) makes a chain of calls per
lane, each passing the state tuples, which cost far more than the arithmetic.  Values come from the
same scalar semantics (alu, fparith), so results are bit-identical; the unmodified
round-to-nearest cases skip only modifier handling that would be a no-op.
"""
from __future__ import annotations

import numpy as np

from simt_sim.engine.functional import alu
from simt_sim.engine.functional.address import cvta_value
from simt_sim.engine.functional import half as H
from simt_sim.isa import encoding as E
from simt_sim.engine.jit import compiled, compiled_inline
from simt_sim.engine.functional.fparith import fma32
from simt_sim.engine.functional.regfile import (compare_half, compare_sources, opnd, read_f32, read_f64, read_int,
                                     read_raw, write_raw)


@compiled
def alu_warp(code, regs, row, op, mask, base_t, wsz, w, geom, slot_block, counters):
    """Execute an ALU instruction for the lanes in mask.  False when it is none of the families
    here (set, slct, cvt, bfi, predicate logic, vector moves): the caller runs it per lane."""
    ty = row[E.F_TYPE]
    if op == E.OP_SETP:
        setp_warp(code, regs, row, mask, base_t, wsz, w, geom, slot_block, counters)
    elif op == E.OP_SELP:
        selp_warp(code, regs, row, mask, base_t, wsz, w, geom, slot_block, counters)
    elif op == E.OP_MOV:
        if row[E.F_OPS] == E.K_VEC or row[E.F_OPS + E.OPERAND_FIELDS] == E.K_VEC:
            return False
        mov_warp(code, regs, row, mask, base_t, wsz, w, geom, slot_block, counters)
    elif op == E.OP_CVTA:
        cvta_warp(code, regs, row, mask, base_t, wsz, w, geom, slot_block, counters)
    elif (op == E.OP_SET or op == E.OP_SLCT or op == E.OP_CVT or op == E.OP_BFI
          or op == E.OP_ISSPACEP or ty == E.T_PRED):
        return False
    elif H.is_half(ty):
        half_warp(code, regs, row, op, mask, base_t, wsz, w, geom, slot_block, counters)
    elif ty == E.T_F32:
        f32_warp(code, regs, row, op, mask, base_t, wsz)
    elif ty == E.T_F64:
        f64_warp(code, regs, row, op, mask, base_t, wsz)
    else:
        int_warp(code, regs, row, op, mask, base_t, wsz, w, geom, slot_block, counters)
    return True


@compiled_inline
def f32_op(op, a, b, c, flags, rnd):
    """alu.f32_arith, with plain round-to-nearest add / sub / mul / fma done here."""
    if flags == 0 and (rnd == E.RND_NONE or rnd == E.RND_RN):     # NaN results: alu.canonical32
        if op == E.OP_ADD:
            return alu.canonical32(np.float32(np.float64(a) + np.float64(b)))     # exact in float64, one rounding
        if op == E.OP_SUB:
            return alu.canonical32(np.float32(np.float64(a) - np.float64(b)))
        if op == E.OP_MUL:
            return alu.canonical32(np.float32(np.float64(a) * np.float64(b)))
        if op == E.OP_FMA or op == E.OP_MAD:
            return alu.canonical32(fma32(a, b, c))
    return alu.f32_arith(op, a, b, c, flags, rnd)


@compiled_inline
def float_operands(row):
    """(operand count, flags, rounding, destination, then kind and index of sources a, b, c)."""
    ak, ai, _, _ = opnd(row, 1)
    bk, bi, _, _ = opnd(row, 2)
    ck, ci, _, _ = opnd(row, 3)
    return row[E.F_NOPS], row[E.F_FLAGS], row[E.F_RND], opnd(row, 0)[1], ak, ai, bk, bi, ck, ci


@compiled
def f32_warp(code, regs, row, op, mask, base_t, wsz):
    nops, flags, rnd, di, ak, ai, bk, bi, ck, ci = float_operands(row)
    zero = np.float32(0.0)
    for lane in range(wsz):
        if (mask >> lane) & 1:
            t = base_t + lane
            a = read_f32(code, regs, t, ak, ai)
            b = read_f32(code, regs, t, bk, bi) if nops > 2 else zero
            c = read_f32(code, regs, t, ck, ci) if nops > 3 else zero
            regs.f32[di, t] = f32_op(op, a, b, c, flags, rnd)


@compiled
def f64_warp(code, regs, row, op, mask, base_t, wsz):
    nops, flags, rnd, di, ak, ai, bk, bi, ck, ci = float_operands(row)
    for lane in range(wsz):
        if (mask >> lane) & 1:
            t = base_t + lane
            a = read_f64(code, regs, t, ak, ai)
            b = read_f64(code, regs, t, bk, bi) if nops > 2 else 0.0
            c = read_f64(code, regs, t, ck, ci) if nops > 3 else 0.0
            regs.f64[di, t] = alu.f64_arith(op, a, b, c, flags, rnd)


@compiled
def half_warp(code, regs, row, op, mask, base_t, wsz, w, geom, slot_block, counters):
    """f16 / bf16 / f16x2 / bf16x2 arithmetic on the raw register bits."""
    nops = row[E.F_NOPS]
    ty = row[E.F_TYPE]
    flags = row[E.F_FLAGS]
    dk, di, _, _ = opnd(row, 0)
    ak, ai, aimm, _ = opnd(row, 1)
    bk, bi, bimm, _ = opnd(row, 2)
    ck, ci, cimm, _ = opnd(row, 3)
    zero = np.int64(0)
    for lane in range(wsz):
        if (mask >> lane) & 1:
            t = base_t + lane
            a = read_raw(code, regs, t, ak, ai, aimm, w, lane, geom, slot_block, counters)
            b = read_raw(code, regs, t, bk, bi, bimm, w, lane, geom, slot_block, counters) if nops > 2 else zero
            c = read_raw(code, regs, t, ck, ci, cimm, w, lane, geom, slot_block, counters) if nops > 3 else zero
            write_raw(regs, dk, di, t, H.arith_bits(op, ty, a, b, c, flags))


@compiled_inline
def int_op(op, ty, flags, a, b, c):
    """alu.int_arith, with unmodified add / sub / mul.lo / mad.lo and bitwise logic done here."""
    if flags == 0:
        if op == E.OP_ADD:
            return a + b
        if op == E.OP_SUB:
            return a - b
        if op == E.OP_MUL:
            return a * b
        if op == E.OP_MAD:
            return a * b + c
        if op == E.OP_AND:
            return a & b
        if op == E.OP_OR:
            return a | b
        if op == E.OP_XOR:
            return a ^ b
    return alu.int_arith(op, ty, flags, a, b, c)


@compiled
def int_warp(code, regs, row, op, mask, base_t, wsz, w, geom, slot_block, counters):
    """Integer arithmetic, logic and shifts (not bfi): extended operands, truncated result."""
    nops = row[E.F_NOPS]
    ty = row[E.F_TYPE]
    flags = row[E.F_FLAGS]
    dk, di, _, dty = opnd(row, 0)
    zero = np.int64(0)
    for lane in range(wsz):
        if (mask >> lane) & 1:
            t = base_t + lane
            a = read_int(code, regs, row, 1, t, w, lane, geom, slot_block, counters)
            b = read_int(code, regs, row, 2, t, w, lane, geom, slot_block, counters) if nops > 2 else zero
            c = read_int(code, regs, row, 3, t, w, lane, geom, slot_block, counters) if nops > 3 else zero
            r = int_op(op, ty, flags, a, b, c)
            write_raw(regs, dk, di, t, alu.truncate(r, dty) if dty >= 0 else r)


@compiled
def setp_warp(code, regs, row, mask, base_t, wsz, w, geom, slot_block, counters):
    """setp.CMP[.BOOL]: p = a CMP b [BOOL c], and q = !(a CMP b) [BOOL c] for `p|q`."""
    ty = row[E.F_TYPE]
    boolop = row[E.F_BOOL]
    dst2 = row[E.F_DST2]
    dk, di, _, _ = opnd(row, 0)
    pair = H.is_pair(ty)
    for lane in range(wsz):
        if (mask >> lane) & 1:
            t = base_t + lane
            r = compare_sources(code, regs, row, ty, t, w, lane, geom, slot_block, counters)
            # x2 types: q is the comparison of the high halves (p that of the low halves)
            notr = compare_half(code, regs, row, ty, 1, t, w, lane, geom, slot_block, counters) if pair \
                else not r
            if boolop != 0:
                c = read_int(code, regs, row, 3, t, w, lane, geom, slot_block, counters) != 0
                if boolop == 1:
                    r, notr = r and c, notr and c
                elif boolop == 2:
                    r, notr = r or c, notr or c
                else:
                    r, notr = r != c, notr != c
            write_raw(regs, dk, di, t, np.int64(1) if r else np.int64(0))
            if dst2 >= 0:
                regs.pred[dst2, t] = np.uint8(1 if notr else 0)


@compiled
def selp_warp(code, regs, row, mask, base_t, wsz, w, geom, slot_block, counters):
    """selp: operand 1 where the predicate operand 3 is set, else operand 2."""
    ty = row[E.F_TYPE]
    dk, di, _, _ = opnd(row, 0)
    for lane in range(wsz):
        if (mask >> lane) & 1:
            t = base_t + lane
            k = 1 if read_int(code, regs, row, 3, t, w, lane, geom, slot_block, counters) != 0 else 2
            sk, si, simm, _ = opnd(row, k)
            v = read_raw(code, regs, t, sk, si, simm, w, lane, geom, slot_block, counters)
            write_raw(regs, dk, di, t, alu.truncate(v, ty))


@compiled
def mov_warp(code, regs, row, mask, base_t, wsz, w, geom, slot_block, counters):
    """mov of a register, immediate or special register (not vector packing)."""
    ty = row[E.F_TYPE]
    dk, di, _, _ = opnd(row, 0)
    sk, si, simm, _ = opnd(row, 1)
    for lane in range(wsz):
        if (mask >> lane) & 1:
            t = base_t + lane
            v = read_raw(code, regs, t, sk, si, simm, w, lane, geom, slot_block, counters)
            write_raw(regs, dk, di, t, alu.truncate(v, ty) if ty != E.T_PRED else v & 1)


@compiled
def cvta_warp(code, regs, row, mask, base_t, wsz, w, geom, slot_block, counters):
    """cvta / cvta.to (nvcc emits one per pointer parameter)."""
    ty = row[E.F_TYPE]
    to_space = row[E.F_FLAGS] & E.FL_TO
    space = row[E.F_SPACE]
    dk, di, _, _ = opnd(row, 0)
    for lane in range(wsz):
        if (mask >> lane) & 1:
            t = base_t + lane
            v = cvta_value(read_int(code, regs, row, 1, t, w, lane, geom, slot_block, counters), space, to_space)
            write_raw(regs, dk, di, t, alu.truncate(v, ty))
