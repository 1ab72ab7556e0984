"""Operand decoding and register-file access, shared by the per-lane generic path (execute.py) and
the warp-wide fast paths (fastpath.py).

These are inlined into their callers (`inline="always"`): a compiled call that takes the state
tuples pays numba's reference counting on every array in them, which used to dominate run time
when paid per lane and per operand.  The per-lane slow paths call copies compiled apart
(`read_int_apart` and its kin, at the end).
"""
from __future__ import annotations

import numpy as np

from simt_sim.engine.functional import alu
from simt_sim.engine.functional import half as H
from simt_sim.isa import encoding as E
from simt_sim.engine.jit import compiled, compiled_inline
from simt_sim.machine.layout import (C_CLOCK, G)

MASK32 = np.int64(0xFFFFFFFF)
G_GX, G_GY, G_BX, G_BY, G_WS, G_WPB, G_NSM, G_SLOTS_PER_SM = (
    G["gx"], G["gy"], G["bx"], G["by"], G["warp_size"], G["wpb"], G["n_sm"], G["slots_per_sm"])


@compiled_inline
def opnd(row, k):
    """(kind, index, immediate, type) of operand k of an instruction row."""
    b = E.F_OPS + k * E.OPERAND_FIELDS
    return row[b], row[b + 1], row[b + 2], row[b + 3]


@compiled_inline
def source_bits(code, regs, t, kind, idx, imm):
    """Raw bits (int64) of a register, predicate (imm 1: negated) or immediate operand of thread t;
    special registers are read by the caller, other kinds read 0."""
    if kind == E.K_R32:
        return np.int64(regs.r32[idx, t])
    if kind == E.K_R64:
        return np.int64(regs.r64[idx, t])
    if kind == E.K_PRED:
        v = np.int64(regs.pred[idx, t])
        return 1 - v if imm else v
    if kind == E.K_IMM:
        return np.int64(code.cu64[idx])
    if kind == E.K_RPAIR:
        return np.int64(regs.r32[idx, t]) | (np.int64(regs.r32[idx + 1, t]) << 32)
    return np.int64(0)


@compiled_inline
def as_int(raw, ty):
    """Raw operand bits -> integer value at the operand's type (untyped and predicate: as is)."""
    if ty < 0 or ty == E.T_PRED:
        return raw
    return alu.extend(raw, ty)


@compiled_inline
def read_f32(code, regs, t, kind, idx):
    if kind == E.K_R32:
        return regs.f32[idx, t]
    return code.cf32[idx]


@compiled_inline
def read_f64(code, regs, t, kind, idx):
    if kind == E.K_R64:
        return regs.f64[idx, t]
    return code.cf64[idx]


@compiled_inline
def write_raw(regs, kind, idx, t, v):
    if kind == E.K_R32:
        regs.r32[idx, t] = np.uint32(v & MASK32)
    elif kind == E.K_R64:
        regs.r64[idx, t] = np.uint64(v)
    elif kind == E.K_PRED:
        regs.pred[idx, t] = np.uint8(v & 1)
    elif kind == E.K_RPAIR:
        regs.r32[idx, t] = np.uint32(v & MASK32)
        regs.r32[idx + 1, t] = np.uint32((v >> 32) & MASK32)


@compiled
def sreg_value(sreg, w, lane, geom, slot_block, counters):
    base = sreg // 4
    comp = sreg % 4
    ws = geom[G_WS]
    wpb = geom[G_WPB]
    wib = w % wpb
    if base == E.S_TID:
        tib = wib * ws + lane
        if comp == 0:
            return tib % geom[G_BX]
        if comp == 1:
            return (tib // geom[G_BX]) % geom[G_BY]
        return tib // (geom[G_BX] * geom[G_BY])
    if base == E.S_NTID:
        return geom[G_BX + comp]
    if base == E.S_CTAID:
        b = slot_block[w // wpb]
        if comp == 0:
            return b % geom[G_GX]
        if comp == 1:
            return (b // geom[G_GX]) % geom[G_GY]
        return b // (geom[G_GX] * geom[G_GY])
    if base == E.S_NCTAID:
        return geom[G_GX + comp]
    if base == E.S_LANEID:
        return np.int64(lane)
    if base == E.S_WARPID:
        return np.int64(wib)
    if base == E.S_NWARPID:
        return np.int64(wpb)
    if base == E.S_SMID:
        return (w // wpb) // geom[G_SLOTS_PER_SM]
    if base == E.S_NSMID:
        return geom[G_NSM]
    if base == E.S_CLOCK:
        return counters[C_CLOCK] & MASK32
    if base == E.S_CLOCK64 or base == E.S_GLOBALTIMER:
        return counters[C_CLOCK]
    if base == E.S_LANEMASK_EQ:
        return np.int64(1) << lane
    if base == E.S_LANEMASK_LT:
        return (np.int64(1) << lane) - 1
    if base == E.S_LANEMASK_LE:
        return ((np.int64(1) << (lane + 1)) - 1) & MASK32
    if base == E.S_LANEMASK_GT:
        return ~((np.int64(1) << (lane + 1)) - 1) & MASK32
    if base == E.S_LANEMASK_GE:
        return ~((np.int64(1) << lane) - 1) & MASK32
    return np.int64(0)


@compiled_inline
def read_raw(code, regs, t, kind, idx, imm, w, lane, geom, slot_block, counters):
    """Raw bits of a source operand as int64."""
    if kind == E.K_SREG:
        return sreg_value(idx, w, lane, geom, slot_block, counters)
    return source_bits(code, regs, t, kind, idx, imm)


@compiled_inline
def read_int(code, regs, row, k, t, w, lane, geom, slot_block, counters):
    kind, idx, imm, ty = opnd(row, k)
    return as_int(read_raw(code, regs, t, kind, idx, imm, w, lane, geom, slot_block, counters), ty)


@compiled_inline
def operand_f32(code, regs, row, k, t):
    kind, idx, _, _ = opnd(row, k)
    return read_f32(code, regs, t, kind, idx)


@compiled_inline
def operand_f64(code, regs, row, k, t):
    kind, idx, _, _ = opnd(row, k)
    return read_f64(code, regs, t, kind, idx)


@compiled_inline
def compare_half(code, regs, row, sty, k, t, w, lane, geom, slot_block, counters):
    """Element k of operand 1 CMP element k of operand 2 at half type sty (.ftz flushes subnormal
    f16 inputs)."""
    ftz = row[E.F_FLAGS] & E.FL_FTZ
    ak, ai, aimm, _ = opnd(row, 1)
    bk, bi, bimm, _ = opnd(row, 2)
    a = read_raw(code, regs, t, ak, ai, aimm, w, lane, geom, slot_block, counters)
    b = read_raw(code, regs, t, bk, bi, bimm, w, lane, geom, slot_block, counters)
    return alu.float_compare(row[E.F_CMP], H.element(a, k, sty, ftz), H.element(b, k, sty, ftz))


@compiled_inline
def compare_sources(code, regs, row, sty, t, w, lane, geom, slot_block, counters):
    """Operand 1 CMP operand 2 at type sty, for setp and set (.ftz flushes float32 inputs; half
    types: element 0)."""
    cmp = row[E.F_CMP]
    if H.is_half(sty):
        return compare_half(code, regs, row, sty, 0, t, w, lane, geom, slot_block, counters)
    if sty == E.T_F32:
        ftz = row[E.F_FLAGS] & E.FL_FTZ
        return alu.float_compare(cmp, np.float64(alu.flush32(operand_f32(code, regs, row, 1, t), ftz)),
                                 np.float64(alu.flush32(operand_f32(code, regs, row, 2, t), ftz)))
    if sty == E.T_F64:
        return alu.float_compare(cmp, operand_f64(code, regs, row, 1, t), operand_f64(code, regs, row, 2, t))
    return alu.int_compare(cmp, read_int(code, regs, row, 1, t, w, lane, geom, slot_block, counters),
                           read_int(code, regs, row, 2, t, w, lane, geom, slot_block, counters), sty)


# The same readers compiled apart, for the per-lane paths of execute.py (the instructions the warp-wide
# fast paths leave out).  Inlined at their sixty call sites there, every copy was typed and lowered
# again: exec_lane_alu alone grew to 10,400 IR statements and 12 s of the cold compile.  Called apart
# they cost the timing benchmark nothing measurable (benchmarks/side_by_side.py, 1.00-1.03).
@compiled
def read_int_apart(code, regs, row, k, t, w, lane, geom, slot_block, counters):
    return read_int(code, regs, row, k, t, w, lane, geom, slot_block, counters)


@compiled
def read_raw_apart(code, regs, t, kind, idx, imm, w, lane, geom, slot_block, counters):
    return read_raw(code, regs, t, kind, idx, imm, w, lane, geom, slot_block, counters)


@compiled
def write_raw_apart(regs, kind, idx, t, v):
    write_raw(regs, kind, idx, t, v)


@compiled
def compare_sources_apart(code, regs, row, sty, t, w, lane, geom, slot_block, counters):
    return compare_sources(code, regs, row, sty, t, w, lane, geom, slot_block, counters)


@compiled
def compare_half_apart(code, regs, row, sty, k, t, w, lane, geom, slot_block, counters):
    return compare_half(code, regs, row, sty, k, t, w, lane, geom, slot_block, counters)
