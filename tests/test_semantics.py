"""Per-opcode semantics, executed through the real engine (assembler -> launch -> numba).

Every test writes a small PTX kernel in the style nvcc emits, feeds one case per thread from numpy
arrays, and compares what the kernel stored against values computed here independently: explicit
two's-complement formulas for integers, numpy float32 arithmetic, and exact `Fraction` arithmetic
with an explicit rounding routine for fma / sqrt / rcp / conversions.  Many cases share one launch.
"""
from __future__ import annotations

import functools
import math
import struct
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simt_sim.frontend.assembler import assemble_text
from simt_sim.run.functional import LaunchConfig, launch

HEADER = ".version 9.0\n.target sm_90\n.address_size 64\n\n"
SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1
U32, U64 = (1 << 32) - 1, (1 << 64) - 1
FLT_MAX = float(np.finfo(np.float32).max)
FLT_MIN = float(np.finfo(np.float32).tiny)
FLT_TRUE_MIN = 2.0 ** -149

NP = {"u8": np.uint8, "s8": np.int8, "b8": np.uint8, "u16": np.uint16, "s16": np.int16, "b16": np.uint16,
      "u32": np.uint32, "s32": np.int32, "b32": np.uint32, "u64": np.uint64, "s64": np.int64,
      "b64": np.uint64, "f32": np.float32, "f64": np.float64}

EDGE32 = [0, 1, -1, 2, -2, 7, -7, 3, INT_MAX, INT_MIN, INT_MAX - 1, INT_MIN + 1, 0xFFFF, 0x10000,
          12345678, -98765432, 0x55555555, -0x55555556]
EDGE64 = [0, 1, -1, 2, -2, 3, -3, 7, LONG_MAX, LONG_MIN, LONG_MIN + 1, LONG_MAX - 1, 1 << 32, (1 << 32) - 1,
          -(1 << 32), 0x0123456789ABCDEF, -0x0FEDCBA987654321, 10 ** 18, 1 << 62, -(1 << 62)]
EDGE_F32 = [0.0, -0.0, 1.0, -1.0, 1.5, -2.5, 0.1, 3.0, 1e30, -1e-30, FLT_MAX, -FLT_MAX, FLT_MIN,
            -FLT_MIN, FLT_TRUE_MIN, -1e-40, 3e-39, math.inf, -math.inf, math.nan]
EDGE_F64 = [0.0, -0.0, 1.0, -1.0, 0.1, -3.5, 1e300, -1e-300, 5e-324, -2.2250738585072014e-308,
            1.7976931348623157e308, 2.0 ** 53 + 2, math.inf, -math.inf, math.nan]

i32s = st.one_of(st.sampled_from(EDGE32), st.integers(INT_MIN, INT_MAX))
i64s = st.one_of(st.sampled_from(EDGE64), st.integers(LONG_MIN, LONG_MAX))
f32s = st.one_of(st.sampled_from(EDGE_F32), st.floats(width=32))
f64s = st.one_of(st.sampled_from(EDGE_F64), st.floats())


# ---------------------------------------------------------------------------------------------
# kernel builder and runner
# ---------------------------------------------------------------------------------------------

def _base(t: str) -> tuple[str, int]:
    """'u32x4' -> ('u32', 4); 'f32' -> ('f32', 1)."""
    if "x" in t:
        b, n = t.split("x")
        return b, int(n)
    return t, 1


def _size(t: str) -> int:
    return np.dtype(NP[t]).itemsize


def _regtype(t: str) -> str:
    if t in ("f32", "f64"):
        return t
    return "b64" if _size(t) == 8 else "b32"


def elementwise_src(body: str, ins: tuple[str, ...], outs: tuple[str, ...], decls: str = "") -> str:
    """A kernel with one pointer parameter per input and output.  Thread gi (global x index) gets
    %ai<i> / %ao<j> = address of element gi; scalar inputs are loaded into %x<i> before the body
    and %y<j> are stored after it.  Vector types ('u32x4') only get the address (stride 16)."""
    n = len(ins) + len(outs)
    params = ",\n".join(f"\t.param .u64 k_param_{k}" for k in range(n))
    lines = [HEADER + f".visible .entry k(\n{params}\n)\n{{",
             "\t.reg .pred \t%p<16>;", "\t.reg .b16 \t%rs<16>;", "\t.reg .b32 \t%r<48>;",
             "\t.reg .b64 \t%rd<48>;", "\t.reg .f32 \t%f<32>;", "\t.reg .f64 \t%fd<32>;",
             "\t.reg .b32 \t%gi, %nt, %ct;", "\t.reg .b64 \t%off;"]
    if decls:
        lines.append(decls)
    for i, t in enumerate(ins):
        lines.append(f"\t.reg .b64 \t%ai{i};")
        if "x" not in t:
            lines.append(f"\t.reg .{_regtype(t)} \t%x{i};")
    for j, t in enumerate(outs):
        lines.append(f"\t.reg .b64 \t%ao{j};")
        if "x" not in t:
            lines.append(f"\t.reg .{_regtype(t)} \t%y{j};")
    lines += ["\tmov.u32 \t%ct, %ctaid.x;", "\tmov.u32 \t%nt, %ntid.x;", "\tmov.u32 \t%gi, %tid.x;",
              "\tmad.lo.s32 \t%gi, %ct, %nt, %gi;"]
    for k, (name, t) in enumerate([(f"%ai{i}", t) for i, t in enumerate(ins)] +
                                  [(f"%ao{j}", t) for j, t in enumerate(outs)]):
        b, cnt = _base(t)
        lines += [f"\tld.param.u64 \t{name}, [k_param_{k}];",
                  f"\tcvta.to.global.u64 \t{name}, {name};",
                  f"\tmul.wide.u32 \t%off, %gi, {_size(b) * cnt};",
                  f"\tadd.s64 \t{name}, {name}, %off;"]
    for i, t in enumerate(ins):
        if "x" not in t:
            lines.append(f"\tld.global.{t} \t%x{i}, [%ai{i}];")
    lines += ["\t" + ln.strip() for ln in body.strip().splitlines() if ln.strip()]
    for j, t in enumerate(outs):
        if "x" not in t:
            lines.append(f"\tst.global.{t} \t[%ao{j}], %y{j};")
    lines += ["\tret;", "}"]
    return "\n".join(lines) + "\n"


@functools.lru_cache(maxsize=None)
def program(src: str):
    return assemble_text(src)


def to_array(t: str, values) -> np.ndarray:
    """Python ints (any sign, wrapped to the type's width) or floats -> numpy array of type t."""
    b, cnt = _base(t)
    dt = np.dtype(NP[b])
    flat = [v for item in values for v in item] if cnt > 1 else list(values)
    if dt.kind in "iu":
        mask = (1 << (8 * dt.itemsize)) - 1
        arr = np.array([int(v) & mask for v in flat], dtype=f"u{dt.itemsize}").view(dt)
    else:
        arr = np.array(flat, dtype=dt)
    return arr.reshape(-1, cnt) if cnt > 1 else arr


def from_array(t: str, arr: np.ndarray) -> list:
    b, _ = _base(t)
    dt = np.dtype(NP[b])
    if dt.kind == "f":
        return list(arr)
    signed = b.startswith("s")
    out = []
    for v in np.asarray(arr).reshape(-1).view(f"u{dt.itemsize}"):
        v = int(v)
        if signed and v >> (8 * dt.itemsize - 1):
            v -= 1 << (8 * dt.itemsize)
        out.append(v)
    return out


def run_ew(body: str, ins: list[tuple[str, list]], outs: list[str], block: int = 64, decls: str = "",
           config: LaunchConfig | None = None):
    """Run the element-wise kernel over len(inputs) threads; returns the outputs (ints as Python
    ints, floats as numpy scalars; vector outputs as (n, k) arrays)."""
    arrays = [to_array(t, vals) for t, vals in ins]
    n = len(arrays[0])
    nblk = max(1, -(-n // block))
    total = nblk * block
    buffers, args = {}, []
    for i, a in enumerate(arrays):
        pad = np.zeros((total,) + a.shape[1:], a.dtype)
        pad[:n] = a
        buffers[f"in{i}"] = pad
        args.append(f"in{i}")
    for j, t in enumerate(outs):
        b, cnt = _base(t)
        buffers[f"out{j}"] = np.zeros((total, cnt) if cnt > 1 else total, NP[b])
        args.append(f"out{j}")
    src = elementwise_src(body, tuple(t for t, _ in ins), tuple(outs), decls)
    res = launch(program(src), nblk, block, args, buffers, config)
    result = []
    for j, t in enumerate(outs):
        a = res.buffers[f"out{j}"][:n]
        result.append(a if "x" in t else from_array(t, a))
    return result


def fbits(x, t: str = "f32") -> int:
    if t == "f32":
        return struct.unpack("<I", struct.pack("<f", float(np.float32(x))))[0]
    return struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def f32_from_bits(b: int) -> float:
    return struct.unpack("<f", struct.pack("<I", b & U32))[0]


def same_float(got, exp, t: str = "f32") -> bool:
    if math.isnan(float(exp)):
        return math.isnan(float(got))
    return fbits(got, t) == fbits(exp, t)


def check(label: str, got, exp, cases=None, t: str | None = None) -> None:
    """Assert got == exp element-wise (floats: bit-exact, any NaN matches NaN)."""
    assert len(got) == len(exp), label
    bad = []
    for i, (g, e) in enumerate(zip(got, exp)):
        ok = same_float(g, e, t) if t else (g == e)
        if not ok:
            bad.append(i)
    if bad:
        show = []
        for i in bad[:6]:
            g, e = got[i], exp[i]
            if t:
                g, e = f"{float(g)!r} ({fbits(g, t):#x})", f"{float(e)!r} ({fbits(e, t):#x})"
            elif isinstance(g, int):
                g, e = f"{g} ({g & U64:#x})", f"{e} ({e & U64:#x})"
            show.append(f"case {cases[i] if cases is not None else i}: got {g}, expected {e}")
        pytest.fail(f"{label}: {len(bad)} of {len(exp)} wrong; " + "; ".join(show))


# ---------------------------------------------------------------------------------------------
# independent references
# ---------------------------------------------------------------------------------------------

def wrap(v: int, bits: int, signed: bool) -> int:
    v &= (1 << bits) - 1
    if signed and v >> (bits - 1):
        v -= 1 << bits
    return v


def tdiv(a: int, b: int) -> int:
    """Integer division truncating toward zero."""
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


FMT = {"f32": (24, -126, 127, np.float32), "f64": (53, -1022, 1023, np.float64)}


def round_exact(x: Fraction, fmt: str = "f32", mode: str = "rn"):
    """Round an exact rational to the float format with an IEEE rounding mode."""
    p, emin, emax, ty = FMT[fmt]
    if x == 0:
        return ty(0.0)
    neg = x < 0
    m = -x if neg else x
    e = m.numerator.bit_length() - m.denominator.bit_length()
    if m < Fraction(2) ** e:
        e -= 1
    q = max(e, emin) - (p - 1)
    scaled = m / Fraction(2) ** q
    n = scaled.numerator // scaled.denominator
    rem = scaled - n
    if mode == "rn":
        n += rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1)
    elif mode == "rm":
        n += neg and rem != 0
    elif mode == "rp":
        n += (not neg) and rem != 0
    val = n * Fraction(2) ** q
    maxval = (2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax
    if val > maxval:
        to_inf = mode == "rn" or (mode == "rp" and not neg) or (mode == "rm" and neg)
        r = math.inf if to_inf else float(maxval)
    else:
        r = float(val)
    return ty(-r if neg else r)


def ref_fma(a: float, b: float, c: float, fmt: str):
    ty = FMT[fmt][3]
    a, b, c = float(a), float(b), float(c)
    if math.isnan(a) or math.isnan(b) or math.isnan(c):
        return ty(math.nan)
    if math.isinf(a) or math.isinf(b):
        if a == 0 or b == 0:
            return ty(math.nan)                      # inf * 0
        p = math.copysign(math.inf, math.copysign(1.0, a) * math.copysign(1.0, b))
        return ty(math.nan) if math.isinf(c) and c != p else ty(p)
    if math.isinf(c):
        return ty(c)                                 # a*b is finite in exact arithmetic
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        prod_neg = math.copysign(1.0, a) * math.copysign(1.0, b) < 0
        if (a == 0 or b == 0) and c == 0:
            return ty(-0.0 if prod_neg and math.copysign(1.0, c) < 0 else 0.0)
        return ty(0.0)
    return round_exact(exact, fmt)


def ref_sqrt(x, fmt: str):
    ty = FMT[fmt][3]
    x = float(x)
    if math.isnan(x) or x < 0:
        return ty(math.nan)
    if x == 0 or math.isinf(x):
        return ty(x)
    fx = Fraction(x)
    r = ty(math.sqrt(x))           # a starting guess; the exact midpoint tests decide
    while True:
        lo = np.nextafter(r, ty(0))
        hi = np.nextafter(r, ty(math.inf))
        if fx < ((Fraction(float(lo)) + Fraction(float(r))) / 2) ** 2:
            r = lo
        elif math.isfinite(hi) and fx > ((Fraction(float(r)) + Fraction(float(hi))) / 2) ** 2:
            r = hi
        else:
            return r


def ref_rcp(x, fmt: str):
    ty = FMT[fmt][3]
    x = float(x)
    if math.isnan(x):
        return ty(math.nan)
    if x == 0:
        return ty(math.copysign(math.inf, x))
    if math.isinf(x):
        return ty(math.copysign(0.0, x))
    return round_exact(1 / Fraction(x), fmt)


def ref_minmax(a: float, b: float, is_max: bool) -> float:
    if math.isnan(a) and math.isnan(b):
        return math.nan
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    if a == 0 and b == 0:
        neg_a, neg_b = math.copysign(1, a) < 0, math.copysign(1, b) < 0
        if is_max:
            return -0.0 if (neg_a and neg_b) else 0.0
        return -0.0 if (neg_a or neg_b) else 0.0
    return max(a, b) if is_max else min(a, b)


def ref_fcmp(cmp: str, a: float, b: float) -> bool:
    unordered = math.isnan(a) or math.isnan(b)
    if cmp == "num":
        return not unordered
    if cmp == "nan":
        return unordered
    if cmp.endswith("u"):
        if unordered:
            return True
        cmp = cmp[:-1]
    elif unordered:
        return False
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[cmp]


def ref_f2i(x: float, mode: str, bits: int, signed: bool, from_f64: bool = False) -> int:
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if math.isnan(x):       # as ptxas's F2I runs on the H100 (s-convert): 0 only with .NTZ (f32 into
        if not from_f64 and bits <= 32:                       # at most 32 bits), else the top bit
            return 0
        return -(1 << (bits - 1)) if signed else 1 << (bits - 1)
    if math.isinf(x):
        return hi if x > 0 else lo
    f = Fraction(x)
    r = {"rni": round(f), "rzi": math.trunc(f), "rmi": math.floor(f), "rpi": math.ceil(f)}[mode]
    return min(max(r, lo), hi)


def flush(x, ty=np.float32):
    x = ty(x)
    if x != 0 and abs(x) < FLT_MIN:
        return ty(math.copysign(0.0, float(x)))
    return x


# ---------------------------------------------------------------------------------------------
# integer arithmetic
# ---------------------------------------------------------------------------------------------

ADDSUB32 = """
add.s32 %y0, %x0, %x1;
sub.s32 %y1, %x0, %x1;
add.sat.s32 %y2, %x0, %x1;
sub.sat.s32 %y3, %x0, %x1;
add.u32 %y4, %x0, %x1;
"""


def check_addsub32(pairs):
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    y = run_ew(ADDSUB32, [("s32", a), ("s32", b)], ["s32"] * 4 + ["u32"])
    sat = lambda v: min(max(v, INT_MIN), INT_MAX)  # noqa: E731
    check("add.s32", y[0], [wrap(x + z, 32, True) for x, z in pairs], pairs)
    check("sub.s32", y[1], [wrap(x - z, 32, True) for x, z in pairs], pairs)
    check("add.sat.s32", y[2], [sat(x + z) for x, z in pairs], pairs)
    check("sub.sat.s32", y[3], [sat(x - z) for x, z in pairs], pairs)
    check("add.u32", y[4], [(x + z) & U32 for x, z in pairs], pairs)


def test_add_sub_s32_edges():
    check_addsub32([(a, b) for a in EDGE32 for b in EDGE32])


@SETTINGS
@given(st.lists(st.tuples(i32s, i32s), min_size=1, max_size=64))
def test_add_sub_s32_random(pairs):
    check_addsub32(pairs)


ADDSUB64 = """
add.s64 %y0, %x0, %x1;
sub.s64 %y1, %x0, %x1;
add.u64 %y2, %x0, %x1;
"""


def test_add_sub_64_edges():
    pairs = [(a, b) for a in EDGE64 for b in EDGE64]
    y = run_ew(ADDSUB64, [("s64", [p[0] for p in pairs]), ("s64", [p[1] for p in pairs])], ["s64", "s64", "u64"])
    check("add.s64", y[0], [wrap(a + b, 64, True) for a, b in pairs], pairs)
    check("sub.s64", y[1], [wrap(a - b, 64, True) for a, b in pairs], pairs)
    check("add.u64", y[2], [(a + b) & U64 for a, b in pairs], pairs)


MUL32 = """
mul.lo.s32 %y0, %x0, %x1;
mul.hi.s32 %y1, %x0, %x1;
mul.hi.u32 %y2, %x0, %x1;
mul.wide.s32 %y3, %x0, %x1;
mul.wide.u32 %y4, %x0, %x1;
mad.lo.s32 %y5, %x0, %x1, %x2;
mad.hi.u32 %y6, %x0, %x1, %x2;
mad.wide.s32 %y7, %x0, %x1, %x3;
mad.wide.u32 %y8, %x0, %x1, %x3;
mul.lo.u32 %y9, %x0, 7;
"""


def check_mul32(cases):
    a, b, c, d = ([cs[k] for cs in cases] for k in range(4))
    y = run_ew(MUL32, [("s32", a), ("s32", b), ("s32", c), ("s64", d)],
               ["s32", "s32", "u32", "s64", "u64", "s32", "u32", "s64", "u64", "u32"])
    ua = [v & U32 for v in a]
    ub = [v & U32 for v in b]
    check("mul.lo.s32", y[0], [wrap(x * z, 32, True) for x, z in zip(a, b)], cases)
    check("mul.hi.s32", y[1], [wrap((x * z) >> 32, 32, True) for x, z in zip(a, b)], cases)
    check("mul.hi.u32", y[2], [(x * z) >> 32 for x, z in zip(ua, ub)], cases)
    check("mul.wide.s32", y[3], [x * z for x, z in zip(a, b)], cases)
    check("mul.wide.u32", y[4], [x * z for x, z in zip(ua, ub)], cases)
    check("mad.lo.s32", y[5], [wrap(x * z + w, 32, True) for x, z, w in zip(a, b, c)], cases)
    check("mad.hi.u32", y[6], [(((x * z) >> 32) + (w & U32)) & U32 for x, z, w in zip(ua, ub, c)], cases)
    check("mad.wide.s32", y[7], [wrap(x * z + w, 64, True) for x, z, w in zip(a, b, d)], cases)
    check("mad.wide.u32", y[8], [(x * z + w) & U64 for x, z, w in zip(ua, ub, d)], cases)
    check("mul.lo.u32 imm", y[9], [(x * 7) & U32 for x in ua], cases)


def test_mul32_edges():
    cases = [(a, b, (a ^ b) & 0xFFFF, LONG_MAX if (a + b) % 2 else -(1 << 40) + a)
             for a in EDGE32 for b in EDGE32]
    check_mul32(cases)


@SETTINGS
@given(st.lists(st.tuples(i32s, i32s, i32s, i64s), min_size=1, max_size=64))
def test_mul32_random(cases):
    check_mul32(cases)


MUL64 = """
mul.lo.s64 %y0, %x0, %x1;
mul.hi.s64 %y1, %x0, %x1;
mul.hi.u64 %y2, %x0, %x1;
mad.lo.s64 %y3, %x0, %x1, %x2;
mad.hi.s64 %y4, %x0, %x1, %x2;
mad.hi.u64 %y5, %x0, %x1, %x2;
"""


def check_mul64(cases):
    a, b, c = ([cs[k] for cs in cases] for k in range(3))
    y = run_ew(MUL64, [("s64", a), ("s64", b), ("s64", c)], ["s64", "s64", "u64", "s64", "s64", "u64"])
    ua = [v & U64 for v in a]
    ub = [v & U64 for v in b]
    check("mul.lo.s64", y[0], [wrap(x * z, 64, True) for x, z in zip(a, b)], cases)
    check("mul.hi.s64", y[1], [wrap((x * z) >> 64, 64, True) for x, z in zip(a, b)], cases)
    check("mul.hi.u64", y[2], [(x * z) >> 64 for x, z in zip(ua, ub)], cases)
    check("mad.lo.s64", y[3], [wrap(x * z + w, 64, True) for x, z, w in zip(a, b, c)], cases)
    check("mad.hi.s64", y[4], [wrap(((x * z) >> 64) + w, 64, True) for x, z, w in zip(a, b, c)], cases)
    check("mad.hi.u64", y[5], [(((x * z) >> 64) + w) & U64 for x, z, w in zip(ua, ub, c)], cases)


def test_mul64_edges():
    check_mul64([(a, b, a ^ 0x5A5A) for a in EDGE64 for b in EDGE64])


@SETTINGS
@given(st.lists(st.tuples(i64s, i64s, i64s), min_size=1, max_size=64))
def test_mul64_random(cases):
    check_mul64(cases)


DIV32 = """
div.s32 %y0, %x0, %x1;
rem.s32 %y1, %x0, %x1;
div.u32 %y2, %x0, %x1;
rem.u32 %y3, %x0, %x1;
"""
DIV64 = DIV32.replace("32", "64")


def ref_divrem(a: int, b: int, bits: int, signed: bool) -> tuple[int, int]:
    """Engine convention: x/0 = all ones, x%0 = x; INT_MIN/-1 wraps to INT_MIN, remainder 0."""
    a, b = wrap(a, bits, signed), wrap(b, bits, signed)
    if b == 0:
        return (1 << bits) - 1, a & ((1 << bits) - 1)
    q = tdiv(a, b)
    return q & ((1 << bits) - 1), (a - q * b) & ((1 << bits) - 1)


def check_div(cases, bits):
    a = [c[0] for c in cases]
    b = [c[1] for c in cases]
    t = f"s{bits}"
    u = f"u{bits}"
    y = run_ew(DIV32 if bits == 32 else DIV64, [(t, a), (t, b)], [u] * 4)
    check(f"div.s{bits}", y[0], [ref_divrem(x, z, bits, True)[0] for x, z in cases], cases)
    check(f"rem.s{bits}", y[1], [ref_divrem(x, z, bits, True)[1] for x, z in cases], cases)
    check(f"div.u{bits}", y[2], [ref_divrem(x, z, bits, False)[0] for x, z in cases], cases)
    check(f"rem.u{bits}", y[3], [ref_divrem(x, z, bits, False)[1] for x, z in cases], cases)


def test_div_rem_32_edges():
    check_div([(a, b) for a in EDGE32 for b in EDGE32], 32)


def test_div_rem_32_convention():
    """Spelled out: x/0 -> 0xFFFFFFFF, x%0 -> x, INT_MIN/-1 -> INT_MIN, INT_MIN%-1 -> 0."""
    y = run_ew(DIV32, [("s32", [7, -7, INT_MIN, INT_MIN, -7]), ("s32", [0, 0, -1, 2, 2])], ["u32"] * 4)
    assert y[0] == [U32, U32, 0x80000000, 0xC0000000, 0xFFFFFFFD]
    assert y[1] == [7, (-7) & U32, 0, 0, U32]
    assert y[2] == [U32, U32, 0, 0x40000000, 0x7FFFFFFC]
    assert y[3] == [7, (-7) & U32, 0x80000000, 0, 1]


def test_div_rem_64_edges():
    check_div([(a, b) for a in EDGE64 for b in EDGE64], 64)


@SETTINGS
@given(st.lists(st.tuples(i32s, i32s), min_size=1, max_size=64),
       st.lists(st.tuples(i64s, i64s), min_size=1, max_size=64))
def test_div_rem_random(c32, c64):
    check_div(c32, 32)
    check_div(c64, 64)


# ---------------------------------------------------------------------------------------------
# logic, shifts, min/max, abs/neg
# ---------------------------------------------------------------------------------------------

LOGIC = """
and.b32 %y0, %x0, %x1;
or.b32 %y1, %x0, %x1;
xor.b32 %y2, %x0, %x1;
not.b32 %y3, %x0;
cnot.b32 %y4, %x0;
and.b64 %y5, %x2, %x3;
or.b64 %y6, %x2, %x3;
xor.b64 %y7, %x2, %x3;
not.b64 %y8, %x2;
setp.ne.s32 %p1, %x0, 0;
setp.ne.s32 %p2, %x1, 0;
and.pred %p3, %p1, %p2;
or.pred %p4, %p1, %p2;
xor.pred %p5, %p1, %p2;
not.pred %p6, %p1;
selp.u32 %r4, 1, 0, %p3;
selp.u32 %r5, 2, 0, %p4;
selp.u32 %r6, 4, 0, %p5;
selp.u32 %r7, 8, 0, %p6;
or.b32 %r4, %r4, %r5;
or.b32 %r6, %r6, %r7;
or.b32 %y9, %r4, %r6;
"""


@SETTINGS
@given(st.lists(st.tuples(i32s, i32s, i64s, i64s), min_size=1, max_size=64))
def test_logic(cases):
    a, b, c, d = ([cs[k] for cs in cases] for k in range(4))
    y = run_ew(LOGIC, [("s32", a), ("s32", b), ("s64", c), ("s64", d)], ["u32"] * 5 + ["u64"] * 4 + ["u32"])
    check("and.b32", y[0], [(x & z) & U32 for x, z in zip(a, b)], cases)
    check("or.b32", y[1], [(x | z) & U32 for x, z in zip(a, b)], cases)
    check("xor.b32", y[2], [(x ^ z) & U32 for x, z in zip(a, b)], cases)
    check("not.b32", y[3], [~x & U32 for x in a], cases)
    check("cnot.b32", y[4], [int(x == 0) for x in a], cases)
    check("and.b64", y[5], [(x & z) & U64 for x, z in zip(c, d)], cases)
    check("or.b64", y[6], [(x | z) & U64 for x, z in zip(c, d)], cases)
    check("xor.b64", y[7], [(x ^ z) & U64 for x, z in zip(c, d)], cases)
    check("not.b64", y[8], [~x & U64 for x in c], cases)
    exp = []
    for x, z in zip(a, b):
        p, q = x != 0, z != 0
        exp.append((p and q) | ((p or q) << 1) | ((p != q) << 2) | ((not p) << 3))
    check("and/or/xor/not.pred", y[9], exp, cases)


SHIFT = """
shl.b32 %y0, %x0, %x1;
shr.b32 %y1, %x0, %x1;
shr.u32 %y2, %x0, %x1;
shr.s32 %y3, %x0, %x1;
shl.b64 %y4, %x2, %x1;
shr.u64 %y5, %x2, %x1;
shr.s64 %y6, %x2, %x1;
shr.s32 %y7, %x0, 31;
shl.b32 %y8, %x0, 4;
"""
SHIFTS = [0, 1, 4, 15, 16, 31, 32, 33, 63, 64, 65, 100, 255, 256, 0x7FFFFFFF, 0x80000000, U32]


def check_shift(cases):
    a, s, c = ([cs[k] for cs in cases] for k in range(3))
    y = run_ew(SHIFT, [("s32", a), ("u32", s), ("s64", c)], ["u32"] * 4 + ["u64"] * 3 + ["u32"] * 2)

    def shl(v, n, bits):
        return 0 if n >= bits else (v << n) & ((1 << bits) - 1)

    def shr_u(v, n, bits):
        return 0 if n >= bits else (v & ((1 << bits) - 1)) >> n

    def shr_s(v, n, bits):
        return (wrap(v, bits, True) >> min(n, bits - 1)) & ((1 << bits) - 1)

    check("shl.b32", y[0], [shl(x, n, 32) for x, n in zip(a, s)], cases)
    check("shr.b32", y[1], [shr_u(x, n, 32) for x, n in zip(a, s)], cases)
    check("shr.u32", y[2], [shr_u(x, n, 32) for x, n in zip(a, s)], cases)
    check("shr.s32", y[3], [shr_s(x, n, 32) for x, n in zip(a, s)], cases)
    check("shl.b64", y[4], [shl(x, n, 64) for x, n in zip(c, s)], cases)
    check("shr.u64", y[5], [shr_u(x, n, 64) for x, n in zip(c, s)], cases)
    check("shr.s64", y[6], [shr_s(x, n, 64) for x, n in zip(c, s)], cases)
    check("shr.s32 imm", y[7], [shr_s(x, 31, 32) for x in a], cases)
    check("shl.b32 imm", y[8], [shl(x, 4, 32) for x in a], cases)


def test_shift_edges():
    check_shift([(a, n, EDGE64[i % len(EDGE64)]) for i, (a, n) in enumerate((a, n) for a in EDGE32 for n in SHIFTS)])


@SETTINGS
@given(st.lists(st.tuples(i32s, st.one_of(st.sampled_from(SHIFTS), st.integers(0, 70), st.integers(0, U32)), i64s),
                min_size=1, max_size=64))
def test_shift_random(cases):
    check_shift(cases)


MINMAX = """
min.s32 %y0, %x0, %x1;
max.s32 %y1, %x0, %x1;
min.u32 %y2, %x0, %x1;
max.u32 %y3, %x0, %x1;
abs.s32 %y4, %x0;
neg.s32 %y5, %x0;
min.s64 %y6, %x2, %x3;
max.s64 %y7, %x2, %x3;
min.u64 %y8, %x2, %x3;
max.u64 %y9, %x2, %x3;
abs.s64 %y10, %x2;
neg.s64 %y11, %x2;
"""


def check_minmax(cases):
    a, b, c, d = ([cs[k] for cs in cases] for k in range(4))
    y = run_ew(MINMAX, [("s32", a), ("s32", b), ("s64", c), ("s64", d)],
               ["s32", "s32", "u32", "u32", "s32", "s32", "s64", "s64", "u64", "u64", "s64", "s64"])
    check("min.s32", y[0], [min(x, z) for x, z in zip(a, b)], cases)
    check("max.s32", y[1], [max(x, z) for x, z in zip(a, b)], cases)
    check("min.u32", y[2], [min(x & U32, z & U32) for x, z in zip(a, b)], cases)
    check("max.u32", y[3], [max(x & U32, z & U32) for x, z in zip(a, b)], cases)
    check("abs.s32", y[4], [wrap(abs(x), 32, True) for x in a], cases)
    check("neg.s32", y[5], [wrap(-x, 32, True) for x in a], cases)
    check("min.s64", y[6], [min(x, z) for x, z in zip(c, d)], cases)
    check("max.s64", y[7], [max(x, z) for x, z in zip(c, d)], cases)
    check("min.u64", y[8], [min(x & U64, z & U64) for x, z in zip(c, d)], cases)
    check("max.u64", y[9], [max(x & U64, z & U64) for x, z in zip(c, d)], cases)
    check("abs.s64", y[10], [wrap(abs(x), 64, True) for x in c], cases)
    check("neg.s64", y[11], [wrap(-x, 64, True) for x in c], cases)


def test_minmax_abs_neg_edges():
    check_minmax([(a, b, EDGE64[i % len(EDGE64)], EDGE64[(i * 7) % len(EDGE64)])
                  for i, (a, b) in enumerate((a, b) for a in EDGE32 for b in EDGE32)])


@SETTINGS
@given(st.lists(st.tuples(i32s, i32s, i64s, i64s), min_size=1, max_size=64))
def test_minmax_abs_neg_random(cases):
    check_minmax(cases)


# ---------------------------------------------------------------------------------------------
# bit manipulation: popc, clz, brev, bfe, bfi, prmt
# ---------------------------------------------------------------------------------------------

BITS = """
popc.b32 %y0, %x0;
clz.b32 %y1, %x0;
brev.b32 %y2, %x0;
popc.b64 %y3, %x1;
clz.b64 %y4, %x1;
brev.b64 %y5, %x1;
"""


def check_bits(cases):
    a = [c[0] for c in cases]
    b = [c[1] for c in cases]
    y = run_ew(BITS, [("u32", a), ("u64", b)], ["u32", "u32", "u32", "u32", "u32", "u64"])
    ua = [v & U32 for v in a]
    ub = [v & U64 for v in b]
    check("popc.b32", y[0], [bin(v).count("1") for v in ua], cases)
    check("clz.b32", y[1], [32 - v.bit_length() for v in ua], cases)
    check("brev.b32", y[2], [int(format(v, "032b")[::-1], 2) for v in ua], cases)
    check("popc.b64", y[3], [bin(v).count("1") for v in ub], cases)
    check("clz.b64", y[4], [64 - v.bit_length() for v in ub], cases)
    check("brev.b64", y[5], [int(format(v, "064b")[::-1], 2) for v in ub], cases)


def test_popc_clz_brev_edges():
    check_bits([(a, b) for a, b in zip(EDGE32 * 2, EDGE64 * 2)] + [(0x80000000, 1 << 63), (1, 1), (U32, U64)])


@SETTINGS
@given(st.lists(st.tuples(i32s, i64s), min_size=1, max_size=64))
def test_popc_clz_brev_random(cases):
    check_bits(cases)


def ref_bfe(a: int, pos: int, ln: int, bits: int, signed: bool) -> int:
    """PTX ISA pseudo-code for bfe."""
    a &= (1 << bits) - 1
    msb = bits - 1
    pos &= 0xFF
    ln &= 0xFF
    sbit = 0 if (not signed or ln == 0) else (a >> min(pos + ln - 1, msb)) & 1
    d = 0
    for i in range(bits):
        bit = (a >> (pos + i)) & 1 if (i < ln and pos + i <= msb) else sbit
        d |= bit << i
    return d


def ref_bfi(a: int, b: int, pos: int, ln: int, bits: int) -> int:
    """PTX ISA pseudo-code for bfi: insert the low ln bits of a into b at pos."""
    f = b & ((1 << bits) - 1)
    pos &= 0xFF
    ln &= 0xFF
    i = 0
    while i < ln and pos + i <= bits - 1:
        f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
        i += 1
    return f


def ref_prmt(a: int, b: int, c: int) -> int:
    src = ((b & U32) << 32) | (a & U32)
    r = 0
    for k in range(4):
        sel = (c >> (4 * k)) & 0xF
        byte = (src >> (8 * (sel & 7))) & 0xFF
        if sel & 8:
            byte = 0xFF if byte & 0x80 else 0
        r |= byte << (8 * k)
    return r


BFE = """
bfe.u32 %y0, %x0, %x1, %x2;
bfe.s32 %y1, %x0, %x1, %x2;
bfe.u64 %y2, %x3, %x1, %x2;
bfe.s64 %y3, %x3, %x1, %x2;
bfi.b32 %y4, %x4, %x0, %x1, %x2;
cvt.u64.u32 %rd4, %x0;
bfi.b64 %y5, %rd4, %x3, %x1, %x2;
prmt.b32 %y6, %x0, %x4, %x5;
prmt.b32 %y7, %x0, %x4, 0x3210;
prmt.b32 %y8, %x0, %x4, 0x8888;
"""


def check_bfe(cases):
    a, pos, ln, w, v, sel = ([cs[k] for cs in cases] for k in range(6))
    y = run_ew(BFE, [("u32", a), ("u32", pos), ("u32", ln), ("u64", w), ("u32", v), ("u32", sel)],
               ["u32"] * 2 + ["u64"] * 2 + ["u32", "u64", "u32", "u32", "u32"])
    check("bfe.u32", y[0], [ref_bfe(x, p, n, 32, False) for x, p, n in zip(a, pos, ln)], cases)
    check("bfe.s32", y[1], [ref_bfe(x, p, n, 32, True) for x, p, n in zip(a, pos, ln)], cases)
    check("bfe.u64", y[2], [ref_bfe(x, p, n, 64, False) for x, p, n in zip(w, pos, ln)], cases)
    check("bfe.s64", y[3], [ref_bfe(x, p, n, 64, True) for x, p, n in zip(w, pos, ln)], cases)
    check("bfi.b32", y[4], [ref_bfi(i, x, p, n, 32) for i, x, p, n in zip(v, a, pos, ln)], cases)
    check("bfi.b64", y[5], [ref_bfi(i & U32, x, p, n, 64) for i, x, p, n in zip(a, w, pos, ln)], cases)
    check("prmt.b32", y[6], [ref_prmt(x, z, c) for x, z, c in zip(a, v, sel)], cases)
    check("prmt.b32 0x3210", y[7], [x & U32 for x in a], cases)
    check("prmt.b32 0x8888", y[8], [ref_prmt(x, 0, 0x8888) for x in a], cases)


BFE_POS = [0, 1, 4, 8, 16, 24, 30, 31, 32, 33, 40, 63, 64, 100, 255, 256 + 3]
BFE_LEN = [0, 1, 2, 7, 8, 16, 24, 31, 32, 33, 40, 63, 64, 65, 100, 200, 255, 256 + 5]


def test_bfe_bfi_prmt_edges():
    vals = [0x87654321, 0xF0F0F0F0, 0x7FFFFFFF, 0x80000001, 0xFFFFFFFF, 0x12345678]
    cases = []
    for i, (p, n) in enumerate((p, n) for p in BFE_POS for n in BFE_LEN):
        a = vals[i % len(vals)]
        cases.append((a, p, n, (0xFEDCBA9876543210 + i * 0x1111) & U64, 0x0BADF00D ^ i, (i * 0x9E3779B9) & U32))
    check_bfe(cases)


@SETTINGS
@given(st.lists(st.tuples(i32s, st.integers(0, 300), st.integers(0, 300), i64s, i32s, i32s), min_size=1, max_size=64))
def test_bfe_bfi_prmt_random(cases):
    check_bfe(cases)


MISC = """
shf.l.wrap.b32 %y0, %x0, %x1, %x2;
shf.r.wrap.b32 %y1, %x0, %x1, %x2;
shf.l.clamp.b32 %y2, %x0, %x1, %x2;
shf.r.clamp.b32 %y3, %x0, %x1, %x2;
shf.l.wrap.b32 %y4, %x0, %x0, 7;
sad.u32 %y5, %x0, %x1, %x2;
sad.s32 %y6, %x0, %x1, %x2;
mov.b64 %y7, {%x0, %x1};
mov.b64 {%r4, %r5}, %x3;
sub.s32 %y8, %r5, %r4;
set.lt.u32.s32 %y9, %x0, %x1;
set.hs.u32.u32 %y10, %x0, %x1;
slct.s32.s32 %y11, %x0, %x1, %x2;
"""


def ref_shf(a: int, b: int, c: int, left: bool, wrap: bool) -> int:
    """PTX ISA pseudo-code for shf (funnel shift of {b, a})."""
    a, b, c = a & U32, b & U32, c & U32
    n = (c & 31) if wrap else min(c, 32)
    if left:
        return ((b << n) | (a >> (32 - n))) & U32
    return ((b << (32 - n)) | (a >> n)) & U32


def check_misc(cases):
    a, b, c, d = ([cs[k] for cs in cases] for k in range(4))
    y = run_ew(MISC, [("s32", a), ("s32", b), ("s32", c), ("s64", d)],
               ["u32"] * 7 + ["u64", "s32", "u32", "u32", "s32"])
    for k, (left, wrapped) in enumerate([(True, True), (False, True), (True, False), (False, False)]):
        name = f"shf.{'l' if left else 'r'}.{'wrap' if wrapped else 'clamp'}.b32"
        check(name, y[k], [ref_shf(x, z, n, left, wrapped) for x, z, n in zip(a, b, c)], cases)
    check("shf.l.wrap rotate", y[4], [ref_shf(x, x, 7, True, True) for x in a], cases)
    check("sad.u32", y[5], [(abs((x & U32) - (z & U32)) + w) & U32 for x, z, w in zip(a, b, c)], cases)
    check("sad.s32", y[6], [(abs(x - z) + w) & U32 for x, z, w in zip(a, b, c)], cases)
    check("mov.b64 pack", y[7], [(x & U32) | ((z & U32) << 32) for x, z in zip(a, b)], cases)
    check("mov.b64 unpack", y[8], [wrap(wrap(v >> 32, 32, True) - wrap(v, 32, True), 32, True) for v in d], cases)
    check("set.lt.u32.s32", y[9], [U32 if x < z else 0 for x, z in zip(a, b)], cases)
    check("set.hs.u32.u32", y[10], [U32 if x & U32 >= z & U32 else 0 for x, z in zip(a, b)], cases)
    check("slct.s32.s32", y[11], [x if wrap(w, 32, True) >= 0 else z for x, z, w in zip(a, b, c)], cases)


def test_shf_sad_set_slct_mov_edges():
    shifts = [0, 1, 7, 31, 32, 33, 63, 64, 100, U32, INT_MIN]
    check_misc([(a, EDGE32[(i * 5) % len(EDGE32)], n, EDGE64[i % len(EDGE64)])
                for i, (a, n) in enumerate((a, n) for a in EDGE32 for n in shifts)])


@SETTINGS
@given(st.lists(st.tuples(i32s, i32s, st.one_of(st.integers(0, 40), i32s), i64s), min_size=1, max_size=64))
def test_shf_sad_set_slct_mov_random(cases):
    check_misc(cases)


SET_F = """
set.gtu.f32.f32 %y0, %x0, %x1;
set.lt.u32.f32 %y1, %x0, %x1;
slct.f32.f32 %y2, %x0, %x1, %x1;
set.num.u32.f64 %y3, %x2, %x2;
"""


def test_set_slct_float():
    cases = [(a, b, EDGE_F64[i % len(EDGE_F64)]) for i, (a, b) in enumerate((a, b) for a in EDGE_F32 for b in EDGE_F32)]
    a, b, d = ([float(cs[k]) for cs in cases] for k in range(3))
    y = run_ew(SET_F, [("f32", a), ("f32", b), ("f64", d)], ["f32", "u32", "f32", "u32"])
    fa = [float(np.float32(v)) for v in a]
    fb = [float(np.float32(v)) for v in b]
    check("set.gtu.f32.f32", y[0], [np.float32(1.0 if ref_fcmp("gtu", x, z) else 0.0) for x, z in zip(fa, fb)],
          cases, t="f32")
    check("set.lt.u32.f32", y[1], [U32 if ref_fcmp("lt", x, z) else 0 for x, z in zip(fa, fb)], cases)
    check("slct.f32.f32", y[2], [np.float32(x if z >= 0 else z) for x, z in zip(fa, fb)], cases, t="f32")
    check("set.num.u32.f64", y[3], [0 if math.isnan(v) else U32 for v in d], cases)


# ---------------------------------------------------------------------------------------------
# comparison and selection
# ---------------------------------------------------------------------------------------------

def setp_body(cmps: list[str], ty: str, a: str = "%x0", b: str = "%x1", dst: str = "%y0") -> str:
    lines = [f"mov.u32 {dst}, 0;"]
    for k, cmp in enumerate(cmps):
        lines += [f"setp.{cmp}.{ty} %p1, {a}, {b};", f"selp.u32 %r4, {1 << k}, 0, %p1;", f"or.b32 {dst}, {dst}, %r4;"]
    return "\n".join(lines)


SCMP = ["eq", "ne", "lt", "le", "gt", "ge"]
UCMP = ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"]
FCMP = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]
ICMP_REF = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
            "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
            "lo": lambda a, b: a < b, "ls": lambda a, b: a <= b, "hi": lambda a, b: a > b,
            "hs": lambda a, b: a >= b}

SETP_INT = "\n".join([setp_body(SCMP, "s32"), setp_body(UCMP, "u32", dst="%y1"),
                      setp_body(["eq", "ne"], "b32", dst="%y2"),
                      setp_body(SCMP, "s64", "%x2", "%x3", dst="%y3"), setp_body(UCMP, "u64", "%x2", "%x3", dst="%y4")])


def bits_of(cmps, ref, a, b):
    return sum(int(bool(ref(c, a, b))) << k for k, c in enumerate(cmps))


def check_setp_int(cases):
    a, b, c, d = ([cs[k] for cs in cases] for k in range(4))
    y = run_ew(SETP_INT, [("s32", a), ("s32", b), ("s64", c), ("s64", d)], ["u32"] * 5)
    iref = lambda cmp, x, z: ICMP_REF[cmp](x, z)  # noqa: E731
    check("setp.*.s32", y[0], [bits_of(SCMP, iref, x, z) for x, z in zip(a, b)], cases)
    check("setp.*.u32", y[1], [bits_of(UCMP, iref, x & U32, z & U32) for x, z in zip(a, b)], cases)
    check("setp.*.b32", y[2], [bits_of(["eq", "ne"], iref, x, z) for x, z in zip(a, b)], cases)
    check("setp.*.s64", y[3], [bits_of(SCMP, iref, x, z) for x, z in zip(c, d)], cases)
    check("setp.*.u64", y[4], [bits_of(UCMP, iref, x & U64, z & U64) for x, z in zip(c, d)], cases)


def test_setp_int_edges():
    check_setp_int([(a, b, EDGE64[i % len(EDGE64)], EDGE64[(i // len(EDGE64)) % len(EDGE64)])
                    for i, (a, b) in enumerate((a, b) for a in EDGE32 for b in EDGE32)])


@SETTINGS
@given(st.lists(st.tuples(i32s, i32s, i64s, i64s), min_size=1, max_size=64))
def test_setp_int_random(cases):
    # make equality common
    check_setp_int(cases + [(a, a, c, c) for a, _, c, _ in cases[:8]])


SETP_F = setp_body(FCMP, "f32") + "\n" + setp_body(FCMP, "f64", "%x2", "%x3", dst="%y1")


def check_setp_float(cases):
    a, b, c, d = ([cs[k] for cs in cases] for k in range(4))
    y = run_ew(SETP_F, [("f32", a), ("f32", b), ("f64", c), ("f64", d)], ["u32", "u32"])
    check("setp.*.f32", y[0], [bits_of(FCMP, ref_fcmp, float(np.float32(x)), float(np.float32(z)))
                                for x, z in zip(a, b)], cases)
    check("setp.*.f64", y[1], [bits_of(FCMP, ref_fcmp, x, z) for x, z in zip(c, d)], cases)


def test_setp_float_edges():
    cases = [(a, b, EDGE_F64[i % len(EDGE_F64)], EDGE_F64[(i // 3) % len(EDGE_F64)])
             for i, (a, b) in enumerate((a, b) for a in EDGE_F32 for b in EDGE_F32)]
    cases += [(0.0, -0.0, 0.0, -0.0), (math.nan, math.nan, math.nan, math.nan), (1.0, math.nan, math.nan, 1.0)]
    check_setp_float(cases)


@SETTINGS
@given(st.lists(st.tuples(f32s, f32s, f64s, f64s), min_size=1, max_size=64))
def test_setp_float_random(cases):
    check_setp_float(cases)


SETP_COMBINE = """
setp.ne.u32 %p3, %x2, 0;
setp.lt.and.s32 %p1|%p2, %x0, %x1, %p3;
selp.u32 %r4, 1, 0, %p1;
selp.u32 %r5, 2, 0, %p2;
or.b32 %y0, %r4, %r5;
setp.lt.or.s32 %p1|%p2, %x0, %x1, %p3;
selp.u32 %r4, 1, 0, %p1;
selp.u32 %r5, 2, 0, %p2;
or.b32 %y1, %r4, %r5;
setp.lt.xor.s32 %p1|%p2, %x0, %x1, %p3;
selp.u32 %r4, 1, 0, %p1;
selp.u32 %r5, 2, 0, %p2;
or.b32 %y2, %r4, %r5;
setp.ge.and.s32 %p1|%p2, %x0, %x1, !%p3;
selp.u32 %r4, 1, 0, %p1;
selp.u32 %r5, 2, 0, %p2;
or.b32 %y3, %r4, %r5;
setp.lt.s32 %p1|%p2, %x0, %x1;
selp.u32 %r4, 1, 0, %p1;
selp.u32 %r5, 2, 0, %p2;
or.b32 %y4, %r4, %r5;
setp.gtu.or.f32 %p1|%p2, %x3, 0f00000000, %p3;
selp.u32 %r4, 1, 0, %p1;
selp.u32 %r5, 2, 0, %p2;
or.b32 %y5, %r4, %r5;
selp.b32 %y6, %x0, %x1, %p3;
selp.f32 %y7, %x3, 0f3F800000, %p3;
cvt.s64.s32 %rd4, %x0;
selp.b64 %y8, %rd4, -5, %p3;
selp.s32 %y9, 11, -3, !%p3;
@%p3 add.s32 %y9, %y9, 100;
@!%p3 sub.s32 %y9, %y9, 100;
"""


def test_setp_combine_and_selp():
    cases = [(a, b, c, f) for a in (-3, 0, 5) for b in (-3, 0, 5) for c in (0, 1, 7)
             for f in (1.0, -1.0, math.nan, 0.0)]
    a, b, c, f = ([cs[k] for cs in cases] for k in range(4))
    y = run_ew(SETP_COMBINE, [("s32", a), ("s32", b), ("u32", c), ("f32", f)],
               ["u32"] * 6 + ["s32", "f32", "s64", "s32"])
    pk = lambda p, q: int(p) | (int(q) << 1)  # noqa: E731
    check("setp.lt.and |", y[0], [pk((x < z) and w != 0, (not x < z) and w != 0) for x, z, w, _ in cases], cases)
    check("setp.lt.or |", y[1], [pk((x < z) or w != 0, (not x < z) or w != 0) for x, z, w, _ in cases], cases)
    check("setp.lt.xor |", y[2], [pk((x < z) != (w != 0), (not x < z) != (w != 0)) for x, z, w, _ in cases], cases)
    check("setp.ge.and !p", y[3], [pk((x >= z) and w == 0, (not x >= z) and w == 0) for x, z, w, _ in cases], cases)
    check("setp.lt |", y[4], [pk(x < z, not x < z) for x, z, _, _ in cases], cases)
    check("setp.gtu.or.f32 |", y[5], [pk(ref_fcmp("gtu", g, 0.0) or w != 0, (not ref_fcmp("gtu", g, 0.0)) or w != 0)
                                      for _, _, w, g in cases], cases)
    check("selp.b32", y[6], [x if w else z for x, z, w, _ in cases], cases)
    check("selp.f32", y[7], [np.float32(g if w else 1.0) for _, _, w, g in cases], cases, t="f32")
    check("selp.b64", y[8], [x if w else -5 for x, _, w, _ in cases], cases)
    check("selp imm + guards", y[9], [(-3 + 100) if w else (11 - 100) for _, _, w, _ in cases], cases)


# ---------------------------------------------------------------------------------------------
# conversions
# ---------------------------------------------------------------------------------------------

F2I = """
cvt.rni.s32.f32 %y0, %x0;
cvt.rzi.s32.f32 %y1, %x0;
cvt.rmi.s32.f32 %y2, %x0;
cvt.rpi.s32.f32 %y3, %x0;
cvt.rzi.u32.f32 %y4, %x0;
cvt.rni.u32.f32 %y5, %x0;
cvt.rzi.s64.f32 %y6, %x0;
cvt.rni.u64.f32 %y7, %x0;
cvt.rni.s32.f64 %y8, %x1;
cvt.rzi.s64.f64 %y9, %x1;
cvt.rmi.u64.f64 %y10, %x1;
cvt.rni.f32.f32 %y11, %x0;
cvt.rzi.f32.f32 %y12, %x0;
cvt.rmi.f32.f32 %y13, %x0;
cvt.rpi.f32.f32 %y14, %x0;
cvt.rni.f64.f64 %y15, %x1;
cvt.sat.f32.f32 %y16, %x0;
"""
F2I_VALUES = [0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 2.4999998, 8388609.0, 16777216.0,
              0.99999994, -0.99999994, 1e10, -1e10, 2147483520.0, 2147483648.0, -2147483648.0,
              -2147483904.0, 4294967040.0, 4294967296.0, 9.223371e18, 9.223372e18, 1.8446743e19,
              1.9e19, -9.3e18, math.nan, math.inf, -math.inf, FLT_TRUE_MIN, -1e-40, 123.456, -77.75, 1.0, 0.25]
F2I_F64 = [0.0, -0.0, 0.5, 2.5, -2.5, 3.5, 2147483647.4, 2147483647.5, -2147483648.5, -2147483649.0, 1e19,
           -1e19, 9.2233720368547748e18, 1.8446744073709552e19, 1.8e19, math.nan, math.inf, -math.inf,
           5e-324, 4503599627370497.5, -0.7, 1e300]


def check_f2i(cases):
    f = [c[0] for c in cases]
    d = [c[1] for c in cases]
    y = run_ew(F2I, [("f32", f), ("f64", d)],
               ["s32", "s32", "s32", "s32", "u32", "u32", "s64", "u64", "s32", "s64", "u64",
                "f32", "f32", "f32", "f32", "f64", "f32"])
    f = [float(np.float32(v)) for v in f]
    for k, (mode, bits, signed) in enumerate([("rni", 32, True), ("rzi", 32, True), ("rmi", 32, True),
                                              ("rpi", 32, True), ("rzi", 32, False), ("rni", 32, False),
                                              ("rzi", 64, True), ("rni", 64, False)]):
        check(f"cvt.{mode}.{'s' if signed else 'u'}{bits}.f32", y[k],
              [ref_f2i(v, mode, bits, signed) for v in f], cases)
    check("cvt.rni.s32.f64", y[8], [ref_f2i(v, "rni", 32, True, True) for v in d], cases)
    check("cvt.rzi.s64.f64", y[9], [ref_f2i(v, "rzi", 64, True, True) for v in d], cases)
    check("cvt.rmi.u64.f64", y[10], [ref_f2i(v, "rmi", 64, False, True) for v in d], cases)

    def fround(v, mode, ty):
        if not math.isfinite(v):
            return ty(v)
        r = ref_f2i(v, mode, 2000, True)      # exact integer rounding (no saturation at 2000 bits)
        return ty(math.copysign(float(r), v)) if r == 0 else ty(r)

    for k, mode in enumerate(["rni", "rzi", "rmi", "rpi"]):
        check(f"cvt.{mode}.f32.f32", y[11 + k], [fround(v, mode, np.float32) for v in f], cases, t="f32")
    check("cvt.rni.f64.f64", y[15], [fround(v, "rni", np.float64) for v in d], cases, t="f64")
    # ptxas: FADD.SAT d, RZ, a, so -0 gives +0 (+0 + -0) and NaN 0
    check("cvt.sat.f32.f32", y[16], [np.float32(0.0 if math.isnan(v) else min(max(v + 0.0, 0.0), 1.0)) for v in f],
          cases, t="f32")


def test_cvt_float_to_int_edges():
    n = max(len(F2I_VALUES), len(F2I_F64))
    check_f2i([(F2I_VALUES[i % len(F2I_VALUES)], F2I_F64[i % len(F2I_F64)]) for i in range(n)])


@SETTINGS
@given(st.lists(st.tuples(f32s, f64s), min_size=1, max_size=64))
def test_cvt_float_to_int_random(cases):
    check_f2i(cases)


I2F = """
cvt.rn.f32.s32 %y0, %x0;
cvt.rz.f32.s32 %y1, %x0;
cvt.rm.f32.s32 %y2, %x0;
cvt.rp.f32.s32 %y3, %x0;
cvt.rn.f32.u32 %y4, %x0;
cvt.rz.f32.u32 %y5, %x0;
cvt.rn.f32.s64 %y6, %x1;
cvt.rz.f32.s64 %y7, %x1;
cvt.rm.f32.s64 %y8, %x1;
cvt.rp.f32.s64 %y9, %x1;
cvt.rn.f32.u64 %y10, %x1;
cvt.rn.f64.s64 %y11, %x1;
cvt.rn.f64.u64 %y12, %x1;
cvt.rn.f64.s32 %y13, %x0;
"""
I2F_32 = [0, 1, -1, 16777216, 16777217, 16777218, 16777219, -16777217, -16777219, 33554435, INT_MAX, INT_MIN,
          INT_MAX - 64, INT_MAX - 63, 0x7FFFFFBF, 0x7FFFFFC0, -0x7FFFFFC1, 0xFFFFFF7F - (1 << 32),
          0xFFFFFF80 - (1 << 32), 123456789, -123456789]
I2F_64 = [0, 1, -1, LONG_MAX, LONG_MIN, LONG_MIN + 1, (1 << 53) + 1, (1 << 53) + 3, -(1 << 53) - 1,
          (1 << 24) + 1, (1 << 40) + (1 << 16) + 1, (1 << 40) + (1 << 16), -((1 << 40) + (1 << 16) + 1),
          0x7FFFFF8000000000, 0x7FFFFF8000000001, 0x7FFFFF7FFFFFFFFF, -(0x7FFFFF8000000001),
          (1 << 63) + (1 << 39) - (1 << 64), U64 - (1 << 64), 0x123456789ABCDEF, -0x0FEDCBA987654321]


def check_i2f(cases):
    a = [c[0] for c in cases]
    b = [c[1] for c in cases]
    y = run_ew(I2F, [("s32", a), ("s64", b)], ["f32"] * 11 + ["f64"] * 3)
    for k, mode in enumerate(["rn", "rz", "rm", "rp"]):
        check(f"cvt.{mode}.f32.s32", y[k], [round_exact(Fraction(v), "f32", mode) for v in a], cases, t="f32")
    check("cvt.rn.f32.u32", y[4], [round_exact(Fraction(v & U32), "f32", "rn") for v in a], cases, t="f32")
    check("cvt.rz.f32.u32", y[5], [round_exact(Fraction(v & U32), "f32", "rz") for v in a], cases, t="f32")
    for k, mode in enumerate(["rn", "rz", "rm", "rp"]):
        check(f"cvt.{mode}.f32.s64", y[6 + k], [round_exact(Fraction(v), "f32", mode) for v in b], cases, t="f32")
    check("cvt.rn.f32.u64", y[10], [round_exact(Fraction(v & U64), "f32", "rn") for v in b], cases, t="f32")
    check("cvt.rn.f64.s64", y[11], [round_exact(Fraction(v), "f64") for v in b], cases, t="f64")
    check("cvt.rn.f64.u64", y[12], [round_exact(Fraction(v & U64), "f64") for v in b], cases, t="f64")
    check("cvt.rn.f64.s32", y[13], [np.float64(v) for v in a], cases, t="f64")


def test_cvt_int_to_float_edges():
    n = max(len(I2F_32), len(I2F_64))
    check_i2f([(I2F_32[i % len(I2F_32)], I2F_64[i % len(I2F_64)]) for i in range(n)])


@SETTINGS
@given(st.lists(st.tuples(i32s, i64s), min_size=1, max_size=64))
def test_cvt_int_to_float_random(cases):
    check_i2f(cases)


F2F = """
cvt.rn.f32.f64 %y0, %x0;
cvt.f64.f32 %y1, %x1;
cvt.ftz.f64.f32 %y2, %x1;
cvt.rn.ftz.f32.f64 %y3, %x0;
"""
F2F_VALUES = [1.0 + 2.0 ** -24, 1.0 + 2.0 ** -24 + 2.0 ** -50, 1.0 + 3 * 2.0 ** -24, 1.0 - 2.0 ** -25,
              1e39, -1e39, 3.4028235677973366e38, 3.4028235677973362e38, FLT_MAX, 2.0 ** -150,
              2.0 ** -150 * (1 + 2.0 ** -40), 2.0 ** -149 * 1.5, 2.0 ** -149 * 2.5, -2.0 ** -151, 1e-300,
              FLT_MIN * (1 - 2.0 ** -30), 0.1, -0.0, math.inf, math.nan, 5e-324]


def check_f2f(cases):
    d = [c[0] for c in cases]
    f = [c[1] for c in cases]
    y = run_ew(F2F, [("f64", d), ("f32", f)], ["f32", "f64", "f64", "f32"])

    def d2f(v):
        return np.float32(v) if not math.isfinite(v) else round_exact(Fraction(v), "f32") if v != 0 \
            else np.float32(v)

    check("cvt.rn.f32.f64", y[0], [d2f(v) for v in d], cases, t="f32")
    check("cvt.f64.f32", y[1], [np.float64(np.float32(v)) for v in f], cases, t="f64")
    check("cvt.ftz.f64.f32", y[2], [np.float64(flush(v)) for v in f], cases, t="f64")
    check("cvt.rn.ftz.f32.f64", y[3], [flush(d2f(v)) for v in d], cases, t="f32")


def test_cvt_float_float_edges():
    check_f2f([(v, EDGE_F32[i % len(EDGE_F32)]) for i, v in enumerate(F2F_VALUES)])


@SETTINGS
@given(st.lists(st.tuples(f64s, f32s), min_size=1, max_size=64))
def test_cvt_float_float_random(cases):
    check_f2f(cases)


F2F_DIRECTED = """
cvt.rz.f32.f64 %y0, %x0;
cvt.rm.f32.f64 %y1, %x0;
cvt.rp.f32.f64 %y2, %x0;
cvt.rz.f64.s64 %y3, %x1;
"""


def test_cvt_directed_rounding_f64_sources():
    d = [1.0 + 2.0 ** -24 + 2.0 ** -40, -(1.0 + 2.0 ** -24 + 2.0 ** -40), 1e39, 0.1, 1.0]
    s = [(1 << 53) + 3, -((1 << 53) + 3), 3, LONG_MAX, 1]
    y = run_ew(F2F_DIRECTED, [("f64", d), ("s64", s)], ["f32", "f32", "f32", "f64"])
    for k, mode in enumerate(["rz", "rm", "rp"]):
        check(f"cvt.{mode}.f32.f64", y[k], [round_exact(Fraction(v), "f32", mode) for v in d], d, t="f32")
    check("cvt.rz.f64.s64", y[3], [round_exact(Fraction(v), "f64", "rz") for v in s], s, t="f64")


INTCVT = """
cvt.u16.u32 %rs1, %x0;
cvt.u32.u16 %y0, %rs1;
cvt.s32.s16 %y1, %rs1;
cvt.s16.s32 %rs2, %x0;
cvt.s32.s16 %y2, %rs2;
cvt.u32.s16 %y3, %rs2;
cvt.sat.s16.s32 %rs3, %x0;
cvt.s32.s16 %y4, %rs3;
cvt.sat.u16.s32 %rs4, %x0;
cvt.u32.u16 %y5, %rs4;
cvt.sat.u32.s32 %y6, %x0;
cvt.sat.s32.u32 %y7, %x0;
cvt.s32.s8 %y8, %x0;
cvt.u32.u8 %y9, %x0;
cvt.sat.s8.s32 %r4, %x0;
cvt.s32.s8 %y10, %r4;
cvt.s64.s32 %y11, %x0;
cvt.u64.u32 %y12, %x0;
cvt.u64.s32 %y13, %x0;
cvt.u32.u64 %y14, %x1;
cvt.s32.s64 %y15, %x1;
cvt.sat.s32.s64 %y16, %x1;
cvt.sat.u32.s64 %y17, %x1;
cvt.sat.u64.s64 %y18, %x1;
cvt.sat.s64.u64 %y19, %x1;
cvt.s16.s64 %rs5, %x1;
mov.b32 %y20, {%rs5, %rs1};
"""


def check_intcvt(cases):
    a = [c[0] for c in cases]
    b = [c[1] for c in cases]
    outs = ["u32", "s32", "s32", "u32", "s32", "u32", "u32", "s32", "s32", "u32", "s32",
            "s64", "u64", "u64", "u32", "s32", "s32", "u32", "u64", "s64", "u32"]
    y = run_ew(INTCVT, [("s32", a), ("s64", b)], outs)
    sat = lambda v, lo, hi: min(max(v, lo), hi)  # noqa: E731
    check("cvt.u16.u32 -> cvt.u32.u16", y[0], [v & 0xFFFF for v in a], cases)
    check("cvt.u16.u32 -> cvt.s32.s16", y[1], [wrap(v, 16, True) for v in a], cases)
    check("cvt.s16.s32 -> cvt.s32.s16", y[2], [wrap(v, 16, True) for v in a], cases)
    check("cvt.s16.s32 -> cvt.u32.s16", y[3], [wrap(v, 16, True) & U32 for v in a], cases)
    check("cvt.sat.s16.s32", y[4], [sat(v, -32768, 32767) for v in a], cases)
    check("cvt.sat.u16.s32", y[5], [sat(v, 0, 65535) for v in a], cases)
    check("cvt.sat.u32.s32", y[6], [max(v, 0) for v in a], cases)
    check("cvt.sat.s32.u32", y[7], [min(v & U32, INT_MAX) for v in a], cases)
    check("cvt.s32.s8", y[8], [wrap(v, 8, True) for v in a], cases)
    check("cvt.u32.u8", y[9], [v & 0xFF for v in a], cases)
    check("cvt.sat.s8.s32", y[10], [sat(v, -128, 127) for v in a], cases)
    check("cvt.s64.s32", y[11], list(a), cases)
    check("cvt.u64.u32", y[12], [v & U32 for v in a], cases)
    check("cvt.u64.s32", y[13], [v & U64 for v in a], cases)
    check("cvt.u32.u64", y[14], [v & U32 for v in b], cases)
    check("cvt.s32.s64", y[15], [wrap(v, 32, True) for v in b], cases)
    check("cvt.sat.s32.s64", y[16], [sat(v, INT_MIN, INT_MAX) for v in b], cases)
    check("cvt.sat.u32.s64", y[17], [sat(v, 0, U32) for v in b], cases)
    check("cvt.sat.u64.s64", y[18], [max(v, 0) for v in b], cases)
    check("cvt.sat.s64.u64", y[19], [min(v & U64, LONG_MAX) for v in b], cases)
    check("mov.b32 {lo16, hi16} pack", y[20], [(v & 0xFFFF) | ((w & 0xFFFF) << 16) for v, w in zip(b, a)], cases)


def test_cvt_int_int_edges():
    extra = [0x7FFF, 0x8000, 0xFFFF, 0x18000, -32768, -32769, 32768, 127, 128, -128, -129, 255, 256]
    vals = EDGE32 + extra
    check_intcvt([(v, EDGE64[i % len(EDGE64)]) for i, v in enumerate(vals)])


@SETTINGS
@given(st.lists(st.tuples(i32s, i64s), min_size=1, max_size=64))
def test_cvt_int_int_random(cases):
    check_intcvt(cases)


def test_cvt_sat_u64_u64_identity():
    y = run_ew("cvt.sat.u64.u64 %y0, %x0;", [("u64", [U64, 1 << 63, 5])], ["u64"])
    assert y[0] == [U64, 1 << 63, 5]


# ---------------------------------------------------------------------------------------------
# floating-point arithmetic
# ---------------------------------------------------------------------------------------------

F32ARITH = """
add.rn.f32 %y0, %x0, %x1;
sub.rn.f32 %y1, %x0, %x1;
mul.rn.f32 %y2, %x0, %x1;
div.rn.f32 %y3, %x0, %x1;
add.f32 %y4, %x0, %x1;
min.f32 %y5, %x0, %x1;
max.f32 %y6, %x0, %x1;
abs.f32 %y7, %x0;
neg.f32 %y8, %x0;
copysign.f32 %y9, %x0, %x1;
mul.f32 %y10, %x0, 0f40400000;
"""


def check_f32arith(cases):
    a = np.array([c[0] for c in cases], np.float32)
    b = np.array([c[1] for c in cases], np.float32)
    y = run_ew(F32ARITH, [("f32", a), ("f32", b)], ["f32"] * 11)
    with np.errstate(all="ignore"):
        check("add.rn.f32", y[0], a + b, cases, t="f32")
        check("sub.rn.f32", y[1], a - b, cases, t="f32")
        check("mul.rn.f32", y[2], a * b, cases, t="f32")
        check("div.rn.f32", y[3], a / b, cases, t="f32")
        check("add.f32", y[4], a + b, cases, t="f32")
        check("mul.f32 imm", y[10], a * np.float32(3.0), cases, t="f32")
    check("min.f32", y[5], [np.float32(ref_minmax(float(x), float(z), False)) for x, z in zip(a, b)], cases, t="f32")
    check("max.f32", y[6], [np.float32(ref_minmax(float(x), float(z), True)) for x, z in zip(a, b)], cases, t="f32")
    check("abs.f32", y[7], [f32_from_bits(fbits(x) & 0x7FFFFFFF) for x in a], cases, t="f32")
    check("neg.f32", y[8], [f32_from_bits(fbits(x) ^ 0x80000000) for x in a], cases, t="f32")
    check("copysign.f32", y[9], [f32_from_bits((fbits(z) & 0x7FFFFFFF) | (fbits(x) & 0x80000000))
                                 for x, z in zip(a, b)], cases, t="f32")


def test_f32_arith_edges():
    check_f32arith([(a, b) for a in EDGE_F32 for b in EDGE_F32])


@SETTINGS
@given(st.lists(st.tuples(f32s, f32s), min_size=1, max_size=64))
def test_f32_arith_random(cases):
    check_f32arith(cases)


FMA = """
fma.rn.f32 %y0, %x0, %x1, %x2;
mad.rn.f32 %y1, %x0, %x1, %x2;
fma.rn.f64 %y2, %x3, %x4, %x5;
"""

# a*b + c where the naive float64 a*b + c (rounded again to float32) double-rounds the wrong way:
# a*b = 2^-24 (1 + m 2^-23)(1 - m 2^-23) = 2^-24 - m^2 2^-70, c = 1 + k 2^-23 with k odd, so the exact
# sum sits just below a float32 halfway point that float64 cannot see.
DOUBLE_ROUNDING_F32 = [(2.0 ** -24 * (1 + m * 2.0 ** -23), 1 - m * 2.0 ** -23, sgn * (1 + k * 2.0 ** -23))
                       for m in (1, 3, 5) for k in (1, 3, 7) for sgn in (1,)]
DOUBLE_ROUNDING_F32 += [(-a, b, -c) for a, b, c in DOUBLE_ROUNDING_F32]
# float64 fma cases where a*b rounded first loses the answer.
FMA64_HARD = [(1 + 2.0 ** -30, 1 + 2.0 ** -30, -1.0), (1 + 2.0 ** -52, 1 - 2.0 ** -52, -1.0),
              (0.1, 10.0, -1.0), (3.0, 1 / 3, -1.0), (1e308, 10.0, -math.inf), (1e308, 10.0, -1e308),
              (2.0 ** -537, 2.0 ** -537, 0.0), (5e-324, 0.5, 0.0), (-0.0, 1.0, 0.0), (-0.0, 1.0, -0.0),
              (math.inf, 0.0, 1.0), (math.nan, 1.0, 1.0), (1.0, 1.0, -1.0)]


def check_fma(cases):
    cols = [[c[k] for c in cases] for k in range(6)]
    y = run_ew(FMA, [("f32", cols[0]), ("f32", cols[1]), ("f32", cols[2]),
                     ("f64", cols[3]), ("f64", cols[4]), ("f64", cols[5])], ["f32", "f32", "f64"])
    f32c = [[np.float32(v) for v in col] for col in cols[:3]]
    exp32 = [ref_fma(a, b, c, "f32") for a, b, c in zip(*f32c)]
    check("fma.rn.f32", y[0], exp32, cases, t="f32")
    check("mad.rn.f32", y[1], exp32, cases, t="f32")
    check("fma.rn.f64", y[2], [ref_fma(a, b, c, "f64") for a, b, c in zip(*cols[3:])], cases, t="f64")


def test_fma_double_rounding_cases():
    naive_wrong = 0
    for a, b, c in DOUBLE_ROUNDING_F32:
        a, b, c = np.float32(a), np.float32(b), np.float32(c)
        naive = np.float32(np.float64(a) * np.float64(b) + np.float64(c))
        naive_wrong += fbits(naive) != fbits(ref_fma(a, b, c, "f32"))
    assert naive_wrong == len(DOUBLE_ROUNDING_F32)       # the cases really are hard ones
    cases = [(a, b, c) + FMA64_HARD[i % len(FMA64_HARD)] for i, (a, b, c) in enumerate(DOUBLE_ROUNDING_F32)]
    cases += [(1.0, 1.0, 1.0) + t for t in FMA64_HARD]
    cases += [(a, b, c, 1.0, 1.0, 1.0) for a in EDGE_F32[:12] for b in (FLT_MAX, -1.5, FLT_TRUE_MIN)
              for c in (0.0, -0.0, 1.0, math.inf)]
    check_fma(cases)


@SETTINGS
@given(st.lists(st.tuples(f32s, f32s, f32s, f64s, f64s, f64s), min_size=1, max_size=48))
def test_fma_random(cases):
    check_fma(cases)


@SETTINGS
@given(st.lists(st.tuples(st.floats(0.5, 2, width=32), st.floats(0.5, 2, width=32), st.floats(-4, 4, width=32),
                          st.floats(0.5, 2), st.floats(0.5, 2), st.floats(-4, 4)), min_size=1, max_size=48))
def test_fma_random_cancellation_range(cases):
    check_fma(cases)


SFU = """
sqrt.rn.f32 %y0, %x0;
rcp.rn.f32 %y1, %x0;
sqrt.rn.f64 %y2, %x1;
rcp.rn.f64 %y3, %x1;
add.f64 %y4, %x1, %x2;
mul.f64 %y5, %x1, %x2;
div.rn.f64 %y6, %x1, %x2;
min.f64 %y7, %x1, %x2;
max.f64 %y8, %x1, %x2;
sub.f64 %y9, %x1, %x2;
neg.f64 %y10, %x1;
"""


def check_sfu(cases):
    f = np.array([c[0] for c in cases], np.float32)
    d = [c[1] for c in cases]
    e = [c[2] for c in cases]
    y = run_ew(SFU, [("f32", f), ("f64", d), ("f64", e)], ["f32", "f32"] + ["f64"] * 9)
    check("sqrt.rn.f32", y[0], [ref_sqrt(v, "f32") for v in f], cases, t="f32")
    with np.errstate(all="ignore"):
        check("sqrt.rn.f32 vs numpy", y[0], np.sqrt(f), cases, t="f32")
        check("rcp.rn.f32", y[1], [ref_rcp(v, "f32") for v in f], cases, t="f32")
        check("sqrt.rn.f64", y[2], [ref_sqrt(v, "f64") for v in d], cases, t="f64")
        check("rcp.rn.f64", y[3], [ref_rcp(v, "f64") for v in d], cases, t="f64")
        da, db = np.array(d), np.array(e)
        check("add.f64", y[4], da + db, cases, t="f64")
        check("mul.f64", y[5], da * db, cases, t="f64")
        check("div.rn.f64", y[6], da / db, cases, t="f64")
        check("min.f64", y[7], [ref_minmax(x, z, False) for x, z in zip(d, e)], cases, t="f64")
        check("max.f64", y[8], [ref_minmax(x, z, True) for x, z in zip(d, e)], cases, t="f64")
        check("sub.f64", y[9], da - db, cases, t="f64")
        check("neg.f64", y[10], -da, cases, t="f64")


def test_sqrt_rcp_f64_edges():
    f = EDGE_F32 + [2.0, 4.0, 1e-38, 5.0, 0.3]
    d = EDGE_F64 + [2.0, 1e-310, 4.0, 1.7976931348623157e308 / 3, 3.0, 7.0, 1e-320, 2.0 ** 1023, 0.3, 1e308]
    check_sfu([(f[i % len(f)], d[i % len(d)], d[(i * 5 + 1) % len(d)]) for i in range(len(f) * len(d))])


@SETTINGS
@given(st.lists(st.tuples(f32s, f64s, f64s), min_size=1, max_size=64))
def test_sqrt_rcp_f64_random(cases):
    check_sfu(cases)


DIRECTED_OPS = ["add", "sub", "mul", "div", "fma", "sqrt", "rcp"]
DIRECTED = "\n".join(
    f"{op}.{mode}.f32 %y{3 * k + m}, " + {"sqrt": "%x0", "rcp": "%x0", "fma": "%x0, %x1, %x2"}.get(op, "%x0, %x1") + ";"
    for k, op in enumerate(DIRECTED_OPS) for m, mode in enumerate(["rz", "rm", "rp"]))


def ref_directed(op: str, a, b, c, mode: str):
    """IEEE float32 op under a directed rounding mode, from exact rationals."""
    a, b, c = float(np.float32(a)), float(np.float32(b)), float(np.float32(c))
    neg_zero_sum = -0.0 if mode == "rm" else 0.0          # sign of an exact zero sum
    if op in ("add", "sub"):
        y = b if op == "add" else -b
        if not (math.isfinite(a) and math.isfinite(y)):
            return np.float32(a + y) if not (math.isinf(a) and math.isinf(y) and a != y) else np.float32(math.nan)
        exact = Fraction(a) + Fraction(y)
        if exact == 0:
            same = a == 0 and y == 0 and math.copysign(1, a) == math.copysign(1, y)
            return np.float32(a if same else neg_zero_sum)
        return round_exact(exact, "f32", mode)
    if op == "mul":
        if not (math.isfinite(a) and math.isfinite(b)):
            with np.errstate(all="ignore"):
                return np.float32(a) * np.float32(b)
        exact = Fraction(a) * Fraction(b)
        if exact == 0:
            return np.float32(math.copysign(0.0, math.copysign(1, a) * math.copysign(1, b)))
        return round_exact(exact, "f32", mode)
    if op == "div":
        if not (math.isfinite(a) and math.isfinite(b)) or b == 0 or a == 0:
            with np.errstate(all="ignore"):
                return np.float32(a) / np.float32(b)
        return round_exact(Fraction(a) / Fraction(b), "f32", mode)
    if op == "fma":
        if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
            return ref_fma(a, b, c, "f32")
        exact = Fraction(a) * Fraction(b) + Fraction(c)
        if exact == 0:
            pneg = math.copysign(1, a) * math.copysign(1, b) < 0
            cneg = math.copysign(1, c) < 0
            if (a == 0 or b == 0) and c == 0 and pneg == cneg:
                return np.float32(c)
            return np.float32(neg_zero_sum)
        return round_exact(exact, "f32", mode)
    if op == "rcp":
        if a == 0 or not math.isfinite(a):
            return ref_rcp(a, "f32")
        return round_exact(1 / Fraction(a), "f32", mode)
    # sqrt: the result is positive, so rz == rm
    r = ref_sqrt(a, "f32")
    if not (math.isfinite(r) and r > 0):
        return r
    fa = Fraction(a)
    if Fraction(float(r)) ** 2 > fa:
        r = np.nextafter(r, np.float32(0))
    if mode == "rp" and Fraction(float(r)) ** 2 < fa:
        r = np.nextafter(r, np.float32(math.inf))
    return r


def check_directed(cases):
    cols = [[np.float32(cs[k]) for cs in cases] for k in range(3)]
    y = run_ew(DIRECTED, [("f32", cols[0]), ("f32", cols[1]), ("f32", cols[2])], ["f32"] * 21)
    for k, op in enumerate(DIRECTED_OPS):
        for m, mode in enumerate(["rz", "rm", "rp"]):
            check(f"{op}.{mode}.f32", y[3 * k + m], [ref_directed(op, a, b, c, mode) for a, b, c in zip(*cols)],
                  cases, t="f32")


def test_f32_directed_rounding_edges():
    vals = EDGE_F32 + [1 + 2.0 ** -23, -(1 + 2.0 ** -23), 2.0 ** -24, 3.0, 2.0, 1e-45 * 3]
    cases = [(a, b, vals[(i * 7) % len(vals)]) for i, (a, b) in enumerate((a, b) for a in vals for b in vals)]
    cases += [(1.0, -1.0, 0.0), (-0.0, 0.0, -0.0), (-0.0, -0.0, 0.0), (2.0, 1e-45, -2.0), (1.0, 2.0 ** -30, 1.0)]
    cases += [(a, b, c) for a, b, c in DOUBLE_ROUNDING_F32]
    check_directed(cases)


@SETTINGS
@given(st.lists(st.tuples(f32s, f32s, f32s), min_size=1, max_size=64))
def test_f32_directed_rounding_random(cases):
    check_directed(cases)


FTZ = """
add.ftz.f32 %y0, %x0, %x1;
mul.ftz.f32 %y1, %x0, %x1;
fma.rn.ftz.f32 %y2, %x0, %x1, %x1;
sqrt.rn.ftz.f32 %y3, %x0;
setp.eq.ftz.f32 %p1, %x0, 0f00000000;
selp.u32 %y4, 1, 0, %p1;
mul.f32 %y5, %x0, %x1;
min.ftz.f32 %y6, %x0, %x1;
"""


def check_ftz(cases):
    a = np.array([c[0] for c in cases], np.float32)
    b = np.array([c[1] for c in cases], np.float32)
    y = run_ew(FTZ, [("f32", a), ("f32", b)], ["f32"] * 4 + ["u32", "f32", "f32"])
    fa = [flush(v) for v in a]
    fb = [flush(v) for v in b]
    with np.errstate(all="ignore"):
        check("add.ftz.f32", y[0], [flush(x + z) for x, z in zip(fa, fb)], cases, t="f32")
        check("mul.ftz.f32", y[1], [flush(x * z) for x, z in zip(fa, fb)], cases, t="f32")
        check("fma.rn.ftz.f32", y[2], [flush(ref_fma(x, z, z, "f32")) for x, z in zip(fa, fb)], cases, t="f32")
        check("sqrt.rn.ftz.f32", y[3], [flush(ref_sqrt(x, "f32")) for x in fa], cases, t="f32")
        check("setp.eq.ftz.f32", y[4], [int(x == 0) for x in fa], cases)
        check("mul.f32 (no ftz) keeps subnormals", y[5], a * b, cases, t="f32")
        check("min.ftz.f32", y[6], [flush(np.float32(ref_minmax(float(x), float(z), False))) for x, z in zip(fa, fb)],
              cases, t="f32")


def test_ftz():
    sub = [FLT_TRUE_MIN, -FLT_TRUE_MIN, 1e-40, -3e-39, FLT_MIN, 1e-20, 1.0, -0.0, 0.0, 2.0 ** -70, 3.0]
    cases = [(a, b) for a in sub for b in sub]
    check_ftz(cases)


@SETTINGS
@given(st.lists(st.tuples(st.floats(float(np.float32(-1e-37)), float(np.float32(1e-37)), width=32),
                          st.floats(-4, 4, width=32)), min_size=1, max_size=64))
def test_ftz_random(cases):
    check_ftz(cases)


# ---------------------------------------------------------------------------------------------
# memory: sub-word loads/stores, vectors
# ---------------------------------------------------------------------------------------------

SUBWORD = """
ld.global.s8 %y1, [%ai0];
ld.global.s16 %y3, [%ai1];
ld.global.s8 %rs1, [%ai0];
cvt.s32.s16 %y4, %rs1;
ld.global.u16 %rs2, [%ai1];
cvt.s32.s16 %y5, %rs2;
mov.u32 %y0, %x0;
mov.u32 %y2, %x1;
mov.u32 %y6, %x2;
mov.u32 %y7, %x2;
"""


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, 255), st.integers(0, 65535), i32s), min_size=1, max_size=64))
def test_ld_st_subword(cases):
    u8 = [c[0] for c in cases]
    u16 = [c[1] for c in cases]
    w = [c[2] for c in cases]
    y = run_ew(SUBWORD, [("u8", u8), ("u16", u16), ("u32", w)],
               ["u32", "u32", "u32", "u32", "s32", "s32", "u8", "u16"])
    check("ld.global.u8 -> b32", y[0], u8, cases)
    check("ld.global.s8 -> b32 (sign-extended)", y[1], [wrap(v, 8, True) & U32 for v in u8], cases)
    check("ld.global.u16 -> b32", y[2], u16, cases)
    check("ld.global.s16 -> b32 (sign-extended)", y[3], [wrap(v, 16, True) & U32 for v in u16], cases)
    check("ld.global.s8 -> b16 -> cvt.s32.s16", y[4], [wrap(v, 8, True) for v in u8], cases)
    check("ld.global.u16 -> cvt.s32.s16", y[5], [wrap(v, 16, True) for v in u16], cases)
    check("st.global.u8 (low byte of b32)", y[6], [v & 0xFF for v in w], cases)
    check("st.global.u16 (low half of b32)", y[7], [v & 0xFFFF for v in w], cases)


def test_ld_st_subword_neighbours_untouched():
    """st.u8 / st.u16 write exactly their bytes: neighbouring bytes of the same word survive."""
    src = HEADER + """
.visible .entry k(.param .u64 k_param_0)
{
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd1, [k_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, 0x1234ABCD;
	st.global.u8 	[%rd2+1], %r1;
	st.global.u16 	[%rd2+6], %r1;
	ld.global.u8 	%r2, [%rd2+1];
	ld.global.s16 	%r3, [%rd2+6];
	st.global.u32 	[%rd2+8], %r2;
	st.global.u32 	[%rd2+12], %r3;
	ret;
}
"""
    buf = np.full(16, 0x11, np.uint8)
    out = launch(program(src), 1, 1, ["b"], {"b": buf}).buffers["b"]
    assert list(out[:8]) == [0x11, 0xCD, 0x11, 0x11, 0x11, 0x11, 0xCD, 0xAB]
    assert out[8:12].view(np.uint32)[0] == 0xCD
    assert out[12:16].view(np.uint32)[0] == 0xFFFFABCD


VECTOR = """
ld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%ai0];
st.global.v4.u32 [%ao0], {%r7, %r6, %r5, %r4};
ld.global.v2.f32 {%f1, %f2}, [%ai1];
sub.f32 %f3, %f1, %f2;
st.global.v2.f32 [%ao1], {%f3, %f1};
ld.global.v2.u64 {%rd4, %rd5}, [%ai2];
add.s64 %rd6, %rd4, %rd5;
st.global.v2.u64 [%ao2], {%rd5, %rd6};
ld.global.v4.u16 {%rs1, %rs2, %rs3, %rs4}, [%ai3];
cvt.u32.u16 %r8, %rs1;
cvt.u32.u16 %r9, %rs4;
st.global.v2.u32 [%ao3], {%r9, %r8};
"""


@SETTINGS
@given(st.lists(st.tuples(st.tuples(*[st.integers(0, U32)] * 4), st.tuples(f32s, f32s),
                          st.tuples(i64s, i64s), st.tuples(*[st.integers(0, 65535)] * 4)), min_size=1, max_size=64))
def test_vector_ld_st(cases):
    v4 = [c[0] for c in cases]
    f2 = [c[1] for c in cases]
    l2 = [c[2] for c in cases]
    h4 = [c[3] for c in cases]
    y = run_ew(VECTOR, [("u32x4", v4), ("f32x2", f2), ("s64x2", l2), ("u16x4", h4)],
               ["u32x4", "f32x2", "u64x2", "u32x2"])
    check("ld/st.v4.u32", [tuple(int(x) for x in r) for r in y[0]], [tuple(v[::-1]) for v in v4], cases)
    f = np.array(f2, np.float32).reshape(-1, 2)
    with np.errstate(all="ignore"):
        check("ld/st.v2.f32 [0]", list(y[1][:, 0]), f[:, 0] - f[:, 1], cases, t="f32")
    check("ld/st.v2.f32 [1]", list(y[1][:, 1]), f[:, 0], cases, t="f32")
    check("ld/st.v2.u64", [tuple(int(x) for x in r) for r in y[2]],
          [(b & U64, (a + b) & U64) for a, b in l2], cases)
    check("ld.v4.u16", [tuple(int(x) for x in r) for r in y[3]], [(h[3], h[0]) for h in h4], cases)


def test_vector_ld_signed_subword_extends():
    body = """
ld.global.v2.s16 {%r4, %r5}, [%ai0];
st.global.v2.u32 [%ao0], {%r4, %r5};
"""
    cases = [(0x8001, 0x7FFF), (0xFFFF, 1)]
    y = run_ew(body, [("u16x2", cases)], ["u32x2"])
    check("ld.global.v2.s16", [tuple(int(x) for x in r) for r in y[0]],
          [tuple(wrap(v, 16, True) & U32 for v in c) for c in cases], cases)


# ---------------------------------------------------------------------------------------------
# atomics
# ---------------------------------------------------------------------------------------------

ATOM_MULTI = """
atom.global.add.u32 %y0, [%ao2], 1;
atom.global.add.u32 %y1, [%ao2+4], %x0;
atom.global.min.s32 %r4, [%ao2+8], %x0;
atom.global.max.s32 %r4, [%ao2+12], %x0;
atom.global.min.u32 %r4, [%ao2+16], %x0;
atom.global.max.u32 %r4, [%ao2+20], %x0;
atom.global.and.b32 %r4, [%ao2+24], %x0;
atom.global.or.b32 %r4, [%ao2+28], %x0;
atom.global.xor.b32 %r4, [%ao2+32], %x0;
red.global.add.u32 [%ao2+36], %x0;
and.b32 %r5, %x0, 255;
cvt.rn.f32.u32 %f1, %r5;
atom.global.add.f32 %f2, [%ao2+40], %f1;
cvt.u64.u32 %rd2, %x0;
atom.global.add.u64 %rd3, [%ao2+48], %rd2;
cvt.s64.s32 %rd2, %x0;
atom.global.min.s64 %rd3, [%ao2+56], %rd2;
atom.global.max.s64 %rd3, [%ao2+64], %rd2;
"""


@SETTINGS
@given(st.lists(i32s, min_size=1, max_size=200))
def test_atomics_commutative(vals):
    """Many threads (two blocks when possible) hit the same words: the final values are order
    independent, and the old values returned by atom.add form a chain."""
    n = len(vals)
    acc = np.zeros(10, np.uint64)
    acc32 = acc.view(np.uint32)
    acc32[:10] = [0, 0, INT_MAX, INT_MIN & U32, U32, 0, U32, 0, 0, 0]
    acc[7] = LONG_MAX
    acc[8] = LONG_MIN & U64
    # the third "output" is the accumulator: stride 0, so every thread gets its base address
    src = elementwise_src(ATOM_MULTI, ("s32",), ("u32", "u32", "u64x0"))
    nblk, block = (2, n // 2) if n % 2 == 0 else (1, n)
    res = launch(program(src), nblk, block, ["x", "o0", "o1", "acc"],
                 {"x": np.array(vals, np.int32), "o0": np.zeros(n, np.uint32), "o1": np.zeros(n, np.uint32),
                  "acc": acc})
    a = res.buffers["acc"]
    a32 = a.view(np.uint32)
    u = [v & U32 for v in vals]
    assert sorted(res.buffers["o0"].tolist()) == list(range(n))
    assert a32[0] == n
    assert a32[1] == sum(u) & U32
    olds = res.buffers["o1"].tolist()
    assert sorted(olds + [int(a32[1])]) == sorted([0] + [(o + v) & U32 for o, v in zip(olds, u)])
    assert int(a32[2]) == min(vals) & U32
    assert int(a32[3]) == max(vals) & U32
    assert int(a32[4]) == min(u)
    assert int(a32[5]) == max(u)
    and_, or_, xor_ = U32, 0, 0
    for v in u:
        and_ &= v
        or_ |= v
        xor_ ^= v
    assert (int(a32[6]), int(a32[7]), int(a32[8])) == (and_, or_, xor_)
    assert int(a32[9]) == sum(u) & U32
    assert float(a32[10:11].view(np.float32)[0]) == float(sum(v & 255 for v in u))
    assert int(a[6]) == sum(u) & U64
    assert int(a[7]) == min(vals) & U64
    assert int(a[8]) == max(vals) & U64


ATOM_SEQ = HEADER + """
.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1, .param .u64 k_param_2)
{
	.reg .b32 	%r<24>;
	.reg .b64 	%rd<16>;
	.reg .f32 	%f<4>;
	ld.param.u64 	%rd1, [k_param_0];
	cvta.to.global.u64 	%rd1, %rd1;
	ld.param.u64 	%rd2, [k_param_1];
	cvta.to.global.u64 	%rd2, %rd2;
	ld.param.u64 	%rd3, [k_param_2];
	cvta.to.global.u64 	%rd3, %rd3;
	atom.global.exch.b32 	%r1, [%rd1], 111;
	atom.global.cas.b32 	%r2, [%rd1+4], 5, 77;
	atom.global.cas.b32 	%r3, [%rd1+8], 5, 88;
	atom.global.inc.u32 	%r4, [%rd1+12], 3;
	atom.global.inc.u32 	%r5, [%rd1+12], 3;
	atom.global.inc.u32 	%r6, [%rd1+12], 3;
	atom.global.dec.u32 	%r7, [%rd1+16], 5;
	atom.global.dec.u32 	%r8, [%rd1+16], 5;
	atom.global.dec.u32 	%r9, [%rd1+20], 5;
	atom.global.add.f32 	%f1, [%rd1+24], 0f3FC00000;
	mov.b32 	%r10, %f1;
	atom.global.min.s32 	%r11, [%rd1+28], -5;
	atom.global.max.u32 	%r12, [%rd1+32], -2147483648;
	atom.global.exch.b32 	%r13, [%rd1+36], %r1;
	atom.global.inc.u32 	%r14, [%rd1+40], -1;
	atom.global.dec.u32 	%r15, [%rd1+44], 0;
	st.global.v4.u32 	[%rd3], {%r1, %r2, %r3, %r4};
	st.global.v4.u32 	[%rd3+16], {%r5, %r6, %r7, %r8};
	st.global.v4.u32 	[%rd3+32], {%r9, %r10, %r11, %r12};
	st.global.v2.u32 	[%rd3+48], {%r13, %r14};
	st.global.u32 	[%rd3+56], %r15;
	mov.u64 	%rd4, 7;
	mov.u64 	%rd5, -9;
	atom.global.add.u64 	%rd6, [%rd2], -1;
	atom.global.cas.b64 	%rd7, [%rd2+8], %rd4, %rd5;
	atom.global.cas.b64 	%rd8, [%rd2+16], %rd4, %rd5;
	atom.global.min.s64 	%rd9, [%rd2+24], %rd5;
	atom.global.max.u64 	%rd10, [%rd2+32], %rd5;
	atom.global.exch.b64 	%rd11, [%rd2+40], %rd4;
	st.global.v2.u64 	[%rd3+64], {%rd6, %rd7};
	st.global.v2.u64 	[%rd3+80], {%rd8, %rd9};
	st.global.v2.u64 	[%rd3+96], {%rd10, %rd11};
	ret;
}
"""


def test_atomics_single_thread_sequence():
    m = np.array([1, 5, 6, 2, 0, 9, 0, 3, 7, 42, 123, 0], np.uint32)
    m[6] = np.float32(2.25).view(np.uint32)
    m64 = np.array([5, 7, 8, 1 << 40, 3, 99], np.uint64)
    out = np.zeros(16, np.uint64)
    r = launch(program(ATOM_SEQ), 1, 1, ["m", "m64", "out"], {"m": m, "m64": m64, "out": out}).buffers
    o32 = r["out"].view(np.uint32)[:15].tolist()
    assert o32 == [1, 5, 6, 2, 3, 0, 0, 5, 9, int(np.float32(2.25).view(np.uint32)), 3, 7, 42, 123, 0], o32
    mm = r["m"]
    assert mm[:6].tolist() == [111, 77, 6, 1, 4, 5]
    assert float(mm[6:7].view(np.float32)[0]) == 3.75
    assert mm[7:12].tolist() == [(-5) & U32, 0x80000000, 1, 124, 0]
    assert r["out"][8:14].tolist() == [5, 7, 8, 1 << 40, 3, 99]
    assert r["m64"].tolist() == [4, (-9) & U64, 8, (-9) & U64, (-9) & U64, 7]


# ---------------------------------------------------------------------------------------------
# shared memory and barriers
# ---------------------------------------------------------------------------------------------

SHARED = HEADER + """
.visible .entry k(.param .u64 k_param_0)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<32>;
	.reg .b64 	%rd<16>;
	// demoted variables
	.shared .align 4 .b8 _ZZ1kE2sh[256];
	.shared .align 4 .u32 _ZZ1kE3cnt;
	ld.param.u64 	%rd1, [k_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mad.lo.s32 	%r4, %r2, %r3, %r1;
	shl.b32 	%r5, %r1, 2;
	mov.u32 	%r6, _ZZ1kE2sh;
	add.s32 	%r7, %r6, %r5;
	mul.lo.s32 	%r8, %r1, 65539;
	mad.lo.s32 	%r8, %r2, 1000, %r8;
	// the second warp dawdles before storing: without the barrier warp 0 would read zeros
	setp.lt.u32 	%p1, %r1, 32;
	mov.u32 	%r9, 0;
	@%p1 bra 	$L__BB0_2;
$L__BB0_1:
	add.s32 	%r9, %r9, 1;
	setp.lt.u32 	%p2, %r9, 20;
	@%p2 bra 	$L__BB0_1;
$L__BB0_2:
	st.shared.u32 	[%r7], %r8;
	atom.shared.add.u32 	%r10, [_ZZ1kE3cnt], 1;
	bar.sync 	0;
	sub.s32 	%r11, 63, %r1;
	shl.b32 	%r12, %r11, 2;
	add.s32 	%r13, %r6, %r12;
	ld.shared.u32 	%r14, [%r13];
	ld.shared.u32 	%r15, [_ZZ1kE3cnt];
	// the same word through a generic address
	mov.u64 	%rd3, _ZZ1kE2sh;
	cvta.shared.u64 	%rd4, %rd3;
	cvt.u64.u32 	%rd5, %r12;
	add.s64 	%rd6, %rd4, %rd5;
	ld.u32 	%r16, [%rd6];
	ld.shared.u16 	%r17, [%r13+2];
	ld.shared.u8 	%r18, [%r13];
	mul.wide.u32 	%rd7, %r4, 24;
	add.s64 	%rd8, %rd2, %rd7;
	st.global.v2.u32 	[%rd8], {%r14, %r15};
	st.global.v2.u32 	[%rd8+8], {%r16, %r17};
	st.global.v2.u32 	[%rd8+16], {%r18, %r10};
	ret;
}
"""


def test_shared_memory_and_barrier():
    nblk = 3
    out = np.zeros((nblk * 64, 6), np.uint32)
    r = launch(program(SHARED), nblk, 64, ["o"], {"o": out}, LaunchConfig(max_resident_blocks=2)).buffers["o"]
    for b in range(nblk):
        rows = r[b * 64:(b + 1) * 64]
        for t in range(64):
            v = (63 - t) * 65539 + b * 1000
            assert rows[t, :5].tolist() == [v, 64, v, v >> 16, v & 0xFF], (b, t, rows[t].tolist())
        assert sorted(rows[:, 5].tolist()) == list(range(64))      # atom.shared olds, per block


# ---------------------------------------------------------------------------------------------
# warp-level: vote, activemask, shfl
# ---------------------------------------------------------------------------------------------

VOTE = """
setp.ne.u32 %p1, %x0, 0;
vote.sync.any.pred %p2, %p1, -1;
selp.u32 %y0, 1, 0, %p2;
vote.sync.all.pred %p3, %p1, -1;
selp.u32 %y1, 1, 0, %p3;
vote.sync.uni.pred %p4, %p1, -1;
selp.u32 %y2, 1, 0, %p4;
vote.sync.ballot.b32 %y3, %p1, -1;
vote.sync.any.pred %p5, !%p1, -1;
selp.u32 %y4, 1, 0, %p5;
vote.sync.ballot.b32 %y5, !%p1, 0xffffffff;
"""


def warps_of(n: int, block: int, ws: int = 32):
    """Global thread indices grouped by warp (blocks padded only up to n)."""
    groups = []
    for b0 in range(0, n, block):
        for w0 in range(b0, min(b0 + block, n), ws):
            groups.append(list(range(w0, min(w0 + ws, b0 + block, n))))
    return groups


def check_vote(bits, block):
    n = len(bits)
    y = run_ew(VOTE, [("u32", bits)], ["u32"] * 6, block=block)
    exp = [[0] * n for _ in range(6)]
    for g in warps_of(-(-n // block) * block, block):
        vals = [bits[i] if i < n else 0 for i in g]   # padding threads run too, with input 0
        ballot = sum(1 << k for k, v in enumerate(vals) if v)
        nballot = sum(1 << k for k, v in enumerate(vals) if not v)
        for i in g:
            if i < n:
                exp[0][i] = int(any(vals))
                exp[1][i] = int(all(vals))
                exp[2][i] = int(all(vals) or not any(vals))
                exp[3][i] = ballot
                exp[4][i] = int(not all(vals))
                exp[5][i] = nballot
    for k, name in enumerate(["any", "all", "uni", "ballot", "any !p", "ballot !p"]):
        check(f"vote.sync.{name}", y[k], exp[k], bits)


def test_vote_fixed():
    check_vote([1] * 32 + [0] * 32 + [i % 3 == 0 for i in range(48)], 48)
    check_vote([1] * 40, 40)           # second warp of 8 lanes: all over active lanes only


@SETTINGS
@given(st.lists(st.integers(0, 1), min_size=1, max_size=130), st.sampled_from([32, 48, 64, 96]))
def test_vote_random(bits, block):
    check_vote(bits, block)


ACTIVEMASK = """
activemask.b32 %y0;
setp.ne.u32 %p1, %x0, 0;
@%p1 bra $L__BB0_2;
activemask.b32 %y1;
bra.uni $L__BB0_3;
$L__BB0_2:
activemask.b32 %y1;
mov.u32 %r4, %laneid;
and.b32 %r5, %r4, 1;
setp.eq.u32 %p2, %r5, 0;
@%p2 bra $L__BB0_3;
activemask.b32 %y2;
$L__BB0_3:
activemask.b32 %y3;
"""


def check_activemask(bits, block):
    n = len(bits)
    y = run_ew(ACTIVEMASK, [("u32", bits)], ["u32"] * 4, block=block)
    exp = [[0] * n for _ in range(4)]
    for g in warps_of(-(-n // block) * block, block):
        vals = [bits[i] if i < n else 0 for i in g]
        full = (1 << len(g)) - 1
        taken = sum(1 << k for k, v in enumerate(vals) if v)
        odd_taken = sum(1 << k for k, v in enumerate(vals) if v and k % 2)
        for k, i in enumerate(g):
            if i < n:
                exp[0][i] = full
                exp[1][i] = taken if vals[k] else full & ~taken
                exp[2][i] = odd_taken if (vals[k] and k % 2) else 0
                exp[3][i] = full
    for k, name in enumerate(["converged", "divergent if/else", "nested", "reconverged"]):
        check(f"activemask {name}", y[k], exp[k], bits)


def test_activemask_fixed():
    check_activemask([i % 2 for i in range(64)], 64)
    check_activemask([1] * 10 + [0] * 30, 40)


@SETTINGS
@given(st.lists(st.integers(0, 1), min_size=1, max_size=130), st.sampled_from([32, 40, 64]))
def test_activemask_random(bits, block):
    check_activemask(bits, block)


SHFL_CONFIGS = []
for _w in (32, 16, 4, 1):
    SHFL_CONFIGS += [("idx", ((32 - _w) << 8) | 31), ("up", (32 - _w) << 8), ("down", ((32 - _w) << 8) | 31),
                     ("bfly", ((32 - _w) << 8) | 31)]
SHFL_CONFIGS += [("idx", 0x0F), ("down", 0x0F), ("bfly", 0x0F), ("down", 0x817)]


def shfl_body(configs, b_operand="%x1"):
    lines = []
    for k, (mode, c) in enumerate(configs):
        lines += [f"shfl.sync.{mode}.b32 %r4|%p1, %x0, {b_operand}, {c}, -1;",
                  "selp.u32 %r5, 1, 0, %p1;",
                  f"st.global.v2.u32 [%ao0+{8 * k}], {{%r4, %r5}};"]
    return "\n".join(lines)


def ref_shfl(mode: str, vals, bs, c: int, ws: int = 32):
    """PTX ISA shfl.sync semantics for full warps: returns (d, p) per thread."""
    d, p = [], []
    for t in range(len(vals)):
        lane, base = t % ws, t - t % ws
        bval = bs[t] & 31
        cval = c & 31
        mask = (c >> 8) & 31
        max_lane = (lane & mask) | (cval & ~mask)
        min_lane = lane & mask
        if mode == "up":
            j = lane - bval
            ok = j >= max_lane
        elif mode == "down":
            j = lane + bval
            ok = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bval
            ok = j <= max_lane
        else:
            j = min_lane | (bval & ~mask)
            ok = j <= max_lane
        if not ok:
            j = lane
        d.append(vals[base + j])
        p.append(int(ok))
    return d, p


def check_shfl(vals, bs, configs=SHFL_CONFIGS):
    y = run_ew(shfl_body(configs), [("u32", vals), ("u32", bs)], [f"u32x{2 * len(configs)}"])[0]
    for k, (mode, c) in enumerate(configs):
        d, p = ref_shfl(mode, vals, bs, c)
        check(f"shfl.sync.{mode} c={c:#x} value", [int(v) for v in y[:, 2 * k]], d, list(zip(range(len(bs)), bs)))
        check(f"shfl.sync.{mode} c={c:#x} pred", [int(v) for v in y[:, 2 * k + 1]], p, list(zip(range(len(bs)), bs)))


def test_shfl_fixed():
    vals = [(i * 2654435761) & U32 for i in range(64)]
    for bs in ([1] * 64, [i % 32 for i in range(64)], [(31 - i) % 32 for i in range(64)], [5] * 64, [0] * 64,
               [16] * 64, [3 * i % 32 for i in range(64)]):
        check_shfl(vals, bs)


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, U32), st.integers(0, 31)), min_size=32, max_size=32), st.integers(0, 31))
def test_shfl_random(lanes, extra):
    vals = [v for v, _ in lanes] + [(v * 3 + extra) & U32 for v, _ in lanes]
    bs = [b for _, b in lanes] + [(b + extra) % 32 for _, b in lanes]
    check_shfl(vals, bs)


def test_shfl_immediate_and_no_predicate():
    body = """
shfl.sync.bfly.b32 %r4, %x0, 1, 0x1f, -1;
shfl.sync.idx.b32 %r5, %x0, 3, 0x1f, -1;
shfl.sync.down.b32 %r6|%p1, %x0, 16, 0x1f, -1;
shfl.sync.up.b32 %r7|%p2, %x0, 1, 0, -1;
selp.u32 %r8, 1, 0, %p1;
selp.u32 %r9, 2, 0, %p2;
or.b32 %r8, %r8, %r9;
st.global.v4.u32 [%ao0], {%r4, %r5, %r6, %r7};
st.global.u32 [%ao0+16], %r8;
"""
    vals = [1000 + i for i in range(64)]
    y = run_ew(body, [("u32", vals)], ["u32x8"])[0]
    for t in range(64):
        lane, base = t % 32, t - t % 32
        exp = [vals[base + (lane ^ 1)], vals[base + 3], vals[base + lane + 16] if lane < 16 else vals[t],
               vals[t - 1] if lane >= 1 else vals[t], int(lane < 16) | (int(lane >= 1) << 1)]
        assert [int(v) for v in y[t][:5]] == exp, (t, y[t].tolist(), exp)


def test_shfl_idx_source_lane_modulo_32():
    vals = [7 * i + 1 for i in range(32)]
    bs = [(i + 1) % 32 + 32 for i in range(32)]
    check_shfl(vals, bs, [("idx", 0x1F), ("down", 0x1F)])


# ---------------------------------------------------------------------------------------------
# special registers
# ---------------------------------------------------------------------------------------------

SREG = HEADER + """
.visible .entry k(.param .u64 k_param_0)
{
	.reg .b32 	%r<40>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd1, [k_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, %tid.y;
	mov.u32 	%r3, %tid.z;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %ntid.y;
	mov.u32 	%r6, %ntid.z;
	mov.u32 	%r7, %ctaid.x;
	mov.u32 	%r8, %ctaid.y;
	mov.u32 	%r9, %ctaid.z;
	mov.u32 	%r10, %nctaid.x;
	mov.u32 	%r11, %nctaid.y;
	mov.u32 	%r12, %nctaid.z;
	mov.u32 	%r13, %laneid;
	mov.u32 	%r14, %warpid;
	// linear block id and thread id, then the global record index
	mad.lo.s32 	%r20, %r9, %r11, %r8;
	mad.lo.s32 	%r20, %r20, %r10, %r7;
	mad.lo.s32 	%r21, %r3, %r5, %r2;
	mad.lo.s32 	%r21, %r21, %r4, %r1;
	mul.lo.s32 	%r22, %r4, %r5;
	mul.lo.s32 	%r22, %r22, %r6;
	mad.lo.s32 	%r23, %r20, %r22, %r21;
	mul.wide.u32 	%rd3, %r23, 64;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.v4.u32 	[%rd4], {%r1, %r2, %r3, %r4};
	st.global.v4.u32 	[%rd4+16], {%r5, %r6, %r7, %r8};
	st.global.v4.u32 	[%rd4+32], {%r9, %r10, %r11, %r12};
	st.global.v4.u32 	[%rd4+48], {%r13, %r14, %r23, %r21};
	ret;
}
"""


@pytest.mark.parametrize("grid,block,resident", [((2, 3, 2), (4, 2, 3), 32), ((3, 1, 2), (8, 4, 2), 2),
                                                 ((1, 1, 1), (5, 3, 1), 1), ((4, 2, 1), (33, 1, 1), 3)])
def test_special_registers(grid, block, resident):
    gx, gy, gz = grid
    bx, by, bz = block
    tpb = bx * by * bz
    nthreads = gx * gy * gz * tpb
    out = np.full((nthreads, 16), 0xDEADBEEF, np.uint32)
    r = launch(program(SREG), grid, block, ["o"], {"o": out}, LaunchConfig(max_resident_blocks=resident)).buffers["o"]
    for cz in range(gz):
        for cy in range(gy):
            for cx in range(gx):
                lb = (cz * gy + cy) * gx + cx
                for tz in range(bz):
                    for ty in range(by):
                        for tx in range(bx):
                            lt = (tz * by + ty) * bx + tx
                            g = lb * tpb + lt
                            exp = [tx, ty, tz, bx, by, bz, cx, cy, cz, gx, gy, gz, lt % 32, lt // 32, g, lt]
                            assert r[g].tolist() == exp, (grid, block, (cx, cy, cz), (tx, ty, tz), r[g].tolist())
