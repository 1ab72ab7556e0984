"""Half precision on raw 16-bit patterns (numba-compiled): f16 (1-5-10, IEEE binary16) and bf16
(1-8-7), and the packed f16x2 / bf16x2 types (element 0 in bits 15..0, element 1 in bits 31..16).

Values are decoded exactly to float64.  Every half operation is exact in float64 except additions
(bf16 exponents span more than 53 bits), whose rounding error TwoSum recovers, so a result is the
float64 value plus the sign of what it left out, rounded once to 16 bits here (`encode`): the
result is correctly rounded without relying on numpy's float16.

PTX leaves the NaN of a half result unspecified ("Half-precision instructions return an unspecified
NaN"); `.relu` and `min/max.NaN` name the canonical NaN, so every NaN result is the canonical
0x7fff (for both formats), neg / abs of a NaN included: ptxas makes them HADD2 / HFMA2.BF16_V2
with a -x or |x| operand, which give the canonical NaN on the H100 (numbers: the sign bit alone).
"""
from __future__ import annotations

import math

import numpy as np

from simt_sim.engine.jit import compiled
from simt_sim.isa import encoding as E

CANONICAL_NAN = np.int64(0x7FFF)
SIGN = np.int64(0x8000)


@compiled
def is_half(ty):
    return ty == E.T_F16 or ty == E.T_BF16 or ty == E.T_F16X2 or ty == E.T_BF16X2


@compiled
def is_pair(ty):
    return ty == E.T_F16X2 or ty == E.T_BF16X2


@compiled
def is_bf16(ty):
    return ty == E.T_BF16 or ty == E.T_BF16X2


@compiled
def fields(bf):
    """(exponent bits, fraction bits, bias) of f16 or bf16."""
    if bf:
        return 8, 7, 127
    return 5, 10, 15


@compiled
def is_nan(h, bf):
    eb, mb, _ = fields(bf)
    return ((h >> mb) & ((1 << eb) - 1)) == (1 << eb) - 1 and (h & ((1 << mb) - 1)) != 0


@compiled
def flush(h, bf, ftz):
    """.ftz: a subnormal input or result becomes a zero of the same sign."""
    eb, mb, _ = fields(bf)
    if ftz and ((h >> mb) & ((1 << eb) - 1)) == 0:
        return h & SIGN
    return h


@compiled
def decode(h, bf):
    """Exact float64 value of a 16-bit pattern (NaN: float NaN)."""
    eb, mb, bias = fields(bf)
    emax = (1 << eb) - 1
    e = (h >> mb) & emax
    f = h & ((1 << mb) - 1)
    if e == emax:
        if f != 0:
            return math.nan                 # unsigned: the NaN a conversion to f32/f64 gives
        v = math.inf
    elif e == 0:
        v = math.ldexp(np.float64(f), int(1 - bias - mb))
    else:
        v = math.ldexp(np.float64(f | (1 << mb)), int(e - bias - mb))
    return -v if (h >> 15) & 1 else v


@compiled
def encode(x, tail, rnd, bf):
    """Round float64 x to f16 / bf16 bits.  The value rounded is x + tail, where tail (below half an
    ulp of x) only breaks round-to-nearest ties: directed modes (.rz/.rm/.rp) need tail = 0, which
    holds for every caller (conversions are exact in float64; arithmetic rounds to nearest)."""
    if x != x:
        return CANONICAL_NAN
    eb, mb, bias = fields(bf)
    emax = (1 << eb) - 1
    sign = SIGN if x < 0.0 or (x == 0.0 and math.copysign(1.0, x) < 0.0) else np.int64(0)
    ax = abs(x)
    if ax == math.inf:
        return sign | (emax << mb)
    if ax == 0.0:
        return sign
    if x < 0.0:
        tail = -tail                        # tail relative to the magnitude
    q = max(math.frexp(ax)[1] - 1, 1 - bias) - mb     # exponent of the result's last bit
    v = math.ldexp(ax, int(-q))             # exact: a power-of-two scaling
    n = np.int64(math.floor(v))
    frac = v - np.float64(n)
    away = (rnd == E.RND_RP and sign == 0) or (rnd == E.RND_RM and sign != 0)
    if rnd == E.RND_RZ or rnd == E.RND_RM or rnd == E.RND_RP:
        if away and frac > 0.0:
            n += 1
    elif frac > 0.5 or (frac == 0.5 and (tail > 0.0 or (tail == 0.0 and n & 1))):
        n += 1
    if n == (np.int64(1) << (mb + 1)):
        n >>= 1
        q += 1
    if n < (np.int64(1) << mb):
        return sign | n                     # subnormal (or zero)
    e = q + mb + bias
    if e >= emax:                           # overflow: infinity, or the largest finite value
        to_inf = rnd != E.RND_RZ and (away or (rnd != E.RND_RM and rnd != E.RND_RP))
        return sign | ((emax << mb) if to_inf else (((emax - 1) << mb) | ((1 << mb) - 1)))
    return sign | (e << mb) | (n - (np.int64(1) << mb))


@compiled
def one(bf):
    return np.int64(0x3F80) if bf else np.int64(0x3C00)


@compiled
def finish(h, flags, bf):
    """Result modifiers: .sat clamps to [0, 1] (NaN and -0 to +0), .relu makes negative results +0,
    .satfinite clamps infinities to the largest finite value, .ftz flushes subnormals."""
    eb, mb, _ = fields(bf)
    nan = is_nan(h, bf)
    if flags & E.FL_SAT:
        if nan or h & SIGN:
            h = np.int64(0)
        elif decode(h, bf) > 1.0:
            h = one(bf)
    elif flags & E.FL_RELU and not nan and h & SIGN:
        h = np.int64(0)
    if flags & E.FL_SATFINITE and (h & ~SIGN) == ((1 << eb) - 1) << mb:
        h = (h & SIGN) | ((((1 << eb) - 2) << mb) | ((1 << mb) - 1))
    return flush(h, bf, flags & E.FL_FTZ)


@compiled
def min_max(ha, hb, is_max, nan_mode, bf):
    """PTX half min / max: a NaN operand yields to the number (.NaN: gives the canonical NaN; two
    NaNs: the canonical NaN); -0 orders below +0."""
    na = is_nan(ha, bf)
    nb = is_nan(hb, bf)
    if (na and nb) or (nan_mode and (na or nb)):
        return CANONICAL_NAN
    if na:
        return hb
    if nb:
        return ha
    a = decode(ha, bf)
    b = decode(hb, bf)
    if a == b:                              # equal values: only the signs of zeros can differ
        a_first = ((ha & SIGN) != 0) != is_max
        return ha if a_first else hb
    return ha if (a > b) == is_max else hb


@compiled
def arith(op, ha, hb, hc, flags, bf):
    """One element of add / sub / mul / fma / neg / abs / min / max on 16-bit patterns."""
    ftz = flags & E.FL_FTZ
    ha = flush(ha, bf, ftz)
    hb = flush(hb, bf, ftz)
    hc = flush(hc, bf, ftz)
    if (op == E.OP_NEG or op == E.OP_ABS) and is_nan(ha, bf):
        return CANONICAL_NAN                # ptxas: HADD2 / HFMA2.BF16_V2 with -x or |x| (s-half)
    if op == E.OP_NEG:
        return ha ^ SIGN
    if op == E.OP_ABS:
        return ha & ~SIGN
    if op == E.OP_MIN or op == E.OP_MAX:
        return min_max(ha, hb, op == E.OP_MAX, (flags & E.FL_NAN) != 0, bf)
    a = decode(ha, bf)
    b = decode(hb, bf)
    tail = 0.0
    if op == E.OP_MUL:
        d = a * b                           # exact: at most 22 significant bits
    else:
        x = a
        y = -b if op == E.OP_SUB else b
        if op == E.OP_FMA:
            x = a * b                       # exact product, then one rounding of the sum
            y = decode(hc, bf)
        d = x + y
        if math.isfinite(d):
            bb = d - x
            tail = (x - (d - bb)) + (y - bb)    # TwoSum: d + tail == x + y exactly
    return finish(encode(d, tail, E.RND_RN, bf), flags, bf)


@compiled
def arith_bits(op, ty, a, b, c, flags):
    """Half arithmetic on register bits: one element, or both halves of a packed type."""
    bf = is_bf16(ty)
    lo = arith(op, a & 0xFFFF, b & 0xFFFF, c & 0xFFFF, flags, bf)
    if not is_pair(ty):
        return lo
    hi = arith(op, (a >> 16) & 0xFFFF, (b >> 16) & 0xFFFF, (c >> 16) & 0xFFFF, flags, bf)
    return (hi << 16) | lo


@compiled
def element(bits, k, ty, ftz):
    """Value of element k (0: bits 15..0, 1: bits 31..16) of a half register, for comparisons."""
    bf = is_bf16(ty)
    return decode(flush((bits >> (16 * k)) & 0xFFFF, bf, ftz), bf)


@compiled
def convert(x, rnd, flags, bf):
    """cvt to f16 / bf16 of an exact float64 value: round (default .rn), then .sat / .relu /
    .satfinite (cvt's .ftz concerns float32 only)."""
    mode = E.RND_RN if rnd == E.RND_NONE else rnd
    return finish(encode(x, 0.0, mode, bf), flags & ~E.FL_FTZ, bf)
