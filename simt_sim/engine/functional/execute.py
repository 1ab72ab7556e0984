"""Functional execution of one warp-instruction: operands, lanes, memory, warp-wide operations and
control flow.  The timing model decides *when* a warp issues; this decides *what* it does."""
from __future__ import annotations

import numpy as np

from simt_sim.engine.functional import alu
from simt_sim.engine.functional import half as H
from simt_sim.isa import encoding as E
from simt_sim.engine.functional.fparith import fma64
from simt_sim.engine.functional import fastpath as F
from simt_sim.engine.functional import address as M
from simt_sim.engine.functional.address import lane_address
from simt_sim.engine.functional import simt_stack as S
from simt_sim.engine.functional import tensor as T
from simt_sim.engine.functional import calls as CALLS
from simt_sim.engine.functional import convergence as CV
from simt_sim.engine.functional.bits import (dfma_nan, f32_from_bits, f32_to_bits, f64_from_bits, f64_to_bits,
                                             nan_as_int, narrowed_f64_nan)
from simt_sim.engine.functional import sass_step as SS
from simt_sim.engine.buffers import append4
from simt_sim.engine.jit import allocating, compiled, compiled_inline, unless_none
from simt_sim.engine.functional.regfile import MASK32, opnd, operand_f32, read_f32, read_f64
# This file's per-lane paths use the register readers and writer compiled apart (regfile.py says why).
from simt_sim.engine.functional.regfile import (compare_half_apart as compare_half,
                                                compare_sources_apart as compare_sources,
                                                read_int_apart as read_int, read_raw_apart as read_raw,
                                                write_raw_apart as write_raw)
from simt_sim.machine.layout import (ACCESS_ATOMIC, ACCESS_READ, ACCESS_WRITE, F_AT_GID, F_AT_PC, FAULT_NONE,
                                     C_ACTIVE_LANES, C_HIST, C_THREAD_INSTS, C_WARP_INSTS, FAULT_CALL_DEPTH, FAULT_DEADLOCK,
                                     FAULT_EMPTY_POP, FAULT_MISALIGNED, FAULT_OOB, FAULT_STACK, FAULT_TRAP,
                                     FAULT_UNSUPPORTED, G, WF_ARRIVED, WF_BAR_COUNT, WF_BAR_ID, WF_BAR_MASK, WF_CALL_DEPTH, WF_DEFERRED, WF_FULL, WF_GID, WF_MASK, WF_PC,
                                     WF_SP, WF_STATUS, W_BARRIER, W_DONE, W_READY, ISA_SASS)

# step results
STEP_OK, STEP_FAULT = 0, 1

G_WS, G_WPB, G_SHARED, G_LOCAL, G_POLICY = (G["warp_size"], G["wpb"], G["shared_bytes"],
                                            G["local_bytes"], G["policy"])
G_CALL_DEPTH = G["call_depth"]
G_ISA = G["isa"]


@compiled
def set_fault(fault, code, gid, lane, pc, addr, extra):
    fault[0] = code
    fault[1] = gid
    fault[2] = lane
    fault[3] = pc
    fault[4] = addr
    fault[5] = extra


@compiled_inline
def write_vec_element(regs, entry, t, v):
    if entry < 0:
        return
    if entry & E.VEC_R64:
        regs.r64[entry & (E.VEC_R64 - 1), t] = np.uint64(v)
    else:
        regs.r32[entry, t] = np.uint32(v & MASK32)


@compiled_inline
def read_vec_element(code, regs, entry, t):
    if entry < 0:
        return np.int64(0)
    if entry & E.VEC_IMM:               # an immediate element: raw bits in the constant table
        return np.int64(code.cu64[entry & (E.VEC_IMM - 1)])
    if entry & E.VEC_R64:
        return np.int64(regs.r64[entry & (E.VEC_R64 - 1), t])
    return np.int64(regs.r32[entry, t])


@compiled_inline
def guard_mask(row, regs, base_t, mask, ws):
    g = row[E.F_GUARD]
    if g < 0:
        return mask
    neg = row[E.F_GUARD_NEG]
    out = np.int64(0)
    for lane in range(ws):
        if (mask >> lane) & 1:
            p = regs.pred[g, base_t + lane]
            if (p != 0) != (neg != 0):
                out |= np.int64(1) << lane
    return out


@compiled_inline
def predicate_lanes(regs, row, k, mask, base_t, ws):
    """The lanes of mask whose predicate operand k (a SASS K_PRED; its immediate: negated) is true."""
    _, idx, neg, _ = opnd(row, k)
    out = np.int64(0)
    for lane in range(ws):
        if (mask >> lane) & 1 and (regs.pred[idx, base_t + lane] != 0) != (neg != 0):
            out |= np.int64(1) << lane
    return out


@compiled
def nonzero_lanes(code, regs, row, k, mask, base_t, w, geom, slot_block, counters):
    """The lanes of mask whose operand k is non-zero (vote ballots, mask_nz, br_push)."""
    out = np.int64(0)
    for lane in range(geom[G_WS]):
        if (mask >> lane) & 1:
            if read_int(code, regs, row, k, base_t + lane, w, lane, geom, slot_block, counters) != 0:
                out |= np.int64(1) << lane
    return out


@compiled
def exec_lane_alu(code, regs, row, op, t, w, lane, geom, slot_block, counters):
    """For one thread: the ALU instructions fastpath.alu_warp leaves out (vector moves, set, slct,
    cvt, cvta, predicate logic, bfi)."""
    ty = row[E.F_TYPE]
    flags = row[E.F_FLAGS]
    dk, di, _, dty = opnd(row, 0)
    if op == E.OP_MOV:
        sk, si, simm, sty = opnd(row, 1)
        if sk == E.K_VEC:               # pack {a, b} into one register
            n = simm
            width = E.TYPE_BITS[ty] // n
            v = np.int64(0)
            for k in range(n):
                part = read_vec_element(code, regs, code.vecs[si, k], t)
                if width < 64:
                    part &= (np.int64(1) << width) - 1
                v |= part << (width * k)
            write_raw(regs, dk, di, t, v)
        else:                           # unpack one register into {a, b}
            v = read_raw(code, regs, t, sk, si, simm, w, lane, geom, slot_block, counters)
            n = opnd(row, 0)[2]
            width = E.TYPE_BITS[ty] // n
            for k in range(n):
                part = v >> (width * k)
                if width < 64:
                    part &= (np.int64(1) << width) - 1
                write_vec_element(regs, code.vecs[di, k], t, part)
        return
    if op == E.OP_SET:                  # set.CMP.dtype.stype: all ones (or 1.0 in float types) when true
        sty = row[E.F_TYPE2]
        r = compare_sources(code, regs, row, sty, t, w, lane, geom, slot_block, counters)
        if H.is_pair(sty):              # one result per 16-bit half: 1.0 or 0xffff
            r1 = compare_half(code, regs, row, sty, 1, t, w, lane, geom, slot_block, counters)
            write_raw(regs, dk, di, t, (set_value(r1, ty, True) << 16) | set_value(r, ty, True))
        elif ty == E.T_F32:
            regs.f32[di, t] = np.float32(1.0 if r else 0.0)
        else:
            write_raw(regs, dk, di, t, set_value(r, ty, False))
        return
    if op == E.OP_SLCT:
        if row[E.F_TYPE2] == E.T_F32:
            choose_a = np.float64(operand_f32(code, regs, row, 3, t)) >= 0.0
        else:
            choose_a = read_int(code, regs, row, 3, t, w, lane, geom, slot_block, counters) >= 0
        k = 1 if choose_a else 2
        sk, si, simm, _ = opnd(row, k)
        v = read_raw(code, regs, t, sk, si, simm, w, lane, geom, slot_block, counters)
        write_raw(regs, dk, di, t, alu.truncate(v, ty))
        return
    if op == E.OP_CVT:
        exec_cvt(code, regs, row, t, w, lane, geom, slot_block, counters)
        return
    if op == E.OP_ISSPACEP:
        a = read_int(code, regs, row, 1, t, w, lane, geom, slot_block, counters)
        write_raw(regs, dk, di, t, np.int64(1) if in_space(row[E.F_SPACE], a) else np.int64(0))
        return
    if op == E.OP_CVTA:
        v = read_int(code, regs, row, 1, t, w, lane, geom, slot_block, counters)
        v = M.cvta_value(v, row[E.F_SPACE], flags & E.FL_TO)
        write_raw(regs, dk, di, t, alu.truncate(v, ty))
        return
    nops = row[E.F_NOPS]
    a = read_int(code, regs, row, 1, t, w, lane, geom, slot_block, counters)
    b = read_int(code, regs, row, 2, t, w, lane, geom, slot_block, counters) if nops > 2 else np.int64(0)
    if ty == E.T_PRED:
        if op == E.OP_AND:
            r = a & b
        elif op == E.OP_OR:
            r = a | b
        elif op == E.OP_XOR:
            r = a ^ b
        else:
            r = 1 - (a & 1)
        write_raw(regs, dk, di, t, r & 1)
        return
    c = read_int(code, regs, row, 3, t, w, lane, geom, slot_block, counters)      # bfi
    e = read_int(code, regs, row, 4, t, w, lane, geom, slot_block, counters)
    r = alu.bfi(a, b, c, e, E.TYPE_BITS[ty])
    write_raw(regs, dk, di, t, alu.truncate(r, dty) if dty >= 0 else r)


@compiled
def int_extra_warp(code, regs, row, op, mask, base_t, wsz, w, geom, slot_block, counters):
    """The carry instructions (add / sub / mad .cc, addc / subc / madc: the carry in is the last
    operand, the carry out goes to F_DST2), lop3 and the packed .u16x2 / .s16x2 forms."""
    ty = row[E.F_TYPE]
    flags = row[E.F_FLAGS]
    nops = row[E.F_NOPS]
    dst2 = row[E.F_DST2]
    dk, di, _, _ = opnd(row, 0)
    carry_in = op == E.OP_ADDC or op == E.OP_SUBC or op == E.OP_MADC
    zero = np.int64(0)
    for lane in range(wsz):
        if (mask >> lane) & 1:
            t = base_t + lane
            a = read_int(code, regs, row, 1, t, w, lane, geom, slot_block, counters)
            b = read_int(code, regs, row, 2, t, w, lane, geom, slot_block, counters)
            if op == E.OP_LOP3:
                c = read_int(code, regs, row, 3, t, w, lane, geom, slot_block, counters)
                lut = read_int(code, regs, row, 4, t, w, lane, geom, slot_block, counters)
                write_raw(regs, dk, di, t, alu.lop3(a, b, c, lut & 0xFF))
            elif ty == E.T_U16X2 or ty == E.T_S16X2:
                write_raw(regs, dk, di, t, alu.packed16(op, ty, a, b))
            elif op == E.OP_VABSDIFF4 or op == E.OP_VABSDIFF2:
                c = read_int(code, regs, row, 3, t, w, lane, geom, slot_block, counters)
                write_raw(regs, dk, di, t, alu.video_absdiff(op, a, b, c, E.TYPE_SIGNED[row[E.F_TYPE2]] == 1,
                                                             (flags & E.FL_B_SIGNED) != 0, row[E.F_CMP] == 1))
            else:
                mad = op == E.OP_MAD or op == E.OP_MADC
                c = read_int(code, regs, row, 3, t, w, lane, geom, slot_block, counters) if mad else zero
                cin = read_int(code, regs, row, nops - 1, t, w, lane, geom, slot_block, counters) if carry_in \
                    else zero
                r, cout = alu.carry_arith(op, ty, flags, a, b, c, cin)
                write_raw(regs, dk, di, t, r)
                if flags & E.FL_CC:
                    regs.pred[dst2, t] = np.uint8(cout)


@compiled_inline
def in_space(space, addr):
    """isspacep: the generic address lies in the state space's window (.const / .param: never, as
    .const variables live in global memory and kernel params have no generic address here)."""
    shared = E.SHARED_WINDOW <= addr < E.SHARED_WINDOW + E.WINDOW_SIZE
    local = E.LOCAL_WINDOW <= addr < E.LOCAL_WINDOW + E.WINDOW_SIZE
    if space == E.SP_SHARED:
        return shared
    if space == E.SP_LOCAL:
        return local
    if space == E.SP_GLOBAL:
        return not shared and not local
    return False


@compiled_inline
def cvt_f32_source(code, regs, t, sk, si):
    """A float32 cvt source; a wider (.b64) register gives its low 32 bits."""
    if sk == E.K_R64:
        return f32_from_bits(np.int64(regs.r64[si, t]))
    return read_f32(code, regs, t, sk, si)


@compiled_inline
def write_f32(regs, dk, di, t, r):
    """A float32 result; a wider (.b64) destination register gets its bits zero-extended."""
    if dk == E.K_R64:
        regs.r64[di, t] = np.uint64(f32_to_bits(r))
    else:
        regs.f32[di, t] = r


@compiled_inline
def set_value(r, ty, per_half):
    """What set writes for a true / false comparison at destination type ty: 1.0 in a half type,
    all ones in an integer type (0xffff per half of a packed comparison)."""
    if not r:
        return np.int64(0)
    if H.is_half(ty):
        return H.one(H.is_bf16(ty))
    return np.int64(0xFFFF) if per_half else alu.truncate(np.int64(-1), ty)


@compiled
def cvt_float_source(code, regs, row, k, st, t, w, lane, geom, slot_block, counters):
    """Operand k of a cvt from a float type, exactly as float64 (.ftz flushes float32 inputs; a
    half source uses the low 16 bits of its register)."""
    kind, idx, imm, _ = opnd(row, k)
    if st == E.T_F32:
        return np.float64(alu.flush32(cvt_f32_source(code, regs, t, kind, idx), row[E.F_FLAGS] & E.FL_FTZ))
    if st == E.T_F64:
        return read_f64(code, regs, t, kind, idx)
    raw = read_raw(code, regs, t, kind, idx, imm, w, lane, geom, slot_block, counters)
    return H.decode(raw & 0xFFFF, H.is_bf16(st))


@compiled_inline
def integral_rounding(rnd):
    return rnd == E.RND_RNI or rnd == E.RND_RZI or rnd == E.RND_RMI or rnd == E.RND_RPI


@compiled_inline
def saturate_float(x, flags):
    """.sat of a float destination: clamp to [0, 1], NaN to 0."""
    if flags & E.FL_SAT:
        return 0.0 if x != x else min(max(x, 0.0), 1.0)
    return x


# cvt.ftz.f64.f32 of a NaN: ptxas flushes with FMUL.FTZ x, 1 (the canonical 0x7fffffff) before
# F2F.F64.F32, which widens that NaN (generated corpus k01906, k00322)
F64_OF_CANONICAL32 = np.int64(0x7FFFFFFFE0000000)


@compiled
def cvt_nan(x, st, dt):
    """cvt of a NaN to an integer, from f64 to a narrower float or from a half to another float, as
    ptxas's F2I / F2F / HADD2.F32 do it."""
    if H.is_half(st) and (dt == E.T_F32 or H.is_half(dt)):
        if dt == E.T_F32:               # f16 -> f32 is HADD2.F32 (the canonical NaN); bf16 -> f32 a shift
            return np.int64(0x7FC00000) if H.is_bf16(st) else np.int64(0x7FFFFFFF)
        return H.convert(x, E.RND_RN, 0, H.is_bf16(dt))
    if dt == E.T_F32 or H.is_half(dt):
        return narrowed_f64_nan(f64_to_bits(x), dt != E.T_F32, H.is_bf16(dt))
    bits = E.TYPE_BITS[dt]
    return alu.extend(nan_as_int(st != E.T_F64 and bits <= 32, bits), dt)


@compiled
def exec_cvt(code, regs, row, t, w, lane, geom, slot_block, counters):
    dt = row[E.F_TYPE]
    st = row[E.F_TYPE2]
    rnd = row[E.F_RND]
    flags = row[E.F_FLAGS]
    dk, di, _, _ = opnd(row, 0)
    sk, si, simm, _ = opnd(row, 1)
    ftz = flags & E.FL_FTZ
    if H.is_pair(dt):                   # cvt.f16x2.f32 d, a, b: a to the high half, b to the low half
        bf = H.is_bf16(dt)
        hi = H.convert(cvt_float_source(code, regs, row, 1, st, t, w, lane, geom, slot_block, counters), rnd, flags, bf)
        lo = H.convert(cvt_float_source(code, regs, row, 2, st, t, w, lane, geom, slot_block, counters), rnd, flags, bf)
        write_raw(regs, dk, di, t, (hi << 16) | lo)
        return
    if st == E.T_F32 or st == E.T_F64 or H.is_half(st):
        x = cvt_float_source(code, regs, row, 1, st, t, w, lane, geom, slot_block, counters)
        if x == x and flags & (E.FL_SRC_ABS | E.FL_SRC_NEG):     # a folded abs / neg: numbers only
            x = abs(x) if flags & E.FL_SRC_ABS else x
            x = -x if flags & E.FL_SRC_NEG else x
        if x != x and st == E.T_BF16 and dt == E.T_F32:      # ptxas's shift: the NaN's bits kept
            raw = read_raw(code, regs, t, sk, si, simm, w, lane, geom, slot_block, counters)
            write_f32(regs, dk, di, t, f32_from_bits((raw & 0xFFFF) << 16))
            return
        if x != x and st == E.T_F32 and dt == E.T_F32:       # FRND / FADD.FTZ / FADD.SAT: canonical
            write_f32(regs, dk, di, t, np.float32(0.0) if flags & E.FL_SAT else f32_from_bits(alu.CANONICAL_NAN32))
            return
        if x != x and st == E.T_F64 and dt == E.T_F64:       # FRND.F64: the NaN, quieted
            regs.f64[di, t] = 0.0 if flags & E.FL_SAT else f64_from_bits(f64_to_bits(x) | alu.F64_QUIET)
            return
        if x != x and st == E.T_F32 and dt == E.T_F64 and ftz:   # FMUL.FTZ x, 1 then F2F.F64.F32:
            regs.f64[di, t] = 0.0 if flags & E.FL_SAT else f64_from_bits(F64_OF_CANONICAL32)   # canonical
            return
        if x != x and dt != E.T_F64 and (st != E.T_F32 or not (dt == E.T_F32 or H.is_half(dt))):
            write_raw(regs, dk, di, t, cvt_nan(x, st, dt))    # the H100's NaN results (bits.py)
            return
        if st == E.T_F32 and dt == E.T_F32 and flags & E.FL_SAT:
            x = x + 0.0                 # ptxas: FADD.SAT d, RZ, a (-0 gives +0)
        if integral_rounding(rnd) and (dt == E.T_F32 or dt == E.T_F64 or H.is_half(dt)):
            x = alu.round_integral(x, rnd)       # the integral value is exact at the same size
            rnd = E.RND_RN
        if dt == E.T_F32:
            r = alu.flush32(alu.round_f64_to_f32(x, rnd, 0.0), ftz)
            write_f32(regs, dk, di, t, np.float32(saturate_float(np.float64(r), flags)))
        elif dt == E.T_F64:
            regs.f64[di, t] = saturate_float(x, flags)
        elif H.is_half(dt):
            write_raw(regs, dk, di, t, H.convert(x, rnd, flags, H.is_bf16(dt)))
        else:
            write_raw(regs, dk, di, t, alu.extend(alu.float_to_int(x, rnd, dt), dt))   # extended to a wider register
        return
    v = alu.extend(read_raw(code, regs, t, sk, si, simm, w, lane, geom, slot_block, counters), st)
    if dt == E.T_F32:
        write_f32(regs, dk, di, t, np.float32(saturate_float(np.float64(alu.int_to_float32(v, st, rnd)), flags)))
    elif dt == E.T_F64:
        regs.f64[di, t] = saturate_float(alu.int_to_float64(v, st, rnd), flags)
    elif H.is_half(dt):
        write_raw(regs, dk, di, t, H.convert(alu.int_to_f64_sticky(v, st), rnd, flags, H.is_bf16(dt)))
    else:
        if flags & E.FL_SAT and E.TYPE_SIGNED[st] == 0 and E.TYPE_BITS[st] == 64 and v < 0:
            # a u64 source >= 2^63: unchanged into a 64-bit unsigned destination, above the
            # maximum of every other destination type
            if E.TYPE_BITS[dt] == 64 and E.TYPE_SIGNED[dt] == 0:
                flags = flags & ~E.FL_SAT
            else:
                v = np.int64(9223372036854775807)
        if flags & E.FL_SAT:
            v = alu.saturate_int(v, dt)
        write_raw(regs, dk, di, t, alu.extend(v, dt))     # extended to a wider destination register


# the NaN a global atom.add.f64 of +inf and -inf leaves (tools/atomic_nan_probe.py on the H100)
F64_ATOMIC_NAN = np.int64(-0x8000000000000)          # 0xfff8000000000000


@compiled
def atomic_add_f64_global(old, b):
    """The bits a global (or generic) atom / red .add.f64 leaves in memory (ptxas: ATOMG / RED
    .E.ADD.F64.RN, done by the memory system's atomic unit, not by a DADD), as the H100 does it
    (tools/atomic_nan_probe.py; generated corpus gp64 words): a NaN operand comes through with its
    bits unchanged, signalling ones too (no quieting, sign and payload kept), the added value's
    before the memory word's; infinities of opposite signs give F64_ATOMIC_NAN; otherwise the sum
    rounded to nearest, subnormals kept.  Which NaN wins does not depend on the order of the adds
    only when at most one of them is a NaN."""
    fo = f64_from_bits(old)
    fb = f64_from_bits(b)
    if fb != fb:
        return b
    if fo != fo:
        return old
    r = fo + fb
    if r != r:
        return F64_ATOMIC_NAN
    return f64_to_bits(r)


@compiled
def atomic_apply(aop, ty, old, b, c, ftz=True):
    """New memory value of an atomic; old, b, c are raw bits (int64).  ftz: atom.add.f32 flushes
    subnormals (global and generic: ptxas's RED/ATOM.ADD.F32.FTZ.RN); an explicit .shared one does
    not (ptxas makes it an ATOMS.CAST.SPIN loop around a plain FADD; generated corpus k01200); a
    .shared add.f64 is that loop's DADD (a NaN quieted, the old value's first), a global one
    atomic_add_f64_global."""
    if H.is_half(ty):                  # atom.add.noftz.f16 / bf16 / f16x2 / bf16x2: per element, .rn
        return H.arith_bits(E.OP_ADD, ty, old, b, np.int64(0), 0)
    if ty == E.T_F32:
        fo = f32_from_bits(old)
        fb = f32_from_bits(b)
        if aop == E.ATOM_ADD:          # .ftz and the canonical NaN, as the PTX ISA says and the H100 does
            r = alu.flush32(np.float32(alu.flush32(fo, ftz) + alu.flush32(fb, ftz)), ftz)
            if r != r:
                return np.int64(0x7FFFFFFF)
        elif aop == E.ATOM_MIN:
            r = np.float32(alu.float_min_max(np.float64(fo), np.float64(fb), False))
        elif aop == E.ATOM_MAX:
            r = np.float32(alu.float_min_max(np.float64(fo), np.float64(fb), True))
        else:
            r = fb
        return f32_to_bits(r)
    if ty == E.T_F64:
        fo = f64_from_bits(old)
        fb = f64_from_bits(b)
        if aop == E.ATOM_ADD:
            if not ftz:                # .shared: ptxas's ATOMS.CAST.SPIN.64 loop around `DADD new, b, old`,
                return f64_to_bits(alu.f64_arith(E.OP_ADD, fo, fb, 0.0, 0, E.RND_RN))   # old's NaN first
            return atomic_add_f64_global(old, b)
        r = alu.float_min_max(fo, fb, aop == E.ATOM_MAX) if aop == E.ATOM_MIN or aop == E.ATOM_MAX else fb
        return f64_to_bits(r)
    o = alu.extend(old, ty)
    v = alu.extend(b, ty)
    bits = E.TYPE_BITS[ty]
    if aop == E.ATOM_ADD:
        return o + v
    if aop == E.ATOM_MIN or aop == E.ATOM_MAX:
        if E.TYPE_SIGNED[ty] or bits < 64:
            less = o < v
        else:
            less = alu.ult(o, v)
        if aop == E.ATOM_MIN:
            return o if less else v
        return v if less else o
    if aop == E.ATOM_EXCH:
        return v
    if aop == E.ATOM_CAS:
        return alu.extend(c, ty) if alu.truncate(o, ty) == alu.truncate(v, ty) else o
    if aop == E.ATOM_INC:      # old >= b ? 0 : old + 1 (unsigned)
        return np.int64(0) if alu.truncate(o, ty) >= alu.truncate(v, ty) else o + 1
    if aop == E.ATOM_DEC:
        uo = alu.truncate(o, ty)
        return alu.truncate(v, ty) if uo == 0 or uo > alu.truncate(v, ty) else o - 1
    if aop == E.ATOM_AND:
        return o & v
    if aop == E.ATOM_OR:
        return o | v
    return o ^ v


@compiled
def load_uniform(regs, mem, row, w, mask, base_t, slot, geom, fault):
    """A scalar load from a fixed address (`ld.param [name]`, `ld.shared [name+8]`): every lane
    reads the same word, so it is read once.  Faults name the first active lane, as the lane loop
    would."""
    ty = row[E.F_TYPE]
    width = E.TYPE_BITS[ty] // 8 if ty != E.T_PRED else 1
    _, _, addr, _ = opnd(row, 1)
    if mask == 0:
        return True
    lane = S.first_lane(mask)
    bad = FAULT_NONE
    region = M.R_NONE
    off = np.int64(0)
    if addr % width != 0:
        bad = FAULT_MISALIGNED
    else:
        region, off, _ = M.resolve(mem, row[E.F_SPACE], addr, width, slot, base_t + lane, geom[G_SHARED],
                                   geom[G_LOCAL], -1)
        if region == M.R_NONE:
            bad = FAULT_OOB
    v = np.int64(0)
    if bad != FAULT_NONE:           # memcheck report: every lane's access is listed, each reads zero
        for lane in range(geom[G_WS]):
            if (mask >> lane) & 1:
                if not M.bad_access(fault, bad, w, lane, row[E.F_SPACE], addr, width, ACCESS_READ):
                    return False
    else:
        v = M.load(mem, region, off, width)
        if ty != E.T_F32 and ty != E.T_F64 and ty != E.T_PRED:
            v = alu.extend(v, ty)
    dk, di, _, _ = opnd(row, 0)
    for lane in range(geom[G_WS]):
        if (mask >> lane) & 1:
            write_raw(regs, dk, di, base_t + lane, v)
    return True


@compiled
def skipped_access(code, regs, row, op, t):
    """A bad access that memcheck reports and lets pass: a load (or an atomic's old value) gives
    thread t zeros; a store or a reduction writes nothing."""
    if op == E.OP_LD or op == E.OP_LDU or op == E.OP_ATOM:
        dk, di, dimm, _ = opnd(row, 0)
        if dk == E.K_VEC:
            for k in range(dimm):
                write_vec_element(regs, code.vecs[di, k], t, np.int64(0))
        else:
            write_raw(regs, dk, di, t, np.int64(0))


@compiled
def exec_memory(code, regs, mem, row, op, w, mask, base_t, slot, geom, slot_block, counters, fault):
    """ld / st / atom / red for the lanes in mask, in lane order (atomics serialise per lane)."""
    ty = row[E.F_TYPE]
    width = E.TYPE_BITS[ty] // 8 if ty != E.T_PRED else 1
    nvec = row[E.F_VEC]
    space = row[E.F_SPACE]
    addr_k = 0 if op == E.OP_ST or op == E.OP_RED else 1
    _, aidx, aoff, _ = opnd(row, addr_k)
    shared_bytes = geom[G_SHARED]
    local_bytes = geom[G_LOCAL]
    ws = geom[G_WS]
    total = width * nvec
    if (aidx < 0 and (op == E.OP_LD or op == E.OP_LDU) and row[E.F_OPS] != E.K_VEC
            and (space == E.SP_PARAM or space == E.SP_CONST or space == E.SP_GLOBAL or space == E.SP_SHARED)):
        return load_uniform(regs, mem, row, w, mask, base_t, slot, geom, fault)
    hint = -1
    for lane in range(ws):
        if not (mask >> lane) & 1:
            continue
        t = base_t + lane
        addr = lane_address(regs, aidx, aoff, t)
        bad = FAULT_NONE
        region = M.R_NONE
        off = np.int64(0)
        if addr % width != 0 or (nvec > 1 and addr % total != 0):
            bad = FAULT_MISALIGNED
        else:
            region, off, hint = M.resolve(mem, space, addr, total, slot, t, shared_bytes, local_bytes, hint)
            if region == M.R_NONE:
                bad = FAULT_OOB
        if bad != FAULT_NONE:
            kind = ACCESS_READ if op == E.OP_LD or op == E.OP_LDU else (
                ACCESS_WRITE if op == E.OP_ST else ACCESS_ATOMIC)
            if not M.bad_access(fault, bad, w, lane, space, addr, total, kind):
                return False
            skipped_access(code, regs, row, op, t)      # memcheck report: reads zero, the write is dropped
            continue
        if op == E.OP_LD or op == E.OP_LDU:
            dk, di, dimm, _ = opnd(row, 0)
            if dk == E.K_VEC:
                for k in range(dimm):
                    v = M.load(mem, region, off + k * width, width)
                    if ty != E.T_F32 and ty != E.T_F64:
                        v = alu.extend(v, ty)     # sub-word elements sign- or zero-extend
                    write_vec_element(regs, code.vecs[di, k], t, v)
            else:
                v = M.load(mem, region, off, width)
                if ty != E.T_F32 and ty != E.T_F64 and ty != E.T_PRED:
                    v = alu.extend(v, ty)     # sub-word loads sign- or zero-extend
                write_raw(regs, dk, di, t, v)
        elif op == E.OP_ST:
            sk, si, simm, _ = opnd(row, 1)
            if sk == E.K_VEC:
                for k in range(simm):
                    M.store(mem, region, off + k * width, width, read_vec_element(code, regs, code.vecs[si, k], t))
            else:
                M.store(mem, region, off, width,
                        read_raw(code, regs, t, sk, si, simm, w, lane, geom, slot_block, counters))
        else:
            old = M.load(mem, region, off, width)
            bk = 2 if op == E.OP_ATOM else 1
            sk, si, simm, _ = opnd(row, bk)
            b = read_raw(code, regs, t, sk, si, simm, w, lane, geom, slot_block, counters)
            c = np.int64(0)
            if op == E.OP_ATOM and row[E.F_NOPS] > 3:
                ck, ci, cimm, _ = opnd(row, 3)
                c = read_raw(code, regs, t, ck, ci, cimm, w, lane, geom, slot_block, counters)
            M.store(mem, region, off, width, atomic_apply(row[E.F_CMP], ty, old, b, c, space != E.SP_SHARED))
            if op == E.OP_ATOM:
                dk, di, _, _ = opnd(row, 0)
                if row[E.F_FLAGS] & E.FL_CAST:      # ATOMS.CAST.SPIN: did the compare-and-store store?
                    old = np.int64(1 if alu.truncate(old, ty) == alu.truncate(b, ty) else 0)
                write_raw(regs, dk, di, t, old)
    return True


@allocating
def exec_warp_op(code, regs, row, op, w, mask, base_t, geom, slot_block, counters):
    """activemask, vote, shfl, match and redux: lanes read each other's values under the real active
    mask."""
    ws = geom[G_WS]
    dk, di, _, _ = opnd(row, 0)
    if op == E.OP_ACTIVEMASK:
        for lane in range(ws):
            if (mask >> lane) & 1:
                write_raw(regs, dk, di, base_t + lane, mask)
        return
    if op == E.OP_VOTE:
        mode = row[E.F_CMP]
        ballot = nonzero_lanes(code, regs, row, 1, mask, base_t, w, geom, slot_block, counters)
        if mode == E.VOTE_ANY:
            r = np.int64(1 if ballot != 0 else 0)
        elif mode == E.VOTE_ALL:
            r = np.int64(1 if ballot == mask else 0)
        elif mode == E.VOTE_UNI:
            r = np.int64(1 if ballot == 0 or ballot == mask else 0)
        else:
            r = ballot
        for lane in range(ws):
            if (mask >> lane) & 1:
                write_raw(regs, dk, di, base_t + lane, r)
        return
    if op == E.OP_MATCH or op == E.OP_REDUX:
        exec_match_redux(code, regs, row, op, w, mask, base_t, geom, slot_block, counters)
        return
    # shfl.sync: gather sources first (all lanes read before any writes)
    mode = row[E.F_CMP]
    vals = np.zeros(64, dtype=np.int64)
    for lane in range(ws):
        vals[lane] = read_int(code, regs, row, 1, base_t + lane, w, lane, geom, slot_block, counters)
    res = np.zeros(64, dtype=np.int64)
    ok = np.zeros(64, dtype=np.int64)
    for lane in range(ws):
        if not (mask >> lane) & 1:
            continue
        t = base_t + lane
        b = read_int(code, regs, row, 2, t, w, lane, geom, slot_block, counters) & 0x1F  # PTX: b[4:0]
        c = read_int(code, regs, row, 3, t, w, lane, geom, slot_block, counters)
        clamp = c & 0x1F
        seg_mask = (c >> 8) & 0x1F
        max_lane = (lane & seg_mask) | (clamp & ~seg_mask)
        min_lane = lane & seg_mask
        if mode == E.SHFL_IDX:
            j = min_lane | (b & ~seg_mask)
            valid = j <= max_lane
        elif mode == E.SHFL_UP:
            j = lane - b
            valid = j >= min_lane
        elif mode == E.SHFL_DOWN:
            j = lane + b
            valid = j <= max_lane
        else:
            j = lane ^ b
            valid = j <= max_lane
        if not valid or j < 0 or j >= ws:
            j = lane
        elif not (mask >> j) & 1:
            valid = False     # reading an inactive lane: undefined in PTX; we return own value
            j = lane
        res[lane] = vals[j]
        ok[lane] = 1 if valid else 0
    for lane in range(ws):
        if (mask >> lane) & 1:
            write_raw(regs, dk, di, base_t + lane, res[lane])
            if row[E.F_DST2] >= 0:
                regs.pred[row[E.F_DST2], base_t + lane] = np.uint8(ok[lane])


@allocating
def exec_match_redux(code, regs, row, op, w, mask, base_t, geom, slot_block, counters):
    """match.sync / redux.sync over the active lanes of each lane's membermask (operand 2)."""
    ws = geom[G_WS]
    dk, di, _, _ = opnd(row, 0)
    mode = row[E.F_CMP]
    ty = row[E.F_TYPE]
    vals = np.zeros(64, dtype=np.int64)
    members = np.zeros(64, dtype=np.int64)
    for lane in range(ws):
        if (mask >> lane) & 1:
            vals[lane] = read_int(code, regs, row, 1, base_t + lane, w, lane, geom, slot_block, counters)
            members[lane] = read_int(code, regs, row, 2, base_t + lane, w, lane, geom, slot_block,
                                     counters) & mask
    for lane in range(ws):
        if not (mask >> lane) & 1:
            continue
        part = members[lane]
        if op == E.OP_MATCH:
            same = np.int64(0)
            for j in range(ws):
                if (part >> j) & 1 and vals[j] == vals[lane]:
                    same |= np.int64(1) << j
            if mode == E.MATCH_ANY:          # .any: the lanes holding this lane's value
                r = same
                agree = True
            else:                            # .all: the membermask when every member agrees
                agree = same == part
                r = part if agree else np.int64(0)
            write_raw(regs, dk, di, base_t + lane, r)
            if row[E.F_DST2] >= 0:
                regs.pred[row[E.F_DST2], base_t + lane] = np.uint8(1 if agree else 0)
            continue
        r = np.int64(0)
        first = True
        for j in range(ws):
            if not (part >> j) & 1:
                continue
            v = vals[j]
            if first:
                r = v
                first = False
            elif mode == E.REDUX_ADD:
                r = r + v
            elif mode == E.REDUX_MIN:
                r = min(r, v)                # u32 operands are zero-extended, s32 sign-extended
            elif mode == E.REDUX_MAX:
                r = max(r, v)
            elif mode == E.REDUX_AND:
                r = r & v
            elif mode == E.REDUX_OR:
                r = r | v
            else:
                r = r ^ v
        write_raw(regs, dk, di, base_t + lane, alu.truncate(r, ty))


@compiled
def mma_f64_operand(code, regs, row, k, j, t):
    """Element j of the f64 fragment operand k of thread t."""
    kind, idx, _, _ = opnd(row, k)
    if kind == E.K_VEC:
        return regs.f64[code.vecs[idx, j] & (E.VEC_R64 - 1), t]
    return regs.f64[idx, t]


@allocating
def exec_mma(code, regs, row, base_t):
    """mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 for all 32 lanes of a warp: D = A * B + C.

    Fragments (PTX ISA, "Matrix fragments for mma.m8n8k4 with .f64"): lane l holds A[l>>2][l%4],
    B[l%4][l>>2] and C/D[l>>2][2*(l%4)+i], i = 0, 1.  Each element is computed as a chain of
    correctly rounded fused multiply-adds in k order,
    d = fma(a3, b3, fma(a2, b2, fma(a1, b1, fma(a0, b0, c)))), one rounding per step."""
    a = np.zeros(32, dtype=np.float64)
    b = np.zeros(32, dtype=np.float64)
    c = np.zeros(64, dtype=np.float64)
    for lane in range(32):
        t = base_t + lane
        a[lane] = mma_f64_operand(code, regs, row, 1, 0, t)
        b[lane] = mma_f64_operand(code, regs, row, 2, 0, t)
        c[2 * lane] = mma_f64_operand(code, regs, row, 3, 0, t)
        c[2 * lane + 1] = mma_f64_operand(code, regs, row, 3, 1, t)
    dk, di, _, _ = opnd(row, 0)
    for lane in range(32):
        i = lane >> 2
        for q in range(2):
            j = 2 * (lane & 3) + q
            acc = c[2 * lane + q]
            for k in range(4):
                x, y = a[4 * i + k], b[4 * j + k]     # A[i][k] in lane 4i+k, B[k][j] in lane 4j+k
                nan = dfma_nan(f64_to_bits(x), f64_to_bits(y), f64_to_bits(acc))
                # NaNs passed on as the H100's DMMA does (bits.dfma_nan, s-tensor)
                acc = f64_from_bits(nan) if nan != 0 else fma64(x, y, acc)
            t = base_t + lane
            if dk == E.K_VEC:
                regs.f64[code.vecs[di, q] & (E.VEC_R64 - 1), t] = acc
            elif q == 0:
                regs.f64[di, t] = acc


@compiled
def exec_tensor(code, regs, mem, row, op, w, base_t, slot, geom, fault):
    """The warp-collective tensor-core instructions of PTX but ldmatrix (all 32 lanes active).
    False on a fault."""
    if op == E.OP_MMA and row[E.F_CMP] == E.SHAPE_M8N8K4:
        exec_mma(code, regs, row, base_t)
    elif op == E.OP_MMA or op == E.OP_WMMA_MMA:
        T.exec_tensor_mma(code, regs, row, base_t)
    else:
        return T.exec_wmma_memory(code, regs, mem, row, op, w, base_t, slot, geom[G_SHARED],
                                  geom[G_LOCAL], fault)
    return True


@compiled_inline
def zfill_source(regs, row, t, src, size):
    """(aligned source, bytes read) of SASS LDGSTS.ZFILL [d], [src], P: ptxas encodes src_size as
    the address's misalignment size - src_size; a false P (operand 3) reads nothing."""
    zeros = src % size
    src_size = size - zeros
    if row[E.F_NOPS] > 3:
        _, idx, neg, _ = opnd(row, 3)
        if (regs.pred[idx, t] != 0) == (neg != 0):
            src_size = 0
    return src - zeros, src_size


@compiled
def exec_cp_async(code, regs, mem, row, w, mask, base_t, slot, geom, slot_block, counters, fault):
    """cp.async.{ca,cg}.shared.global [dst], [src], size{, src_size}: copied at issue, bytes past
    src_size are zero."""
    _, didx, doff, _ = opnd(row, 0)
    _, sidx, soff, _ = opnd(row, 1)
    for lane in range(geom[G_WS]):
        if not (mask >> lane) & 1:
            continue
        t = base_t + lane
        size = read_int(code, regs, row, 2, t, w, lane, geom, slot_block, counters)
        src_size = size
        if row[E.F_NOPS] > 3 and not row[E.F_FLAGS] & E.FL_ZFILL:
            src_size = min(read_int(code, regs, row, 3, t, w, lane, geom, slot_block, counters), size)
        dst = lane_address(regs, didx, doff, t)
        src = lane_address(regs, sidx, soff, t)
        if row[E.F_FLAGS] & E.FL_ZFILL and size > 0:
            src, src_size = zfill_source(regs, row, t, src, size)
        if size <= 0 or dst % size != 0 or src % size != 0:
            bad_dst = size <= 0 or dst % size != 0
            if not M.bad_access(fault, FAULT_MISALIGNED, w, lane, E.SP_SHARED if bad_dst else E.SP_GLOBAL,
                                dst if bad_dst else src, size, ACCESS_WRITE if bad_dst else ACCESS_READ):
                return False
            continue                # memcheck report: the copy is dropped
        dreg, doffs, _ = M.resolve(mem, E.SP_SHARED, dst, size, slot, t, geom[G_SHARED], geom[G_LOCAL], -1)
        if dreg == M.R_NONE:
            if not M.bad_access(fault, FAULT_OOB, w, lane, E.SP_SHARED, dst, size, ACCESS_WRITE):
                return False
            continue
        sreg = M.R_NONE
        soffs = np.int64(0)
        if src_size > 0:
            sreg, soffs, _ = M.resolve(mem, E.SP_GLOBAL, src, src_size, slot, t, geom[G_SHARED], geom[G_LOCAL], -1)
            if sreg == M.R_NONE:
                if not M.bad_access(fault, FAULT_OOB, w, lane, E.SP_GLOBAL, src, src_size, ACCESS_READ):
                    return False
                src_size = 0        # memcheck report: the source reads as zeros
        for i in range(size):
            v = M.load(mem, sreg, soffs + i, 1) if i < src_size else np.int64(0)
            M.store(mem, dreg, doffs + i, 1, v)
    return True


@compiled
def record(hist, counters, gid, pc, mask, exec_mask):
    append4(hist, counters, C_HIST, gid, pc, mask, exec_mask)


@compiled
def pop_and_settle(ws, w, ev, counters, fault, gid, pc):
    """pop_mask (or mask_nz leaving no lane): restore the pushed mask and pc, then settle."""
    if not S.pop_explicit(ws, w):
        set_fault(fault, FAULT_EMPTY_POP, gid, -1, pc, 0, 0)
        return STEP_FAULT
    S.settle(ws, w, ev, counters)
    return STEP_OK


@compiled
def exec_call(code, regs, ws, mem, w, row, pc, exec_mask, geom, ev, counters, fault, gid):
    """`call` by the lanes of exec_mask (calls.py); faults past simt.call_depth or a full stack."""
    status = CALLS.enter_call(code, regs, ws, mem, w, row, pc, exec_mask, geom, ev, counters)
    if status == CALLS.CALL_TOO_DEEP:
        set_fault(fault, FAULT_CALL_DEPTH, gid, S.first_lane(exec_mask), pc, 0, geom[G_CALL_DEPTH])
        return STEP_FAULT
    if status == CALLS.CALL_STACK_FULL:
        set_fault(fault, FAULT_STACK, gid, -1, pc, 0, ws.stack.shape[1])
        return STEP_FAULT
    return STEP_OK


@compiled_inline
def whole_warp(fault, wsz, exec_mask, gid, pc):
    """Tensor-core rows (mma, wmma, ldmatrix) need all 32 lanes of a 32-lane warp; else a fault
    (extra 1: all 32 lanes)."""
    if wsz != 32 or exec_mask != 0xFFFFFFFF:
        set_fault(fault, FAULT_UNSUPPORTED, gid, -1, pc, exec_mask, 1)
        return False
    return True


# ptx_row's results besides a pc: the warp's pc and mask are already set / a fault was recorded
ROW_SETTLED, ROW_FAULT = -2, -1


@compiled
def no_ext_row(ext, code, regs, ws, mem, row, op, w, pc, exec_mask, base_t, slot, geom, slot_block, counters,
               ev, fault):
    """A row of encoding.EXT_OPS in code marked without them (cannot happen: the lowering marks the code)."""
    set_fault(fault, FAULT_UNSUPPORTED, ws.f[w, WF_GID], -1, pc, op, 0)
    return ROW_FAULT


@unless_none(no_ext_row)
def ext_row(ext, code, regs, ws, mem, row, op, w, pc, exec_mask, base_t, slot, geom, slot_block, counters,
            ev, fault):
    """The less common families (isa/encoding.EXT_OPS): calls, mma / wmma, ldmatrix and cp.async
    (SASS LDSM, LDGSTS).  Returns pc + 1, ROW_SETTLED or ROW_FAULT.  `ext` is Code.ext: for code
    without them (None) none of this is compiled."""
    if ext is None:
        return no_ext_row(ext, code, regs, ws, mem, row, op, w, pc, exec_mask, base_t, slot, geom, slot_block,
                          counters, ev, fault)
    gid = ws.f[w, WF_GID]
    if op == E.OP_CALL:
        if exec_mask != 0:
            status = exec_call(code, regs, ws, mem, w, row, pc, exec_mask, geom, ev, counters, fault, gid)
            return ROW_FAULT if status == STEP_FAULT else ROW_SETTLED
        return pc + 1
    if op == E.OP_CP_ASYNC:
        done = exec_cp_async(code, regs, mem, row, w, exec_mask, base_t, slot, geom, slot_block, counters, fault)
    elif not whole_warp(fault, geom[G_WS], exec_mask, gid, pc):
        return ROW_FAULT
    elif op == E.OP_LDMATRIX:
        done = T.exec_ldmatrix(code, regs, mem, row, w, base_t, slot, geom[G_SHARED], geom[G_LOCAL], fault)
    else:
        done = exec_tensor(code, regs, mem, row, op, w, base_t, slot, geom, fault)
    if not done:
        fault[1] = gid
        fault[3] = pc
        return ROW_FAULT
    return pc + 1


@compiled
def no_calls(ext, code, regs, ws, mem, w, geom, ev, counters):
    """Code without calls has no function to return from."""
    return


@unless_none(no_calls)
def finish_calls(ext, code, regs, ws, mem, w, geom, ev, counters):
    """Inside a function the warp's lanes may all have returned: back to the caller."""
    if ext is None:
        return no_calls(ext, code, regs, ws, mem, w, geom, ev, counters)
    if ws.f[w, WF_CALL_DEPTH] > 0:
        CALLS.finish_returns(code, regs, ws, mem, w, geom, ev, counters)


@compiled
def no_ptx_row(ptx, code, regs, ws, mem, row, op, w, pc, mask, exec_mask, base_t, slot, geom, slot_block, counters,
               ev, fault):
    """A PTX row in code that has none (cannot happen: the lowering makes no such row)."""
    set_fault(fault, FAULT_UNSUPPORTED, ws.f[w, WF_GID], -1, pc, op, 0)
    return ROW_FAULT


@unless_none(no_ptx_row)
def ptx_row(ptx, code, regs, ws, mem, row, op, w, pc, mask, exec_mask, base_t, slot, geom, slot_block, counters,
            ev, fault):
    """The rows only PTX code has: branches on the SIMT stack, the explicit mask-stack instructions
    and the ALU (calls and mma / wmma: ext_row).  Returns the pc the warp continues at, ROW_SETTLED or
    ROW_FAULT.  `ptx` is Code.ptx: for SASS-only code (None) none of this is compiled."""
    if ptx is None:
        return no_ptx_row(ptx, code, regs, ws, mem, row, op, w, pc, mask, exec_mask, base_t, slot, geom,
                          slot_block, counters, ev, fault)
    gid = ws.f[w, WF_GID]
    wsz = geom[G_WS]
    if op == E.OP_BRA:
        fall = mask & ~exec_mask
        if fall == 0:
            return row[E.F_TARGET]
        if exec_mask != 0:
            if not S.diverge(ws, w, row[E.F_TARGET], exec_mask, pc + 1, fall, row[E.F_RECONV], geom[G_POLICY],
                             ev, counters):
                set_fault(fault, FAULT_STACK, gid, -1, pc, 0, ws.stack.shape[1])
                return ROW_FAULT
            S.settle(ws, w, ev, counters)
            return ROW_SETTLED
    elif op == E.OP_PUSH_MASK:
        if not S.push_explicit(ws, w, mask, row[E.F_TARGET]):
            set_fault(fault, FAULT_STACK, gid, -1, pc, 0, ws.stack.shape[1])
            return ROW_FAULT
    elif op == E.OP_POP_MASK:
        return ROW_FAULT if pop_and_settle(ws, w, ev, counters, fault, gid, pc) == STEP_FAULT else ROW_SETTLED
    elif op == E.OP_MASK_NZ:
        keep = nonzero_lanes(code, regs, row, 0, exec_mask, base_t, w, geom, slot_block, counters)
        ws.f[w, WF_MASK] = keep
        if keep == 0:
            return ROW_FAULT if pop_and_settle(ws, w, ev, counters, fault, gid, pc) == STEP_FAULT else ROW_SETTLED
    elif op == E.OP_BR_PUSH:
        then_mask = nonzero_lanes(code, regs, row, 0, exec_mask, base_t, w, geom, slot_block, counters)
        else_mask = mask & ~then_mask
        ok = S.push_explicit(ws, w, mask, row[E.F_TARGET2])
        if ok and else_mask != 0:
            ok = S.push_explicit(ws, w, else_mask, row[E.F_TARGET])
        if not ok:
            set_fault(fault, FAULT_STACK, gid, -1, pc, 0, ws.stack.shape[1])
            return ROW_FAULT
        ws.f[w, WF_MASK] = then_mask
        if then_mask == 0:
            S.pop_explicit(ws, w)
            S.settle(ws, w, ev, counters)
            return ROW_SETTLED
    elif (row[E.F_FLAGS] & E.FL_CC or op == E.OP_ADDC or op == E.OP_SUBC or op == E.OP_MADC or op == E.OP_LOP3
          or op == E.OP_VABSDIFF4 or op == E.OP_VABSDIFF2
          or row[E.F_TYPE] == E.T_U16X2 or row[E.F_TYPE] == E.T_S16X2):
        int_extra_warp(code, regs, row, op, exec_mask, base_t, wsz, w, geom, slot_block, counters)
    elif not F.alu_warp(code, regs, row, op, exec_mask, base_t, wsz, w, geom, slot_block, counters):
        for lane in range(wsz):
            if (exec_mask >> lane) & 1:
                exec_lane_alu(code, regs, row, op, base_t + lane, w, lane, geom, slot_block, counters)
    return pc + 1


@compiled
def no_sass_row(sass, code, regs, ws, mem, row, op, w, pc, exec_mask, base_t, geom, slot_block, counters, ev, fault):
    """A SASS row in code that has none (cannot happen: PTX rows are below SASS_OP_BASE)."""
    set_fault(fault, FAULT_UNSUPPORTED, ws.f[w, WF_GID], -1, pc, op, 0)
    return np.int64(-1)


@unless_none(no_sass_row)
def sass_row(sass, code, regs, ws, mem, row, op, w, pc, exec_mask, base_t, geom, slot_block, counters, ev, fault):
    """A SASS row (sass_step.py): the pc the warp continues at, or -1 after a fault.  `sass` is
    Code.sass: for PTX-only code (None) no SASS semantics are compiled."""
    if sass is None:
        return no_sass_row(sass, code, regs, ws, mem, row, op, w, pc, exec_mask, base_t, geom, slot_block,
                           counters, ev, fault)
    return SS.step_sass(code, regs, ws, mem, row, op, w, pc, exec_mask, base_t, geom, slot_block, counters, ev,
                        fault)


@compiled
def settle_ptx(sass, ptx, code, regs, ws, mem, w, geom, ev, counters, fault, pc):
    """settle_warp for a PTX kernel's warp: pop the SIMT stack while the running group is empty,
    then return from finished calls.  (Numba prunes the body for SASS-only code, ptx None.)"""
    if ptx is None:
        return True
    S.settle(ws, w, ev, counters)
    finish_calls(code.ext, code, regs, ws, mem, w, geom, ev, counters)
    return True


@unless_none(settle_ptx)
def settle_warp(sass, ptx, code, regs, ws, mem, w, geom, ev, counters, fault, pc):
    """After a row: while the running group is empty, pick the next one, by SASS's convergence
    barriers or PTX's SIMT stack as the warp's kernel is.  False after a deadlock fault."""
    if sass is None:
        return settle_ptx(sass, ptx, code, regs, ws, mem, w, geom, ev, counters, fault, pc)
    if ptx is None or geom[G_ISA] == ISA_SASS:
        if not CV.settle(ws, w, ev, counters):
            set_fault(fault, FAULT_DEADLOCK, ws.f[w, WF_GID], -1, pc, CV.waiting_threads(ws, w), -1)
            return False
        return True
    return settle_ptx(sass, ptx, code, regs, ws, mem, w, geom, ev, counters, fault, pc)


@compiled_inline
def step_warp(code, regs, ws, mem, w, geom, slot_block, counters, thread_icount, hist, ev, fault):
    """Execute the next instruction of warp w.  Returns STEP_OK or STEP_FAULT."""
    pc = ws.f[w, WF_PC]
    row = code.rows[pc]
    op = row[E.F_OP]
    wsz = geom[G_WS]
    base_t = w * wsz
    mask = ws.f[w, WF_MASK]
    exec_mask = guard_mask(row, regs, base_t, mask, wsz)
    gid = ws.f[w, WF_GID]
    record(hist, counters, gid, pc, mask, exec_mask)
    counters[C_WARP_INSTS] += 1
    n_exec = S.popcount64(exec_mask)
    counters[C_THREAD_INSTS] += n_exec
    counters[C_ACTIVE_LANES] += S.popcount64(mask)
    if thread_icount.shape[0] > 0:          # per-thread counts, when the run keeps them
        first_thread = gid * wsz
        for lane in range(wsz):
            if (exec_mask >> lane) & 1:
                thread_icount[first_thread + lane] += 1
    slot = w // geom[G_WPB]
    next_pc = pc + 1
    # rows of both instruction sets first (SASS memory, barrier and exit families arrive as PTX rows)
    if op >= E.SASS_OP_BASE:
        next_pc = sass_row(code.sass, code, regs, ws, mem, row, op, w, pc, exec_mask, base_t, geom, slot_block,
                           counters, ev, fault)
        if next_pc < 0:
            return STEP_FAULT
    elif op == E.OP_RET or op == E.OP_EXIT:
        if op == E.OP_EXIT and row[E.F_NOPS] > 0:       # SASS `@P0 EXIT P1`: lanes where P1 holds too
            exec_mask = predicate_lanes(regs, row, 0, exec_mask, base_t, wsz)
        if exec_mask != 0:
            if op == E.OP_RET and ws.f[w, WF_CALL_DEPTH] > 0:
                S.leave_function(ws, w, exec_mask)      # they wait at the function's exit
            else:
                S.remove_lanes(ws, w, exec_mask)
    elif (op == E.OP_BAR or op == E.OP_BARRIER) and exec_mask == 0:
        pass            # `@P0 BAR.SYNC` with P0 false in every lane: the warp does not take part
    elif op == E.OP_BAR or op == E.OP_BARRIER:
        count = barrier_count(code, regs, row, exec_mask, base_t, w, geom, slot_block, counters)
        if (row[E.F_FLAGS] & E.FL_ARRIVE) or (count >= 0 and row[E.F_CMP] == E.BARRED_NONE):
            if count <= 0 or count % wsz != 0 or count > geom[G_WPB] * wsz:
                set_fault(fault, FAULT_UNSUPPORTED, gid, -1, pc, count, 0)
                return STEP_FAULT
            if not named_barrier(code, regs, ws, w, row, exec_mask, count, geom, slot_block, counters):
                return STEP_OK                              # waits at the barrier
        else:
            ws.f[w, WF_PC] = next_pc
            ws.f[w, WF_STATUS] = W_BARRIER
            ws.f[w, WF_BAR_MASK] = exec_mask
            if not barrier_arrive(code, regs, ws, w, geom, slot_block, counters):
                set_fault(fault, FAULT_DEADLOCK, gid, -1, pc, 0, slot)
                return STEP_FAULT
            return STEP_OK
    elif op == E.OP_TRAP:
        if exec_mask != 0:
            set_fault(fault, FAULT_TRAP, gid, S.first_lane(exec_mask), pc, 0, 0)
            return STEP_FAULT
    elif op == E.OP_LD or op == E.OP_LDU or op == E.OP_ST or op == E.OP_ATOM or op == E.OP_RED:
        CV.join_newest(ws, w)       # SASS: a memory instruction lets the two newest waiting groups join
        fault[F_AT_GID] = gid       # for a memcheck report of a bad access
        fault[F_AT_PC] = pc
        if not exec_memory(code, regs, mem, row, op, w, exec_mask, base_t, slot, geom, slot_block,
                           counters, fault):
            fault[1] = gid
            fault[3] = pc
            return STEP_FAULT
    elif (op == E.OP_ACTIVEMASK or op == E.OP_VOTE or op == E.OP_SHFL or op == E.OP_MATCH
          or op == E.OP_REDUX):
        exec_warp_op(code, regs, row, op, w, exec_mask, base_t, geom, slot_block, counters)
    elif E.IS_EXT_OP[op]:
        if op == E.OP_LDMATRIX or op == E.OP_CP_ASYNC:
            CV.join_newest(ws, w)
        fault[F_AT_GID] = gid
        fault[F_AT_PC] = pc
        next_pc = ext_row(code.ext, code, regs, ws, mem, row, op, w, pc, exec_mask, base_t, slot, geom, slot_block,
                          counters, ev, fault)
        if next_pc == ROW_FAULT:
            return STEP_FAULT
        if next_pc == ROW_SETTLED:
            return STEP_OK
    elif (op == E.OP_MEMBAR or op == E.OP_FENCE or op == E.OP_NANOSLEEP
          or op == E.OP_CP_ASYNC_GROUP or op == E.OP_BAR_WARP):
        pass            # ordering only; bar.warp.sync: the warp's lanes run in lockstep anyway
    else:
        next_pc = ptx_row(code.ptx, code, regs, ws, mem, row, op, w, pc, mask, exec_mask, base_t, slot, geom,
                          slot_block, counters, ev, fault)
        if next_pc == ROW_FAULT:
            return STEP_FAULT
        if next_pc == ROW_SETTLED:
            return STEP_OK
    ws.f[w, WF_PC] = next_pc
    if not settle_warp(code.sass, code.ptx, code, regs, ws, mem, w, geom, ev, counters, fault, pc):
        return STEP_FAULT
    if ws.f[w, WF_MASK] == 0 and ws.f[w, WF_SP] == 0:
        ws.f[w, WF_STATUS] = W_DONE
        barrier_arrive(code, regs, ws, w, geom, slot_block, counters)   # a finished warp may be what a barrier waited for
    return STEP_OK


@compiled
def barrier_count(code, regs, row, mask, base_t, w, geom, slot_block, counters):
    """The thread count of `bar.sync a, b` (bar.red: `d, a, b, c`) read by the first executing lane,
    or -1 when the instruction has none."""
    k = 2 if row[E.F_CMP] != E.BARRED_NONE else 1
    if row[E.F_NOPS] <= (3 if row[E.F_CMP] != E.BARRED_NONE else 1):
        return np.int64(-1)
    for lane in range(geom[G_WS]):
        if (mask >> lane) & 1:
            return read_int(code, regs, row, k, base_t + lane, w, lane, geom, slot_block, counters)
    return np.int64(-1)


@compiled_inline
def at_bar_red(code, ws, v):
    """Warp v waits at a barrier that arrived through a bar.red row."""
    if ws.f[v, WF_STATUS] != W_BARRIER:
        return False
    row = code.rows[ws.f[v, WF_PC] - 1]
    return row[E.F_OP] == E.OP_BAR and row[E.F_CMP] != E.BARRED_NONE


@compiled
def barrier_reduce(code, regs, ws, first, wpb, geom, slot_block, counters):
    """bar.red at release: combine the predicate (last operand) of every thread that arrived at a
    bar.red row and write the result to each of them (.popc: count, .and: all, .or: any)."""
    wsz = geom[G_WS]
    count = 0
    total = 0
    mode = E.BARRED_NONE
    for v in range(first, first + wpb):
        if not at_bar_red(code, ws, v):
            continue
        row = code.rows[ws.f[v, WF_PC] - 1]
        mode = row[E.F_CMP]
        k = row[E.F_NOPS] - 1
        m = ws.f[v, WF_BAR_MASK]
        for lane in range(wsz):
            if (m >> lane) & 1:
                total += 1
                if read_int(code, regs, row, k, v * wsz + lane, v, lane, geom, slot_block, counters) != 0:
                    count += 1
    if mode == E.BARRED_NONE:
        return
    if mode == E.BARRED_POPC:
        r = np.int64(count)
    elif mode == E.BARRED_AND:
        r = np.int64(1 if count == total else 0)
    else:
        r = np.int64(1 if count > 0 else 0)
    for v in range(first, first + wpb):
        if not at_bar_red(code, ws, v):
            continue
        dk, di, _, _ = opnd(code.rows[ws.f[v, WF_PC] - 1], 0)
        m = ws.f[v, WF_BAR_MASK]
        for lane in range(wsz):
            if (m >> lane) & 1:
                write_raw(regs, dk, di, v * wsz + lane, r)


@compiled
def named_barrier(code, regs, ws, w, row, exec_mask, count, geom, slot_block, counters):
    """`bar.sync a, b` (a thread count given) or `bar.arrive a, b`: the warp counts its threads at
    barrier a (arrive: its whole warp, as PTX counts; sync: its executing lanes) and the barrier
    releases its waiting warps once b threads have arrived; exited threads do not count, unlike a
    barrier without a count.  Returns whether warp w goes on."""
    bar = barrier_id(code, regs, row, exec_mask, w * geom[G_WS], w, geom, slot_block, counters)
    ws.f[w, WF_BAR_COUNT] = count
    if row[E.F_FLAGS] & E.FL_ARRIVE:
        ws.f[w, WF_ARRIVED] |= np.int64(1) << bar
    else:
        ws.f[w, WF_PC] += 1
        ws.f[w, WF_STATUS] = W_BARRIER
        ws.f[w, WF_BAR_MASK] = exec_mask
        ws.f[w, WF_BAR_ID] = bar
    wpb = geom[G_WPB]
    first = (w // wpb) * wpb
    arrived = 0
    for v in range(first, first + wpb):
        if waits_at_named(ws, v, bar):
            arrived += S.popcount64(ws.f[v, WF_BAR_MASK])
        if (ws.f[v, WF_ARRIVED] >> bar) & 1:
            arrived += S.popcount64(ws.f[v, WF_FULL])
    if arrived >= count:
        for v in range(first, first + wpb):
            if waits_at_named(ws, v, bar):
                ws.f[v, WF_STATUS] = W_READY
                ws.f[v, WF_BAR_COUNT] = -1
            ws.f[v, WF_ARRIVED] &= ~(np.int64(1) << bar)
    return ws.f[w, WF_STATUS] != W_BARRIER


@compiled_inline
def waits_at_named(ws, v, bar):
    return ws.f[v, WF_STATUS] == W_BARRIER and ws.f[v, WF_BAR_COUNT] >= 0 and ws.f[v, WF_BAR_ID] == bar


@compiled
def barrier_id(code, regs, row, mask, base_t, w, geom, slot_block, counters):
    """Barrier a of `bar a{, b}` (bar.red: `d, a, ...`) read by the first executing lane (0..15)."""
    k = 1 if row[E.F_CMP] != E.BARRED_NONE else 0
    if row[E.F_NOPS] <= k:
        return np.int64(0)
    for lane in range(geom[G_WS]):
        if (mask >> lane) & 1:
            return read_int(code, regs, row, k, base_t + lane, w, lane, geom, slot_block, counters) & 15
    return np.int64(0)


@compiled
def barrier_arrive(code, regs, ws, w, geom, slot_block, counters):
    """Release the block's barrier when every unfinished warp waits there with all its threads.
    Returns False when it can never complete (deadlock)."""
    wpb = geom[G_WPB]
    first = (w // wpb) * wpb
    waiting = 0
    for v in range(first, first + wpb):
        s = ws.f[v, WF_STATUS]
        arrived = s == W_BARRIER or ws.f[v, WF_DEFERRED] != 0     # deferred: issuing on past it (timing)
        if (s == W_READY and not arrived) or (s == W_BARRIER and ws.f[v, WF_BAR_COUNT] >= 0):
            return True            # someone can still arrive (a warp at a named barrier may later)
        if arrived:
            waiting += 1
    if waiting == 0:
        return True
    for v in range(first, first + wpb):
        if (ws.f[v, WF_STATUS] == W_BARRIER or ws.f[v, WF_DEFERRED]) and ws.f[v, WF_BAR_MASK] != ws.f[v, WF_FULL]:
            return False           # threads missing from this warp can never arrive
    barrier_reduce(code, regs, ws, first, wpb, geom, slot_block, counters)
    for v in range(first, first + wpb):
        if ws.f[v, WF_STATUS] == W_BARRIER:
            ws.f[v, WF_STATUS] = W_READY
        ws.f[v, WF_DEFERRED] = 0
    return True
