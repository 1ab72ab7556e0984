"""Tensor-core instructions in the engine: the H100 arithmetic of mma.sync m16n8k16 / m16n8k8 and
wmma.mma (f16 / bf16 inputs, f32 or f16 accumulators), the fragments of mma / wmma, wmma.load /
wmma.store and ldmatrix.

The arithmetic is a port of simt_sim/oracle/tensor_math.py (`mma_element`, `round_bits`), rule
for rule and in the same order, on int64 only (exact: a product has at most 22 significant
bits, an aligned term at most 27, the sum of 17 terms fits easily), so that a refinement of the
model there is mirrored here line by line.  docs/tensor-cores.md explains the rules.

Fragments (docs/tensor-cores.md, "Fragments"): a fragment of an R x C matrix X of 16-bit elements
(A itself; for B its transpose, N x K; the accumulator C / D itself, M x N) is cut into 8 x 8
blocks, taken in column-major block order; lane l holds row l>>2, columns 2(l%4) and 2(l%4)+1 of
each block: element e of the lane lies in block e>>1, at column 2(l%4) + (e&1).  16-bit elements
pack two per register (the even element in the low half); f32 accumulator elements take one
register each.  For mma.m16n8k16 / m16n8k8 this is exactly the PTX ISA's layout (a0..a3, b0..b1,
c0..c3); wmma fragments, which NVIDIA leaves opaque, use the same rule (an f16 A / B fragment
always has 8 registers: the registers beyond the R*C/64 the matrix needs repeat it).
"""
from __future__ import annotations

import numpy as np

from simt_sim.engine.functional import address as M
from simt_sim.engine.jit import allocating, compiled
from simt_sim.isa import encoding as E
from simt_sim.machine.layout import FAULT_MISALIGNED, FAULT_OOB

# 25 fraction bits of the alignment window below the largest nominal exponent (tensor_math.py)
WINDOW_FRACTION_BITS = 25
CLS_NUM, CLS_INF, CLS_NAN = 0, 1, 2
NO_EXPONENT = np.int64(-(1 << 20))


# ---------------------------------------------------------------------------------------------
# arithmetic (tensor_math.py's scalar reference on int64)
# ---------------------------------------------------------------------------------------------

@compiled
def input_format(bf16):
    """(exponent bits, fraction bits) of the input format: bf16 or f16."""
    if bf16:
        return 8, 7
    return 5, 10


@compiled
def acc_format(f16):
    """(exponent bits, fraction bits) of the accumulator format: f16 or f32."""
    if f16:
        return 5, 10
    return 8, 23


@compiled
def decode(bits, ebits, fbits):
    """(class, sign, significand, nominal exponent) of a bit pattern (tensor_math.decode)."""
    bias = (1 << (ebits - 1)) - 1
    sign = (bits >> (ebits + fbits)) & 1
    field = (bits >> fbits) & ((1 << ebits) - 1)
    frac = bits & ((1 << fbits) - 1)
    if field == (1 << ebits) - 1:
        return (CLS_NAN if frac != 0 else CLS_INF), sign, np.int64(0), np.int64(0)
    if field == 0:
        return CLS_NUM, sign, frac, np.int64(1 - bias)
    return CLS_NUM, sign, frac | (np.int64(1) << fbits), field - bias


@compiled
def bit_length(n):
    k = 0
    while n > 0:
        n >>= 1
        k += 1
    return k


@compiled
def round_bits(sign, n, q, ebits, fbits, nearest):
    """Bit pattern of (-1)^sign * n * 2^q rounded to the format: toward zero or to nearest even
    (tensor_math.round_bits: gradual underflow; a zero result is +0 whatever the sign; a result
    beyond the range is infinity in both modes)."""
    bias = (1 << (ebits - 1)) - 1
    sbit = np.int64(sign) << (ebits + fbits)
    if n == 0:
        return np.int64(0)
    lead = bit_length(n) - 1 + q
    lsb = max(lead, 1 - bias) - fbits                  # exponent of the last kept bit
    shift = lsb - q
    if shift > 0:
        if shift >= 63:                                # far below the last bit: rest < half
            m = np.int64(0)
        else:
            m = n >> shift
            rest = n & ((np.int64(1) << shift) - 1)
            half = np.int64(1) << (shift - 1)
            if nearest and (rest > half or (rest == half and (m & 1) != 0)):
                m += 1
    else:
        m = n << -shift
    if (m >> (fbits + 1)) != 0:                        # rounding carried into a new bit
        m >>= 1
        lsb += 1
    if m == 0:                                         # underflow to zero: +0
        return np.int64(0)
    if (m >> fbits) == 0:                              # subnormal
        return sbit | m
    exponent = lsb + fbits
    if exponent > bias:                                # overflow: infinity, even toward zero
        return sbit | (np.int64((1 << ebits) - 1) << fbits)
    return sbit | (np.int64(exponent + bias) << fbits) | (m & ((np.int64(1) << fbits) - 1))


@compiled
def aligned_term(sig, lsb, q):
    """The term's magnitude cut toward zero to a multiple of 2^q, in units of 2^q."""
    shift = lsb - q
    if shift >= 0:
        return sig << shift
    if shift <= -63:
        return np.int64(0)
    return sig >> -shift


@compiled
def mma_element(A, B, i, j, K, N, c_bits, in_bf16, acc_f16):
    """Bits of D[i][j] = sum_k A[i][k] * B[k][j] + C[i][j] (tensor_math.mma_element): A row-major
    M x K, B row-major K x N, bit patterns of the input format; c_bits of the accumulator's."""
    ie, ifb = input_format(in_bf16)
    ae, afb = acc_format(acc_f16)
    nan = False
    pos_inf = False
    neg_inf = False
    top = NO_EXPONENT                                  # largest nominal exponent of a nonzero term
    for k in range(K):                                 # pass 1: specials, signs, alignment
        ca, sa, ma, ea = decode(A[i * K + k], ie, ifb)
        cb, sb, mb, eb = decode(B[k * N + j], ie, ifb)
        sign = sa ^ sb
        if ca == CLS_NAN or cb == CLS_NAN:
            nan = True
        elif ca == CLS_INF or cb == CLS_INF:
            if (ca == CLS_NUM and ma == 0) or (cb == CLS_NUM and mb == 0):
                nan = True                             # inf * 0
            elif sign:
                neg_inf = True
            else:
                pos_inf = True
        else:
            if ma * mb != 0:
                top = max(top, ea + eb)
    cc, sc, mc, ec = decode(c_bits, ae, afb)
    if cc == CLS_NAN:
        nan = True
    elif cc == CLS_INF:
        if sc:
            neg_inf = True
        else:
            pos_inf = True
    else:
        if mc != 0:
            top = max(top, ec)
    if nan or (pos_inf and neg_inf):
        return np.int64(0x7FFF) if acc_f16 else np.int64(0x7FFFFFFF)
    if pos_inf or neg_inf:
        return round_bits(1 if neg_inf else 0, np.int64(1), np.int64(100000), ae, afb, True)
    if top == NO_EXPONENT:                             # every term a zero (of any sign): +0
        return np.int64(0)
    q = top - WINDOW_FRACTION_BITS
    total = np.int64(0)
    for k in range(K):                                 # pass 2: the exact sum of the cut terms
        _, sa, ma, ea = decode(A[i * K + k], ie, ifb)
        _, sb, mb, eb = decode(B[k * N + j], ie, ifb)
        v = aligned_term(ma * mb, ea + eb - 2 * ifb, q)
        total += -v if (sa ^ sb) else v
    v = aligned_term(mc, ec - afb, q)
    total += -v if sc else v
    return round_bits(1 if total < 0 else 0, abs(total), q, ae, afb, acc_f16)


# ---------------------------------------------------------------------------------------------
# fragments
# ---------------------------------------------------------------------------------------------

@compiled
def frag_row(rows, lane, e):
    """Row of element e of lane `lane` in a fragment of a matrix with `rows` rows."""
    return 8 * ((e >> 1) % (rows >> 3)) + (lane >> 2)


@compiled
def frag_col(rows, lane, e):
    return 8 * ((e >> 1) // (rows >> 3)) + 2 * (lane & 3) + (e & 1)


@compiled
def frag_reg(code, row, k, j):
    """Register (r32 index) j of the fragment operand k (a braced list, or one register)."""
    b = E.F_OPS + k * E.OPERAND_FIELDS
    if row[b] == E.K_VEC:
        return code.vecs[row[b + 1], j]
    return row[b + 1]


@compiled
def get_element(code, regs, row, k, e, wide, t):
    """Element e of fragment operand k of thread t: 16-bit (two per register) or 32-bit."""
    if wide:
        return np.int64(regs.r32[frag_reg(code, row, k, e), t])
    return (np.int64(regs.r32[frag_reg(code, row, k, e >> 1), t]) >> (16 * (e & 1))) & 0xFFFF


@compiled
def set_element(code, regs, row, k, e, wide, t, v):
    r = frag_reg(code, row, k, e if wide else e >> 1)
    if wide:
        regs.r32[r, t] = np.uint32(v & 0xFFFFFFFF)
    else:
        s = 16 * (e & 1)
        old = np.int64(regs.r32[r, t]) & ~(np.int64(0xFFFF) << s)
        regs.r32[r, t] = np.uint32((old | ((v & 0xFFFF) << s)) & 0xFFFFFFFF)


@compiled
def gather(code, regs, row, k, base_t, rows, cols, wide, out, rs, cs):
    """The whole R x C matrix of fragment operand k into out[r * rs + c * cs]."""
    for lane in range(32):
        for e in range(rows * cols // 32):
            out[frag_row(rows, lane, e) * rs + frag_col(rows, lane, e) * cs] = get_element(
                code, regs, row, k, e, wide, base_t + lane)


@compiled
def repeat_registers(code, regs, row, k, natural, t):
    """An f16 wmma A / B fragment has 8 registers; those past the `natural` ones repeat them."""
    for j in range(natural, 8):
        regs.r32[frag_reg(code, row, k, j), t] = regs.r32[frag_reg(code, row, k, j % natural), t]


@allocating
def mma_operands(row):
    """The shape (m, n, k), whether the accumulator is f16, and zeroed A, B and C of an mma row
    (PTX mma / wmma and SASS HMMA alike)."""
    shape = row[E.F_CMP]
    m, n, kk = E.SHAPE_M[shape], E.SHAPE_N[shape], E.SHAPE_K[shape]
    acc_f16 = row[E.F_TYPE] == E.T_F16
    return (m, n, kk, acc_f16, np.zeros(m * kk, dtype=np.int64), np.zeros(kk * n, dtype=np.int64),
            np.zeros(m * n, dtype=np.int64))


@allocating
def mma_product(row, a, b, c):
    """D = A * B + C, each element as the H100's tensor cores compute it (mma_element)."""
    shape = row[E.F_CMP]
    m, n, kk = E.SHAPE_M[shape], E.SHAPE_N[shape], E.SHAPE_K[shape]
    in_bf16 = row[E.F_TYPE2] == E.T_BF16
    acc_f16 = row[E.F_TYPE] == E.T_F16
    d = np.zeros(m * n, dtype=np.int64)
    for i in range(m):
        for j in range(n):
            d[i * n + j] = mma_element(a, b, i, j, kk, n, c[i * n + j], in_bf16, acc_f16)
    return d


@allocating
def exec_tensor_mma(code, regs, row, base_t):
    """mma.sync m16n8k16 / m16n8k8 and wmma.mma for the 32 lanes of a warp: D = A * B + C with
    the H100 arithmetic (mma_element).  The wmma layouts (.row / .col) only describe how the
    fragments were loaded; a fragment holds the logical matrix, so they change nothing here."""
    m, n, kk, acc_f16, a, b, c = mma_operands(row)
    gather(code, regs, row, 1, base_t, m, kk, False, a, kk, 1)
    gather(code, regs, row, 2, base_t, n, kk, False, b, 1, n)      # the fragment holds B^T
    gather(code, regs, row, 3, base_t, m, n, not acc_f16, c, n, 1)
    d = mma_product(row, a, b, c)
    for lane in range(32):                          # all sources are read before D is written
        for e in range(m * n // 32):
            v = d[frag_row(m, lane, e) * n + frag_col(m, lane, e)]
            set_element(code, regs, row, 0, e, not acc_f16, base_t + lane, v)


# ---------------------------------------------------------------------------------------------
# wmma.load / wmma.store / ldmatrix
# ---------------------------------------------------------------------------------------------


@compiled
def operand_address(regs, row, k, t):
    """The address of the [reg+offset] operand k of thread t."""
    b = E.F_OPS + k * E.OPERAND_FIELDS
    return M.lane_address(regs, row[b + 1], row[b + 2], t)


@compiled
def wmma_stride(code, regs, row, k, t, default):
    """The stride operand k (elements; a register or an immediate), or the tile's own."""
    if row[E.F_NOPS] <= k:
        return np.int64(default)
    b = E.F_OPS + k * E.OPERAND_FIELDS
    if row[b] == E.K_R32:
        return np.int64(regs.r32[row[b + 1], t])
    if row[b] == E.K_R64:
        return np.int64(regs.r64[row[b + 1], t])
    return np.int64(code.cu64[row[b + 1]])


@compiled
def wmma_geometry(op, shape):
    """(fragment rows R, fragment columns C, memory rows, memory columns, transposed) of a wmma
    load / store: the fragment holds X (R x C); memory holds the matrix (B: K x N, X = B^T)."""
    m, n, k = E.SHAPE_M[shape], E.SHAPE_N[shape], E.SHAPE_K[shape]
    if op == E.OP_WMMA_LOAD_A:
        return m, k, m, k, False
    if op == E.OP_WMMA_LOAD_B:
        return n, k, k, n, True
    return m, n, m, n, False


@compiled
def element_address(base, r, c, mrows, mcols, col_major, stride, esize):
    """Address of memory-matrix element (r, c): row-major rows of `stride` elements, or
    column-major columns of `stride` elements."""
    if col_major:
        return base + (c * stride + r) * esize
    return base + (r * stride + c) * esize


@compiled
def exec_wmma_memory(code, regs, mem, row, op, w, base_t, slot, geom_shared, geom_local, fault):
    """wmma.load.a / .b / .c and wmma.store.d for the 32 lanes of a warp.  Returns False on a
    fault (misaligned or out of bounds), with fault[] set."""
    shape = row[E.F_CMP]
    ty = row[E.F_TYPE]
    wide = ty == E.T_F32
    esize = 4 if wide else 2
    rows, cols, mrows, mcols, transposed = wmma_geometry(op, shape)
    col_major = (row[E.F_FLAGS] & E.FL_COL_A) != 0
    store = op == E.OP_WMMA_STORE_D
    k_addr = 0 if store else 1
    k_frag = 1 if store else 0
    hint = -1
    for lane in range(32):
        t = base_t + lane
        base = operand_address(regs, row, k_addr, t)
        stride = wmma_stride(code, regs, row, 2, t, mrows if col_major else mcols)
        for e in range(rows * cols // 32):
            r = frag_row(rows, lane, e)
            c = frag_col(rows, lane, e)
            if transposed:
                r, c = c, r
            addr = element_address(base, r, c, mrows, mcols, col_major, stride, esize)
            if addr % esize != 0:
                M.access_fault(fault, FAULT_MISALIGNED, w, lane, addr, esize)
                return False
            region, off, hint = M.resolve(mem, row[E.F_SPACE], addr, esize, slot, t, geom_shared,
                                          geom_local, hint)
            if region == M.R_NONE:
                M.access_fault(fault, FAULT_OOB, w, lane, addr, esize)
                return False
            if store:
                M.store(mem, region, off, esize, get_element(code, regs, row, k_frag, e, wide, t))
            else:
                set_element(code, regs, row, k_frag, e, wide, t, M.load(mem, region, off, esize))
        if not store and not wide and ty == E.T_F16 and op != E.OP_WMMA_LOAD_C and rows * cols // 64 < 8:
            repeat_registers(code, regs, row, 0, rows * cols // 64, t)
    return True


@allocating
def exec_ldmatrix(code, regs, mem, row, w, base_t, slot, geom_shared, geom_local, fault):
    """ldmatrix.sync.aligned.m8n8.x1|x2|x4{.trans}.shared.b16: lane 8i + r gives the address of
    row r of matrix i (16 bytes); lane l receives row l>>2, columns 2(l%4), +1 of matrix i in
    register d_i (.trans: row 2(l%4), +1, column l>>2, i.e. of the transpose)."""
    count = row[E.F_VEC]
    trans = (row[E.F_FLAGS] & E.FL_TRANS) != 0
    rows_at = np.zeros(32, dtype=np.int64)
    for lane in range(8 * count):                   # every address is read before any write
        addr = operand_address(regs, row, 1, base_t + lane)
        if addr % 16 != 0:
            M.access_fault(fault, FAULT_MISALIGNED, w, lane, addr, 16)
            return False
        rows_at[lane] = addr
    vals = np.zeros(32 * 4, dtype=np.int64)
    for lane in range(32):
        for i in range(count):
            v = np.int64(0)
            for h in range(2):
                r = lane >> 2
                c = 2 * (lane & 3) + h
                if trans:
                    r, c = c, r
                src = 8 * i + r
                region, off, _ = M.resolve(mem, row[E.F_SPACE], rows_at[src] + 2 * c, 2, slot,
                                           base_t + src, geom_shared, geom_local, -1)
                if region == M.R_NONE:
                    M.access_fault(fault, FAULT_OOB, w, src, rows_at[src] + 2 * c, 2)
                    return False
                v |= M.load(mem, region, off, 2) << (16 * h)
            vals[lane * 4 + i] = v
    for lane in range(32):
        for i in range(count):
            regs.r32[frag_reg(code, row, 0, i), base_t + lane] = np.uint32(vals[lane * 4 + i])
    return True
