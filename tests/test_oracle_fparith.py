"""The oracle's own fused multiply-add and min / max agree with the engine's, bit for bit, on edge
cases and on random inputs (the two are written independently: exact rationals vs LLVM's fma)."""
from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from simt_sim.engine.functional.alu import float_min_max as engine_min_max
from simt_sim.engine.functional.fparith import fma32, fma64
from simt_sim.isa import encoding as E
from simt_sim.oracle.interpreter import float_min_max, fma_rn

EDGES = [0.0, -0.0, 1.0, -1.0, 1.5, 0.1, -3.0, 2.0 ** -149, -(2.0 ** -149), 2.0 ** -126, 1e-40,
         3.4028234663852886e38, -3.4028234663852886e38, 2.0 ** 64, 1.0 + 2.0 ** -23, 1.0 - 2.0 ** -24,
         math.inf, -math.inf, math.nan]
EDGES64 = EDGES + [5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308,
                   1.0 + 2.0 ** -52, 2.0 ** 600, 2.0 ** -600]


@njit
def engine_fma32(a, b, c):
    return fma32(a, b, c)


@njit
def engine_fma64(a, b, c):
    return fma64(a, b, c)


@njit
def engine_min_max_jit(a, b, is_max):
    return engine_min_max(a, b, is_max)


def same(x, y) -> bool:
    """Bit-identical, except that any NaN matches any NaN (payloads are not part of the contract)."""
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return np.asarray(x).tobytes() == np.asarray(y).tobytes()


def check_fma32(a, b, c):
    a, b, c = np.float32(a), np.float32(b), np.float32(c)
    got = fma_rn(a, b, c, E.T_F32)
    assert isinstance(got, np.float32)
    for want in (np.float32(engine_fma32(a, b, c)), np.float32(fma32(a, b, c))):
        assert same(got, want), (a, b, c, got, want)


def check_fma64(a, b, c):
    a, b, c = np.float64(a), np.float64(b), np.float64(c)
    got = fma_rn(a, b, c, E.T_F64)
    assert isinstance(got, np.float64)
    assert same(got, np.float64(engine_fma64(a, b, c))), (a, b, c, got)


def test_fma_edge_cases_f32():
    with np.errstate(all="ignore"):
        for a, b, c in itertools.product(EDGES, repeat=3):
            check_fma32(a, b, c)


def test_fma_edge_cases_f64():
    with np.errstate(all="ignore"):
        for a, b, c in itertools.product(EDGES64, repeat=3):
            check_fma64(a, b, c)


def test_fma_rounds_once():
    # (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46 exactly; a rounded product would give 0
    assert fma_rn(np.float32(1 + 2.0 ** -23), np.float32(1 - 2.0 ** -23), np.float32(-1), E.T_F32) == -(2.0 ** -46)
    # the smallest subnormal halved is a tie, rounded to even (zero), with the product's sign
    tiny = fma_rn(np.float32(2.0 ** -149), np.float32(0.5), np.float32(0.0), E.T_F32)
    assert tiny == 0 and math.copysign(1, tiny) == 1
    assert fma_rn(np.float32(3 * 2.0 ** -150), np.float32(1), np.float32(-0.0), E.T_F32) == 2.0 ** -148
    assert fma_rn(np.float64(2.0 ** 1023), np.float64(2), np.float64(-math.inf), E.T_F64) == -math.inf
    assert math.copysign(1, fma_rn(np.float64(-0.0), np.float64(1), np.float64(-0.0), E.T_F64)) == -1
    assert math.copysign(1, fma_rn(np.float64(1), np.float64(1), np.float64(-1), E.T_F64)) == 1


finite32 = st.floats(width=32, allow_nan=False, allow_infinity=False)
finite64 = st.floats(allow_nan=False, allow_infinity=False)
any32 = st.one_of(st.sampled_from(EDGES), st.floats(width=32))
any64 = st.one_of(st.sampled_from(EDGES64), st.floats())


@st.composite
def near_cancellation(draw, floats, ty):
    """c close to -(a * b): the result is the product's rounding error, where double rounding and
    a rounded product show."""
    a, b, steps = ty(draw(floats)), ty(draw(floats)), draw(st.integers(-2, 2))
    with np.errstate(all="ignore"):
        c = -(a * b)
        for _ in range(abs(steps)):
            c = np.nextafter(c, ty(math.inf if steps > 0 else -math.inf))
    return a, b, c


@settings(max_examples=2000)
@given(any32, any32, any32)
def test_fma32_random(a, b, c):
    with np.errstate(all="ignore"):
        check_fma32(a, b, c)


@settings(max_examples=2000)
@given(near_cancellation(finite32, np.float32))
def test_fma32_near_cancellation(abc):
    with np.errstate(all="ignore"):
        check_fma32(*abc)


@settings(max_examples=2000)
@given(near_cancellation(finite64, np.float64))
def test_fma64_near_cancellation(abc):
    with np.errstate(all="ignore"):
        check_fma64(*abc)


@settings(max_examples=2000)
@given(any64, any64, any64)
def test_fma64_random(a, b, c):
    with np.errstate(all="ignore"):
        check_fma64(a, b, c)


def test_min_max_edge_cases():
    for a, b in itertools.product(EDGES64 + [-math.nan], repeat=2):
        for is_max in (False, True):
            got = float_min_max(np.float64(a), np.float64(b), is_max)
            want = engine_min_max_jit(np.float64(a), np.float64(b), is_max)
            assert np.float64(got).tobytes() == np.float64(want).tobytes(), (a, b, is_max, got, want)


def test_min_max_orders_signed_zeros_and_skips_nan():
    assert math.copysign(1, float_min_max(0.0, -0.0, False)) == -1
    assert math.copysign(1, float_min_max(-0.0, 0.0, True)) == 1
    assert float_min_max(math.nan, 2.0, False) == 2.0
    assert float_min_max(2.0, math.nan, True) == 2.0
    assert math.isnan(float_min_max(math.nan, math.nan, True))
