"""A deliberately simple per-thread scalar interpreter, used as the test oracle for the engine.

Every thread runs alone over the encoded Program with its own registers (Python lists of raw bit
patterns as Python ints) and follows branches by its own predicate: there are no warps, masks or
reconvergence stacks here.  Blocks run one after another; inside a block each thread runs until it
reaches a barrier or exits, then the next one, in thread order; when every thread of the block is
waiting at the barrier they all continue (one "phase" after another).  The warp-collective mma,
match.sync, redux.sync and bar.warp.sync stop a thread the same way until every lane they need (the
whole warp for mma, the membermask otherwise; for bar.warp.sync its non-exited lanes) waits at that
instruction; then the group executes together.  Device-function calls are plain per-thread
recursion: `call` pushes (return pc, a copy of the callee's registers and local storage) on the
thread's own call stack, whatever the callee, copies the arguments and jumps; `ret` with a
non-empty call stack copies the return values, restores the copy and returns at once (no waiting
for other threads), and exits the thread otherwise.

Integer semantics use Python ints with explicit masking; floats use numpy float32 / float64
scalars (correctly rounded IEEE arithmetic) and exact rationals for the directed rounding modes
and for fused multiply-add.  Nothing here comes from simt_sim.engine: the oracle is a second,
independent reading of the PTX semantics (tests/test_oracle_coverage.py checks the imports).

Conventions shared with the engine (where PTX leaves the result open): integer x/0 gives all ones
and x%0 gives x; approximate functions (sin, cos, ex2, lg2, rsqrt, tanh) are the float64 libm
value rounded to float32; rcp.approx / sqrt.approx are correctly rounded; div.approx.f32 is
a * rcp(b) as ptxas writes it (MUFU.RCP flushes; a subnormal divisor scales both by 2^24); float min/max return the number when one operand is NaN and order -0 below +0.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from simt_sim.isa import encoding as E
from simt_sim.errors import InputError, RuntimeFault
from simt_sim.isa import isa
from simt_sim.frontend.dims import Dim3
from simt_sim.machine.config import DEFAULTS
from simt_sim.run.session import layout_global, pack_params
from simt_sim.oracle import tensor_math

__all__ = ["OPCODE_HANDLERS", "ORACLE_UNSUPPORTED", "OracleResult", "float_min_max", "fma_rn", "run_oracle"]

M32 = 0xFFFF_FFFF
M64 = 0xFFFF_FFFF_FFFF_FFFF

_OPNAME = {op.opcode: op.name for op in isa().ops}

# type helpers (index = encoding type code)
_BITS = {E.T_U8: 8, E.T_U16: 16, E.T_U32: 32, E.T_U64: 64, E.T_S8: 8, E.T_S16: 16, E.T_S32: 32,
         E.T_S64: 64, E.T_B8: 8, E.T_B16: 16, E.T_B32: 32, E.T_B64: 64, E.T_F16: 16, E.T_F32: 32,
         E.T_F64: 64, E.T_PRED: 1, E.T_BF16: 16, E.T_F16X2: 32, E.T_BF16X2: 32, E.T_U16X2: 32, E.T_S16X2: 32}
_SIGNED = {E.T_S8, E.T_S16, E.T_S32, E.T_S64}
_HALF = {E.T_F16, E.T_BF16, E.T_F16X2, E.T_BF16X2}     # 16-bit floats, one or two per register
_PAIR = {E.T_F16X2, E.T_BF16X2}
_BF = {E.T_BF16, E.T_BF16X2}
_FLOAT = {E.T_F32, E.T_F64} | _HALF
_DIRECTED = {E.RND_RZ, E.RND_RM, E.RND_RP}
_INTEGRAL = {E.RND_RNI: E.RND_RN, E.RND_RZI: E.RND_RZ, E.RND_RMI: E.RND_RM, E.RND_RPI: E.RND_RP}

# Opcodes the per-thread oracle cannot run, with the reason (every other opcode has a handler in
# OPCODE_HANDLERS; tests/test_oracle_coverage.py checks that the two cover the ISA table).
ORACLE_UNSUPPORTED = {
    "activemask": "activemask is a warp-collective operation",
    "push_mask": "push_mask manipulates the warp's explicit mask stack",
    "pop_mask": "pop_mask manipulates the warp's explicit mask stack",
    "mask_nz": "mask_nz manipulates the warp's explicit mask stack",
    "br_push": "br_push manipulates the warp's explicit mask stack",
}


# ---------------------------------------------------------------------------------------------
# bit-pattern helpers
# ---------------------------------------------------------------------------------------------

def _mask(bits: int) -> int:
    return (1 << bits) - 1


def _to_int(raw: int, ty: int) -> int:
    """Raw bits -> integer value of type ty (sign- or zero-extended Python int)."""
    bits = _BITS[ty]
    v = raw & _mask(bits)
    if ty in _SIGNED and v >> (bits - 1):
        v -= 1 << bits
    return v


def _f32(bits: int) -> np.float32:
    return np.uint32(bits & M32).view(np.float32)


def _f64(bits: int) -> np.float64:
    return np.uint64(bits & M64).view(np.float64)


def _bits32(x) -> int:
    return int(np.float32(x).view(np.uint32))


def _bits64(x) -> int:
    return int(np.float64(x).view(np.uint64))


_F32_MIN_NORMAL = 2.0 ** -126


def _ftz32(x: np.float32, on: bool) -> np.float32:
    if on and x != 0 and abs(float(x)) < _F32_MIN_NORMAL:
        return np.float32(-0.0) if math.copysign(1.0, float(x)) < 0 else np.float32(0.0)
    return x


def _signbit(x) -> bool:
    return math.copysign(1.0, float(x)) < 0


# ---------------------------------------------------------------------------------------------
# exact rounding of rationals (directed rounding modes, int -> float conversions)
# ---------------------------------------------------------------------------------------------

# precision, minimum and maximum exponent of each format (key: width, or "f16" / "bf16")
_FORMATS = {32: (24, -126, 127), 64: (53, -1022, 1023), "f16": (11, -14, 15), "bf16": (8, -126, 127)}


def round_rational(x: Fraction, width, mode: int) -> float:
    """Round a rational to the binary32/binary64/f16/bf16 value chosen by mode (RN ties to even,
    RZ, RM, RP); returns it as a Python float (exact for every format)."""
    if x == 0:
        return 0.0
    p, emin, emax = _FORMATS[width]
    neg = x < 0
    n, d = abs(x.numerator), x.denominator
    e = n.bit_length() - d.bit_length()            # 2^e <= |x| < 2^(e+1) after the fix-up
    if (n < (d << e)) if e >= 0 else ((n << -e) < d):
        e -= 1
    q = max(e, emin) - (p - 1)                     # exponent of the last mantissa bit
    if q >= 0:
        den = d << q
        m, r = divmod(n, den)
    else:
        den = d
        m, r = divmod(n << -q, d)
    if mode in (E.RND_RN, E.RND_NONE, E.RND_RNI):
        if 2 * r > den or (2 * r == den and m & 1):
            m += 1
    elif mode in (E.RND_RM, E.RND_RMI):
        if r and neg:
            m += 1
    elif mode in (E.RND_RP, E.RND_RPI):
        if r and not neg:
            m += 1
    # RZ: truncate
    if m == 0:
        return -0.0 if neg else 0.0
    if m.bit_length() + q > emax + 1:               # overflow
        to_inf = mode in (E.RND_RN, E.RND_NONE) or (mode == E.RND_RP and not neg) or \
            (mode == E.RND_RM and neg)
        if to_inf:
            return -math.inf if neg else math.inf
        big = math.ldexp((1 << p) - 1, emax - p + 1)
        return -big if neg else big
    v = math.ldexp(m, q)
    return -v if neg else v


def _round_to(x: Fraction, ty: int, mode: int):
    if ty == E.T_F32:
        return np.float32(round_rational(x, 32, mode))
    return np.float64(round_rational(x, 64, mode))


def _next_toward(x, direction: float):
    return np.nextafter(x, type(x)(direction))


# ---------------------------------------------------------------------------------------------
# half precision (f16, bf16 and the packed x2 types), element by element
# ---------------------------------------------------------------------------------------------
# PTX: "Half-precision instructions return an unspecified NaN"; .relu and min/max.NaN name the
# canonical NaN, which is what every NaN result is here (0x7fff in both formats).

HALF_NAN = 0x7FFF


def half_value(bits: int, bf: bool) -> float:
    """Exact value of a 16-bit pattern (a bf16 is the high half of a float32); every NaN reads as
    the plain float NaN (PTX leaves the NaN of a half -> f32 conversion unspecified)."""
    x = float(_f32((bits & 0xFFFF) << 16)) if bf else float(np.uint16(bits & 0xFFFF).view(np.float16))
    return math.nan if math.isnan(x) else x


def half_bits(x: float, bf: bool) -> int:
    """Bits of a value the format represents exactly (infinities too); NaN -> the canonical NaN."""
    if math.isnan(x):
        return HALF_NAN
    if bf:
        return _bits32(np.float32(x)) >> 16          # exact: the low 16 float32 bits are zero
    return int(np.float16(x).view(np.uint16))        # exact: x is an f16 value


def half_round(x, bf: bool, mode: int) -> int:
    """A float64 or Fraction rounded to f16 / bf16 bits under mode."""
    if isinstance(x, float) and not math.isfinite(x):
        return half_bits(x, bf)
    if x == 0:
        return 0x8000 if isinstance(x, float) and _signbit(x) else 0
    return half_bits(round_rational(Fraction(x), "bf16" if bf else "f16", mode), bf)


def _half_subnormal(bits: int, bf: bool) -> bool:
    return (bits >> (7 if bf else 10)) & (0xFF if bf else 0x1F) == 0 and bits & 0x7FFF != 0


def _half_ftz(bits: int, bf: bool, on: bool) -> int:
    return bits & 0x8000 if on and _half_subnormal(bits, bf) else bits


def _half_finish(bits: int, flags: int, bf: bool) -> int:
    """.sat: clamp to [0, 1] (NaN and -0 to +0); .relu: negative to +0; .satfinite: infinity to
    the largest finite value; .ftz: subnormal results to signed zero."""
    v = half_value(bits, bf)
    if flags & E.FL_SAT:
        bits = 0 if math.isnan(v) or _signbit(v) else (half_bits(1.0, bf) if v > 1 else bits)
    elif flags & E.FL_RELU and not math.isnan(v) and _signbit(v):
        bits = 0
    if flags & E.FL_SATFINITE and math.isinf(half_value(bits, bf)):
        bits = (bits & 0x8000) | (0x7F7F if bf else 0x7BFF)
    return _half_ftz(bits, bf, bool(flags & E.FL_FTZ))


def _half_min_max(x: int, y: int, is_max: bool, nan_mode: bool, bf: bool) -> int:
    """The manual's pseudocode: NaN only when both are NaN (or .NaN and either is); -0 < +0."""
    a, b = half_value(x, bf), half_value(y, bf)
    if (math.isnan(a) and math.isnan(b)) or (nan_mode and (math.isnan(a) or math.isnan(b))):
        return HALF_NAN
    if math.isnan(a):
        return y
    if math.isnan(b):
        return x
    return y if (_below(a, b) if is_max else _below(b, a)) else x


def half_elementwise(name: str, x: int, y: int, z: int, flags: int, bf: bool) -> int:
    """One 16-bit element of add sub mul fma neg abs min max: exact rational arithmetic, one
    rounding to nearest even (IEEE specials through float64, which agrees on them)."""
    ftz = bool(flags & E.FL_FTZ)
    x, y, z = (_half_ftz(v, bf, ftz) for v in (x, y, z))
    if name in ("neg", "abs") and math.isnan(half_value(x, bf)):
        return 0x7FFF                   # ptxas: HADD2 / HFMA2.BF16_V2 with -x or |x|: the canonical NaN
    if name == "neg":
        return x ^ 0x8000
    if name == "abs":
        return x & 0x7FFF
    if name in ("min", "max"):
        return _half_min_max(x, y, name == "max", bool(flags & E.FL_NAN), bf)
    a, b, c = half_value(x, bf), half_value(y, bf), half_value(z, bf)
    if name == "sub":
        b = -b
    if name in ("add", "sub"):
        special, exact = a + b, (Fraction(a) + Fraction(b) if math.isfinite(a + b) else None)
    elif name == "mul":
        special, exact = a * b, (Fraction(a) * Fraction(b) if math.isfinite(a * b) else None)
    else:
        special = fma_rn(a, b, c, E.T_F64)           # its sign of an exact zero, its specials
        exact = Fraction(a) * Fraction(b) + Fraction(c) if math.isfinite(special) else None
    r = float(special) if exact is None or exact == 0 else exact
    return _half_finish(half_round(r, bf, E.RND_RN), flags, bf)


def half_op(name: str, ty: int, a: int, b: int, c: int, flags: int) -> int:
    """A half-precision operation on register bits (both halves for the x2 types)."""
    bf = ty in _BF
    r = half_elementwise(name, a & 0xFFFF, b & 0xFFFF, c & 0xFFFF, flags, bf)
    if ty in _PAIR:
        r |= half_elementwise(name, a >> 16 & 0xFFFF, b >> 16 & 0xFFFF, c >> 16 & 0xFFFF, flags, bf) << 16
    return r


# ---------------------------------------------------------------------------------------------
# floating-point arithmetic
# ---------------------------------------------------------------------------------------------

def _below(a, b) -> bool:
    """a < b in the order of PTX min / max: the numeric order, with -0.0 below +0.0."""
    if a == 0 and b == 0:
        return _signbit(a) and not _signbit(b)
    return a < b


def float_min_max(a, b, is_max: bool):
    """PTX min / max of two floats: a NaN operand gives way to the other operand (NaN only when
    both are NaN; then b, whose bits the engine also keeps); otherwise the smaller / larger, with
    -0.0 below +0.0."""
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    if is_max:
        return b if _below(a, b) else a
    return b if _below(b, a) else a


# NaN results as the H100 gives them (programs/sass-diff/s-fp32 and s-fp64 recorded on it)
CANONICAL_NAN32 = 0x7FFFFFFF
F64_DEFAULT_NAN = 0xFFF8000000000000
F64_QUIET = 0x0008000000000000
ATOMIC_F64_NAN = 0xFFF8000000000000     # a global atom.add.f64 of +inf and -inf (H100)


def _nan_result(name: str, ty: int, srcs, b_first: bool = False):
    """The NaN a float32 / float64 arithmetic operation writes: float32, the canonical 0x7fffffff
    (FADD / FMUL / FFMA / MUFU, abs and neg included); float64, the first NaN operand quieted
    with its own sign, in the order ptxas's DADD / DMUL / DFMA take them (a, b; fma a, c, b;
    min / max of two NaNs: a), or 0xfff8000000000000 when no operand is a NaN."""
    if ty == E.T_F32:
        return _f32(CANONICAL_NAN32)
    if name in ("fma", "mad"):
        order = (1, 2, 0) if b_first else (0, 2, 1)
    elif name in ("add", "sub", "mul", "div"):
        order = (1, 0) if b_first else (0, 1)
    else:
        order = (0,)
    for k in order:
        if k < len(srcs) and math.isnan(srcs[k]):
            return _f64(_bits64(srcs[k]) | F64_QUIET)
    return _f64(F64_DEFAULT_NAN)


def _fma_special(a: float, b: float, c: float) -> float | None:
    """a * b + c when an operand is NaN or infinite (no rounding involved), else None."""
    for x in (a, b, c):
        if math.isnan(x):
            return x
    if math.isinf(a) or math.isinf(b):
        if a == 0 or b == 0:
            return math.nan                          # inf * 0
        product_negative = (a < 0) != (b < 0)
        if math.isinf(c) and (c < 0) != product_negative:
            return math.nan                          # inf - inf
        return -math.inf if product_negative else math.inf
    if math.isinf(c):
        return c
    return None


def fma_rn(a, b, c, ty: int):
    """a * b + c with a single rounding to nearest even at type ty (T_F32 or T_F64): the exact
    rational result rounded once (subnormals and overflow to infinity included)."""
    fa, fb, fc = float(a), float(b), float(c)
    r = _fma_special(fa, fb, fc)
    if r is None:
        exact = Fraction(fa) * Fraction(fb) + Fraction(fc)
        if exact != 0:
            r = round_rational(exact, 32 if ty == E.T_F32 else 64, E.RND_RN)
        elif (fa == 0 or fb == 0) and fc == 0 and (_signbit(fa) != _signbit(fb)) == _signbit(fc):
            r = fc                                   # (+-0) + (+-0) of one sign keeps that sign
        else:
            r = 0.0                                  # any other exact zero is +0 to nearest
    return np.float32(r) if ty == E.T_F32 else np.float64(r)


def _exact_zero_addition(rn_result, x_zero_pos: bool, y_zero_pos: bool, mode: int):
    """Sign of an exactly-zero sum under a directed mode, given the round-to-nearest result."""
    if mode in (E.RND_RM,) and not _signbit(rn_result) and not (x_zero_pos and y_zero_pos):
        return type(rn_result)(-0.0)
    return rn_result


def _is_pos_zero(x) -> bool:
    return x == 0 and not _signbit(x)


def _arith(name: str, a, b, fused):
    """a name b for add / sub / mul / div, else fused(): rounded on numpy scalars, exact on Fractions."""
    if name == "add":
        return a + b
    if name == "sub":
        return a - b
    if name == "mul":
        return a * b
    if name == "div":
        return a / b
    return fused()


def _float_binary(name: str, ty: int, a, b, c, rnd: int):
    """add sub mul div fma/mad at type f32/f64 with rounding mode rnd (values are numpy scalars
    of the right width)."""
    fused = name in ("fma", "mad")
    rn = _arith(name, a, b, lambda: fma_rn(a, b, c, ty))
    if rnd not in _DIRECTED:
        return rn
    ops = (a, b, c) if fused else (a, b)
    if not all(math.isfinite(float(v)) for v in ops):
        return rn                       # infinities and NaNs: the same in every rounding mode
    fa, fb = Fraction(float(a)), Fraction(float(b))
    if name == "div" and fb == 0:
        return rn
    exact = _arith(name, fa, fb, lambda: fa * fb + Fraction(float(c)))
    if exact == 0:
        if name == "add":
            return _exact_zero_addition(rn, _is_pos_zero(a), _is_pos_zero(b), rnd)
        if name == "sub":
            return _exact_zero_addition(rn, _is_pos_zero(a), b == 0 and _signbit(b), rnd)
        if name in ("fma", "mad"):
            prod_pos_zero = (a == 0 or b == 0) and (_signbit(a) == _signbit(b))
            return _exact_zero_addition(rn, prod_pos_zero, _is_pos_zero(c), rnd)
        return rn
    return _round_to(exact, ty, rnd)


def _float_sqrt(x, rnd: int):
    r = np.sqrt(x)
    if rnd not in _DIRECTED or not math.isfinite(float(r)) or r == 0:
        return r
    fx, fr = Fraction(float(x)), Fraction(float(r))
    if fr * fr == fx:
        return r
    if fr * fr > fx and rnd in (E.RND_RZ, E.RND_RM):
        return _next_toward(r, -math.inf)
    if fr * fr < fx and rnd == E.RND_RP:
        return _next_toward(r, math.inf)
    return r


def _float_rcp(x, rnd: int):
    one = type(x)(1.0)
    if rnd in _DIRECTED and math.isfinite(float(x)) and x != 0:
        return _round_to(1 / Fraction(float(x)), E.T_F32 if isinstance(x, np.float32) else E.T_F64, rnd)
    return one / x


def _div_approx32(a, b, ftz: bool) -> np.float32:
    """div.approx.f32 as ptxas writes it: a * MUFU.RCP(b), MUFU flushing subnormal operands and
    results; without .ftz a divisor below 2^-126 first scales both operands by 2^24."""
    tiny = 2.0 ** -126
    a, b = float(a), float(b)
    if not ftz and abs(b) < tiny:
        a, b = float(np.float32(a * 2.0 ** 24)), float(np.float32(b * 2.0 ** 24))
    if abs(b) < tiny:
        b = math.copysign(0.0, b)
    inv = math.copysign(math.inf, b) if b == 0.0 else float(np.float32(1.0 / b))
    if abs(inv) < tiny:
        inv = math.copysign(0.0, inv)
    with np.errstate(all="ignore"):
        r = np.float32(a * inv)
    if ftz and abs(float(r)) < tiny:
        r = np.float32(math.copysign(0.0, float(r)))
    return r


def _sfu_approx32(name: str, x: np.float32) -> np.float32:
    """Approximate f32 functions: the float64 libm value rounded once to float32."""
    v = float(x)
    if name == "sin" or name == "cos":
        if not math.isfinite(v):
            return np.float32(math.nan)
        return np.float32(math.sin(v) if name == "sin" else math.cos(v))
    if name == "ex2":
        if math.isnan(v):
            return np.float32(v)
        if v >= 1024.0:
            return np.float32(math.inf)
        if v < -2000.0:
            return np.float32(0.0)
        return np.float32(2.0 ** v)
    if name == "lg2":
        if math.isnan(v) or v < 0:
            return np.float32(math.nan)
        if v == 0:
            return np.float32(-math.inf)
        if math.isinf(v):
            return np.float32(math.inf)
        return np.float32(math.log2(v))
    if name == "rsqrt":
        if v == 0:
            return np.float32(math.copysign(math.inf, v))
        if math.isnan(v) or v < 0:
            return np.float32(math.nan)
        if math.isinf(v):
            return np.float32(0.0)
        return np.float32(1.0 / math.sqrt(v))
    if name == "tanh":
        return np.float32(math.tanh(v))
    raise AssertionError(name)


def _float_compare(cmp: int, a, b) -> bool:
    name = E.CMP_NAMES[cmp]
    unordered = math.isnan(a) or math.isnan(b)
    if name == "num":
        return not unordered
    if name == "nan":
        return unordered
    if name.endswith("u") and name not in ("eq", "ne"):
        if unordered:
            return True
        name = name[:-1]
    elif unordered:
        return False
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[name]


def _int_compare(cmp: int, a: int, b: int, ty: int) -> bool:
    name = E.CMP_NAMES[cmp]
    bits = _BITS[ty]
    if name in ("lo", "ls", "hi", "hs"):
        a &= _mask(bits)
        b &= _mask(bits)
        name = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}[name]
    table = {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}
    if name not in table:
        raise NotImplementedError(f"comparison .{name} is only defined for floating-point types")
    return table[name]


def _round_integral(x: float, mode: int) -> float:
    """Round a float to an integral value (keeps the sign of zero, passes inf/NaN through)."""
    if not math.isfinite(x):
        return x
    if mode in (E.RND_RN, E.RND_RNI, E.RND_NONE):
        r = round(x)                     # Python rounds halves to even
    elif mode in (E.RND_RM, E.RND_RMI):
        r = math.floor(x)
    elif mode in (E.RND_RP, E.RND_RPI):
        r = math.ceil(x)
    else:
        r = math.trunc(x)
    return math.copysign(float(r), x)


# ---------------------------------------------------------------------------------------------
# the program, decoded once
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Op:
    kind: int
    idx: int
    imm: int
    ty: int


@dataclass(frozen=True)
class _Ins:
    pc: int
    name: str
    ty: int
    ty2: int
    cmp: int
    boolop: int
    flags: int
    rnd: int
    space: int
    vec: int
    guard: int
    guard_neg: bool
    target: int
    dst2: int
    ops: tuple


def _decode(program) -> list[_Ins]:
    out = []
    for pc, row in enumerate(program.code):
        row = [int(v) for v in row]
        nops = row[E.F_NOPS]
        ops = []
        for k in range(nops):
            b = E.F_OPS + k * E.OPERAND_FIELDS
            ops.append(_Op(row[b], row[b + 1], row[b + 2], row[b + 3]))
        out.append(_Ins(pc, _OPNAME[row[E.F_OP]], row[E.F_TYPE], row[E.F_TYPE2], row[E.F_CMP],
                        row[E.F_BOOL], row[E.F_FLAGS], row[E.F_RND], row[E.F_SPACE], row[E.F_VEC],
                        row[E.F_GUARD], bool(row[E.F_GUARD_NEG]), row[E.F_TARGET], row[E.F_DST2],
                        tuple(ops)))
    return out


# ---------------------------------------------------------------------------------------------
# threads and the interpreter
# ---------------------------------------------------------------------------------------------

RUNNING, AT_BARRIER, EXITED, AT_COLLECTIVE = 0, 1, 2, 3
# warp-collective ops the oracle runs (see _resolve_collectives); the tensor-core ones need all 32 lanes
_TENSOR = ("mma", "wmma.load.a", "wmma.load.b", "wmma.load.c", "wmma.store.d", "wmma.mma", "ldmatrix")
_COLLECTIVE = _TENSOR + ("match", "redux", "bar.warp", "vote", "shfl")


def _frag_rc(rows: int, lane: int, e: int) -> tuple[int, int]:
    """(row, column) of element e of lane `lane` in a fragment of a matrix with `rows` rows: 8 x 8
    blocks in column-major block order, lane l at row l>>2, columns 2(l%4) + {0, 1} of each."""
    block = e >> 1
    return 8 * (block % (rows // 8)) + (lane >> 2), 8 * (block // (rows // 8)) + 2 * (lane & 3) + (e & 1)


class _Thread:
    __slots__ = ("tib", "slot", "r32", "r64", "p", "pc", "state", "steps", "icount", "local", "named", "frames")

    def __init__(self, tib: int, slot: int, program, local_bytes: int):
        self.tib = tib
        self.slot = slot
        self.r32 = [0] * max(program.n_r32, 1)
        self.r64 = [0] * max(program.n_r64, 1)
        self.p = [0] * max(program.n_pred, 1)
        self.pc = 0
        self.state = RUNNING
        self.steps = 0
        self.icount = 0
        self.local = bytearray(local_bytes)
        self.named = None         # (barrier, thread count) while it waits at a named barrier
        self.frames: list = []          # the call stack: (return pc, call-table row, saved window)


@dataclass
class OracleResult:
    buffers: dict[str, np.ndarray]
    thread_icount: np.ndarray      # guard-true instructions per global thread slot
    instructions: int              # total of thread_icount


class _Interpreter:
    def __init__(self, program, grid: Dim3, block: Dim3, args, buffers, warp_size: int,
                 max_steps: int, dynamic_shared: int, call_depth: int = DEFAULTS["simt"]["call_depth"]):
        self.program = program
        self.call_depth = call_depth
        self.calls = [[int(v) for v in row] for row in program.calls]
        self.grid = grid
        self.block = block
        self.ws = warp_size
        self.wpb = -(-block.count // warp_size)
        self.max_steps = max_steps
        self.code = _decode(program)
        self.cu64 = [int(v) for v in program.const_u64]
        self.cf32 = [np.float32(v) for v in program.const_f32]
        self.cf64 = [np.float64(v) for v in program.const_f64]
        self.vecs = [[int(v) for v in row] for row in program.vec_regs]
        self.buffers = buffers
        gmem, allocs, self.buffer_addr = layout_global(program, buffers)
        self.gmem = bytearray(gmem.tobytes())
        self.regions = [(int(b), int(e), int(o)) for b, e, o in allocs]
        if not (program.global_size or buffers):
            self.regions = []               # layout_global's placeholder entry maps nothing
        self.pmem = bytearray(pack_params(program, list(args), self.buffer_addr).tobytes())
        self.shared_bytes = program.shared_size + dynamic_shared
        self.local_bytes = program.local_size
        self.smem = bytearray(self.shared_bytes)
        self.block_index = 0
        self.thread_icount = np.zeros(grid.count * self.wpb * warp_size, dtype=np.int64)

    # ---- faults ----
    def fault(self, th: _Thread, ins: _Ins | None, message: str) -> RuntimeFault:
        where = f"kernel {self.program.name}, block {self._xyz(self.block_index, self.grid)}, " \
                f"thread {self._xyz(th.tib, self.block)}"
        if ins is not None:
            where += f", pc {ins.pc} `{self.program.texts[ins.pc]}`"
        return RuntimeFault(f"oracle: runtime error: {message}; {where}")

    @staticmethod
    def _xyz(i: int, d: Dim3) -> str:
        return f"({i % d.x},{(i // d.x) % d.y},{i // (d.x * d.y)})"

    # ---- special registers ----
    def sreg(self, code: int, th: _Thread) -> int:
        base, comp = divmod(code, 4)
        name = E.SREG_NAMES[base]
        b, g = self.block, self.grid
        if name == "%tid":
            t = th.tib
            return (t % b.x, (t // b.x) % b.y, t // (b.x * b.y))[comp]
        if name == "%ntid":
            return (b.x, b.y, b.z)[comp]
        if name == "%ctaid":
            k = self.block_index
            return (k % g.x, (k // g.x) % g.y, k // (g.x * g.y))[comp]
        if name == "%nctaid":
            return (g.x, g.y, g.z)[comp]
        lane = th.tib % self.ws
        if name == "%laneid":
            return lane
        if name == "%warpid":
            return th.tib // self.ws
        if name == "%nwarpid":
            return self.wpb
        if name in ("%smid", "%gridid"):
            return 0
        if name == "%nsmid":
            return 1
        if name == "%lanemask_eq":
            return (1 << lane) & M32
        if name == "%lanemask_lt":
            return ((1 << lane) - 1) & M32
        if name == "%lanemask_le":
            return ((1 << (lane + 1)) - 1) & M32
        if name == "%lanemask_gt":
            return ~((1 << (lane + 1)) - 1) & M32
        if name == "%lanemask_ge":
            return ~((1 << lane) - 1) & M32
        raise NotImplementedError(f"oracle: special register {name} depends on timing and is not "
                                  "supported by the oracle")

    # ---- registers ----
    def raw(self, th: _Thread, o: _Op) -> int:
        k = o.kind
        if k == E.K_R32:
            return th.r32[o.idx]
        if k == E.K_R64:
            return th.r64[o.idx]
        if k == E.K_PRED:
            return th.p[o.idx] ^ (1 if o.imm else 0)
        if k == E.K_IMM:
            return self.cu64[o.idx]
        if k == E.K_SREG:
            return self.sreg(o.idx, th)
        raise AssertionError(f"operand kind {k} has no value")

    def ival(self, th: _Thread, o: _Op, ty: int | None = None) -> int:
        """Integer value of a source operand at its operand type (or ty)."""
        t = o.ty if ty is None else ty
        v = self.raw(th, o)
        if t < 0 or t == E.T_PRED:
            return v
        return _to_int(v, t)

    def fval(self, th: _Thread, o: _Op, ty: int):
        if o.kind == E.K_IMM:
            return self.cf32[o.idx] if ty == E.T_F32 else self.cf64[o.idx]
        bits = self.raw(th, o)
        if ty == E.T_F32:
            return _f32(bits)
        if ty == E.T_F64:
            return _f64(bits)
        return np.float64(half_value(bits, ty in _BF))      # a half source: its low 16 bits

    def write(self, th: _Thread, o: _Op, bits: int) -> None:
        if o.kind == E.K_R32:
            th.r32[o.idx] = bits & M32
        elif o.kind == E.K_R64:
            th.r64[o.idx] = bits & M64
        elif o.kind == E.K_PRED:
            th.p[o.idx] = bits & 1
        else:
            raise AssertionError(f"cannot write operand kind {o.kind}")

    def write_typed(self, th: _Thread, o: _Op, value: int, ty: int) -> None:
        """Write an integer result truncated to the width of ty."""
        self.write(th, o, value & _mask(_BITS[ty]) if ty >= 0 else value)

    def write_float(self, th: _Thread, o: _Op, x, ty: int) -> None:
        if ty == E.T_F32:
            self.write(th, o, _bits32(x))
        else:
            self.write(th, o, _bits64(x))

    def vec_entry_read(self, th: _Thread, entry: int) -> int:
        if entry < 0:
            return 0
        if entry & E.VEC_IMM:
            return self.cu64[entry & (E.VEC_IMM - 1)]
        if entry & E.VEC_R64:
            return th.r64[entry & (E.VEC_R64 - 1)]
        return th.r32[entry]

    def vec_entry_write(self, th: _Thread, entry: int, bits: int) -> None:
        if entry < 0:
            return
        if entry & E.VEC_R64:
            th.r64[entry & (E.VEC_R64 - 1)] = bits & M64
        else:
            th.r32[entry] = bits & M32

    # ---- memory ----
    def locate(self, th: _Thread, ins: _Ins, space: int, addr: int, width: int):
        """-> (bytearray, offset) of an access, faulting when out of bounds."""
        if space == E.SP_GENERIC:
            if E.SHARED_WINDOW <= addr < E.SHARED_WINDOW + E.WINDOW_SIZE:
                space, addr = E.SP_SHARED, addr - E.SHARED_WINDOW
            elif E.LOCAL_WINDOW <= addr < E.LOCAL_WINDOW + E.WINDOW_SIZE:
                space, addr = E.SP_LOCAL, addr - E.LOCAL_WINDOW
            else:
                space = E.SP_GLOBAL
        if space in (E.SP_GLOBAL, E.SP_CONST):
            for base, end, off in self.regions:
                if base <= addr and addr + width <= end:
                    return self.gmem, off + addr - base
        elif space == E.SP_SHARED:
            if 0 <= addr and addr + width <= self.shared_bytes:
                return self.smem, addr
        elif space == E.SP_LOCAL:
            if 0 <= addr and addr + width <= self.local_bytes:
                return th.local, addr
        elif space == E.SP_PARAM:
            if 0 <= addr and addr + width <= len(self.pmem):
                return self.pmem, addr
        raise self.fault(th, ins, f"out-of-bounds access of {width} bytes at address {addr:#x} "
                                  f"(.{E.SPACE_NAMES[space]})")

    def address(self, th: _Thread, o: _Op) -> int:
        addr = o.imm
        if o.idx >= 0:
            file = o.idx >> E.ADDR_FILE_SHIFT
            r = o.idx & ((1 << E.ADDR_FILE_SHIFT) - 1)
            addr += th.r64[r] if file == E.ADDR_R64 else th.r32[r]
        return addr

    # ---- the interpreter loop ----
    def run(self) -> OracleResult:
        b = self.block
        tpb = b.count
        for blk in range(self.grid.count):
            self.block_index = blk
            self.smem = bytearray(self.shared_bytes)
            first_slot = blk * self.wpb * self.ws
            threads = [_Thread(t, first_slot + t, self.program, self.local_bytes) for t in range(tpb)]
            self.arrived = [0] * 16        # threads counted at each named barrier by bar.arrive
            while True:
                for th in threads:
                    if th.state == RUNNING:
                        self.run_thread(th)
                if self._resolve_collectives(threads) or self._release_named(threads):
                    continue
                waiting = [th for th in threads if th.state == AT_BARRIER and th.named is None]
                if any(th.state == AT_BARRIER and th.named is not None for th in threads):
                    th = next(th for th in threads if th.named is not None)
                    raise self.fault(th, self.code[th.pc - 1],
                                     f"barrier deadlock: named barrier {th.named[0]} waits for "
                                     f"{th.named[1]} threads, which never arrive")
                if not waiting:
                    break
                exited = [th for th in threads if th.state == EXITED]
                if exited:
                    th = waiting[0]
                    raise self.fault(th, self.code[th.pc - 1],
                                     f"barrier deadlock: {len(waiting)} thread(s) wait at a barrier "
                                     f"that {len(exited)} exited thread(s) can never reach")
                self._barrier_reduce(waiting)
                for th in waiting:
                    th.state = RUNNING
            for th in threads:
                self.thread_icount[th.slot] = th.icount
        out = {}
        for name, arr in self.buffers.items():
            a = np.ascontiguousarray(arr)
            base = self.buffer_addr[name]
            off = next(o for bb, _, o in self.regions if bb == base)
            raw = np.frombuffer(bytes(self.gmem[off:off + a.nbytes]), dtype=np.uint8)
            out[name] = raw.view(a.dtype).reshape(a.shape).copy()
        return OracleResult(out, self.thread_icount, int(self.thread_icount.sum()))

    def run_thread(self, th: _Thread) -> None:
        code = self.code
        n = len(code)
        while th.state == RUNNING:
            if not 0 <= th.pc < n:
                raise self.fault(th, None, f"pc {th.pc} outside the program")
            ins = code[th.pc]
            th.steps += 1
            if th.steps > self.max_steps:
                raise self.fault(th, ins, f"instruction limit of {self.max_steps} steps per thread "
                                          "reached")
            if ins.guard >= 0 and (th.p[ins.guard] != 0) == ins.guard_neg:
                th.pc += 1
                continue
            th.icount += 1
            handler = OPCODE_HANDLERS.get(ins.name)
            if handler is None:
                if ins.name in ORACLE_UNSUPPORTED:
                    raise NotImplementedError(f"oracle: {ins.name} is not supported by the per-thread "
                                              f"oracle ({ORACLE_UNSUPPORTED[ins.name]})")
                raise NotImplementedError(f"oracle: opcode {ins.name} is not supported")
            th.pc += 1                  # handlers for control flow overwrite it
            handler(self, th, ins)

    # ---- control flow ----
    def op_bra(self, th, ins):
        th.pc = ins.target

    def op_exit(self, th, ins):
        th.state = EXITED

    def _window(self, th, call: int) -> tuple:
        """Copies of the callee's registers and local storage (its call-table descriptor)."""
        d = self.calls[call]
        lo = d[E.CA_LOCAL]
        return (th.r32[d[E.CA_R32]:d[E.CA_R32] + d[E.CA_N_R32]], th.r64[d[E.CA_R64]:d[E.CA_R64] + d[E.CA_N_R64]],
                th.p[d[E.CA_PRED]:d[E.CA_PRED] + d[E.CA_N_PRED]], bytes(th.local[lo:lo + d[E.CA_N_LOCAL]]))

    def _restore(self, th, call: int, saved: tuple) -> None:
        d = self.calls[call]
        r32, r64, p, local = saved
        th.r32[d[E.CA_R32]:d[E.CA_R32] + len(r32)] = r32
        th.r64[d[E.CA_R64]:d[E.CA_R64] + len(r64)] = r64
        th.p[d[E.CA_PRED]:d[E.CA_PRED] + len(p)] = p
        th.local[d[E.CA_LOCAL]:d[E.CA_LOCAL] + len(local)] = local

    def _copy_params(self, th, call: int, first: int, count: int) -> None:
        for row in self.calls[call + 1 + first:call + 1 + first + count]:
            src, dst, n = row[E.CP_SRC], row[E.CP_DST], row[E.CP_BYTES]
            th.local[dst:dst + n] = th.local[src:src + n]

    def op_call(self, th, ins):
        call = ins.ops[0].idx
        if len(th.frames) >= self.call_depth:
            raise self.fault(th, ins, f"call stack overflow: a call nested deeper than simt.call_depth = "
                                      f"{self.call_depth}")
        th.frames.append((th.pc, call, self._window(th, call)))
        self._copy_params(th, call, 0, self.calls[call][E.CA_N_ARGS])
        th.pc = ins.target

    def op_ret(self, th, ins):
        if not th.frames:
            th.state = EXITED
            return
        th.pc, call, saved = th.frames.pop()
        d = self.calls[call]
        self._copy_params(th, call, d[E.CA_N_ARGS], d[E.CA_N_RETS])
        self._restore(th, call, saved)

    def op_trap(self, th, ins):
        raise self.fault(th, ins, "trap executed")

    def op_bar(self, th, ins):
        red = ins.cmp != E.BARRED_NONE
        counted = len(ins.ops) > (3 if red else 1)
        count = self.ival(th, ins.ops[2 if red else 1]) if counted else -1
        block = self.wpb * self.ws
        if ins.flags & E.FL_ARRIVE or (counted and not red):    # a barrier with a thread count
            if count <= 0 or count % self.ws or count > block:
                raise self.fault(th, ins, f"barrier thread count {count} must be a positive multiple of "
                                          f"the warp size ({self.ws}) and at most the block's {block} "
                                          "threads in whole warps")
            bar = (self.ival(th, ins.ops[1 if red else 0]) & 15) if len(ins.ops) > (1 if red else 0) else 0
            if ins.flags & E.FL_ARRIVE:
                self.arrived[bar] += 1
                return
            th.named = (bar, count)
        th.state = AT_BARRIER

    def _release_named(self, threads) -> bool:
        """Named barriers with their thread count complete (bar.arrive threads count too)."""
        ran = False
        for bar in range(16):
            waiting = [th for th in threads if th.state == AT_BARRIER and th.named and th.named[0] == bar]
            if waiting and len(waiting) + self.arrived[bar] >= waiting[0].named[1]:
                for th in waiting:
                    th.state, th.named = RUNNING, None
                self.arrived[bar] = 0
                ran = True
        return ran

    def _barrier_reduce(self, waiting) -> None:
        """bar.red (a bar row whose cmp is BARRED_POPC / _AND / _OR): every thread that waits at one
        gets the count / all / any of their predicates (the last operand)."""
        red = [(th, self.code[th.pc - 1]) for th in waiting
               if self.code[th.pc - 1].cmp != E.BARRED_NONE]
        if not red:
            return
        votes = [self.raw(th, ins.ops[-1]) & 1 for th, ins in red]
        mode = red[0][1].cmp
        r = sum(votes) if mode == E.BARRED_POPC else int(all(votes) if mode == E.BARRED_AND else any(votes))
        for th, ins in red:
            self.write(th, ins.ops[0], r)

    # ---- warp-collective operations ----
    def wait_collective(self, th, ins):
        th.state = AT_COLLECTIVE

    def _resolve_collectives(self, threads) -> bool:
        """Threads stopped at mma / match / redux wait for the other lanes of their warp: mma for all
        32, match and redux for the lanes of each one's membermask.  When every lane a group needs
        waits at the same pc, the group executes together.  Returns whether any group ran; raises
        when threads wait but no group can complete."""
        waiting = [th for th in threads if th.state == AT_COLLECTIVE]
        if not waiting:
            return False
        by_lane = {(th.tib // self.ws, th.tib % self.ws): th for th in waiting}
        done: set[int] = set()
        ran = False
        for th in waiting:
            if th.tib in done:
                continue
            warp = th.tib // self.ws
            ins = self.code[th.pc - 1]
            group = [g for (w, _), g in by_lane.items() if w == warp and g.pc == th.pc]
            lanes = {g.tib % self.ws for g in group}
            if ins.name in _TENSOR:
                need = set(range(32)) if self.ws == 32 else None
            elif ins.name == "bar.warp":
                # __syncwarp: every non-exited thread of the membermask, at any bar.warp.sync
                group = [g for (w, _), g in by_lane.items() if w == warp and self.code[g.pc - 1].name == ins.name]
                lanes = {g.tib % self.ws for g in group}
                alive = {t.tib % self.ws for t in threads if t.tib // self.ws == warp and t.state != EXITED}
                need = set()
                for g in group:
                    mm = self.raw(g, self.code[g.pc - 1].ops[0]) & M32
                    need |= {j for j in alive if mm >> j & 1}
            else:
                need = set()
                for g in group:
                    mm = self.raw(g, self.membermask_operand(g, ins)) & M32
                    need |= {j for j in range(min(self.ws, 32)) if mm >> j & 1}
            if need is None or not need <= lanes:
                continue
            members = [g for g in group if g.tib % self.ws in need]
            getattr(self, "_collective_" + ins.name.replace(".", "_"))(members, ins)
            for g in members:
                g.state = RUNNING
                done.add(g.tib)
            ran = True
        if not ran:
            th = waiting[0]
            ins = self.code[th.pc - 1]
            what = "all 32 lanes of the warp" if ins.name in _TENSOR else "every lane of its membermask"
            raise self.fault(th, ins, f"{ins.name} needs {what} to execute it together; "
                                      f"{len(waiting)} thread(s) wait and the group can never complete")
        return True

    def _collective_bar_warp(self, members, ins):
        """bar.warp.sync: the lanes only wait for each other (the engine runs a warp in lockstep)."""

    # ---- tensor cores: fragments as docs/tensor-cores.md lays them out ----
    def _frag_get(self, th, o, e: int, wide: bool) -> int:
        """Element e of fragment operand o: 32-bit (one per register) or 16-bit (two per register)."""
        j = e if wide else e >> 1
        bits = self.vec_entry_read(th, self.vecs[o.idx][j]) if o.kind == E.K_VEC else self.raw(th, o)
        return bits & M32 if wide else (bits >> (16 * (e & 1))) & 0xFFFF

    def _frag_set(self, th, o, e: int, wide: bool, v: int) -> None:
        j = e if wide else e >> 1
        entry = self.vecs[o.idx][j]
        if wide:
            self.vec_entry_write(th, entry, v)
        else:
            s = 16 * (e & 1)
            old = self.vec_entry_read(th, entry) & ~(0xFFFF << s)
            self.vec_entry_write(th, entry, old | ((v & 0xFFFF) << s))

    def _fragment(self, by_lane, o, rows: int, cols: int, wide: bool) -> np.ndarray:
        """The rows x cols matrix a fragment operand holds, gathered from the 32 lanes."""
        out = np.zeros((rows, cols), np.int64)
        for lane, th in by_lane.items():
            for e in range(rows * cols // 32):
                r, c = _frag_rc(rows, lane, e)
                out[r, c] = self._frag_get(th, o, e, wide)
        return out

    def _collective_wmma_mma(self, members, ins):
        self._tensor_mma(members, ins)

    def _tensor_mma(self, members, ins):
        """mma m16n8k16 / m16n8k8 and wmma.mma: D = A * B + C with tensor_math.mma_tile."""
        by_lane = {th.tib % self.ws: th for th in members}
        m, n, k = E.SHAPE_MNK[ins.cmp]
        inp = "bf16" if ins.ty2 == E.T_BF16 else "f16"
        acc = "f16" if ins.ty == E.T_F16 else "f32"
        a = self._fragment(by_lane, ins.ops[1], m, k, False)
        b = self._fragment(by_lane, ins.ops[2], n, k, False).T
        c = self._fragment(by_lane, ins.ops[3], m, n, acc == "f32")
        d = tensor_math.mma_tile(a, b, c, inp, acc).astype(np.int64)
        for lane, th in by_lane.items():
            for e in range(m * n // 32):
                self._frag_set(th, ins.ops[0], e, acc == "f32", int(d[_frag_rc(m, lane, e)]))

    def _wmma_memory(self, members, ins, store: bool):
        """wmma.load.a / .b / .c, wmma.store.d: element by element through `locate`."""
        m, n, k = E.SHAPE_MNK[ins.cmp]
        rows, cols, mcols, transposed = {"wmma.load.a": (m, k, k, False), "wmma.load.b": (n, k, n, True)}.get(
            ins.name, (m, n, n, False))
        mrows = rows * cols // mcols
        col_major = bool(ins.flags & E.FL_COL_A)
        wide = ins.ty == E.T_F32
        size = 4 if wide else 2
        addr_op, frag_op = (ins.ops[0], ins.ops[1]) if store else (ins.ops[1], ins.ops[0])
        for th in members:
            lane = th.tib % self.ws
            base = self.address(th, addr_op)
            stride = self.ival(th, ins.ops[2]) if len(ins.ops) > 2 else (mrows if col_major else mcols)
            for e in range(rows * cols // 32):
                r, c = _frag_rc(rows, lane, e)
                if transposed:
                    r, c = c, r
                addr = base + ((c * stride + r) if col_major else (r * stride + c)) * size
                if addr % size:
                    raise self.fault(th, ins, f"misaligned access of {size} bytes at address {addr:#x}")
                buf, off = self.locate(th, ins, ins.space, addr, size)
                if store:
                    buf[off:off + size] = self._frag_get(th, frag_op, e, wide).to_bytes(size, "little")
                else:
                    self._frag_set(th, frag_op, e, wide, int.from_bytes(buf[off:off + size], "little"))
            natural = rows * cols // 64
            if not store and ins.ty == E.T_F16 and ins.name != "wmma.load.c" and natural < 8:
                regs = self.vecs[frag_op.idx]        # f16 A / B fragments: 8 registers, repeated
                for j in range(natural, 8):
                    self.vec_entry_write(th, regs[j], self.vec_entry_read(th, regs[j % natural]))

    def _collective_wmma_load_a(self, members, ins):
        self._wmma_memory(members, ins, False)

    _collective_wmma_load_b = _collective_wmma_load_a
    _collective_wmma_load_c = _collective_wmma_load_a

    def _collective_wmma_store_d(self, members, ins):
        self._wmma_memory(members, ins, True)

    def _collective_ldmatrix(self, members, ins):
        """ldmatrix m8n8 .x1/.x2/.x4 (.trans): lane 8i + r addresses row r of matrix i."""
        by_lane = {th.tib % self.ws: th for th in members}
        count = ins.vec
        rows = {}
        for lane in range(8 * count):
            rows[lane] = self.address(by_lane[lane], ins.ops[1])
            if rows[lane] % 16:
                raise self.fault(by_lane[lane], ins, f"misaligned access of 16 bytes at address {rows[lane]:#x}")
        out = {}
        for lane, th in by_lane.items():
            for i in range(count):
                v = 0
                for h in range(2):
                    r, c = lane >> 2, 2 * (lane & 3) + h
                    if ins.flags & E.FL_TRANS:
                        r, c = c, r
                    buf, off = self.locate(by_lane[8 * i + r], ins, ins.space, rows[8 * i + r] + 2 * c, 2)
                    v |= int.from_bytes(buf[off:off + 2], "little") << (16 * h)
                out[lane, i] = v
        for (lane, i), v in out.items():
            o = ins.ops[0]
            if o.kind == E.K_VEC:
                self.vec_entry_write(by_lane[lane], self.vecs[o.idx][i], v)
            else:
                self.write(by_lane[lane], o, v)

    def _collective_mma(self, members, ins):
        if ins.cmp != E.SHAPE_M8N8K4:
            self._tensor_mma(members, ins)
            return
        self._dmma(members, ins)

    def _dmma(self, members, ins):
        """DMMA m8n8k4 .f64: lane l holds A[l>>2][l%4], B[l%4][l>>2], C/D[l>>2][2*(l%4)+{0,1}];
        each element is fma(a3, b3, fma(a2, b2, fma(a1, b1, fma(a0, b0, c))))."""
        by_lane = {th.tib % self.ws: th for th in members}

        def frag(th, k, j):
            return _f64(self.vec_entry_read(th, self.vecs[ins.ops[k].idx][j]))

        def dfma(x, y, acc):
            # a NaN operand is passed on quieted, the first in the order y, acc, x (DMMA, s-tensor)
            for v in (y, acc, x):
                if math.isnan(v):
                    return _f64(_bits64(v) | F64_QUIET)
            r = fma_rn(float(x), float(y), float(acc), E.T_F64)
            return _f64(F64_DEFAULT_NAN) if math.isnan(r) else r

        a = [frag(by_lane[lane], 1, 0) for lane in range(32)]
        b = [frag(by_lane[lane], 2, 0) for lane in range(32)]
        out = {}
        for lane in range(32):
            i = lane >> 2
            vals = []
            for q in range(2):
                j = 2 * (lane & 3) + q
                acc = frag(by_lane[lane], 3, q)
                for k in range(4):
                    acc = dfma(a[4 * i + k], b[4 * j + k], acc)
                vals.append(acc)
            out[lane] = vals
        for lane, vals in out.items():
            for q in range(2):
                self.vec_entry_write(by_lane[lane], self.vecs[ins.ops[0].idx][q], _bits64(vals[q]))

    def _collective_match(self, members, ins):
        vals = {th.tib % self.ws: self.raw(th, ins.ops[1]) & _mask(_BITS[ins.ty]) for th in members}
        results = []
        for th in members:
            mm = self.raw(th, ins.ops[2]) & M32
            part = [j for j in vals if mm >> j & 1]
            same = sum(1 << j for j in part if vals[j] == vals[th.tib % self.ws])
            full = sum(1 << j for j in part)
            if ins.cmp == E.MATCH_ANY:
                results.append((th, same, True))
            else:
                agree = same == full
                results.append((th, full if agree else 0, agree))
        for th, r, agree in results:
            self.write(th, ins.ops[0], r)
            if ins.dst2 >= 0:
                th.p[ins.dst2] = int(agree)

    def membermask_operand(self, th, ins):
        """The membermask of match / redux / vote.sync (operand 2) and shfl.sync (operand 4)."""
        k = 4 if ins.name == "shfl" else 2
        if len(ins.ops) <= k:
            raise self.fault(th, ins, f"the oracle runs {ins.name} only in its .sync form, with a "
                                      "membermask (a warp's active lanes are not defined one thread at a time)")
        return ins.ops[k]

    def _collective_vote(self, members, ins):
        """vote.sync over the lanes that execute it together (the engine's active mask)."""
        active = sum(1 << (th.tib % self.ws) for th in members)
        ballot = sum(1 << (th.tib % self.ws) for th in members if self.raw(th, ins.ops[1]) != 0)
        r = {E.VOTE_ANY: int(ballot != 0), E.VOTE_ALL: int(ballot == active),
             E.VOTE_UNI: int(ballot in (0, active))}.get(ins.cmp, ballot)
        for th in members:
            self.write(th, ins.ops[0], r)

    def _collective_shfl(self, members, ins):
        """shfl.sync: each lane reads lane j's a (idx / up / down / bfly within the segment and
        clamp of c); j outside the bounds or not taking part gives the lane's own value, and the
        predicate destination says whether j was valid."""
        by_lane = {th.tib % self.ws: th for th in members}
        vals = {lane: self.ival(th, ins.ops[1]) for lane, th in by_lane.items()}
        results = []
        for lane, th in by_lane.items():
            b = self.ival(th, ins.ops[2]) & 0x1F
            c = self.ival(th, ins.ops[3])
            clamp, seg = c & 0x1F, (c >> 8) & 0x1F
            max_lane, min_lane = (lane & seg) | (clamp & ~seg), lane & seg
            if ins.cmp == E.SHFL_IDX:
                j = min_lane | (b & ~seg)
                valid = j <= max_lane
            elif ins.cmp == E.SHFL_UP:
                j = lane - b
                valid = j >= min_lane
            elif ins.cmp == E.SHFL_DOWN:
                j = lane + b
                valid = j <= max_lane
            else:
                j = lane ^ b
                valid = j <= max_lane
            if not valid or not 0 <= j < self.ws:
                j = lane
            elif j not in vals:              # an inactive lane: undefined in PTX; the own value
                valid, j = False, lane
            results.append((th, vals[j], valid))
        for th, v, valid in results:
            self.write(th, ins.ops[0], v)
            if ins.dst2 >= 0:
                th.p[ins.dst2] = int(valid)

    def _collective_redux(self, members, ins):
        vals = {th.tib % self.ws: self.ival(th, ins.ops[1]) for th in members}
        op = E.REDUX_NAMES[ins.cmp]
        results = []
        for th in members:
            mm = self.raw(th, ins.ops[2]) & M32
            part = [vals[j] for j in sorted(vals) if mm >> j & 1]
            if op == "add":
                r = sum(part)
            elif op == "min":
                r = min(part)
            elif op == "max":
                r = max(part)
            else:
                r = part[0]
                for v in part[1:]:
                    r = r & v if op == "and" else r | v if op == "or" else r ^ v
            results.append((th, r))
        for th, r in results:
            self.write_typed(th, ins.ops[0], r, ins.ty)

    # ---- cp.async (copied at issue) ----
    def op_cp_async(self, th, ins):
        size = self.ival(th, ins.ops[2])
        src_size = min(self.ival(th, ins.ops[3]), size) if len(ins.ops) > 3 else size
        dst, src = self.address(th, ins.ops[0]), self.address(th, ins.ops[1])
        if size <= 0 or dst % size or src % size:
            raise self.fault(th, ins, f"misaligned cp.async of {size} bytes ({dst:#x} <- {src:#x})")
        dbuf, doff = self.locate(th, ins, E.SP_SHARED, dst, size)
        data = bytes(size)
        if src_size > 0:
            sbuf, soff = self.locate(th, ins, E.SP_GLOBAL, src, src_size)
            data = bytes(sbuf[soff:soff + src_size]) + bytes(size - src_size)
        dbuf[doff:doff + size] = data

    def op_nothing(self, th, ins):
        """Ordering-only and timing-only instructions (membar, fence, nanosleep, cp.async groups)."""

    # ---- moves ----
    def op_mov(self, th, ins):
        d, s = ins.ops
        bits = _BITS[ins.ty]
        if s.kind == E.K_VEC:                       # pack {a, b, ..} into d
            n = s.imm
            w = bits // n
            v = 0
            for k in range(n):
                v |= (self.vec_entry_read(th, self.vecs[s.idx][k]) & _mask(w)) << (w * k)
            self.write(th, d, v)
        elif d.kind == E.K_VEC:                     # unpack s into {a, b, ..}
            n = d.imm
            w = bits // n
            v = self.raw(th, s)
            for k in range(n):
                self.vec_entry_write(th, self.vecs[d.idx][k], (v >> (w * k)) & _mask(w))
        else:
            self.write(th, d, self.raw(th, s) & _mask(bits))

    def op_isspacep(self, th, ins):
        d, a = ins.ops
        addr = self.raw(th, a)
        shared = E.SHARED_WINDOW <= addr < E.SHARED_WINDOW + E.WINDOW_SIZE
        local = E.LOCAL_WINDOW <= addr < E.LOCAL_WINDOW + E.WINDOW_SIZE
        inside = {E.SP_SHARED: shared, E.SP_LOCAL: local,
                  E.SP_GLOBAL: not shared and not local}.get(ins.space, False)
        self.write(th, d, int(inside))

    def op_cvta(self, th, ins):
        d, s = ins.ops
        v = self.ival(th, s, ins.ty)
        window = {E.SP_SHARED: E.SHARED_WINDOW, E.SP_LOCAL: E.LOCAL_WINDOW}.get(ins.space, 0)
        v = v - window if ins.flags & E.FL_TO else v + window
        self.write_typed(th, d, v, ins.ty)

    # ---- selection and comparison ----
    def op_selp(self, th, ins):
        d, a, b, c = ins.ops
        src = a if self.raw(th, c) & 1 else b
        self.write(th, d, self.raw(th, src) & _mask(_BITS[ins.ty]))

    def op_slct(self, th, ins):
        d, a, b, c = ins.ops
        if ins.ty2 == E.T_F32:
            x = _ftz32(self.fval(th, c, E.T_F32), bool(ins.flags & E.FL_FTZ))
            take_a = bool(x >= 0)
        else:
            take_a = self.ival(th, c, ins.ty2) >= 0
        self.write(th, d, self.raw(th, a if take_a else b) & _mask(_BITS[ins.ty]))

    def _compare_half(self, th, ins, ty, a, b, k: int) -> bool:
        """Element k (0: bits 15..0, 1: bits 31..16) of a and b compared (.ftz flushes f16)."""
        bf = ty in _BF
        ftz = bool(ins.flags & E.FL_FTZ)
        x, y = (half_value(_half_ftz(self.raw(th, o) >> (16 * k) & 0xFFFF, bf, ftz), bf) for o in (a, b))
        return _float_compare(ins.cmp, x, y)

    def _compare(self, th, ins, ty, a, b) -> bool:
        if ty in _HALF:
            return self._compare_half(th, ins, ty, a, b, 0)
        if ty in (E.T_F32, E.T_F64):
            x, y = self.fval(th, a, ty), self.fval(th, b, ty)
            if ty == E.T_F32:
                ftz = bool(ins.flags & E.FL_FTZ)
                x, y = _ftz32(x, ftz), _ftz32(y, ftz)
            return _float_compare(ins.cmp, x, y)
        return _int_compare(ins.cmp, self.ival(th, a, ty), self.ival(th, b, ty), ty)

    def op_setp(self, th, ins):
        d, a, b = ins.ops[:3]
        r = self._compare(th, ins, ins.ty, a, b)
        # x2 types: p from the low halves, q from the high halves (not the complement)
        nr = self._compare_half(th, ins, ins.ty, a, b, 1) if ins.ty in _PAIR else not r
        if ins.boolop:
            c = bool(self.raw(th, ins.ops[3]) & 1)
            f = {E.BOOL_CODE["and"]: lambda x: x and c, E.BOOL_CODE["or"]: lambda x: x or c,
                 E.BOOL_CODE["xor"]: lambda x: x != c}[ins.boolop]
            r, nr = f(r), f(nr)
        self.write(th, d, int(r))
        if ins.dst2 >= 0:
            th.p[ins.dst2] = int(nr)

    def op_set(self, th, ins):
        d, a, b = ins.ops
        r = self._compare(th, ins, ins.ty2, a, b)
        if ins.ty2 in _PAIR:
            r1 = self._compare_half(th, ins, ins.ty2, a, b, 1)
            true = half_bits(1.0, ins.ty in _BF) if ins.ty in _HALF else 0xFFFF
            self.write(th, d, (true if r else 0) | (true << 16 if r1 else 0))
        elif ins.ty in _HALF:
            self.write(th, d, half_bits(1.0, ins.ty in _BF) if r else 0)
        elif ins.ty == E.T_F32:
            self.write(th, d, _bits32(np.float32(1.0)) if r else 0)
        else:
            self.write(th, d, _mask(_BITS[ins.ty]) if r else 0)

    # ---- conversions ----
    def op_cvt(self, th, ins):
        d, s = ins.ops[:2]
        dt, st, rnd = ins.ty, ins.ty2, ins.rnd
        ftz = bool(ins.flags & E.FL_FTZ)
        sat = bool(ins.flags & E.FL_SAT)
        if dt in _PAIR:                             # cvt.f16x2.f32 d, a, b: a high, b low
            hi, lo = (self._to_half(float(_ftz32(self.fval(th, o, st), ftz)), dt, rnd, ins.flags)
                      for o in ins.ops[1:3])
            self.write(th, d, hi << 16 | lo)
            return
        if st in _FLOAT:
            x = self.fval(th, s, st)
            if st == E.T_F32:
                x = _ftz32(x, ftz)
            if not math.isnan(float(x)) and ins.flags & (E.FL_SRC_ABS | E.FL_SRC_NEG):   # a folded abs / neg
                x = abs(x) if ins.flags & E.FL_SRC_ABS else x
                x = -x if ins.flags & E.FL_SRC_NEG else x
            xf = float(x)
            if math.isnan(xf) and st == E.T_F32 and dt == E.T_F32:     # FRND / FADD.SAT / FADD.FTZ
                self.write(th, d, 0 if sat else CANONICAL_NAN32)
                return
            if math.isnan(xf) and st == E.T_F64 and dt == E.T_F64:     # FRND.F64: the NaN, quieted
                self.write(th, d, 0 if sat else self.raw(th, s) | F64_QUIET)
                return
            if math.isnan(xf) and st == E.T_F32 and dt == E.T_F64 and ftz:   # FMUL.FTZ x, 1; F2F.F64.F32
                self.write(th, d, 0 if sat else 0x7FFFFFFFE0000000)
                return
            if st == E.T_F32 and dt == E.T_F32 and sat:
                xf = xf + 0.0                   # ptxas: FADD.SAT d, RZ, a (-0 gives +0)
            if math.isnan(xf) and dt != E.T_F64 and (st != E.T_F32 or dt not in _FLOAT) \
                    and not (st in _HALF and dt in _HALF):
                self.write(th, d, self._nan_converted(self.raw(th, s), st, dt))
                return
            if dt in _FLOAT:
                if rnd in _INTEGRAL:
                    xf = _round_integral(xf, rnd)
                    rnd = E.RND_RN
                if dt in _HALF:
                    self.write(th, d, self._to_half(xf, dt, rnd, ins.flags))
                    return
                r = self._float_narrow(xf, dt, rnd)
                if sat:
                    r = type(r)(0.0) if math.isnan(r) else type(r)(min(max(float(r), 0.0), 1.0))
                if dt == E.T_F32:
                    r = _ftz32(r, ftz)
                self.write_float(th, d, r, dt)
                return
            # float -> integer: round to an integral value, saturate, NaN -> 0
            bits = _BITS[dt]
            lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dt in _SIGNED else (0, _mask(bits))
            if math.isnan(xf):
                v = 0
            elif math.isinf(xf):
                v = hi if xf > 0 else lo
            else:
                mode = rnd if rnd != E.RND_NONE else E.RND_RZI
                v = int(_round_integral(xf, mode))
                v = min(max(v, lo), hi)
            self.write(th, d, v)        # in range of dt; extended to a wider register
            return
        v = _to_int(self.raw(th, s), st)
        if dt in _HALF:
            self.write(th, d, self._to_half(Fraction(v), dt, rnd, ins.flags))
            return
        if dt in _FLOAT:
            mode = rnd if rnd != E.RND_NONE else E.RND_RN
            r = _round_to(Fraction(v), dt, mode) if v else (np.float32(0.0) if dt == E.T_F32 else np.float64(0.0))
            if sat:
                r = type(r)(min(max(float(r), 0.0), 1.0))
            self.write_float(th, d, r, dt)
            return
        if sat:
            bits = _BITS[dt]
            lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dt in _SIGNED else (0, _mask(bits))
            v = min(max(v, lo), hi)
        # the value at type dt, sign- or zero-extended (by dt) to a wider destination register
        self.write(th, d, _to_int(v, dt))

    @staticmethod
    def _nan_converted(raw: int, st: int, dt: int) -> int:
        """What ptxas's code gives for cvt of a NaN on the H100 (s-convert): to an integer, 0 from
        f32 / half into at most 32 bits (F2I.NTZ), else the top bit of the destination alone; from
        f64 to f32 / f16 / bf16, the sign and payload top bits, quieted; f16 -> f32 the canonical
        NaN (HADD2.F32), bf16 -> f32 its bits shifted up (ptxas's SHF)."""
        if dt not in _FLOAT:
            bits = _BITS[dt]
            return 0 if st != E.T_F64 and bits <= 32 else 1 << (bits - 1)
        if st == E.T_F16:
            return 0x7FFFFFFF
        if st in _BF:
            return (raw & 0xFFFF) << 16         # a shift: the bf16 NaN's bits kept
        sign, payload = raw >> 63 & 1, raw & ((1 << 52) - 1)
        if dt == E.T_F32:
            return sign << 31 | 0x7FC00000 | payload >> 29
        if dt in _BF:
            return sign << 15 | 0x7FC0 | payload >> 45
        return sign << 15 | 0x7E00 | payload >> 42

    @staticmethod
    def _to_half(x, dt: int, rnd: int, flags: int) -> int:
        """cvt to f16 / bf16 of an exact value (float or Fraction): round (default .rn), then
        .sat / .relu / .satfinite (cvt's .ftz concerns float32 only)."""
        bf = dt in _BF
        mode = rnd if rnd != E.RND_NONE else E.RND_RN
        return _half_finish(half_round(x, bf, mode), flags & ~E.FL_FTZ, bf)

    @staticmethod
    def _float_narrow(x: float, dt: int, rnd: int):
        """A float64 value (exact for half/f32/f64 sources) -> f32 or f64 with rounding mode rnd."""
        if dt == E.T_F64:
            return np.float64(x)
        if rnd not in _DIRECTED or not math.isfinite(x) or x == 0:
            return np.float32(x)               # numpy's narrowing rounds to nearest even
        return np.float32(round_rational(Fraction(x), 32, rnd))

    # ---- floating-point arithmetic ----
    def _float_op(self, th, ins):
        ty = ins.ty
        name = ins.name
        ftz = bool(ins.flags & E.FL_FTZ) and ty == E.T_F32
        srcs = [self.fval(th, o, ty) for o in ins.ops[1:]]
        if ty == E.T_F32:
            srcs = [_ftz32(x, ftz) for x in srcs]
        zero = np.float32(0.0) if ty == E.T_F32 else np.float64(0.0)
        a = srcs[0]
        b = srcs[1] if len(srcs) > 1 else zero
        c = srcs[2] if len(srcs) > 2 else zero
        rnd = ins.rnd
        if name in ("add", "sub", "mul", "fma", "mad"):
            r = _float_binary(name, ty, a, b, c, rnd)
        elif name == "div":
            if ins.flags & E.FL_APPROX and ty == E.T_F32:
                r = _div_approx32(a, b, bool(ins.flags & E.FL_FTZ))
            else:
                r = _float_binary("div", ty, a, b, c, rnd)
        elif name in ("abs", "neg", "copysign"):
            width = 32 if ty == E.T_F32 else 64
            sign = 1 << (width - 1)
            ab = _bits32(a) if width == 32 else _bits64(a)
            if name == "abs":
                rb = ab & ~sign
            elif name == "neg":
                rb = ab ^ sign
            else:
                bb = _bits32(b) if width == 32 else _bits64(b)
                rb = (bb & ~sign) | (ab & sign)
            r = _f32(rb) if width == 32 else _f64(rb)
        elif name in ("min", "max"):
            r = float_min_max(a, b, name == "max")
        elif name == "sqrt":
            r = _float_sqrt(a, rnd)
        elif name == "rcp":
            r = _float_rcp(a, rnd)
        elif name == "rsqrt" and ty == E.T_F64:
            v = float(a)
            if v == 0:
                r = np.float64(math.copysign(math.inf, v))
            elif math.isnan(v) or v < 0:
                r = np.float64(math.nan)
            else:
                r = np.float64(1.0 / math.sqrt(v)) if math.isfinite(v) else np.float64(0.0)
        elif ty == E.T_F32 and name in ("sin", "cos", "ex2", "lg2", "rsqrt", "tanh"):
            r = _sfu_approx32(name, a)
        else:
            raise NotImplementedError(f"oracle: {name}.{E.TYPE_NAMES[ty]} is not supported")
        if math.isnan(r) and name != "copysign":
            r = _nan_result(name, ty, srcs, bool(ins.flags & E.FL_NAN_B_FIRST))
        if ins.flags & E.FL_SAT:        # NaN, -0 and every negative saturate to +0 (the H100's FFMA.SAT of -0)
            r = type(r)(0.0) if math.isnan(r) or r <= 0.0 else type(r)(min(float(r), 1.0))
        if ty == E.T_F32:
            r = _ftz32(np.float32(r), ftz)
        self.write_float(th, ins.ops[0], r, ty)

    # ---- integer arithmetic ----
    def _int_op(self, th, ins):
        name, ty = ins.name, ins.ty
        d = ins.ops[0]
        if ty == E.T_PRED:
            vals = [self.raw(th, o) & 1 for o in ins.ops[1:]]
            r = {"and": lambda: vals[0] & vals[1], "or": lambda: vals[0] | vals[1],
                 "xor": lambda: vals[0] ^ vals[1], "not": lambda: 1 - vals[0]}[name]()
            self.write(th, d, r)
            return
        bits = _BITS[ty]
        signed = ty in _SIGNED
        v = [self.ival(th, o) for o in ins.ops[1:]]
        a = v[0]
        b = v[1] if len(v) > 1 else 0
        c = v[2] if len(v) > 2 else 0
        flags = ins.flags
        if name == "lop3":                  # bit i of d: bit (a_i b_i c_i) of the truth table v[3]
            r = 0
            for i in range(32):
                k = (a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1)
                r |= (v[3] >> k & 1) << i
            self.write(th, d, r)
            return
        if name in ("vabsdiff4", "vabsdiff2"):     # |a_i - b_i| of bytes / halves: packed, or c + sum
            n, width = (4, 8) if name == "vabsdiff4" else (2, 16)
            signs = (ins.ty2 in _SIGNED, bool(flags & E.FL_B_SIGNED))
            diffs = []
            for i in range(n):
                x, y = ((v[k] >> (width * i) & _mask(width)) for k in (0, 1))
                x, y = (u - (1 << width) if s and u >> (width - 1) else u for u, s in zip((x, y), signs))
                diffs.append(abs(x - y))
            r = c + sum(diffs) if ins.cmp == 1 else sum((dv & _mask(width)) << (width * i) for i, dv in enumerate(diffs))
            self.write(th, d, r & M32)
            return
        if ty in (E.T_U16X2, E.T_S16X2):    # per 16-bit half, wrapping
            halves = []
            for k in (0, 16):
                x, y = a >> k & 0xFFFF, b >> k & 0xFFFF
                if ty == E.T_S16X2:
                    x, y = (u - 0x10000 if u >= 0x8000 else u for u in (x, y))
                halves.append({"add": x + y, "sub": x - y, "min": min(x, y), "max": max(x, y)}[name] & 0xFFFF)
            self.write(th, d, halves[0] | halves[1] << 16)
            return
        if name in ("addc", "subc", "madc") or flags & E.FL_CC:
            # CC.CF: the carry in is the last operand (addc / subc / madc), the carry out F_DST2
            cin = v[-1] & 1 if name in ("addc", "subc", "madc") else 0
            m = _mask(bits)
            if name in ("mad", "madc"):
                a, b = ((a * b) >> bits if flags & E.FL_HI else a * b) & m, c
            a, b = a & m, b & m
            if name in ("sub", "subc"):
                r, out = (a - b - cin) & m, int(a < b + cin)
            else:
                total = a + b + cin
                r, out = total & m, total >> bits
            self.write(th, d, r)
            if flags & E.FL_CC:
                th.p[ins.dst2] = out
            return
        if name in ("add", "sub"):
            r = a + b if name == "add" else a - b
            if flags & E.FL_SAT:
                lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, _mask(bits))
                r = min(max(r, lo), hi)
        elif name in ("mul", "mad"):
            p = a * b
            if flags & E.FL_WIDE:
                r = p
            elif flags & E.FL_HI:
                r = p >> bits
            else:
                r = p
            if name == "mad":
                r += c
        elif name in ("div", "rem"):
            if b == 0:
                r = -1 if name == "div" else a
            else:
                q = abs(a) // abs(b)
                if (a < 0) != (b < 0):
                    q = -q
                r = q if name == "div" else a - q * b
        elif name == "abs":
            r = abs(a)
        elif name == "neg":
            r = -a
        elif name == "min":
            r = min(a, b)
        elif name == "max":
            r = max(a, b)
        elif name == "sad":
            r = abs(a - b) + c
        elif name == "and":
            r = a & b
        elif name == "or":
            r = a | b
        elif name == "xor":
            r = a ^ b
        elif name == "not":
            r = ~a
        elif name == "cnot":
            r = 1 if a & _mask(bits) == 0 else 0
        elif name == "shl":
            r = 0 if b >= bits else a << b
        elif name == "shr":
            r = a >> min(b, bits)            # a is sign- or zero-extended, so this is right
        elif name == "shf":
            n = (c & 31) if flags & E.FL_SHF_WRAP else min(c & M32, 32)
            wide = ((b & M32) << 32) | (a & M32)
            r = (wide << n) >> 32 if flags & E.FL_SHF_L else wide >> n
        elif name == "popc":
            r = bin(a & _mask(bits)).count("1")
        elif name == "clz":
            r = bits - (a & _mask(bits)).bit_length()
        elif name == "brev":
            r = int(format(a & _mask(bits), f"0{bits}b")[::-1], 2)
        elif name == "bfe":
            pos, length = b & 0xFF, c & 0xFF
            ua = a & _mask(bits)
            sbit = 0
            if signed and length:
                sbit = (ua >> min(pos + length - 1, bits - 1)) & 1
            r = 0
            for i in range(bits):
                bit = (ua >> (pos + i)) & 1 if i < length and pos + i < bits else sbit
                r |= bit << i
        elif name == "bfi":
            e = self.ival(th, ins.ops[4])
            pos, length = c & 0xFF, e & 0xFF
            r = b & _mask(bits)
            for i in range(length):
                if pos + i >= bits:
                    break
                r = (r & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
        elif name == "bfind":
            ua = a & _mask(bits)
            if signed and a < 0:
                ua = ~a & _mask(bits)
            pos = ua.bit_length() - 1
            r = M32 if pos < 0 else (bits - 1 - pos if flags & E.FL_SHIFTAMT else pos)
        elif name == "fns":
            mask, base, offset = a & M32, b & M32, c
            r = M32
            if offset == 0:
                if base < 32 and mask >> base & 1:
                    r = base
            else:
                count, inc, pos = abs(offset) - 1, 1 if offset > 0 else -1, base
                while 0 <= pos < 32:
                    if mask >> pos & 1:
                        if count == 0:
                            r = pos
                            break
                        count -= 1
                    pos += inc
        elif name in ("dp4a", "dp2a"):
            b_signed = ins.ty2 in _SIGNED
            if name == "dp4a":
                xs = [a >> (8 * i) & 0xFF for i in range(4)]
                ys = [b >> (8 * i) & 0xFF for i in range(4)]
                xs = [x - 256 if signed and x >= 128 else x for x in xs]
            else:
                sel = 2 if flags & E.FL_HI else 0
                xs = [a >> (16 * i) & 0xFFFF for i in range(2)]
                ys = [b >> (8 * (sel + i)) & 0xFF for i in range(2)]
                xs = [x - 65536 if signed and x >= 32768 else x for x in xs]
            ys = [y - 256 if b_signed and y >= 128 else y for y in ys]
            r = c + sum(x * y for x, y in zip(xs, ys))
        elif name in ("mul24", "mad24"):
            def low24(x):
                x &= 0xFFFFFF
                return x - (1 << 24) if signed and x >> 23 else x
            p = low24(a) * low24(b)
            r = p >> 16 if flags & E.FL_HI else p
            if name == "mad24":
                r += c
        elif name == "prmt":                # byte k of d: selector nibble k picks one of a's and b's bytes
            pool = (a & M32).to_bytes(4, "little") + (b & M32).to_bytes(4, "little")
            picked = []
            for nibble in ((c >> shift) & 0xF for shift in (0, 4, 8, 12)):
                byte = pool[nibble & 7]
                picked.append((0xFF if byte >= 0x80 else 0) if nibble & 8 else byte)
            r = int.from_bytes(bytes(picked), "little")
        else:
            raise NotImplementedError(f"oracle: {name}.{E.TYPE_NAMES[ty]} is not supported")
        self.write_typed(th, d, r, d.ty if d.ty >= 0 else ty)

    def _arith(self, th, ins):
        if ins.ty in (E.T_F32, E.T_F64):
            self._float_op(th, ins)
        elif ins.ty in _HALF:
            srcs = [self.raw(th, o) for o in ins.ops[1:]] + [0, 0]
            self.write(th, ins.ops[0], half_op(ins.name, ins.ty, srcs[0], srcs[1], srcs[2], ins.flags))
        else:
            self._int_op(th, ins)

    # ---- memory ----
    def _mem_geometry(self, th, ins, addr_op):
        width = 1 if ins.ty == E.T_PRED else _BITS[ins.ty] // 8
        total = width * ins.vec
        addr = self.address(th, addr_op)
        if addr % width or addr % total:
            raise self.fault(th, ins, f"misaligned access of {total} bytes at address {addr:#x}")
        buf, off = self.locate(th, ins, ins.space, addr, total)
        return width, buf, off

    def _load_value(self, ty, raw):
        if ty in _FLOAT or ty == E.T_PRED:
            return raw
        return _to_int(raw, ty)

    def op_ld(self, th, ins):
        d, a = ins.ops
        width, buf, off = self._mem_geometry(th, ins, a)
        if d.kind == E.K_VEC:
            for k in range(d.imm):
                raw = int.from_bytes(buf[off + k * width:off + (k + 1) * width], "little")
                self.vec_entry_write(th, self.vecs[d.idx][k], self._load_value(ins.ty, raw))
        else:
            raw = int.from_bytes(buf[off:off + width], "little")
            self.write(th, d, self._load_value(ins.ty, raw))

    def op_st(self, th, ins):
        a, s = ins.ops
        width, buf, off = self._mem_geometry(th, ins, a)
        m = _mask(8 * width)
        if s.kind == E.K_VEC:
            for k in range(s.imm):
                v = self.vec_entry_read(th, self.vecs[s.idx][k]) & m
                buf[off + k * width:off + (k + 1) * width] = v.to_bytes(width, "little")
        else:
            buf[off:off + width] = (self.raw(th, s) & m).to_bytes(width, "little")

    def _atomic(self, th, ins, addr_op, b_op, c_op):
        width, buf, off = self._mem_geometry(th, ins, addr_op)
        ty = ins.ty
        bits = 8 * width
        m = _mask(bits)
        old = int.from_bytes(buf[off:off + width], "little")
        braw = self.raw(th, b_op)
        aop = E.ATOM_NAMES[ins.cmp]
        if ty in _HALF:                             # atom.add.noftz.f16 / bf16 / f16x2 / bf16x2
            new = half_op("add", ty, old, braw, 0, 0)
        elif ty in (E.T_F32, E.T_F64):
            cvt = _f32 if ty == E.T_F32 else _f64
            back = _bits32 if ty == E.T_F32 else _bits64
            fo, fb = cvt(old), cvt(braw)
            if aop == "add" and ty == E.T_F32:      # .ftz, canonical NaN (PTX ISA; the H100, s-atomic)
                ftz = ins.space != E.SP_SHARED      # .shared: ptxas's CAS loop on a plain FADD keeps subnormals
                r = _ftz32(np.float32(_ftz32(fo, ftz) + _ftz32(fb, ftz)), ftz)
                new = 0x7FFFFFFF if math.isnan(r) else back(r)
            elif aop == "add" and ins.space == E.SP_SHARED:     # ptxas: CAS loop around DADD new, b, old
                r = fo + fb
                new = back(_nan_result("add", ty, (fo, fb)) if math.isnan(r) else r)
            elif aop == "add":      # the memory system's f64 add: a NaN goes through unchanged, b's first
                new = braw & m if math.isnan(fb) else old if math.isnan(fo) else \
                    (ATOMIC_F64_NAN if math.isnan(fo + fb) else back(fo + fb))
            elif aop in ("min", "max"):
                new = back(float_min_max(fo, fb, aop == "max"))
            elif aop == "exch":
                new = braw & m
            else:
                raise NotImplementedError(f"oracle: atom.{aop}.{E.TYPE_NAMES[ty]} is not supported")
        else:
            o, v = _to_int(old, ty), _to_int(braw, ty)
            uo, uv = old & m, braw & m
            if aop == "add":
                new = o + v
            elif aop == "min":
                new = min(o, v)
            elif aop == "max":
                new = max(o, v)
            elif aop == "exch":
                new = v
            elif aop == "cas":
                new = (self.raw(th, c_op) if c_op is not None else 0) if uo == uv else o
            elif aop == "inc":
                new = 0 if uo >= uv else uo + 1
            elif aop == "dec":
                new = uv if (uo == 0 or uo > uv) else uo - 1
            elif aop == "and":
                new = o & v
            elif aop == "or":
                new = o | v
            else:
                new = o ^ v
        buf[off:off + width] = (new & m).to_bytes(width, "little")
        return old

    def op_atom(self, th, ins):
        c = ins.ops[3] if len(ins.ops) > 3 else None
        old = self._atomic(th, ins, ins.ops[1], ins.ops[2], c)
        self.write(th, ins.ops[0], old)

    def op_red(self, th, ins):
        self._atomic(th, ins, ins.ops[0], ins.ops[1], None)


_ARITHMETIC = ("add", "sub", "mul", "mad", "fma", "div", "rem", "abs", "neg", "min", "max", "copysign",
               "sad", "popc", "clz", "brev", "bfe", "bfi", "bfind", "fns", "dp4a", "dp2a", "mul24",
               "mad24", "prmt", "and", "or", "xor", "not", "cnot", "shl", "shr", "shf", "rcp", "sqrt",
               "rsqrt", "sin", "cos", "ex2", "lg2", "tanh", "addc", "subc", "madc", "lop3",
               "vabsdiff4", "vabsdiff2")

# The oracle's dispatch: opcode name -> handler(interpreter, thread, instruction).
OPCODE_HANDLERS = {
    **{name: _Interpreter._arith for name in _ARITHMETIC},
    "setp": _Interpreter.op_setp, "set": _Interpreter.op_set, "selp": _Interpreter.op_selp,
    "slct": _Interpreter.op_slct, "mov": _Interpreter.op_mov, "cvt": _Interpreter.op_cvt,
    "cvta": _Interpreter.op_cvta,
    "ld": _Interpreter.op_ld, "ldu": _Interpreter.op_ld, "st": _Interpreter.op_st,
    "atom": _Interpreter.op_atom, "red": _Interpreter.op_red,
    "cp.async": _Interpreter.op_cp_async,
    "membar": _Interpreter.op_nothing, "fence": _Interpreter.op_nothing,
    "bar.warp": _Interpreter.wait_collective,   # a barrier over the membermask's lanes
    "isspacep": _Interpreter.op_isspacep,
    "nanosleep": _Interpreter.op_nothing, "cp.async.group": _Interpreter.op_nothing,
    "bar": _Interpreter.op_bar, "barrier": _Interpreter.op_bar,
    "bar.red": _Interpreter.op_bar,     # assembled as a bar row; op_bar and _barrier_reduce run it
    **{name: _Interpreter.wait_collective for name in _TENSOR},
    "match": _Interpreter.wait_collective,
    "redux": _Interpreter.wait_collective,
    "vote": _Interpreter.wait_collective,
    "shfl": _Interpreter.wait_collective,
    "bra": _Interpreter.op_bra, "ret": _Interpreter.op_ret, "exit": _Interpreter.op_exit,
    "call": _Interpreter.op_call,
    "trap": _Interpreter.op_trap,
}


def run_oracle(program, grid, block, args, buffers=None, warp_size: int = 32,
               max_steps_per_thread: int = 1_000_000, dynamic_shared: int = 0,
               call_depth: int = DEFAULTS["simt"]["call_depth"]) -> OracleResult:
    """Run `program` thread by thread.  Same arguments as launch.launch (args: a buffer name or a
    number per kernel parameter); buffers are copied, the inputs are not modified.

    warp_size only shapes %laneid / %warpid / %lanemask_* and the thread_icount layout.  A barrier
    that some threads wait at while others of the block have exited raises RuntimeFault
    ("barrier deadlock"), even when whole warps exited (the engine lets that case pass)."""
    grid, block = Dim3.of(grid), Dim3.of(block)
    if block.count < 1 or grid.count < 1:
        raise InputError("grid and block must have at least one thread")
    if not 1 <= warp_size <= 64:
        raise InputError(f"warp_size must be between 1 and 64, got {warp_size}")
    buffers = dict(buffers or {})
    interp = _Interpreter(program, grid, block, args, buffers, warp_size, max_steps_per_thread,
                          dynamic_shared, call_depth)
    with np.errstate(all="ignore"):
        return interp.run()
