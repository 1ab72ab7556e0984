"""Semantics of the SASS rows (frontend/sass_lower.py): integer, logic, compare, move, float,
conversion and uniform-datapath families, one lane at a time, and the warp-wide ones (uniform
broadcasts, votes).

A SASS row lists its destinations first (F_NDST of them), then its sources; a source's modifiers
(-x, |x|, ~x, .H1) are in its operand's type field (E.OM_*).  Registers: R0..R254 and UR0..UR62
live in r32 (UR at E.SASS_UR_BASE, R at E.SASS_R_BASE), 64-bit values in register pairs
(K_RPAIR), predicates P0..P6 and UP0..UP6 in pred.  The uniform families write every lane of the warp, since a uniform
register has one value per warp whichever lanes are active.
"""
from __future__ import annotations

import math

import numpy as np

from simt_sim.engine.functional import alu
from simt_sim.engine.functional import half as H
from simt_sim.engine.functional.regfile import opnd, sreg_value
from simt_sim.engine.functional.simt_stack import first_lane
from simt_sim.engine.functional.bits import (dfma_nan, f32_from_bits, f32_to_bits, f64_from_bits, f64_to_bits,
                                             nan_as_int, narrowed_f64_nan, widened_f32_nan)
from simt_sim.engine.jit import compiled, compiled_inline
from simt_sim.isa import encoding as E
from simt_sim.machine.layout import G

M32 = np.int64(0xFFFFFFFF)
SIGN32 = np.int64(0x80000000)
SIGN64 = np.int64(-0x8000000000000000)
CANONICAL_NAN32 = alu.CANONICAL_NAN32     # the H100's float32 NaN (one definition, in alu)
DBL_MIN = 2.2250738585072014e-308       # the smallest normal float64
PARAM_BANK_OFFSET = E.PARAM_BANK_OFFSET
G_BX, G_GX, G_LOCAL, G_WS = G["bx"], G["gx"], G["local_bytes"], G["warp_size"]


@compiled
def const_word(mem, geom, bank, off, width):
    """c[bank][off] of the running kernel (sm_90 bank 0: block dims at 0x0, grid dims at 0xc, the
    local stack top at 0x28, parameters from 0x210, relocated to the kernel's parameter block)."""
    v = np.int64(0)
    if bank != 0:
        return v
    if off >= PARAM_BANK_OFFSET:
        p = off - PARAM_BANK_OFFSET
        for i in range(width):
            if p + i < mem.pmem.shape[0]:
                v |= np.int64(mem.pmem[p + i]) << (8 * i)
        return v
    if off % 4 == 0 and off < 0x18:
        v = geom[G_BX + off // 4] if off < 0xC else geom[G_GX + (off - 0xC) // 4]
        if width == 8 and off + 4 < 0x18:
            nxt = off + 4
            v |= (geom[G_BX + nxt // 4] if nxt < 0xC else geom[G_GX + (nxt - 0xC) // 4]) << 32
        return v
    if off == 0x28:
        return geom[G_LOCAL]
    return v


@compiled
def raw(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters):
    """Bits of source operand k of thread t, without its modifiers (pairs: 64 bits)."""
    kind, idx, imm, _ = opnd(row, k)
    if kind == E.K_R32:
        return np.int64(regs.r32[idx, t])
    if kind == E.K_IMM:
        return np.int64(code.cu64[idx])
    if kind == E.K_PRED:
        v = np.int64(regs.pred[idx, t])
        return 1 - v if imm else v
    if kind == E.K_RPAIR:
        return np.int64(regs.r32[idx, t]) | (np.int64(regs.r32[idx + 1, t]) << 32)
    if kind == E.K_CONST:
        return const_word(mem, geom, idx, imm, 8 if row[E.F_FLAGS] & E.SM_64 else 4)
    if kind == E.K_SREG:
        v = sreg_value(idx, w, lane, geom, slot_block, counters)
        if imm == E.SREG_HIGH_WORD:
            return (v >> 32) & M32
        return (v & 0x7F) << 8 if imm == E.SREG_VIRTID else v
    return np.int64(0)


@compiled
def mods_of(row, k):
    return row[E.F_OPS + k * E.OPERAND_FIELDS + 3]


@compiled
def src_int(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters):
    """A 32-bit integer source with -x / ~x applied (two's complement, 32 bits)."""
    return int_mods(raw(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters) & M32, mods_of(row, k))


@compiled_inline
def int_mods(v, mods):
    """~x and -x of a 32-bit integer source (sass_fast.py reads its operands through it too)."""
    if mods & E.OM_NOT:
        v = ~v & M32
    if mods & E.OM_NEG:
        v = (-v) & M32
    return v


@compiled
def src_f32_bits(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters):
    """A float32 source's bits with |x| and -x applied (sign-bit operations, NaNs kept)."""
    return float_mods(raw(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters) & M32, mods_of(row, k))


@compiled_inline
def float_mods(v, mods):
    """|x| and -x of a float32 source, on its bits (NaNs kept)."""
    return sign_mods(v, mods, SIGN32)


@compiled_inline
def sign_mods(v, mods, signs):
    """|x| clears and -x flips the sign bits `signs` of a float's (or packed halves') bits."""
    if mods & E.OM_ABS:
        v &= ~signs
    if mods & E.OM_NEG:
        v ^= signs
    return v


@compiled
def src_f64_raw(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters):
    """A float64 source's bits before |x| and -x."""
    v = raw(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters)
    kind = row[E.F_OPS + k * E.OPERAND_FIELDS]
    if kind == E.K_IMM and (v >> 32) == 0 and v != 0:
        v = v << 32                       # a 32-bit immediate of a DADD is the value's upper word
    return v


@compiled
def src_f64_bits(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters):
    return f64_mods(row, k, src_f64_raw(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters))


@compiled
def f64_mods(row, k, v):
    """|x| and -x of source k applied to float64 bits."""
    return sign_mods(v, mods_of(row, k), SIGN64)


@compiled
def pred_src(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters):
    """A predicate source (!P applied); past the row's operands: false."""
    if k >= row[E.F_NOPS]:
        return np.int64(0)
    kind, idx, imm, _ = opnd(row, k)
    if kind == E.K_PRED:
        v = np.int64(regs.pred[idx, t])
        return 1 - v if imm else v
    return raw(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters) & 1


@compiled
def put(regs, row, k, t, v):
    """Write destination k of thread t (RZ / PT destinations are K_NONE: dropped)."""
    kind, idx, _, _ = opnd(row, k)
    if kind == E.K_R32:
        regs.r32[idx, t] = np.uint32(v & M32)
    elif kind == E.K_RPAIR:
        regs.r32[idx, t] = np.uint32(v & M32)
        regs.r32[idx + 1, t] = np.uint32((v >> 32) & M32)
    elif kind == E.K_PRED:
        regs.pred[idx, t] = np.uint8(v & 1)


@compiled
def f32_result(x):
    """Bits of a float32 result; NaN results are the GPU's canonical NaN."""
    if x != x:
        return CANONICAL_NAN32
    return f32_to_bits(x)


@compiled
def lop3(a, b, c, lut):
    r = np.int64(0)
    for i in range(8):
        if (lut >> i) & 1:
            term = M32
            term &= a if (i >> 2) & 1 else ~a
            term &= b if (i >> 1) & 1 else ~b
            term &= c if i & 1 else ~c
            r |= term
    return r & M32


@compiled
def signed32(v):
    v &= M32
    return v - (np.int64(1) << 32) if v & SIGN32 else v


@compiled_inline
def min_max32(a, b, unsigned, want_min):
    """(V)IMNMX's result: the smaller (want_min) or the larger of two 32-bit values, signed unless
    unsigned."""
    if not unsigned:
        a, b = signed32(a), signed32(b)
    return min(a, b) if want_min else max(a, b)


@compiled
def combine(r, bool_op, p):
    if bool_op == 1:
        return r & p
    if bool_op == 2:
        return r | p
    if bool_op == 3:
        return r ^ p
    return r


@compiled
def set_compare(code, regs, mem, row, r, t, w, lane, geom, slot_block, counters, src_pred):
    """P0 = r BOOL Pc, P1 = !r BOOL Pc (the two predicate results of every *SETP)."""
    p = pred_src(code, regs, mem, row, src_pred, t, w, lane, geom, slot_block, counters)
    bop = row[E.F_BOOL]
    put(regs, row, 0, t, combine(r, bop, p))
    put(regs, row, 1, t, combine(1 - r, bop, p))


@compiled
def float_cmp(cmp, a, b):
    if cmp == E.CMP_TRUE:
        return np.int64(1)
    if cmp == E.CMP_FALSE:
        return np.int64(0)
    return np.int64(1 if alu.float_compare(cmp, a, b) else 0)


@compiled
def shf(lo, s, hi, flags, signed):
    """Funnel shift of {hi:lo}: .L / .R, .W wraps the count (mod 32, .U64/.S64: mod 64), else it
    clamps; .HI: the upper word of the result."""
    limit = 64 if flags & E.SM_64 else 32
    if flags & E.SM_W:
        s &= limit - 1
    elif s > limit or s < 0:
        s = limit
    v = ((hi & M32) << 32) | (lo & M32)
    if flags & E.SM_L:
        r = v << s if s < 64 else np.int64(0)
    else:
        if signed:
            r = v >> s if s < 64 else (v >> 63)
        else:
            r = np.int64(np.uint64(v) >> np.uint64(s)) if s < 64 else np.int64(0)
    if flags & E.SM_HI:
        return (r >> 32) & M32
    return r & M32


@compiled
def exec_int(code, regs, mem, row, op, t, w, lane, geom, slot_block, counters):
    """Integer, logic, compare and move families.  Returns False when op is not one of them."""
    nd = row[E.F_NDST]
    fl = row[E.F_FLAGS]
    ty = row[E.F_TYPE]
    unsigned = ty == E.T_U32
    if op == E.OP_S_MOV or op == E.OP_S_UMOV:
        put(regs, row, 0, t, raw(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters))
    elif op == E.OP_S_IADD3 or op == E.OP_S_UIADD3:
        total = np.int64(0)
        for k in range(nd, nd + 3):
            v = raw(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters) & M32
            m = mods_of(row, k)
            if m & E.OM_NOT:
                v = ~v & M32
            if m & E.OM_NEG:
                v = ~v & M32
                total += 0 if fl & E.SM_X else 1          # -x is ~x + 1; .X forms carry that 1 in
            total += v
        if fl & E.SM_X:
            for k in range(nd + 3, row[E.F_NOPS]):
                total += pred_src(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters)
        put(regs, row, 0, t, total)
        # The carry out of three words is 0, 1 or 2; with two carry predicates (IADD3 R, P0, P1,
        # ...) each holds one unit of it, and IADD3.X adds both back (a carry of 2 sets both).
        carry = total >> 32
        if nd > 1:
            put(regs, row, 1, t, np.int64(1 if carry >= 1 else 0))
        if nd > 2:
            put(regs, row, 2, t, np.int64(1 if carry >= 2 else 0))
    elif op == E.OP_S_VIADD and row[E.F_VEC] == 2:      # VIADD.16x2: two 16-bit adds
        put(regs, row, 0, t, packed16(src_half_pairs(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters),
                                      src_half_pairs(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters),
                                      0, False))
    elif op == E.OP_S_VIADD:
        put(regs, row, 0, t, src_int(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
            + src_int(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters))
    elif op == E.OP_S_VIMNMX and row[E.F_VEC] == 2:     # VIMNMX.U16x2 / .S16x2: two 16-bit mins / maxes
        want_min = pred_src(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters)
        put(regs, row, 0, t, packed16(src_int(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters),
                                      src_int(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters),
                                      1 if want_min else 2, not unsigned))
    elif op == E.OP_S_IMAD or op == E.OP_S_UIMAD:
        exec_imad(code, regs, mem, row, t, w, lane, geom, slot_block, counters, nd, fl, unsigned)
    elif op == E.OP_S_LOP3 or op == E.OP_S_ULOP3:
        b0 = 1 if nd == 2 else 0          # LOP3.LUT P0, R0, a, b, c, lut, p: P0 = result != 0
        r = lop3(src_int(code, regs, mem, row, nd, t, w, lane, geom, slot_block, counters),
                 src_int(code, regs, mem, row, nd + 1, t, w, lane, geom, slot_block, counters),
                 src_int(code, regs, mem, row, nd + 2, t, w, lane, geom, slot_block, counters),
                 raw(code, regs, mem, row, nd + 3, t, w, lane, geom, slot_block, counters))
        put(regs, row, b0, t, r)
        if nd == 2:
            # the predicate result is (result != 0) OR the trailing predicate source (`!PT` in the
            # plain form): ptxas tests a 64-bit value against 0 as ISETP.NE.U32 P0 of the low word,
            # then LOP3.LUT P0, RZ, hi, RZ, RZ, 0xfc, P0
            p = pred_src(code, regs, mem, row, nd + 4, t, w, lane, geom, slot_block, counters)
            put(regs, row, 0, t, np.int64(1 if r != 0 or p else 0))
    elif op == E.OP_S_PLOP3 or op == E.OP_S_UPLOP3:
        i = (pred_src(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters) << 2) \
            | (pred_src(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters) << 1) \
            | pred_src(code, regs, mem, row, 4, t, w, lane, geom, slot_block, counters)
        put(regs, row, 0, t, (raw(code, regs, mem, row, 5, t, w, lane, geom, slot_block, counters) >> i) & 1)
        put(regs, row, 1, t, (raw(code, regs, mem, row, 6, t, w, lane, geom, slot_block, counters) >> i) & 1)
    elif op == E.OP_S_SHF or op == E.OP_S_USHF:
        put(regs, row, 0, t, shf(src_int(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters),
                                 raw(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters) & M32,
                                 src_int(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters),
                                 fl, ty == E.T_S32))
    elif op == E.OP_S_LEA or op == E.OP_S_ULEA:
        exec_lea(code, regs, mem, row, t, w, lane, geom, slot_block, counters, nd, fl)
    elif op == E.OP_S_ISETP or op == E.OP_S_UISETP:
        a = src_int(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters)
        b = src_int(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters)
        if not unsigned:
            a, b = signed32(a), signed32(b)
        r = np.int64(1 if alu.int_compare(row[E.F_CMP], a, b, E.T_S64) else 0)
        if fl & E.SM_EX and a == b:          # 64-bit chain: equal upper words defer to the lower result
            r = pred_src(code, regs, mem, row, 5, t, w, lane, geom, slot_block, counters)
        set_compare(code, regs, mem, row, r, t, w, lane, geom, slot_block, counters, 4)
    elif op == E.OP_S_SEL or op == E.OP_S_FSEL or op == E.OP_S_USEL:
        p = pred_src(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters)
        put(regs, row, 0, t, src_f32_bits(code, regs, mem, row, 1 if p else 2, t, w, lane, geom, slot_block,
                                          counters) if op == E.OP_S_FSEL else
            src_int(code, regs, mem, row, 1 if p else 2, t, w, lane, geom, slot_block, counters))
    elif op == E.OP_S_IABS:
        put(regs, row, 0, t, abs(signed32(src_int(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters))))
    elif op == E.OP_S_VIMNMX:
        r = min_max32(src_int(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters),
                      src_int(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters),
                      unsigned, pred_src(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters))
        if fl & E.SM_RELU and r < 0:          # VIMNMX.RELU (signed): a negative result becomes 0
            r = np.int64(0)
        put(regs, row, 0, t, r)
    elif op == E.OP_S_POPC or op == E.OP_S_UPOPC:
        put(regs, row, 0, t, alu.popcount(src_int(code, regs, mem, row, 1, t, w, lane, geom, slot_block,
                                                  counters), 32))
    elif op == E.OP_S_FLO or op == E.OP_S_UFLO:
        a = src_int(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
        put(regs, row, 0, t, alu.find_msb(a, 32, not unsigned, (fl & E.SM_SH) != 0))
    elif op == E.OP_S_BREV or op == E.OP_S_UBREV:
        put(regs, row, 0, t, alu.bit_reverse(src_int(code, regs, mem, row, 1, t, w, lane, geom, slot_block,
                                                     counters), 32))
    elif op == E.OP_S_PRMT or op == E.OP_S_UPRMT:
        a = src_int(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
        sel = src_int(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters)
        b = src_int(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters)
        put(regs, row, 0, t, alu.int_arith(E.OP_PRMT, E.T_B32, 0, a, b, sel))
    elif op == E.OP_S_SGXT or op == E.OP_S_USGXT:
        a = src_int(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
        n = raw(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters) & M32
        if n == 0:
            r = np.int64(0)
        elif n >= 32:
            r = a
        else:
            r = a & ((np.int64(1) << n) - 1)
            if not unsigned and (r >> (n - 1)) & 1:
                r -= np.int64(1) << n
        put(regs, row, 0, t, r)
    elif op == E.OP_S_S2R or op == E.OP_S_S2UR or op == E.OP_S_CS2R:
        put(regs, row, 0, t, raw(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters))
    elif op == E.OP_S_VIMNMX3:
        exec_vimnmx3(code, regs, mem, row, t, w, lane, geom, slot_block, counters, unsigned)
    elif op == E.OP_S_BMSK or op == E.OP_S_UBMSK:
        put(regs, row, 0, t, bit_mask(src_int(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters),
                                      src_int(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters),
                                      fl & E.SM_W))
    elif op == E.OP_S_R2P:
        exec_r2p(code, regs, mem, row, t, w, lane, geom, slot_block, counters)
    elif op == E.OP_S_P2R or op == E.OP_S_UP2UR:
        exec_p2r(code, regs, mem, row, t, w, lane, geom, slot_block, counters,
                 E.SASS_UP_BASE if op == E.OP_S_UP2UR else 0)
    elif op == E.OP_S_I2I:
        v = alu.extend(selected_part(raw(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters) & M32,
                                     mods_of(row, 1)), row[E.F_TYPE2])
        if fl & E.SM_SAT:
            v = alu.saturate_int(v, ty)
        put(regs, row, 0, t, alu.extend(v, ty))
    elif op == E.OP_S_IDP:
        a = src_int(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
        b = src_int(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters)
        c = src_int(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters)
        pflags = (E.FL_B_SIGNED if E.TYPE_SIGNED[row[E.F_TYPE2]] else 0) | (E.FL_HI if fl & E.SM_HI else 0)
        put(regs, row, 0, t, alu.dot_bytes(row[E.F_CMP], a, b, c, E.TYPE_SIGNED[ty] != 0, pflags))
    elif op == E.OP_S_CCTL or op == E.OP_S_ENDCOLLECTIVE:
        pass                  # no register results; the simulated L1 holds nothing CCTL.IVALL must drop
    elif op == E.OP_S_LDC or op == E.OP_S_ULDC:
        _, bank, off, _ = opnd(row, 1)
        off += raw(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters)
        put(regs, row, 0, t, const_word(mem, geom, bank, off, row[E.F_VEC]))
    else:
        return False
    return True


@compiled
def src_half_pairs(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters):
    """A packed pair of 16-bit integers with ~x (bitwise) and -x (each half negated) applied."""
    v = raw(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters) & M32
    m = mods_of(row, k)
    if m & E.OM_NOT:
        v = ~v & M32
    if m & E.OM_NEG:
        v = ((-(v & 0xFFFF)) & 0xFFFF) | (((-(v >> 16)) & 0xFFFF) << 16)
    return v


@compiled
def packed16(a, b, kind, signed):
    """Two 16-bit halves at once: kind 0 adds (wrapping in each half), 1 takes the minimum, 2 the
    maximum (signed or unsigned halves)."""
    r = np.int64(0)
    for k in range(2):
        x = (a >> (16 * k)) & 0xFFFF
        y = (b >> (16 * k)) & 0xFFFF
        if kind == 0:
            h = (x + y) & 0xFFFF
        else:
            sx = x - 0x10000 if signed and x & 0x8000 else x
            sy = y - 0x10000 if signed and y & 0x8000 else y
            h = x if (sx < sy) == (kind == 1) else y
        r |= h << (16 * k)
    return r


@compiled
def exec_imad(code, regs, mem, row, t, w, lane, geom, slot_block, counters, nd, fl, unsigned):
    """IMAD d[, carry], a, b, c[, carry in]: .WIDE gives the 64-bit pair a*b + c (c a pair), .HI the
    upper word of a*b + c (c a pair: IMAD.HI.U32 R5, R3, R7, R2 adds R3:R2), .X adds the carry in
    (at bit 0 of the 64-bit sum, also for .HI)."""
    a = raw(code, regs, mem, row, nd, t, w, lane, geom, slot_block, counters) & M32
    b = raw(code, regs, mem, row, nd + 1, t, w, lane, geom, slot_block, counters) & M32
    if mods_of(row, nd + 1) & E.OM_NEG:
        b = (-b) & M32
    if not unsigned:
        a, b = signed32(a), signed32(b)
    c = raw(code, regs, mem, row, nd + 2, t, w, lane, geom, slot_block, counters)
    cm = mods_of(row, nd + 2)
    cin = pred_src(code, regs, mem, row, nd + 3, t, w, lane, geom, slot_block, counters) if fl & E.SM_X else 0
    if fl & E.SM_WIDE or fl & E.SM_HI:          # c is a register pair (64 bits)
        if cm & E.OM_NEG:
            c = -c
        product = a * b                         # int64 wraps: bits 0..63 are exact
        total = product + c + cin
        # .HI.X: the carry in joins the 64-bit sum at bit 0, then the upper word is taken (ptxas's
        # umul64hi(x, x): IMAD.HI.U32.X R16, h, h, R16, P1 with R17:R16 = carry:mid and P1 the carry
        # out of the middle words; generated corpus k00300)
        put(regs, row, 0, t, (total >> 32) if fl & E.SM_HI else total)
        if nd > 1:                              # IMAD.WIDE.U32 R2, P0, a, b, c: the carry out of bit 63
            put(regs, row, 1, t, carry_out64(product, c, cin))
        return
    if cm & E.OM_NOT:
        c = ~c
    if cm & E.OM_NEG:
        c = -c
    c &= M32
    total = ((a * b) & M32) + c + cin
    put(regs, row, 0, t, total)
    if nd > 1:
        put(regs, row, 1, t, (total >> 32) & 1)


@compiled
def bit_mask(pos, length, wrap):
    """BMSK: `length` ones from bit `pos` (bmsk.clamp: both clamped to 32, bits past 31 dropped;
    .W, bmsk.wrap: both taken mod 32)."""
    if wrap:
        pos &= 31
        length &= 31
    pos = min(pos, np.int64(32))
    length = min(length, np.int64(32))
    if pos >= 32:
        return np.int64(0)
    return (((np.int64(1) << length) - 1) << pos) & M32


@compiled
def exec_vimnmx3(code, regs, mem, row, t, w, lane, geom, slot_block, counters, unsigned):
    """VIMNMX3[.U32|.U16x2|.S16x2] d, a, b, c, p: the minimum (p) or maximum (!p) of three integers
    (.U16x2 / .S16x2: of each 16-bit half)."""
    best = np.int64(0)
    want_min = pred_src(code, regs, mem, row, 4, t, w, lane, geom, slot_block, counters)
    if row[E.F_VEC] == 2:                   # VIMNMX3.U16x2 / .S16x2: half by half
        for k in range(1, 4):
            v = src_int(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters)
            best = v if k == 1 else packed16(best, v, 1 if want_min else 2, not unsigned)
        put(regs, row, 0, t, best)
        return
    for k in range(1, 4):
        v = src_int(code, regs, mem, row, k, t, w, lane, geom, slot_block, counters)
        if not unsigned:
            v = signed32(v)
        if k == 1 or (want_min and v < best) or (not want_min and v > best):
            best = v
    put(regs, row, 0, t, best)


@compiled
def exec_p2r(code, regs, mem, row, t, w, lane, geom, slot_block, counters, base):
    """P2R d, PR, b, mask: the predicates P0..P6 as bits 0..6, masked, into byte F_VEC of b:
    d = (b & ~(mask << 8k)) | ((PR & mask) << 8k).  UP2UR: the same of UP0..UP6 (base: the
    uniform predicates' first row)."""
    prs = np.int64(0)
    for p in range(7):
        prs |= np.int64(regs.pred[base + p, t]) << p
    shift = 8 * row[E.F_VEC]
    mask = (raw(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters) & 0xFF) << shift
    b = src_int(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
    put(regs, row, 0, t, (b & ~mask) | ((prs << shift) & mask))


@compiled
def exec_r2p(code, regs, mem, row, t, w, lane, geom, slot_block, counters):
    """R2P PR, b, mask: for each bit p (0..6) of mask, P_p = bit p of byte F_VEC of b (P2R's
    inverse); the other predicates keep their values."""
    shift = 8 * row[E.F_VEC]
    bits = src_int(code, regs, mem, row, 0, t, w, lane, geom, slot_block, counters) >> shift
    mask = raw(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
    for p in range(7):
        if (mask >> p) & 1:
            regs.pred[p, t] = np.uint8((bits >> p) & 1)


@compiled
def carry_out64(x, y, cin):
    """The carry out of the 64-bit unsigned sum x + y + cin (bit patterns in int64)."""
    ux, uy = np.uint64(x), np.uint64(y)
    s = ux + uy
    carry = 1 if s < ux else 0
    if cin and s == np.uint64(0xFFFFFFFFFFFFFFFF):
        carry = 1
    return np.int64(carry)


@compiled
def exec_lea(code, regs, mem, row, t, w, lane, geom, slot_block, counters, nd, fl):
    """LEA d[, carry], a, b, s: (a << s) + b; LEA.HI d, a, b, c, s: upper word of ({c:a} << s) + b
    (.SX32: c is a's sign); .X adds the carry in (the last operand)."""
    a = src_int(code, regs, mem, row, nd, t, w, lane, geom, slot_block, counters)
    b = src_int(code, regs, mem, row, nd + 1, t, w, lane, geom, slot_block, counters)
    n = row[E.F_NOPS]
    last_src = n - 1 if fl & E.SM_X else n
    s = raw(code, regs, mem, row, last_src - 1, t, w, lane, geom, slot_block, counters) & 31
    cin = pred_src(code, regs, mem, row, n - 1, t, w, lane, geom, slot_block, counters) if fl & E.SM_X else 0
    if fl & E.SM_HI:
        if fl & E.SM_SX32:
            c = M32 if a & SIGN32 else np.int64(0)
        else:
            c = src_int(code, regs, mem, row, nd + 2, t, w, lane, geom, slot_block, counters)
        shifted = ((((c << 32) | a) << s) >> 32) & M32
    elif mods_of(row, nd) & E.OM_NEG and not fl & E.SM_X:
        # LEA d, P0, -a, b, s (b - (a << s), the low word of a 64-bit subtract): -(a << s) is
        # ~(a << s) + 1 with its carry, so P0 is 1 where nothing is borrowed, also for a << s == 0
        x = raw(code, regs, mem, row, nd, t, w, lane, geom, slot_block, counters) & M32
        if mods_of(row, nd) & E.OM_NOT:
            x = ~x & M32
        shifted = (~(x << s) & M32) + 1
    else:
        shifted = (a << s) & M32
    if mods_of(row, nd + 1) & E.OM_NEG and not fl & E.SM_X and not fl & E.SM_HI:
        # LEA d, P0, a, -b, s ((a << s) - b, the low word of a 64-bit subtract): -b is ~b + 1 with
        # its carry, so P0 is 1 where nothing is borrowed, also for b == 0 (generated corpus k03611)
        x = raw(code, regs, mem, row, nd + 1, t, w, lane, geom, slot_block, counters) & M32
        if mods_of(row, nd + 1) & E.OM_NOT:
            x = ~x & M32
        b = (~x & M32) + 1
    total = shifted + b + cin
    put(regs, row, 0, t, total)
    if nd > 1:
        put(regs, row, 1, t, (total >> 32) & 1)


@compiled
def exec_float(code, regs, mem, row, op, t, w, lane, geom, slot_block, counters):
    """FP32 / FP64 arithmetic, compares, MUFU and conversions.  False when op is none of them."""
    fl = row[E.F_FLAGS]
    rnd = row[E.F_RND] if row[E.F_RND] > 0 else E.RND_RN
    pflags = (E.FL_FTZ if fl & E.SM_FTZ else 0) | (E.FL_SAT if fl & E.SM_SAT else 0)
    if op == E.OP_S_FADD or op == E.OP_S_FMUL or op == E.OP_S_FFMA:
        a = f32_from_bits((src_f32_bits(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)))
        b = f32_from_bits((src_f32_bits(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters)))
        c = np.float32(0.0)
        pop = E.OP_ADD if op == E.OP_S_FADD else E.OP_MUL
        if op == E.OP_S_FFMA:
            c = f32_from_bits((src_f32_bits(code, regs, mem, row, 3, t, w, lane, geom, slot_block,
                                                   counters)))
            pop = E.OP_FMA
        put(regs, row, 0, t, f32_result(alu.f32_arith(pop, a, b, c, pflags, rnd)))
    elif op == E.OP_S_FMNMX:                # .FTZ: subnormal inputs are sign-preserving zeros (min.ftz.f32)
        a = np.float64(alu.flush32(f32_from_bits((src_f32_bits(code, regs, mem, row, 1, t, w, lane, geom,
                                                                      slot_block, counters))), fl & E.SM_FTZ))
        b = np.float64(alu.flush32(f32_from_bits((src_f32_bits(code, regs, mem, row, 2, t, w, lane, geom,
                                                                      slot_block, counters))), fl & E.SM_FTZ))
        want_min = pred_src(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters)
        put(regs, row, 0, t, f32_result(alu.float_min_max(a, b, not want_min)))
    elif op == E.OP_S_FSETP:
        a = np.float64(alu.flush32(f32_from_bits((src_f32_bits(code, regs, mem, row, 2, t, w, lane, geom,
                                                                      slot_block, counters))), fl & E.SM_FTZ))
        b = np.float64(alu.flush32(f32_from_bits((src_f32_bits(code, regs, mem, row, 3, t, w, lane, geom,
                                                                      slot_block, counters))), fl & E.SM_FTZ))
        set_compare(code, regs, mem, row, float_cmp(row[E.F_CMP], a, b), t, w, lane, geom, slot_block, counters, 4)
    elif op == E.OP_S_FSET:                 # FSET[.BF].cmp.bop d, a, b, p: 1.0f (.BF) / 0xffffffff, or 0
        a = np.float64(alu.flush32(f32_from_bits((src_f32_bits(code, regs, mem, row, 1, t, w, lane, geom,
                                                                      slot_block, counters))), fl & E.SM_FTZ))
        b = np.float64(alu.flush32(f32_from_bits((src_f32_bits(code, regs, mem, row, 2, t, w, lane, geom,
                                                                      slot_block, counters))), fl & E.SM_FTZ))
        p = pred_src(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters)
        r = combine(float_cmp(row[E.F_CMP], a, b), row[E.F_BOOL], p)
        put(regs, row, 0, t, (np.int64(0x3F800000) if fl & E.SM_BF else M32) if r else np.int64(0))
    elif op == E.OP_S_DADD or op == E.OP_S_DMUL or op == E.OP_S_DFMA:
        put(regs, row, 0, t, exec_dfma(code, regs, mem, row, op, t, w, lane, geom, slot_block, counters, rnd))
    elif op == E.OP_S_DSETP:
        a = f64_from_bits(src_f64_bits(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters))
        b = f64_from_bits(src_f64_bits(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters))
        if row[E.F_CMP] == E.CMP_MIN_SELECT or row[E.F_CMP] == E.CMP_MAX_SELECT:
            dsetp_minmax(code, regs, mem, row, a, b, t, w, lane, geom, slot_block, counters)
        else:
            set_compare(code, regs, mem, row, float_cmp(row[E.F_CMP], a, b), t, w, lane, geom, slot_block,
                        counters, 4)
    elif op == E.OP_S_MUFU:
        exec_mufu(code, regs, mem, row, t, w, lane, geom, slot_block, counters)
    elif op == E.OP_S_FRND:
        exec_frnd(code, regs, mem, row, t, w, lane, geom, slot_block, counters, rnd, fl)
    elif op == E.OP_S_I2F or op == E.OP_S_I2FP or op == E.OP_S_F2I or op == E.OP_S_F2F:
        exec_convert(code, regs, mem, row, op, t, w, lane, geom, slot_block, counters, rnd, fl)
    else:
        return False
    return True


@compiled
def dsetp_minmax(code, regs, mem, row, a, b, t, w, lane, geom, slot_block, counters):
    """DSETP.MIN / .MAX P, Q, a, b, Pc (ptxas's fmin / fmax of doubles, followed by selects of a
    or b and a fix-up of the NaN case): P = a is the result (MIN: a < b, or a == b with a's sign
    set or b's clear, so min(-0, +0) = -0; MAX: a > b, or a == b with a's sign clear or b's set;
    a number against a NaN: the number), Q = both are NaN (ptxas then quiets a's NaN); each
    combined with Pc by the row's .AND / .OR / .XOR."""
    want_min = row[E.F_CMP] == E.CMP_MIN_SELECT
    a_nan, b_nan = a != a, b != b
    if a_nan or b_nan:
        pick_a = not a_nan
    elif a == b:
        sa, sb = math.copysign(1.0, a) < 0, math.copysign(1.0, b) < 0
        pick_a = (sa or not sb) if want_min else (not sa or sb)
    else:
        pick_a = a < b if want_min else a > b
    p = pred_src(code, regs, mem, row, 4, t, w, lane, geom, slot_block, counters)
    bop = row[E.F_BOOL]
    put(regs, row, 0, t, combine(np.int64(1 if pick_a else 0), bop, p))
    put(regs, row, 1, t, combine(np.int64(1 if a_nan and b_nan else 0), bop, p))


@compiled
def exec_dfma(code, regs, mem, row, op, t, w, lane, geom, slot_block, counters, rnd):
    """DADD a, b / DMUL a, b / DFMA a, b, c: the result's bits (a NaN source: dfma_nan; the
    host's own choice between NaNs differs from the H100's)."""
    ra = src_f64_raw(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
    rb = src_f64_raw(code, regs, mem, row, 2, t, w, lane, geom, slot_block, counters)
    rc = np.int64(0)
    pop = E.OP_ADD if op == E.OP_S_DADD else E.OP_MUL
    if op == E.OP_S_DFMA:
        rc = src_f64_raw(code, regs, mem, row, 3, t, w, lane, geom, slot_block, counters)
        pop = E.OP_FMA
    nan = dfma_nan(ra, rb, rc)
    if nan != 0:
        return nan
    a = f64_from_bits(f64_mods(row, 1, ra))
    b = f64_from_bits(f64_mods(row, 2, rb))
    c = f64_from_bits(f64_mods(row, 3, rc)) if op == E.OP_S_DFMA else 0.0
    return f64_to_bits(alu.f64_arith(pop, a, b, c, 0, rnd))


@compiled
def exec_frnd(code, regs, mem, row, t, w, lane, geom, slot_block, counters, rnd, fl):
    """FRND[.F64] d, a: a rounded to an integral value in its own format (cvt.rni/rmi/rpi/rzi);
    NaN: the canonical NaN (f32) or the quieted input (f64, as DADD passes NaNs on)."""
    if row[E.F_TYPE] == E.T_F64:
        r = src_f64_raw(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
        nan = dfma_nan(r, np.int64(0), np.int64(0))
        if nan != 0:
            # a NaN source: quieted, without its |x| / -x (FRND.F64.TRUNC R4, |R18| of a negative
            # NaN stays negative on the H100, generated corpus k06327; as DADD and F2F)
            put(regs, row, 0, t, nan)
            return
        x = f64_from_bits(f64_mods(row, 1, r))
        put(regs, row, 0, t, f64_to_bits(alu.round_integral(x, rnd)))
        return
    x = np.float64(alu.flush32(f32_from_bits(src_f32_bits(code, regs, mem, row, 1, t, w, lane, geom, slot_block,
                                                          counters)), fl & E.SM_FTZ))
    put(regs, row, 0, t, f32_result(alu.flush32(np.float32(alu.round_integral(x, rnd)), fl & E.SM_FTZ)))


@compiled
def mufu64h(fn, bits):
    """MUFU.RCP64H / .RSQ64H a: the upper word of 1/d or 1/sqrt(d), d the double whose upper word is
    a (low word zero); NaN results: 0x7fffffff (the upper word of the canonical NaN).  Subnormal
    operands and results are flushed to zero, as rcp.approx.ftz.f64 says and the H100 does (s-mufu)."""
    d = f64_from_bits((bits & M32) << 32)
    if abs(d) < DBL_MIN:
        d = math.copysign(0.0, d)
    if fn == E.MUFU_RCP64H:
        r = 1.0 / d if d != 0.0 else math.copysign(math.inf, d)
    elif d == 0.0:
        r = math.copysign(math.inf, d)
    else:
        r = 1.0 / math.sqrt(d) if d > 0.0 else math.nan
    if r != r:
        return CANONICAL_NAN32
    if abs(r) < DBL_MIN:
        r = math.copysign(0.0, r)
    return (f64_to_bits(r) >> 32) & M32


@compiled
def exec_mufu(code, regs, mem, row, t, w, lane, geom, slot_block, counters):
    """MUFU.<fn> d, a (F_CMP: the function, E.MUFU_*): the SFU's approximations, modelled by the
    correctly rounded function (within the ulp bounds of docs/sass-differential.md)."""
    fn = row[E.F_CMP]
    bits = src_f32_bits(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
    if fn == E.MUFU_RCP64H or fn == E.MUFU_RSQ64H:
        put(regs, row, 0, t, mufu64h(fn, bits))
        return
    x = np.float64(alu.flush32(f32_from_bits((bits)), True))
    if fn == E.MUFU_SIN or fn == E.MUFU_COS:
        x *= 2.0 * math.pi              # ptxas scales the angle by 1/(2 pi) first (FMUL.RZ): MUFU.SIN is sin(2 pi x)
    put(regs, row, 0, t, f32_result(alu.flush32(np.float32(alu.sfu32(E.MUFU_PTX_OP[fn], x)), True)))


@compiled
def exec_convert(code, regs, mem, row, op, t, w, lane, geom, slot_block, counters, rnd, fl):
    dty = row[E.F_TYPE]
    sty = row[E.F_TYPE2]
    v = raw(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
    m = mods_of(row, 1)
    if op == E.OP_S_I2F or op == E.OP_S_I2FP:
        iv = alu.extend(selected_part(v, m), sty)
        if dty == E.T_F64:
            put(regs, row, 0, t, f64_to_bits(alu.int_to_float64(iv, sty, rnd)))
        elif dty == E.T_F32:
            put(regs, row, 0, t, f32_to_bits(alu.int_to_float32(iv, sty, rnd)))
        else:
            put(regs, row, 0, t, H.convert(alu.int_to_float64(iv, sty, E.RND_RN), rnd, 0, dty == E.T_BF16))
        return
    if sty == E.T_F64:
        x = f64_from_bits(src_f64_bits(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters))
    elif sty == E.T_F16 or sty == E.T_BF16:             # F2I.U32.BF16.TRUNC R0, -R2: |x| / -x on the half's sign
        x = H.decode(sign_mods((v >> 16) & 0xFFFF if m & E.OM_H1 else v & 0xFFFF, m, np.int64(0x8000)),
                     sty == E.T_BF16)
    else:
        x = np.float64(alu.flush32(f32_from_bits((src_f32_bits(code, regs, mem, row, 1, t, w, lane, geom,
                                                                      slot_block, counters))), fl & E.SM_FTZ))
    if x != x and (op == E.OP_S_F2I or (sty == E.T_F64 and dty != E.T_F64)):
        put(regs, row, 0, t, converted_nan(code, regs, mem, row, op, t, w, lane, geom, slot_block, counters,
                                           fl, dty))
        return
    if op == E.OP_S_F2I:
        rmode = E.RND_RZI if rnd == E.RND_RZ else (E.RND_RMI if rnd == E.RND_RM else
                                                  (E.RND_RPI if rnd == E.RND_RP else E.RND_RNI))
        put(regs, row, 0, t, alu.float_to_int(x, rmode, dty))
    elif dty == E.T_F64:
        if x != x and sty == E.T_F32:
            # F2F.F64.F32 of a NaN: the register's NaN widened and quieted, without |x| / -x (the
            # H100 applies no sign modifier to a NaN source, as DADD: `(double)fabsf(f)` of a negative
            # NaN is F2F.F64.F32 R4, |R11| and stays negative, generated corpus k00019)
            put(regs, row, 0, t, widened_f32_nan(raw(code, regs, mem, row, 1, t, w, lane, geom, slot_block,
                                                     counters)))
        else:
            put(regs, row, 0, t, f64_to_bits(x))
    elif dty == E.T_F32:
        if rnd == E.RND_RN or sty != E.T_F64:
            r = np.float32(x)
        else:
            r = alu.round_f64_to_f32(x, rnd, 0.0)
        put(regs, row, 0, t, f32_result(alu.flush32(r, fl & E.SM_FTZ)))
    else:
        put(regs, row, 0, t, H.convert(x, rnd, 0, dty == E.T_BF16))


@compiled_inline
def selected_part(v, m):
    """The half-word or byte of a 32-bit integer source its selector names (.H1: bits 16-31, .B1 /
    .B2 / .B3: from bit 8 / 16 / 24; none, .H0, .B0: from bit 0), shifted down; the row's source
    type (U16, S8, ...) then takes its width, zero- or sign-extended."""
    if m & E.OM_H1 or m & E.OM_B2:
        return (v >> 16) & 0xFFFF
    if m & E.OM_B1:
        return (v >> 8) & 0xFFFFFF
    if m & E.OM_B3:
        return (v >> 24) & 0xFF
    return v


@compiled
def converted_nan(code, regs, mem, row, op, t, w, lane, geom, slot_block, counters, fl, dty):
    """F2I, and F2F from F64 to a narrower float, of a NaN (bits.nan_as_int, bits.narrowed_f64_nan)."""
    if op == E.OP_S_F2I:
        return nan_as_int(fl & E.SM_NTZ, E.TYPE_BITS[dty])
    # the NaN as it is in the register: the H100 applies no -x / |x| to a NaN source (F2F.F32.F64.RM
    # R9, -R8 of a positive NaN gives a positive one: generated corpus k00612, k01202), as DADD
    v = src_f64_raw(code, regs, mem, row, 1, t, w, lane, geom, slot_block, counters)
    return narrowed_f64_nan(v, dty != E.T_F32, dty == E.T_BF16)


@compiled
def exec_vote(code, regs, mem, row, op, w, exec_mask, base_t, wsz, geom, slot_block, counters):
    """VOTE.ANY / .ALL / .EQ Rd, Pd, Psrc and VOTEU.ANY URd, UPd, Psrc: Rd = the ballot of the active
    lanes, Pd = any / all of them / whether they all agree."""
    nd = row[E.F_NDST]
    ballot = np.int64(0)
    for lane in range(wsz):
        if (exec_mask >> lane) & 1 and pred_src(code, regs, mem, row, nd, base_t + lane, w, lane, geom,
                                                slot_block, counters):
            ballot |= np.int64(1) << lane
    if row[E.F_CMP] == E.VOTE_MODE_ALL:
        flag = np.int64(1 if ballot == exec_mask else 0)
    elif row[E.F_CMP] == E.VOTE_MODE_EQ:          # VOTE.EQ (vote.uni): the same in every active lane
        flag = np.int64(1 if ballot == 0 or ballot == exec_mask else 0)
    else:
        flag = np.int64(1 if ballot != 0 else 0)
    lanes = exec_mask if op == E.OP_S_VOTE else (np.int64(1) << wsz) - 1
    for lane in range(wsz):
        if (lanes >> lane) & 1:
            kind = row[E.F_OPS]
            if nd == 2 or kind != E.K_PRED:
                put(regs, row, 0, base_t + lane, ballot)
                if nd == 2:
                    put(regs, row, 1, base_t + lane, flag)
            else:
                put(regs, row, 0, base_t + lane, flag)


@compiled
def exec_sass(code, regs, mem, row, op, w, exec_mask, base_t, geom, slot_block, counters):
    """One SASS row for the lanes in exec_mask (uniform rows: every lane of the warp).  Returns
    False when the opcode has no semantics here (the caller faults)."""
    wsz = geom[G_WS]
    if exec_mask == 0:
        return True
    if op == E.OP_S_VOTE or op == E.OP_S_VOTEU:
        exec_vote(code, regs, mem, row, op, w, exec_mask, base_t, wsz, geom, slot_block, counters)
        return True
    lanes = exec_mask
    if row[E.F_FLAGS] & E.SM_UNIFORM:
        lanes = (np.int64(1) << wsz) - 1
    if op == E.OP_S_R2UR:                 # the value of the first active lane, for the whole warp
        first = first_lane(exec_mask)
        v = raw(code, regs, mem, row, 1, base_t + first, w, first, geom, slot_block, counters)
        for lane in range(wsz):
            put(regs, row, 0, base_t + lane, v)
        return True
    for lane in range(wsz):
        if (lanes >> lane) & 1:
            t = base_t + lane
            if not exec_int(code, regs, mem, row, op, t, w, lane, geom, slot_block, counters):
                if not exec_float(code, regs, mem, row, op, t, w, lane, geom, slot_block, counters):
                    return False
    return True
