"""Per-lane semantics of arithmetic, logic, comparison and conversion (numba-compiled).

Integers are handled as int64 values already sign- or zero-extended from their type, so every
operation is exact two's-complement arithmetic; results are truncated when written back.
float32 add/sub/mul/div/sqrt are computed in float64 and rounded once to float32, which is exact
because float64 carries more than 2*24+2 bits; fma uses a fused multiply-add.
"""
from __future__ import annotations

import math

import numpy as np

from simt_sim.isa import encoding as E
from simt_sim.engine.functional.bits import f32_from_bits, f32_to_bits, f64_from_bits, f64_to_bits
from simt_sim.engine.functional.fparith import fma32, fma64
from simt_sim.engine.jit import compiled

INT64_MIN = np.int64(-9223372036854775808)
# NaN results on the H100 (programs/sass-diff/s-fp32, s-fp64 recorded; docs/ptx-subset.md "NaN results"):
# every float32 arithmetic NaN is 0x7fffffff; a float64 operation passes a NaN operand on, quieted
# (F64_QUIET), and makes 0xfff8000000000000 from numbers (inf - inf, 0 * inf, 0 / 0, sqrt(-1)).
CANONICAL_NAN32 = np.int64(0x7FFFFFFF)
F64_DEFAULT_NAN = np.int64(-0x8000000000000)          # 0xfff8000000000000
F64_QUIET = np.int64(0x0008000000000000)


@compiled
def extend(raw, ty):
    """Raw register bits (int64) -> value of integer type ty, sign/zero-extended to int64."""
    bits = E.TYPE_BITS[ty]
    if bits >= 64:
        return np.int64(raw)
    m = (np.int64(1) << bits) - 1
    v = np.int64(raw) & m
    if E.TYPE_SIGNED[ty] and (v >> (bits - 1)) & 1:
        v -= np.int64(1) << bits
    return v


@compiled
def truncate(v, ty):
    bits = E.TYPE_BITS[ty]
    if bits >= 64:
        return np.int64(v)
    return np.int64(v) & ((np.int64(1) << bits) - 1)


@compiled
def ult(a, b):
    """Unsigned 64-bit a < b on int64 bit patterns."""
    return (a ^ INT64_MIN) < (b ^ INT64_MIN)


@compiled
def umulhi64(a, b):
    """High 64 bits of the unsigned 128-bit product of two 64-bit patterns."""
    m32 = np.uint64(0xFFFFFFFF)
    ua = np.uint64(a)
    ub = np.uint64(b)
    a_lo = ua & m32
    a_hi = ua >> np.uint64(32)
    b_lo = ub & m32
    b_hi = ub >> np.uint64(32)
    p0 = a_lo * b_lo
    p1 = a_lo * b_hi
    p2 = a_hi * b_lo
    p3 = a_hi * b_hi
    mid = (p0 >> np.uint64(32)) + (p1 & m32) + (p2 & m32)
    hi = p3 + (p1 >> np.uint64(32)) + (p2 >> np.uint64(32)) + (mid >> np.uint64(32))
    return np.int64(hi)


@compiled
def mulhi64(a, b, signed):
    hi = umulhi64(a, b)
    if signed:
        if a < 0:
            hi -= b
        if b < 0:
            hi -= a
    return hi


@compiled
def saturate_int(v, ty):
    bits = E.TYPE_BITS[ty]
    if bits >= 64:
        if not E.TYPE_SIGNED[ty] and v < 0:
            return np.int64(0)      # cvt.sat.u64.s64 of a negative value (callers map huge u64 to >= 0)
        return v
    if E.TYPE_SIGNED[ty]:
        lo = -(np.int64(1) << (bits - 1))
        hi = (np.int64(1) << (bits - 1)) - 1
    else:
        lo = np.int64(0)
        hi = (np.int64(1) << bits) - 1
    return min(max(v, lo), hi)


@compiled
def int_divide(a, b, ty, want_rem):
    signed = E.TYPE_SIGNED[ty] == 1
    bits = E.TYPE_BITS[ty]
    if b == 0:
        if want_rem:
            return a
        return np.int64(-1)          # all ones, as the hardware division sequence produces
    if signed:
        if bits == 64 and a == INT64_MIN and b == -1:
            return np.int64(0) if want_rem else a
        # Magnitudes as uint64: abs(INT64_MIN) overflows int64 (and // would then floor a negative).
        ua = np.uint64(a) if a >= 0 else np.uint64(0) - np.uint64(a)
        ub = np.uint64(b) if b >= 0 else np.uint64(0) - np.uint64(b)
        q = np.int64(ua // ub)
        if (a < 0) != (b < 0):
            q = -q
        return a - q * b if want_rem else q
    if bits == 64:
        ua = np.uint64(a)
        ub = np.uint64(b)
        return np.int64(ua % ub) if want_rem else np.int64(ua // ub)
    return a % b if want_rem else a // b


@compiled
def shift_left(a, s, bits):
    if s < 0 or s >= bits:
        return np.int64(0)
    return np.int64(a) << s


@compiled
def shift_right(a, s, ty):
    """a is already extended to int64 from ty."""
    bits = E.TYPE_BITS[ty]
    if s < 0 or s >= bits:
        s = bits - 1 if E.TYPE_SIGNED[ty] else bits
    if s >= 64:
        return np.int64(0)
    if E.TYPE_SIGNED[ty]:
        return a >> s
    if bits == 64:
        return np.int64(np.uint64(a) >> np.uint64(s))
    return a >> s


@compiled
def popcount(v, bits):
    v = np.uint64(truncate_bits(v, bits))
    n = 0
    while v:
        v &= v - np.uint64(1)
        n += 1
    return np.int64(n)


@compiled
def truncate_bits(v, bits):
    if bits >= 64:
        return np.int64(v)
    return np.int64(v) & ((np.int64(1) << bits) - 1)


@compiled
def count_leading_zeros(v, bits):
    v = truncate_bits(v, bits)
    n = 0
    for i in range(bits - 1, -1, -1):
        if (v >> i) & 1:
            break
        n += 1
    return np.int64(n)


@compiled
def bit_reverse(v, bits):
    r = np.int64(0)
    for i in range(bits):
        if (v >> i) & 1:
            r |= np.int64(1) << (bits - 1 - i)
    return r


@compiled
def int_compare(cmp, a, b, ty):
    """a, b extended to int64 per ty; lo/ls/hi/hs compare unsigned."""
    if cmp == 0:
        return a == b
    if cmp == 1:
        return a != b
    unsigned = E.TYPE_SIGNED[ty] == 0 or cmp >= 6
    if unsigned and E.TYPE_BITS[ty] >= 64:
        lt = ult(a, b)
        gt = ult(b, a)
    elif unsigned:
        ua = truncate(a, ty) if E.TYPE_SIGNED[ty] else a
        ub = truncate(b, ty) if E.TYPE_SIGNED[ty] else b
        lt = ua < ub
        gt = ua > ub
    else:
        lt = a < b
        gt = a > b
    c = cmp if cmp < 6 else cmp - 4     # lo->lt, ls->le, hi->gt, hs->ge
    if c == 2:
        return lt
    if c == 3:
        return not gt
    if c == 4:
        return gt
    if c == 5:
        return not lt
    return False


@compiled
def float_compare(cmp, a, b):
    unordered = math.isnan(a) or math.isnan(b)
    if cmp == 16:      # num
        return not unordered
    if cmp == 17:      # nan
        return unordered
    if cmp >= 10:      # equ neu ltu leu gtu geu: true when unordered
        if unordered:
            return True
        cmp -= 10
    elif unordered:
        return False
    if cmp == 0:
        return a == b
    if cmp == 1:
        return a != b
    if cmp == 2:
        return a < b
    if cmp == 3:
        return a <= b
    if cmp == 4:
        return a > b
    return a >= b


@compiled
def flush32(x, ftz):
    if ftz and x != 0.0 and abs(x) < 1.1754943508222875e-38:
        return np.float32(math.copysign(0.0, x))
    return np.float32(x)


@compiled
def float_min_max(a, b, is_max):
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    if a == b:
        if a == 0.0:
            neg_a = math.copysign(1.0, a) < 0
            if is_max:
                return b if neg_a else a
            return a if neg_a else b
        return a
    if is_max:
        return a if a > b else b
    return a if a < b else b


@compiled
def round_integral(x, rnd):
    # numpy's floor/ceil/trunc stay float64: math.floor & co. return int64 under numba, which
    # overflows beyond 2^63 and loses the sign of -0.0.
    if rnd == E.RND_RNI or rnd == E.RND_RN:
        return np.float64(np.rint(x))
    if rnd == E.RND_RMI or rnd == E.RND_RM:
        return np.float64(np.floor(x))
    if rnd == E.RND_RPI or rnd == E.RND_RP:
        return np.float64(np.ceil(x))
    return np.float64(np.trunc(x))


@compiled
def float_to_int(x, rnd, ty):
    """cvt float -> integer: round as asked (truncate by default), saturate, NaN -> 0."""
    if math.isnan(x):
        return np.int64(0)
    r = round_integral(x, rnd if rnd != E.RND_NONE else E.RND_RZI)
    bits = E.TYPE_BITS[ty]
    if E.TYPE_SIGNED[ty]:
        lo = -2.0 ** (bits - 1)
        hi = 2.0 ** (bits - 1) - 1
        if r <= lo:
            return -(np.int64(1) << (bits - 1)) if bits < 64 else INT64_MIN
        if r >= hi:
            return (np.int64(1) << (bits - 1)) - 1 if bits < 64 else np.int64(9223372036854775807)
        return np.int64(r)
    if r <= 0.0:
        return np.int64(0)
    if r >= 2.0 ** bits - 1:
        return np.int64(-1) if bits == 64 else (np.int64(1) << bits) - 1
    if r >= 9223372036854775808.0:
        return np.int64(np.uint64(r))
    return np.int64(r)


@compiled
def int_magnitude(v, ty):
    """(negative, |v| as uint64) of an integer extended from type ty (u64 patterns >= 2^63 are
    positive; |INT64_MIN| = 2^63 fits)."""
    neg = E.TYPE_SIGNED[ty] == 1 and v < 0
    return neg, (np.uint64(-v) if neg else np.uint64(v))


@compiled
def int_to_float64(v, ty, rnd):
    """Correctly rounded int -> float64 under rnd (.rn by default): integers beyond 2^53 drop bits,
    rounded here from the exact remainder."""
    neg, u = int_magnitude(v, ty)
    shift = np.uint64(0)
    while (u >> shift) >= np.uint64(1 << 53):
        shift += np.uint64(1)
    kept = u >> shift
    if shift > 0:
        rem = u - (kept << shift)
        half = np.uint64(1) << (shift - np.uint64(1))
        if rnd == E.RND_RM or rnd == E.RND_RP:
            if rem != 0 and (rnd == E.RND_RM) == neg:
                kept += np.uint64(1)
        elif rnd != E.RND_RZ and (rem > half or (rem == half and kept & np.uint64(1))):
            kept += np.uint64(1)
    f = np.float64(kept) * 2.0 ** np.float64(shift)
    return -f if neg else f


@compiled
def int_to_f64_sticky(v, ty):
    """An integer as float64: exact within 53 bits, else its leading 53 bits with the dropped ones
    ORed into the last (a sticky bit), so that one later rounding to a format of at most 51 bits
    (float32, f16, bf16) in any mode is correct."""
    neg, u = int_magnitude(v, ty)
    shift = np.uint64(0)
    while (u >> shift) >= np.uint64(1 << 53):
        shift += np.uint64(1)
    kept = u >> shift
    if (kept << shift) != u:
        kept |= np.uint64(1)
    f = np.float64(kept) * 2.0 ** np.float64(shift)
    return -f if neg else f


@compiled
def round_f64_to_f32(d, rnd, tail):
    """float64 -> float32 under rounding mode rnd (.rz/.rm/.rp; anything else rounds to nearest).
    The exact value is d + tail with |tail| below half an ulp of d (tail = 0: d is exact, or carries
    a sticky bit below float32 precision); only the sign of tail matters."""
    f = np.float32(d)
    if rnd != E.RND_RZ and rnd != E.RND_RM and rnd != E.RND_RP:
        return f
    fd = np.float64(f)
    diff = d - fd if fd != d else tail       # sign of (exact - f); d - fd is exact here
    if diff != diff or diff == 0.0:
        return f
    if rnd == E.RND_RZ:
        if (fd > 0.0 and diff < 0.0) or (fd < 0.0 and diff > 0.0):
            f = np.nextafter(f, np.float32(0.0))
    elif rnd == E.RND_RM:
        if diff < 0.0:
            f = np.nextafter(f, np.float32(-np.inf))
    elif diff > 0.0:
        f = np.nextafter(f, np.float32(np.inf))
    return f


@compiled
def quotient_error(op, a, b):
    """float64 a / b, sqrt(a) or 1 / a rounded to nearest, and a value with the sign of the exact
    result minus the rounded one (from the exact remainder, an error-free transformation)."""
    if op == E.OP_DIV:
        d = a / b
        if a != 0.0 and (abs(d) < TINY64 or abs(a) < TINY64):
            # a - d*b falls below the subnormals for a tiny a or quotient: its sign from a and d
            # scaled by 2^600 (exact; |a| < 4 when d is tiny, d < 2^424 when a is; __ddiv_rd with
            # a subnormal quotient: generated corpus k07222)
            r = fma64(-math.ldexp(d, 600), b, math.ldexp(a, 600))
        else:
            r = fma64(-d, b, a)                       # exact remainder a - d*b
        return d, (r if b > 0.0 else -r)
    if op == E.OP_SQRT:
        d = math.sqrt(a)
        if 0.0 < a < TINY64:
            # a - d*d falls below the subnormals for a tiny a: take its sign from a * 2^1200 and
            # its root d * 2^600 (both exact; __dsqrt_rd of 2^-1020..: generated corpus k08513)
            # (math.ldexp: compiled, `a * 2.0 ** 600 * 2.0 ** 600` lost a subnormal a's error sign,
            # so sqrt.rz/rm/rp of a subnormal rounded to nearest; generated corpus k00623 k01029)
            big = math.ldexp(a, 1200)
            s = math.sqrt(big)
            return d, fma64(-s, s, big)
        return d, fma64(-d, d, a)                     # sign of a - d*d = sign of sqrt(a) - d
    d = 1.0 / a
    r = fma64(-d, a, 1.0)
    return d, (r if a > 0.0 else -r)


@compiled
def f32_directed(op, a, b, c, rnd):
    """float32 add/sub/mul/fma/div/sqrt/rcp under .rz/.rm/.rp, finite operands only: the float64
    result plus the sign of its exact error (error-free transformations) round once, correctly.
    (Rounding the float64 result alone is only correct for round-to-nearest.)"""
    da = np.float64(a)
    db = np.float64(b)
    tail = 0.0
    if op == E.OP_MUL:
        d = da * db                                   # exact: 24 x 24 bits
    elif op == E.OP_DIV or op == E.OP_SQRT or op == E.OP_RCP:
        d, tail = quotient_error(op, da, db)
    else:                                             # add, sub, fma / mad
        x = da
        y = db if op == E.OP_ADD else -db
        if op != E.OP_ADD and op != E.OP_SUB:
            x = da * db                               # exact product
            y = np.float64(c)
        d = x + y
        bb = d - x
        tail = (x - (d - bb)) + (y - bb)              # TwoSum: d + tail == x + y exactly
        if d == 0.0 and tail == 0.0 and rnd == E.RND_RM:
            same_zero = x == 0.0 and y == 0.0 and math.copysign(1.0, x) == math.copysign(1.0, y)
            if not same_zero:
                d = -0.0                              # an exact zero sum is -0 when rounding down
    return round_f64_to_f32(d, rnd, tail)


@compiled
def int_to_float32(v, ty, rnd):
    """Correctly rounded int -> float32 under rnd (one rounding of the sticky float64)."""
    return round_f64_to_f32(int_to_f64_sticky(v, ty), rnd, 0.0)


@compiled
def mufu_rcp32(x):
    """MUFU.RCP as the SASS path models it: subnormal operand and result flushed, the reciprocal
    correctly rounded (within the SFU's bound, docs/sass-differential.md)."""
    x = flush32(x, True)
    if x == 0.0:
        return np.float32(math.copysign(math.inf, x))
    return flush32(np.float32(1.0 / np.float64(x)), True)


@compiled
def div_approx32(a, b, ftz):
    """div.approx.f32 as ptxas 13 writes it for sm_90: .ftz: FMUL.FTZ a, MUFU.RCP(b); without .ftz,
    a divisor below the smallest normal (|b| < 2^-126, zero included) first scales both operands by
    2^24, then FMUL a, MUFU.RCP(b) keeps subnormal results.  A divisor of 2^126 or more has a
    subnormal reciprocal, which MUFU flushes: the quotient is 0 (libdevice's fmodf relies on it)."""
    if not ftz and abs(np.float64(b)) < 1.1754943508222875e-38:
        a = np.float32(np.float64(a) * 16777216.0)
        b = np.float32(np.float64(b) * 16777216.0)
    return flush32(np.float32(np.float64(a) * np.float64(mufu_rcp32(b))), ftz)


@compiled
def f32_arith(op, a, b, c, flags, rnd):
    """float32 arithmetic; a, b, c are float32 values."""
    ftz = (flags & E.FL_FTZ) != 0
    a = flush32(a, ftz)
    b = flush32(b, ftz)
    c = flush32(c, ftz)
    da = np.float64(a)
    db = np.float64(b)
    directed = (rnd == E.RND_RZ or rnd == E.RND_RM or rnd == E.RND_RP) and math.isfinite(da) \
        and math.isfinite(db) and math.isfinite(c)
    if directed and (op == E.OP_ADD or op == E.OP_SUB or op == E.OP_MUL or op == E.OP_FMA or op == E.OP_MAD
                     or (op == E.OP_DIV and db != 0.0 and not flags & E.FL_APPROX)
                     or (op == E.OP_SQRT and da > 0.0) or (op == E.OP_RCP and da != 0.0)):
        r = f32_directed(op, a, b, c, rnd)            # .rz/.rm/.rp (specials are exact anyway)
    elif op == E.OP_ADD:
        r = np.float32(da + db)
    elif op == E.OP_SUB:
        r = np.float32(da - db)
    elif op == E.OP_MUL:
        r = np.float32(da * db)
    elif op == E.OP_FMA or op == E.OP_MAD:
        r = fma32(a, b, c)
    elif op == E.OP_DIV:
        if flags & E.FL_APPROX:       # reciprocal, then multiply, as ptxas writes div.approx
            r = div_approx32(a, b, ftz)
        else:
            if db == 0.0:
                if da == 0.0 or math.isnan(da):
                    r = np.float32(math.nan)
                else:
                    r = np.float32(math.copysign(math.inf, da) * math.copysign(1.0, db))
            else:
                r = np.float32(da / db)
    elif op == E.OP_ABS:
        r = np.float32(abs(da))
    elif op == E.OP_NEG:
        r = np.float32(-da)
    elif op == E.OP_MIN:
        r = np.float32(float_min_max(da, db, False))
    elif op == E.OP_MAX:
        r = np.float32(float_min_max(da, db, True))
    elif op == E.OP_COPYSIGN:         # a bit operation (ptxas: LOP3): the NaN of b kept as it is
        return f32_from_bits((f32_to_bits(b) & 0x7FFFFFFF) | (f32_to_bits(a) & np.int64(0x80000000)))
    else:
        r = np.float32(sfu32(op, da))
    if flags & E.FL_SAT:                # NaN and -0 (and every negative) saturate to +0 (FFMA.SAT of -0: +0)
        r = np.float32(0.0) if math.isnan(r) or r <= 0.0 else np.float32(min(np.float64(r), 1.0))
    return canonical32(flush32(r, ftz))


@compiled
def canonical32(r):
    """A float32 arithmetic result as the H100 writes it: a NaN is the canonical 0x7fffffff
    (FADD / FMUL / FFMA / MUFU / FRND, also abs and neg, which ptxas makes FADDs of)."""
    if r != r:
        return f32_from_bits(CANONICAL_NAN32)
    return r


@compiled
def sfu32(op, x):
    """Transcendental and reciprocal operations (float64 math rounded to float32)."""
    if op == E.OP_SQRT:
        return np.float32(math.sqrt(x)) if x >= 0.0 else np.float32(math.nan) if not x == 0.0 else np.float32(x)
    if op == E.OP_RCP:
        if x == 0.0:
            return np.float32(math.copysign(math.inf, x))
        return np.float32(1.0 / x)
    if op == E.OP_RSQRT:
        if x == 0.0:
            return np.float32(math.copysign(math.inf, x))
        if x < 0.0:
            return np.float32(math.nan)
        return np.float32(1.0 / math.sqrt(x))
    if op == E.OP_SIN:
        return np.float32(math.sin(x)) if math.isfinite(x) else np.float32(math.nan)
    if op == E.OP_COS:
        return np.float32(math.cos(x)) if math.isfinite(x) else np.float32(math.nan)
    if op == E.OP_EX2:
        if x > 128.0:
            return np.float32(math.inf)
        return np.float32(2.0 ** x)
    if op == E.OP_LG2:
        if x < 0.0 or math.isnan(x):
            return np.float32(math.nan)
        if x == 0.0:
            return np.float32(-math.inf)
        return np.float32(math.log2(x))
    if op == E.OP_TANH:
        return np.float32(math.tanh(x))
    return np.float32(math.nan)


@compiled
def two_sum(x, y):
    """(s, e) with s = x + y rounded and s + e == x + y exactly."""
    s = x + y
    bb = s - x
    return s, (x - (s - bb)) + (y - bb)


@compiled
def fma64_error(a, b, c, d):
    """Sign-carrying exact error a*b + c - d of d = fma(a, b, c) (Boldo & Muller's ErrFma: the
    error is r2 + r3 exactly, non-overlapping, so r2 carries its sign unless it is zero)."""
    u1 = a * b
    u2 = fma64(a, b, -u1)
    alpha1, z = two_sum(c, u2)
    beta1, beta2 = two_sum(u1, alpha1)
    gamma = (beta1 - d) + beta2
    r2 = gamma + z
    r3 = z - (r2 - gamma)
    return r2 if r2 != 0.0 else r3


@compiled
def f64_directed(op, a, b, c, rnd):
    """float64 add/sub/mul/fma/div/sqrt/rcp under .rz/.rm/.rp for finite operands: the
    round-to-nearest result d moves one step when the exact error (error-free transformations)
    points the other way than the rounding direction.  The error terms are exact unless they fall
    below the subnormal range (results or remainders near 2^-1022)."""
    if op == E.OP_ADD or op == E.OP_SUB:
        d, err = two_sum(a, b if op == E.OP_ADD else -b)
        if d == 0.0 and err == 0.0 and rnd == E.RND_RM:
            y = b if op == E.OP_ADD else -b
            if not (a == 0.0 and y == 0.0 and math.copysign(1.0, a) == math.copysign(1.0, y)):
                d = -0.0                              # an exact zero sum is -0 when rounding down
    elif op == E.OP_MUL:
        if a != 0.0 and b != 0.0 and abs(a * b) < TINY64:
            return step_toward(*scaled_fma_error(a, b, 0.0), rnd)
        d = a * b
        err = fma64(a, b, -d)
    elif op == E.OP_DIV or op == E.OP_SQRT or op == E.OP_RCP:
        d, err = quotient_error(op, a, b)
    else:                                             # fma / mad
        if a != 0.0 and b != 0.0 and abs(a * b) < TINY64:
            d, err = scaled_fma_error(a, b, c)
            if d == 0.0 and err == 0.0:               # an exact zero: -0 when rounding down
                return -0.0 if rnd == E.RND_RM else 0.0
            return step_toward(d, err, rnd)
        d = fma64(a, b, c)
        err = fma64_error(a, b, c, d) if math.isfinite(d) else 0.0
        if d == 0.0 and err == 0.0 and rnd == E.RND_RM:
            # an exact zero sum is -0 when rounding down, unless it is two zeros of one sign (IEEE
            # 754 6.3; __fma_rd(x, y, +0) with x * y = -0: generated corpus k00409 k01927)
            same = (math.copysign(1.0, a) * math.copysign(1.0, b)) == math.copysign(1.0, c)
            if not ((a == 0.0 or b == 0.0) and c == 0.0 and same):
                return -0.0
    if math.isinf(d):
        err = -d                                      # finite operands: the exact result overflowed
    return step_toward(d, err, rnd)


TINY64 = 2.0 ** -900            # below this a product's rounding error can fall under the subnormals


@compiled
def scaled_fma_error(a, b, c):
    """(d, err) of a*b + c for a tiny nonzero product: d the round-to-nearest result and err a
    value with the sign of the exact remainder.  a and b are scaled into [0.5, 1), where the
    error terms are exact, and the result is scaled back onto the (subnormal) grid."""
    ma, ea = math.frexp(a)
    mb, eb = math.frexp(b)
    shift = ea + eb                                   # a*b = ma*mb * 2^shift
    mc, ec = math.frexp(c)
    if c != 0.0 and ec - shift > 110:                 # the product is far below half an ulp of c
        return c, ma * mb
    cs = math.ldexp(c, -shift)                        # exact: shift is very negative, so this scales up
    ds = fma64(ma, mb, cs)
    err = fma64_error(ma, mb, cs, ds)
    d = math.ldexp(ds, shift)                         # rounds to nearest on the final grid
    return d, (ds - math.ldexp(d, -shift)) + err      # the first difference is exact (Sterbenz)


@compiled
def step_toward(d, err, rnd):
    """The directed rounding of d + err (err: the exact error of round-to-nearest d, as a sign)."""
    if err == 0.0 or err != err:
        return d
    if rnd == E.RND_RZ:
        if (d > 0.0 and err < 0.0) or (d < 0.0 and err > 0.0):
            return np.nextafter(d, 0.0)
    elif rnd == E.RND_RM:
        if err < 0.0:
            return np.nextafter(d, -math.inf)
    elif err > 0.0:
        return np.nextafter(d, math.inf)
    return d


@compiled
def f64_arith(op, a, b, c, flags, rnd):
    """float64 arithmetic (.rz/.rm/.rp through f64_directed; .sat clamps to [0, 1]); NaN results
    as f64_nan_result gives them."""
    if a != a or b != b or c != c or op == E.OP_MIN or op == E.OP_MAX or op == E.OP_COPYSIGN:
        r = f64_value(op, a, b, c, flags, rnd)
        if r != r and op != E.OP_COPYSIGN:
            r = f64_from_bits(f64_nan_result(op, a, b, c, (flags & E.FL_NAN_B_FIRST) != 0))
    else:
        r = f64_value(op, a, b, c, flags, rnd)
        if r != r:
            r = f64_from_bits(F64_DEFAULT_NAN)
    if flags & E.FL_SAT:
        return 0.0 if r != r else min(max(r, 0.0), 1.0)
    return r


@compiled
def f64_nan_result(op, a, b, c, b_first):
    """The bits of a float64 NaN result with a NaN operand, as the H100 gives them (s-fp64): the
    first NaN operand, quieted, with its own sign (abs and neg too: ptxas makes them DADDs, whose
    |x| and -x do not apply to a NaN), in the order ptxas's DADD / DMUL / DFMA take them (their
    b, c, a): a then b for add / sub / mul / div, a, c, b for fma, but b first where it was written
    after a (b_first: ptxas puts that one in the b slot); min / max of two NaNs: a (as SASS mode runs
    ptxas's DSETP.MIN / .MAX sequence for them)."""
    fused = op == E.OP_FMA or op == E.OP_MAD
    if b_first and b != b and op != E.OP_MIN and op != E.OP_MAX:
        first = b
    elif b_first and fused and c != c:
        first = c
    elif a != a:
        first = a
    elif (op == E.OP_FMA or op == E.OP_MAD) and c != c:
        first = c
    elif b != b and op != E.OP_SQRT and op != E.OP_RCP and op != E.OP_RSQRT and op != E.OP_ABS \
            and op != E.OP_NEG:
        first = b
    elif c != c:
        first = c
    else:
        return F64_DEFAULT_NAN
    return f64_to_bits(first) | F64_QUIET


@compiled
def f64_value(op, a, b, c, flags, rnd):
    directed = (rnd == E.RND_RZ or rnd == E.RND_RM or rnd == E.RND_RP) and math.isfinite(a) \
        and math.isfinite(b) and math.isfinite(c)
    if directed and (op == E.OP_ADD or op == E.OP_SUB or op == E.OP_MUL or op == E.OP_FMA
                     or op == E.OP_MAD or (op == E.OP_DIV and b != 0.0) or (op == E.OP_SQRT and a > 0.0)
                     or (op == E.OP_RCP and a != 0.0)):
        return f64_directed(op, a, b, c, rnd)
    if op == E.OP_ADD:
        return a + b
    if op == E.OP_SUB:
        return a - b
    if op == E.OP_MUL:
        return a * b
    if op == E.OP_FMA or op == E.OP_MAD:
        return fma64(a, b, c)
    if op == E.OP_DIV:
        if b == 0.0:
            if a == 0.0 or math.isnan(a):
                return math.nan
            return math.copysign(math.inf, a) * math.copysign(1.0, b)
        return a / b
    if op == E.OP_ABS:
        return abs(a)
    if op == E.OP_NEG:
        return -a
    if op == E.OP_MIN:
        return float_min_max(a, b, False)
    if op == E.OP_MAX:
        return float_min_max(a, b, True)
    if op == E.OP_COPYSIGN:
        return math.copysign(b, a)
    if op == E.OP_SQRT:
        return math.sqrt(a) if a >= 0.0 else (a if a == 0.0 else math.nan)
    if op == E.OP_RCP:
        return 1.0 / a if a != 0.0 else math.copysign(math.inf, a)
    if op == E.OP_RSQRT:
        if a == 0.0:
            return math.copysign(math.inf, a)
        return 1.0 / math.sqrt(a) if a > 0.0 else math.nan
    return math.nan


@compiled
def int_arith(op, ty, flags, a, b, c):
    """Integer / bit operations on extended int64 values; result not yet truncated."""
    bits = E.TYPE_BITS[ty]
    signed = E.TYPE_SIGNED[ty] == 1
    if op == E.OP_ADD:
        r = a + b
        if flags & E.FL_SAT:
            r = saturate_int(r, ty)
        return r
    if op == E.OP_SUB:
        r = a - b
        if flags & E.FL_SAT:
            r = saturate_int(r, ty)
        return r
    if op == E.OP_MUL or op == E.OP_MAD:
        if flags & E.FL_WIDE:
            r = a * b                                  # exact: operands are at most 32 bits
        elif flags & E.FL_HI:
            if bits == 64:
                r = mulhi64(a, b, signed)
            else:
                r = (a * b) >> bits
        else:
            r = a * b
        if op == E.OP_MAD:
            r = r + c
        return r
    if op == E.OP_DIV:
        return int_divide(a, b, ty, False)
    if op == E.OP_REM:
        return int_divide(a, b, ty, True)
    if op == E.OP_ABS:
        return -a if a < 0 else a
    if op == E.OP_NEG:
        return -a
    if op == E.OP_MIN or op == E.OP_MAX:
        if signed:
            less = a < b
        elif bits == 64:
            less = ult(a, b)
        else:
            less = a < b
        if op == E.OP_MIN:
            return a if less else b
        return b if less else a
    if op == E.OP_SAD:
        if signed or bits < 64:
            d = a - b if a > b else b - a
        else:
            d = a - b if ult(b, a) else b - a
        return d + c
    if op == E.OP_AND:
        return a & b
    if op == E.OP_OR:
        return a | b
    if op == E.OP_XOR:
        return a ^ b
    if op == E.OP_NOT:
        return ~a
    if op == E.OP_CNOT:
        return np.int64(1) if truncate(a, ty) == 0 else np.int64(0)
    if op == E.OP_SHL:
        return shift_left(a, b, bits)
    if op == E.OP_SHR:
        return shift_right(a, b, ty)
    if op == E.OP_SHF:
        # Funnel shift of {b, a} (was missing: shf fell through to 0).  .l keeps the upper 32 bits
        # of {b, a} << n, .r the lower 32 bits of {b, a} >> n; .wrap: n = c & 31, .clamp: min(c, 32).
        n = (c & 31) if flags & E.FL_SHF_WRAP else min(c & 0xFFFFFFFF, 32)
        wide = (truncate_bits(b, 32) << 32) | truncate_bits(a, 32)
        if flags & E.FL_SHF_L:
            return (wide << n) >> 32
        return wide >> n
    if op == E.OP_POPC:
        return popcount(a, bits)
    if op == E.OP_CLZ:
        return count_leading_zeros(a, bits)
    if op == E.OP_BREV:
        return bit_reverse(a, bits)
    if op == E.OP_BFE:
        pos = b & 0xFF
        length = c & 0xFF
        if length == 0:
            return np.int64(0)
        if pos >= bits:
            pos = bits
        field = np.int64(0)
        sign_src = min(pos + length - 1, bits - 1)
        for i in range(min(length, bits)):      # bits past the width: shifting by >= 64 is undefined
            src = pos + i
            bit = (a >> min(src, bits - 1)) & 1 if src < bits or signed else 0
            if src >= bits and signed:
                bit = (a >> (bits - 1)) & 1
            field |= bit << i
        if signed and (a >> sign_src) & 1:
            if length < 64:
                field |= ~((np.int64(1) << length) - 1)
        return field
    if op == E.OP_PRMT:
        src = (truncate_bits(b, 32) << 32) | truncate_bits(a, 32)
        r = np.int64(0)
        for k in range(4):
            sel = (c >> (4 * k)) & 0xF
            byte = (src >> (8 * (sel & 7))) & 0xFF
            if sel & 8:
                byte = 0xFF if byte & 0x80 else 0
            r |= byte << (8 * k)
        return r
    if op == E.OP_BFIND:
        return find_msb(a, bits, signed, flags & E.FL_SHIFTAMT)
    if op == E.OP_FNS:
        return find_nth_set(a, b, c)
    if op == E.OP_DP4A or op == E.OP_DP2A:
        return dot_bytes(op, a, b, c, signed, flags)
    if op == E.OP_MUL24 or op == E.OP_MAD24:
        p = extend24(a, signed) * extend24(b, signed)       # 48-bit product, exact in int64
        r = (p >> 16) if flags & E.FL_HI else p
        if op == E.OP_MAD24:
            r = r + c
        return r
    return np.int64(0)


@compiled
def extend24(v, signed):
    v = np.int64(v) & 0xFFFFFF
    if signed and (v >> 23) & 1:
        v -= np.int64(1) << 24
    return v


@compiled
def find_msb(a, bits, signed, shiftamt):
    """bfind: position of the most significant 1 bit (signed types: of the most significant bit that
    differs from the sign bit); 0xffffffff when there is none.  .shiftamt gives bits-1-position."""
    v = truncate_bits(a, bits)
    if signed and (v >> (bits - 1)) & 1:
        v = truncate_bits(~v, bits)
    pos = np.int64(-1)
    for i in range(bits - 1, -1, -1):
        if (v >> i) & 1:
            pos = np.int64(i)
            break
    if pos < 0:
        return np.int64(0xFFFFFFFF)
    return (bits - 1 - pos) if shiftamt else pos


@compiled
def find_nth_set(mask, base, offset):
    """fns.b32: the offset-th set bit of mask counted from bit base (PTX pseudocode)."""
    mask = truncate_bits(mask, 32)
    base = truncate_bits(base, 32)
    if offset == 0:
        if base < 32 and (mask >> base) & 1:
            return base
        return np.int64(0xFFFFFFFF)
    count = (offset if offset > 0 else -offset) - 1
    inc = 1 if offset > 0 else -1
    pos = base
    while 0 <= pos < 32:
        if (mask >> pos) & 1:
            if count == 0:
                return pos
            count -= 1
        pos += inc
    return np.int64(0xFFFFFFFF)


@compiled
def dot_bytes(op, a, b, c, a_signed, flags):
    """dp4a: c + sum of a.byte[i] * b.byte[i]; dp2a: c + a.half[i] * b.byte[s + i], s = 0 (.lo) or 2
    (.hi).  Parts are sign- or zero-extended by .atype / .btype; the caller wraps to 32 bits."""
    b_signed = (flags & E.FL_B_SIGNED) != 0
    parts, a_bits, b_first = (4, 8, 0) if op == E.OP_DP4A else (2, 16, 2 if flags & E.FL_HI else 0)
    r = np.int64(c)
    for i in range(parts):
        x = (a >> (a_bits * i)) & ((1 << a_bits) - 1)
        y = (b >> (8 * (b_first + i))) & 0xFF
        if a_signed and x >> (a_bits - 1):
            x -= 1 << a_bits
        if b_signed and y >= 128:
            y -= 256
        r += x * y
    return r


@compiled
def bfi(a, b, pos, length, bits):
    pos &= 0xFF
    length &= 0xFF
    r = b
    for i in range(length):
        if pos + i >= bits:
            break
        bit = np.int64(1) << (pos + i)
        r = (r & ~bit) | (((a >> i) & 1) << (pos + i))
    return r


@compiled
def carry_arith(op, ty, flags, a, b, c, cin):
    """add / sub / mad (.cc) and addc / subc / madc on values extended from ty (32 or 64 bits):
    (result bits, carry out).  add: a + b + cin, carry out of the top bit; sub: a - (b + cin),
    borrow out (the PTX ISA's CC.CF for subtraction); mad.lo/.hi: the low or high half of a * b
    (signed for .s types) + c + cin, carry out of that addition."""
    bits = E.TYPE_BITS[ty]
    if op == E.OP_MAD or op == E.OP_MADC:
        if flags & E.FL_HI:
            if bits == 64:
                p = mulhi64(a, b, E.TYPE_SIGNED[ty] == 1)
            else:
                p = (a * b) >> 32
        else:
            p = a * b
        a = p
        b = c
    ua = np.uint64(truncate_bits(a, bits))
    ub = np.uint64(truncate_bits(b, bits))
    ci = np.uint64(cin & 1)
    if op == E.OP_SUB or op == E.OP_SUBC:
        borrow = ua < ub or (ua == ub and ci == 1)
        return truncate_bits(np.int64(ua - ub - ci), bits), np.int64(1 if borrow else 0)
    if bits == 64:
        s = ua + ub
        s2 = s + ci
        carry = s < ua or s2 < s
        return np.int64(s2), np.int64(1 if carry else 0)
    s = np.int64(ua + ub + ci)
    return s & 0xFFFFFFFF, (s >> 32) & 1


@compiled
def packed16(op, ty, a, b):
    """add / sub / min / max .u16x2 / .s16x2: per 16-bit half (add and sub wrap)."""
    r = np.int64(0)
    for k in range(2):
        x = (a >> (16 * k)) & 0xFFFF
        y = (b >> (16 * k)) & 0xFFFF
        if ty == E.T_S16X2:
            if x >= 0x8000:
                x -= 0x10000
            if y >= 0x8000:
                y -= 0x10000
        if op == E.OP_ADD:
            v = x + y
        elif op == E.OP_SUB:
            v = x - y
        elif op == E.OP_MIN:
            v = min(x, y)
        else:
            v = max(x, y)
        r |= (v & 0xFFFF) << (16 * k)
    return r


@compiled
def video_absdiff(op, a, b, c, a_signed, b_signed, add):
    """vabsdiff4 / vabsdiff2: |a_i - b_i| of the bytes (halves) of a and b, packed into a word, or
    (add) c plus their sum; mod 2^32."""
    n, width = (4, 8) if op == E.OP_VABSDIFF4 else (2, 16)
    m = (np.int64(1) << width) - 1
    packed = np.int64(0)
    total = np.int64(c)
    for i in range(n):
        x = (a >> (width * i)) & m
        y = (b >> (width * i)) & m
        if a_signed and x >> (width - 1):
            x -= m + 1
        if b_signed and y >> (width - 1):
            y -= m + 1
        d = x - y if x > y else y - x
        packed |= (d & m) << (width * i)
        total += d
    return (total if add else packed) & 0xFFFFFFFF


@compiled
def lop3(a, b, c, lut):
    """lop3.b32: bit i of d is bit (a_i << 2 | b_i << 1 | c_i) of the 8-bit truth table lut."""
    r = np.int64(0)
    for k in range(8):
        if (lut >> k) & 1:
            term = np.int64(0xFFFFFFFF)
            term &= a if k & 4 else ~a
            term &= b if k & 2 else ~b
            term &= c if k & 1 else ~c
            r |= term
    return r & 0xFFFFFFFF
