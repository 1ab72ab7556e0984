"""Bit-exact model of one H100 tensor-core multiply-accumulate, D = A * B + C, for f16 / bf16
inputs with an f32 or f16 accumulator (mma.sync m16n8k16 / m16n8k8, wmma m16n16k16 / m32n8k16 /
m8n32k16).  Fitted to, and checked against, the results recorded on an H100
(tests/data/h100/tensor_cores.npz and tensor_cores_extra.npz, tests/test_tensor_core_model.py;
docs/tensor-cores.md).

One element d = sum_k a_k * b_k + c is computed in a single fused step over all k products and c
(k = 16 or 8; no blocks of 8, no intermediate rounding):

1. Every product a_k * b_k is exact (the two significands multiplied in full).  Subnormal inputs
   (f16 and bf16) and a subnormal c (f16 and f32) are used as they are, not flushed.
2. Each nonzero term (the products and c) has a *nominal exponent*: for a product the sum of the
   two input exponents as encoded (the exponent field, a subnormal counting as the minimum
   normal exponent), for c its own exponent.  The nominal exponent ignores whether the product's
   significand, in [1, 4), carried into a second integer bit.  Let E be the largest nominal
   exponent.  Zero terms take no part (a zero times a huge number does not move E).
3. Every term is truncated toward zero (its magnitude cut, sign kept) to a multiple of
   2^(E - 25): a fixed-point window with 25 fraction bits below the largest exponent, two more
   than binary32's 23.  Terms far below the largest one vanish altogether.
4. The truncated terms are added exactly (the adder is wide enough for the carries).
5. The sum is rounded once to the accumulator format: toward zero for f32, to nearest (ties to
   even) for f16, with gradual underflow (subnormal results are kept).  A result beyond the
   range is infinity in both cases: for f32 too, although its rounding is toward zero.  A zero
   result is always +0: an exact zero sum whatever the signs of the zero terms, and a nonzero
   sum of either sign that rounds to zero.

Special values: the result is the canonical NaN (0x7fffffff for f32, 0x7fff for f16, whatever
the NaN operands were) when any input is NaN, a product is inf * 0, or infinities of both signs
meet (among the products and c); otherwise any infinity gives an infinity of its sign.  An
infinity times a (bf16 or f16) subnormal is an infinity.

Not pinned down by the recordings (docs/tensor-cores.md): an f32 sum between the largest finite
number and 2^128 (modelled: toward zero, the largest finite number; only sums of 2^128 and more
overflow), the nominal exponent of a bf16 subnormal input (modelled like f16: the minimum), and
whether the window has a floor at or below 2^-152 (modelled: none).

`mma_element` is the scalar reference over Python ints; `mma_tile` is the same arithmetic on
whole tiles with numpy (int64 fixed point, then float64, which holds the truncated sums exactly).
"""
from __future__ import annotations

import numpy as np

# name -> (exponent bits, fraction bits)
FORMATS = {"f16": (5, 10), "bf16": (8, 7), "f32": (8, 23)}
# fraction bits of the alignment window below the largest nominal exponent
WINDOW_FRACTION_BITS = 25
NAN_BITS = {"f32": 0x7FFFFFFF, "f16": 0x7FFF}


def _layout(kind: str):
    ebits, fbits = FORMATS[kind]
    bias = (1 << (ebits - 1)) - 1
    return ebits, fbits, bias


# ---------------------------------------------------------------------------------------------
# scalar reference (Python ints)
# ---------------------------------------------------------------------------------------------

def decode(bits: int, kind: str):
    """(class, sign, significand, nominal exponent) of a bit pattern: the value of a finite
    number is (-1)^sign * significand * 2^(exponent - fraction bits); class is 'num', 'inf' or
    'nan'."""
    ebits, fbits, bias = _layout(kind)
    bits = int(bits)
    sign = (bits >> (ebits + fbits)) & 1
    field = (bits >> fbits) & ((1 << ebits) - 1)
    frac = bits & ((1 << fbits) - 1)
    if field == (1 << ebits) - 1:
        return ("nan" if frac else "inf", sign, 0, 0)
    if field == 0:
        return ("num", sign, frac, 1 - bias)
    return ("num", sign, frac | (1 << fbits), field - bias)


def round_bits(sign: int, n: int, q: int, kind: str, mode: str) -> int:
    """Bit pattern of (-1)^sign * n * 2^q (n >= 0) rounded to `kind` the way the tensor core
    rounds its result: mode 'rz' (toward zero) or 'rn' (nearest, ties to even); gradual
    underflow; a result of magnitude 0 is +0 whatever `sign` is; a result beyond the range is
    infinity in both modes (not the largest finite number, as IEEE's toward-zero would give)."""
    ebits, fbits, bias = _layout(kind)
    sbit = sign << (ebits + fbits)
    if n == 0:
        return 0
    lead = n.bit_length() - 1 + q
    lsb = max(lead, 1 - bias) - fbits                 # exponent of the last kept bit
    shift = lsb - q
    if shift > 0:
        m, rest = n >> shift, n & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if mode == "rn" and (rest > half or (rest == half and m & 1)):
            m += 1
    else:
        m = n << -shift
    if m >> (fbits + 1):                               # rounding carried into a new bit
        m >>= 1
        lsb += 1
    if m == 0:                                         # underflow to zero: +0
        return 0
    if m >> fbits == 0:                                # subnormal
        return sbit | m
    exponent = lsb + fbits
    if exponent > bias:                                # overflow: infinity
        return sbit | (((1 << ebits) - 1) << fbits)
    return sbit | ((exponent + bias) << fbits) | (m & ((1 << fbits) - 1))


def mma_element(a_bits, b_bits, c_bits: int, in_type: str, acc_type: str) -> int:
    """One element of D = A * B + C: a_bits is a row of A, b_bits a column of B (bit patterns of
    in_type, 'f16' or 'bf16'), c_bits the C element (acc_type, 'f32' or 'f16'); returns the D
    element's bit pattern."""
    _, in_fbits, _ = _layout(in_type)
    _, acc_fbits, _ = _layout(acc_type)
    terms = []                   # (sign, significand, exponent of its last bit, nominal exponent)
    nan = False
    infs = set()
    for x, y in zip(a_bits, b_bits):
        ca, sa, ma, ea = decode(x, in_type)
        cb, sb, mb, eb = decode(y, in_type)
        sign = sa ^ sb
        if ca == "nan" or cb == "nan":
            nan = True
        elif ca == "inf" or cb == "inf":
            if (ca == "num" and ma == 0) or (cb == "num" and mb == 0):
                nan = True                            # inf * 0
            else:
                infs.add(sign)
        else:
            terms.append((sign, ma * mb, ea + eb - 2 * in_fbits, ea + eb))
    cc, sc, mc, ec = decode(c_bits, acc_type)
    if cc == "nan":
        nan = True
    elif cc == "inf":
        infs.add(sc)
    else:
        terms.append((sc, mc, ec - acc_fbits, ec))
    if nan or len(infs) == 2:
        return NAN_BITS[acc_type]
    if infs:
        return round_bits(infs.pop(), 1, 100000, acc_type, "rn")   # overflows to infinity

    nonzero = [t for t in terms if t[1]]
    if not nonzero:                                   # every term a zero (of any sign): +0
        return 0
    q = max(t[3] for t in nonzero) - WINDOW_FRACTION_BITS
    total = 0
    for sign, sig, lsb, _ in nonzero:
        shift = lsb - q
        v = sig << shift if shift >= 0 else sig >> -shift          # truncation toward zero
        total += -v if sign else v
    mode = "rz" if acc_type == "f32" else "rn"
    return round_bits(int(total < 0), abs(total), q, acc_type, mode)


# ---------------------------------------------------------------------------------------------
# vectorized (numpy)
# ---------------------------------------------------------------------------------------------

def _decode_array(bits, kind: str):
    """sign, significand (int64), nominal exponent (int64), is_nan, is_inf of an array of bit
    patterns."""
    ebits, fbits, bias = _layout(kind)
    bits = np.asarray(bits).astype(np.int64)
    sign = (bits >> (ebits + fbits)) & 1
    field = (bits >> fbits) & ((1 << ebits) - 1)
    frac = bits & ((1 << fbits) - 1)
    special = field == (1 << ebits) - 1
    sig = np.where(field == 0, frac, frac | (1 << fbits))
    sig = np.where(special, 0, sig)
    exp = np.maximum(field, 1) - bias
    return sign, sig, exp, special & (frac != 0), special & (frac == 0)


def _f32_toward_zero(x: np.ndarray) -> np.ndarray:
    """float64 values (exact) rounded toward zero to float32."""
    with np.errstate(over="ignore"):
        y = x.astype(np.float32)
    away = np.abs(y.astype(np.float64)) > np.abs(x)
    return np.where(away, np.nextafter(y, np.float32(0)), y)


def mma_tile(A_bits, B_bits, C_bits, in_type: str, acc_type: str) -> np.ndarray:
    """D = A * B + C on bit patterns, with `mma_element`'s arithmetic: A [..., m, k] and B
    [..., k, n] of in_type, C [..., m, n] of acc_type (leading dimensions broadcast, e.g. one
    per case); returns D's bit patterns [..., m, n] (uint32 for f32, uint16 for f16)."""
    _, in_fbits, _ = _layout(in_type)
    _, acc_fbits, _ = _layout(acc_type)
    sa, ma, ea, na, ia = (v[..., :, None, :] for v in _decode_array(A_bits, in_type))
    sb, mb, eb, nb, ib = (np.swapaxes(v, -1, -2)[..., None, :, :] for v in _decode_array(B_bits, in_type))
    sc, mc, ec, nc, ic = _decode_array(C_bits, acc_type)

    # products [..., m, n, k]
    ps = sa ^ sb
    pm = ma * mb
    pe = ea + eb                                      # nominal exponent
    p_inf = (ia & ~ib & (mb != 0)) | (ib & ~ia & (ma != 0)) | (ia & ib)
    p_nan = na | nb | (ia & ~ib & ~nb & (mb == 0)) | (ib & ~ia & ~na & (ma == 0))
    nan = p_nan.any(-1) | nc
    pos_inf = (p_inf & (ps == 0)).any(-1) | (ic & (sc == 0))
    neg_inf = (p_inf & (ps == 1)).any(-1) | (ic & (sc == 1))
    nan = nan | (pos_inf & neg_inf)

    # alignment: largest nominal exponent among the nonzero terms
    low = np.int64(-(1 << 20))
    top = np.maximum(np.where(pm != 0, pe, low).max(-1), np.where(mc != 0, ec, low))
    q = top - WINDOW_FRACTION_BITS

    def aligned(sig, lsb, qq):
        shift = lsb - qq
        left = sig << np.clip(shift, 0, 40)
        right = sig >> np.clip(-shift, 0, 62)
        return np.where(shift >= 0, left, right)

    pv = aligned(pm, pe - 2 * in_fbits, q[..., None])
    cv = aligned(mc, ec - acc_fbits, q)
    total = np.where(ps == 1, -pv, pv).sum(-1) + np.where(sc == 1, -cv, cv)

    value = np.ldexp(total.astype(np.float64), np.clip(q, -2000, 2000).astype(np.int32))

    if acc_type == "f32":
        out = _f32_toward_zero(value).view(np.uint32)
        inf_bits = np.uint32(0x7F800000)
        sign_bit = np.uint32(0x80000000)
        overflow = np.abs(value) >= 2.0 ** 128        # toward zero, yet infinity beyond the range
        out = np.where(overflow, inf_bits | np.where(value < 0, sign_bit, 0).astype(np.uint32), out)
    else:
        with np.errstate(over="ignore"):
            out = value.astype(np.float16).view(np.uint16)
        inf_bits = np.uint16(0x7C00)
        sign_bit = np.uint16(0x8000)
    out = np.where(out == sign_bit, out.dtype.type(0), out)    # a zero result is always +0
    out = np.where(pos_inf, inf_bits, out)
    out = np.where(neg_inf, inf_bits | sign_bit, out)
    out = np.where(nan, out.dtype.type(NAN_BITS[acc_type]), out)
    return out
