"""Semantics of the SASS tensor-core rows HMMA, DMMA and MOVM (frontend/sass_lower_more.py), for
the 32 lanes of a warp (sass_step.py faults when fewer are active, as the PTX path does).

SASS keeps every fragment in consecutive 32-bit registers, in the order of the PTX fragment
(ptxas allocates mma.sync's {a0, a1, a2, a3} as R8..R11): an operand is its first register, RZ
(an immediate here) is a fragment of zeros.  The arithmetic is tensor.py's (the validated H100
model of mma.sync m16n8k16 / m16n8k8) and, for DMMA, the PTX path's chain of fused multiply-adds.

  HMMA.16816.{F32,F16}[.BF16] D, A, B, C   D = A (16x16) * B (16x8) + C   A: 4 regs, B: 2, C/D: 4 (F32) or 2
  HMMA.1688.F32[.BF16]        D, A, B, C   m16n8k8: A: 2 regs, B: 1
  DMMA.8x8x4                  D, A, B, C   f64 m8n8k4: A, B one register pair, C / D two pairs
  MOVM.16.MT88                D, A         the 8x8 matrix of 16-bit elements of fragment A, transposed
"""
from __future__ import annotations

import numpy as np

from simt_sim.engine.functional import tensor as T
from simt_sim.engine.functional.bits import dfma_nan, f64_from_bits, f64_to_bits
from simt_sim.engine.functional.fparith import fma64
from simt_sim.engine.jit import allocating, compiled
from simt_sim.isa import encoding as E

M32 = np.int64(0xFFFFFFFF)


@compiled
def word(regs, row, k, j, t):
    """Register j of fragment operand k of thread t (RZ and immediates: a zero fragment)."""
    b = E.F_OPS + k * E.OPERAND_FIELDS
    if row[b] != E.K_R32:
        return np.int64(0)
    return np.int64(regs.r32[row[b + 1] + j, t])


@compiled
def put_word(regs, row, k, j, t, v):
    b = E.F_OPS + k * E.OPERAND_FIELDS
    if row[b] == E.K_R32:
        regs.r32[row[b + 1] + j, t] = np.uint32(v & M32)


@compiled
def element(regs, row, k, e, wide, t):
    """Element e of fragment operand k: 16-bit (two per register, the even one low) or 32-bit."""
    if wide:
        return word(regs, row, k, e, t)
    return (word(regs, row, k, e >> 1, t) >> (16 * (e & 1))) & 0xFFFF


@compiled
def gather(regs, row, k, base_t, rows, cols, wide, out, rs, cs):
    """The R x C matrix of fragment operand k into out[r * rs + c * cs] (tensor.py's layout)."""
    for lane in range(32):
        for e in range(rows * cols // 32):
            out[T.frag_row(rows, lane, e) * rs + T.frag_col(rows, lane, e) * cs] = element(
                regs, row, k, e, wide, base_t + lane)


@allocating
def exec_hmma(regs, row, base_t):
    """HMMA: D = A * B + C with the H100's tensor-core arithmetic (tensor.mma_product)."""
    m, n, kk, acc_f16, a, b, c = T.mma_operands(row)
    gather(regs, row, 1, base_t, m, kk, False, a, kk, 1)
    gather(regs, row, 2, base_t, n, kk, False, b, 1, n)        # the fragment holds B^T
    gather(regs, row, 3, base_t, m, n, not acc_f16, c, n, 1)
    d = T.mma_product(row, a, b, c)
    per_lane = m * n // 32
    for lane in range(32):                          # every source is read before D is written
        t = base_t + lane
        for e in range(per_lane if not acc_f16 else per_lane // 2):
            if acc_f16:
                lo = d[T.frag_row(m, lane, 2 * e) * n + T.frag_col(m, lane, 2 * e)]
                hi = d[T.frag_row(m, lane, 2 * e + 1) * n + T.frag_col(m, lane, 2 * e + 1)]
                put_word(regs, row, 0, e, t, lo | (hi << 16))
            else:
                put_word(regs, row, 0, e, t, d[T.frag_row(m, lane, e) * n + T.frag_col(m, lane, e)])


@compiled
def pair_bits(regs, row, k, j, t):
    """Bits of double j of fragment operand k (register pair j: registers 2j, 2j+1)."""
    return word(regs, row, k, 2 * j, t) | (word(regs, row, k, 2 * j + 1, t) << 32)


@allocating
def exec_dmma(regs, row, base_t):
    """DMMA.8x8x4: the PTX path's mma.m8n8k4.f64 (execute.exec_mma): lane l holds A[l>>2][l%4],
    B[l%4][l>>2] and C/D[l>>2][2(l%4)+q]; each element is fma(a3,b3, fma(a2,b2, fma(a1,b1,
    fma(a0,b0, c)))), one rounding per step, NaNs passed on as DFMA does (bits.dfma_nan)."""
    a = np.zeros(32, dtype=np.int64)
    b = np.zeros(32, dtype=np.int64)
    c = np.zeros(64, dtype=np.int64)
    for lane in range(32):
        t = base_t + lane
        a[lane] = pair_bits(regs, row, 1, 0, t)
        b[lane] = pair_bits(regs, row, 2, 0, t)
        c[2 * lane] = pair_bits(regs, row, 3, 0, t)
        c[2 * lane + 1] = pair_bits(regs, row, 3, 1, t)
    for lane in range(32):
        i = lane >> 2
        t = base_t + lane
        for q in range(2):
            j = 2 * (lane & 3) + q
            acc = c[2 * lane + q]
            for k in range(4):
                x, y = a[4 * i + k], b[4 * j + k]         # A[i][k] in lane 4i+k, B[k][j] in lane 4j+k
                nan = dfma_nan(x, y, acc)
                acc = nan if nan != 0 else f64_to_bits(fma64(f64_from_bits(x), f64_from_bits(y),
                                                             f64_from_bits(acc)))
            put_word(regs, row, 0, 2 * q, t, acc)
            put_word(regs, row, 0, 2 * q + 1, t, acc >> 32)


@allocating
def exec_movm(regs, row, base_t):
    """MOVM.16.MT88 d, a: lane l holds row l>>2, columns 2(l%4), +1 of an 8x8 matrix of 16-bit
    elements (ldmatrix's layout); afterwards it holds those of the transpose: D[r][c] = A[c][r]."""
    src = np.zeros(64, dtype=np.int64)
    for lane in range(32):
        v = word(regs, row, 1, 0, base_t + lane)
        src[(lane >> 2) * 8 + 2 * (lane & 3)] = v & 0xFFFF
        src[(lane >> 2) * 8 + 2 * (lane & 3) + 1] = (v >> 16) & 0xFFFF
    for lane in range(32):
        r = lane >> 2
        c = 2 * (lane & 3)
        put_word(regs, row, 0, 0, base_t + lane, src[c * 8 + r] | (src[(c + 1) * 8 + r] << 16))


@compiled
def is_tensor(op):
    return op == E.OP_S_HMMA or op == E.OP_S_DMMA or op == E.OP_S_MOVM


@compiled
def exec_sass_tensor(regs, row, op, base_t):
    """One tensor-core row for the whole warp (the caller checked that all 32 lanes are active)."""
    if op == E.OP_S_HMMA:
        exec_hmma(regs, row, base_t)
    elif op == E.OP_S_DMMA:
        exec_dmma(regs, row, base_t)
    else:
        exec_movm(regs, row, base_t)
