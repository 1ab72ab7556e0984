"""Correctly rounded fused multiply-add for float32 and float64.

Compiled code calls LLVM's fma intrinsic (exact, single rounding).  Plain Python (the engine under
NUMBA_DISABLE_JIT=1) uses exact rational arithmetic, so both give the same bits.  The oracle has its
own fma (simt_sim/oracle/interpreter.py); tests/test_oracle_fparith.py checks they agree.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from llvmlite import ir
from numba.extending import intrinsic, overload


def _exact(a: float, b: float, c: float) -> Fraction | None:
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return None
    return Fraction(a) * Fraction(b) + Fraction(c)


def _round_fraction_to_float(x: Fraction) -> float:
    try:
        return x.numerator / x.denominator          # correctly rounded int true division
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def fma64(a, b, c):
    """a*b + c with one rounding to float64."""
    a, b, c = float(a), float(b), float(c)
    if hasattr(math, "fma"):
        return np.float64(math.fma(a, b, c))
    exact = _exact(a, b, c)
    if exact is None and math.isinf(c) and math.isfinite(a) and math.isfinite(b):
        return np.float64(c)            # a finite product never cancels an infinite addend
    if exact is None or exact == 0:
        return np.float64(a * b + c)    # IEEE specials and the sign of an exact zero
    return np.float64(_round_fraction_to_float(exact))


def _f32_value(x) -> Fraction:
    """Exact value of a float32 rounding neighbour; infinity stands for 2**128, the next step of
    the float32 grid beyond the largest finite value (where round-to-nearest overflows)."""
    if math.isinf(float(x)):
        return Fraction(2 ** 128) if x > 0 else -Fraction(2 ** 128)
    return Fraction(float(x))


def fma32(a, b, c):
    """a*b + c with one rounding to float32."""
    a, b, c = float(a), float(b), float(c)
    exact = _exact(a, b, c)
    if exact is None or exact == 0:
        return np.float32(np.float64(a) * np.float64(b) + np.float64(c))
    d = _round_fraction_to_float(exact)
    f = np.float32(d)
    if math.isfinite(d) and math.isfinite(float(f)) and float(f) != d:
        # d may sit exactly halfway between two float32s after its own rounding: decide by the
        # sign of what the double rounding threw away.
        with np.errstate(over="ignore"):       # a neighbour beyond the largest float32 is infinite
            lo = np.nextafter(f, np.float32(-np.inf)) if float(f) > d else f
            hi = f if float(f) > d else np.nextafter(f, np.float32(np.inf))
        if _f32_value(hi) - Fraction(d) == Fraction(d) - _f32_value(lo):
            rest = exact - Fraction(d)
            if rest > 0:
                f = hi
            elif rest < 0:
                f = lo
    return np.float32(f)


@intrinsic
def _llvm_fma(typingctx, a, b, c):
    sig = a(a, b, c)

    def codegen(context, builder, signature, args):
        t = args[0].type
        fn = builder.module.declare_intrinsic("llvm.fma", [t], ir.FunctionType(t, [t, t, t]))
        return builder.call(fn, args)

    return sig, codegen


@overload(fma64)
def _fma64_jit(a, b, c):
    def impl(a, b, c):
        return _llvm_fma(np.float64(a), np.float64(b), np.float64(c))
    return impl


@overload(fma32)
def _fma32_jit(a, b, c):
    def impl(a, b, c):
        return _llvm_fma(np.float32(a), np.float32(b), np.float32(c))
    return impl

