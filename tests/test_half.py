"""Half precision (.f16 1-5-10, .bf16 1-8-7 and the packed .f16x2 / .bf16x2): the engine against
the oracle bit for bit, and both against independent references: numpy float16 where it is exact
(conversions, and add / sub / mul, which numpy computes in float32 and rounds again: innocuous
because 24 >= 2*11 + 2), float32 bit arithmetic for bf16, and exact rationals for fma and the
directed rounding modes.  NaN results are the canonical 0x7fff (see docs/ptx-subset.md)."""
from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from simt_sim.errors import InputError
from simt_sim.frontend.assembler import assemble_text, load_program
from simt_sim.oracle import run_oracle
from simt_sim.run.functional import launch

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n\n"
NAN = 0x7FFF
F16_EDGES = [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x0401, 0x3C00, 0xBC00, 0x3BFF, 0x3C01,
             0x3800, 0x3555, 0x7BFF, 0xFBFF, 0x7BFE, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE01, 0x0200,
             0x1400, 0x5BFF, 0x6400]
BF16_EDGES = [0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x0080, 0x3F80, 0xBF80, 0x3F7F, 0x3F81, 0x3F00,
              0x3EAB, 0x7F7F, 0xFF7F, 0x7F7E, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0xFFC1, 0x0040, 0x4B80,
              0x4C00, 0x3380, 0x0C00]
FORMATS = {"f16": (11, -14, 15), "bf16": (8, -126, 127)}


# ---------------------------------------------------------------------------------------------
# independent references
# ---------------------------------------------------------------------------------------------

def value(h: int, fmt: str) -> float:
    if fmt == "bf16":
        return float(np.uint32((h & 0xFFFF) << 16).view(np.float32))
    return float(np.uint16(h & 0xFFFF).view(np.float16))


def bits_of(x: float, fmt: str) -> int:
    """Bits of an exactly representable value (NaN: the canonical NaN)."""
    if math.isnan(x):
        return NAN
    with np.errstate(over="ignore"):            # infinities are exact too
        if fmt == "bf16":
            return int(np.float32(x).view(np.uint32)) >> 16
        return int(np.float16(x).view(np.uint16))


def round_exact(x: Fraction, fmt: str, mode: str = "rn") -> int:
    """The exact rational x rounded to f16 / bf16 bits (x != 0)."""
    p, emin, emax = FORMATS[fmt]
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
    elif mode in ("rm", "rp"):
        n += rem != 0 and neg == (mode == "rm")
    val = n * Fraction(2) ** q
    big = (2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax
    if val > big:
        to_inf = mode == "rn" or (mode == "rp" and not neg) or (mode == "rm" and neg)
        val = math.inf if to_inf else big
    return bits_of(-float(val) if neg else float(val), fmt)


def ref_round(x: float | Fraction, fmt: str, mode: str = "rn") -> int:
    if isinstance(x, float) and (not math.isfinite(x) or x == 0):
        return bits_of(x, fmt)
    return round_exact(Fraction(x), fmt, mode)


def bf16_rne(f: float) -> int:
    """float32 -> bf16 to nearest even by the usual bit trick (NaN: canonical)."""
    if math.isnan(f):
        return NAN
    b = int(np.float32(f).view(np.uint32))
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def ref_arith(op: str, a: int, b: int, fmt: str, c: int = 0) -> int:
    """add / sub / mul (numpy float16, or float32 bits for bf16) and fma (exact rationals)."""
    with np.errstate(all="ignore"):
        if op == "fma":
            x, y, z = value(a, fmt), value(b, fmt), value(c, fmt)
            special = x * y + z
            if not math.isfinite(special) or (x * y == 0 and z == 0):
                return bits_of(special, fmt)
            exact = Fraction(x) * Fraction(y) + Fraction(z)
            return bits_of(0.0, fmt) if exact == 0 else round_exact(exact, fmt)
        if fmt == "f16":
            x, y = np.uint16(a).view(np.float16), np.uint16(b).view(np.float16)
            r = {"add": x + y, "sub": x - y, "mul": x * y}[op]
            return NAN if np.isnan(r) else int(r.view(np.uint16))
        x, y = value(a, fmt), value(b, fmt)
        return bf16_rne(float(np.float32({"add": x + y, "sub": x - y, "mul": x * y}[op])))


# ---------------------------------------------------------------------------------------------
# kernels: one case per thread, 32-bit words in and out
# ---------------------------------------------------------------------------------------------

def half_kernel(body: str, nin: int, nout: int):
    """%w<k> = input word k of this thread's case; %o<j> are stored as output word j.  16-bit
    inputs are also loaded into %h<k> (.f16) and %b<k> (.bf16); 16-bit outputs are %ho<j> /
    %bo<j>, stored with st.b16 into the low half of word j when the body names them."""
    lines = [HEADER + ".visible .entry k(.param .u64 p_in, .param .u64 p_out)\n{",
             "\t.reg .pred %p<8>;", "\t.reg .f16 %h<8>;", "\t.reg .bf16 %b<8>;", "\t.reg .f16x2 %hh<4>;",
             "\t.reg .b32 %w<8>;", f"\t.reg .b32 %o<{nout}>;", f"\t.reg .f16 %ho<{nout}>;",
             f"\t.reg .bf16 %bo<{nout}>;",
             "\t.reg .b32 %r<16>;", "\t.reg .b64 %rd<8>;", "\t.reg .f32 %f<8>;", "\t.reg .f64 %fd<8>;",
             "\t.reg .b16 %rs<8>;",
             "\tld.param.u64 %rd1, [p_in];", "\tld.param.u64 %rd2, [p_out];",
             "\tmov.u32 %r1, %tid.x;", "\tmov.u32 %r2, %ntid.x;", "\tmov.u32 %r3, %ctaid.x;",
             "\tmad.lo.s32 %r4, %r3, %r2, %r1;",
             f"\tmul.wide.u32 %rd3, %r4, {4 * nin};", "\tadd.s64 %rd4, %rd1, %rd3;",
             f"\tmul.wide.u32 %rd5, %r4, {4 * nout};", "\tadd.s64 %rd6, %rd2, %rd5;"]
    for k in range(nin):
        lines += [f"\tld.global.b32 %w{k}, [%rd4+{4 * k}];", f"\tld.global.b16 %h{k}, [%rd4+{4 * k}];",
                  f"\tld.global.b16 %b{k}, [%rd4+{4 * k}];"]
    lines += ["\t" + ln.strip() for ln in body.strip().splitlines() if ln.strip()]
    for j in range(nout):
        if re.search(rf"%ho{j}\b", body):
            lines.append(f"\tst.global.b16 [%rd6+{4 * j}], %ho{j};")
        elif re.search(rf"%bo{j}\b", body):
            lines.append(f"\tst.global.b16 [%rd6+{4 * j}], %bo{j};")
        else:
            lines.append(f"\tst.global.b32 [%rd6+{4 * j}], %o{j};")
    lines += ["\tret;", "}"]
    return assemble_text("\n".join(lines) + "\n")


def run_cases(body: str, cases, nout: int) -> np.ndarray:
    """Run engine and oracle on the cases (tuples of input words); they must agree bit for bit.
    Returns the output words, shape (cases, nout)."""
    words = np.array(cases, dtype=np.uint64).astype(np.uint32)
    n, nin = words.shape
    block = 64
    grid = -(-n // block)
    inp = np.zeros((grid * block, nin), np.uint32)
    inp[:n] = words
    bufs = {"in": inp.ravel(), "out": np.zeros(grid * block * nout, np.uint32)}
    prog = half_kernel(body, nin, nout)
    eng = launch(prog, grid, block, ["in", "out"], {k: v.copy() for k, v in bufs.items()})
    orc = run_oracle(prog, grid, block, ["in", "out"], {k: v.copy() for k, v in bufs.items()})
    got, want = eng.buffers["out"], orc.buffers["out"]
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, (f"engine vs oracle: {bad.size} words differ, e.g. word {bad[0]} "
                           f"(case {cases[bad[0] // nout]}): {got[bad[0]]:#x} vs {want[bad[0]]:#x}")
    return got.reshape(-1, nout)[:n]


def expect(label: str, got, want, cases) -> None:
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if int(g) != int(w)]
    assert not bad, f"{label}: {len(bad)} wrong, e.g. case {cases[bad[0]]}: got {int(got[bad[0]]):#06x}, " \
                    f"want {int(want[bad[0]]):#06x}"


def pairs(edges, n_random: int, seed: int):
    rng = np.random.default_rng(seed)
    out = [(a, b) for a in edges for b in edges]
    out += [tuple(int(v) for v in rng.integers(0, 1 << 16, 2)) for _ in range(n_random)]
    return out


# ---------------------------------------------------------------------------------------------
# arithmetic
# ---------------------------------------------------------------------------------------------

ARITH = """
add.f16 %ho0, %h0, %h1;
sub.rn.f16 %ho1, %h0, %h1;
mul.f16 %ho2, %h0, %h1;
fma.rn.f16 %ho3, %h0, %h1, %h2;
add.bf16 %bo4, %b0, %b1;
sub.rn.bf16 %bo5, %b0, %b1;
mul.bf16 %bo6, %b0, %b1;
fma.rn.bf16 %bo7, %b0, %b1, %b2;
"""


@pytest.mark.parametrize("fmt", ["f16", "bf16"])
def test_arithmetic_matches_references(fmt):
    rng = np.random.default_rng(1)
    edges = F16_EDGES if fmt == "f16" else BF16_EDGES
    cases = [(a, b, int(rng.choice(edges)) if rng.random() < 0.5 else int(rng.integers(0, 1 << 16)))
             for a, b in pairs(edges, 500, 2)]
    out = run_cases(ARITH, cases, 8)
    base = 0 if fmt == "f16" else 4
    for k, op in enumerate(["add", "sub", "mul", "fma"]):
        want = [ref_arith(op, a, b, fmt, c) for a, b, c in cases]
        expect(f"{op}.{fmt}", out[:, base + k], want, cases)


def test_fma_rounds_once():
    # bf16: (1 + 2^-7) * 1.5 is a tie between two bf16 values; the addend -2^-100 (lost when the
    # sum is rounded to float64) breaks it downwards
    out = run_cases("fma.rn.bf16 %bo0, %b0, %b1, %b2;", [(0x3F81, 0x3FC0, 0x8D80), (0x3F81, 0x3FC0, 0x0D80),
                                                         (0x3F81, 0x3FC0, 0x0000)], 1)
    assert out[:, 0].tolist() == [0x3FC1, 0x3FC2, 0x3FC2]
    # f16: 1 * (1 + 2^-10) + 2048 = 2049 + 2^-10 is above the midpoint 2049: 2050
    out = run_cases("fma.rn.f16 %ho0, %h0, %h1, %h2;", [(0x3C01, 0x3C00, 0x6800)], 1)
    assert value(int(out[0, 0]), "f16") == 2050.0


MODIFIERS = """
add.ftz.f16 %ho0, %h0, %h1;
mul.sat.f16 %ho1, %h0, %h1;
fma.rn.relu.f16 %ho2, %h0, %h1, %h2;
fma.rn.relu.bf16 %bo3, %b0, %b1, %b2;
fma.rn.ftz.sat.f16 %ho4, %h0, %h1, %h2;
neg.f16 %ho5, %h0;
abs.ftz.f16 %ho6, %h0;
neg.bf16 %bo7, %b0;
"""


def sign_op(h: int, fmt: str, op: str) -> int:
    """neg / abs of a 16-bit pattern: the sign bit alone, but a NaN gives the canonical NaN 0x7fff
    (ptxas makes HADD2 / HFMA2.BF16_V2 of them, which the H100 runs with a canonical NaN result)."""
    if math.isnan(value(h, fmt)):
        return 0x7FFF
    return h ^ 0x8000 if op == "neg" else h & 0x7FFF


def ftz16(h: int) -> int:
    return h & 0x8000 if (h & 0x7C00) == 0 else h


def finish_ref(h: int, fmt: str, sat=False, relu=False, ftz=False) -> int:
    v = value(h, fmt)
    if sat:
        h = 0 if math.isnan(v) or math.copysign(1, v) < 0 else (bits_of(1.0, fmt) if v > 1 else h)
    if relu and not math.isnan(v) and math.copysign(1, v) < 0:
        h = 0
    return ftz16(h) if ftz else h


def test_ftz_sat_relu_neg_abs():
    rng = np.random.default_rng(3)
    cases = [(a, b, int(rng.integers(0, 1 << 16))) for a, b in pairs(F16_EDGES, 300, 4)]
    out = run_cases(MODIFIERS, cases, 8)
    f, bf = "f16", "bf16"
    expect("add.ftz", out[:, 0], [ftz16(ref_arith("add", ftz16(a), ftz16(b), f)) for a, b, _ in cases], cases)
    expect("mul.sat", out[:, 1], [finish_ref(ref_arith("mul", a, b, f), f, sat=True) for a, b, _ in cases], cases)
    expect("fma.relu.f16", out[:, 2], [finish_ref(ref_arith("fma", a, b, f, c), f, relu=True)
                                       for a, b, c in cases], cases)
    expect("fma.relu.bf16", out[:, 3], [finish_ref(ref_arith("fma", a, b, bf, c), bf, relu=True)
                                        for a, b, c in cases], cases)
    expect("fma.ftz.sat", out[:, 4], [finish_ref(ref_arith("fma", ftz16(a), ftz16(b), f, ftz16(c)), f,
                                                 sat=True, ftz=True) for a, b, c in cases], cases)
    expect("neg.f16", out[:, 5], [sign_op(a, f, "neg") for a, _, _ in cases], cases)
    expect("abs.ftz.f16", out[:, 6], [sign_op(ftz16(a), f, "abs") for a, _, _ in cases], cases)
    expect("neg.bf16", out[:, 7], [sign_op(a, bf, "neg") for a, _, _ in cases], cases)
    nan_case = next(i for i, c in enumerate(cases) if c[:2] == (0x3C00, 0x7E00))
    assert out[nan_case, 1] == 0                    # a NaN result saturates to +0


MINMAX = """
min.f16 %ho0, %h0, %h1;
max.f16 %ho1, %h0, %h1;
min.NaN.f16 %ho2, %h0, %h1;
max.NaN.bf16 %bo3, %b0, %b1;
max.ftz.f16 %ho4, %h0, %h1;
min.bf16 %bo5, %b0, %b1;
"""


def ref_min_max(a: int, b: int, fmt: str, is_max: bool, nan_mode=False) -> int:
    x, y = value(a, fmt), value(b, fmt)
    if (math.isnan(x) and math.isnan(y)) or (nan_mode and (math.isnan(x) or math.isnan(y))):
        return NAN
    if math.isnan(x) or math.isnan(y):
        return b if math.isnan(x) else a
    key = lambda h: (value(h, fmt), 0 if h & 0x8000 else 1)      # -0 below +0  # noqa: E731
    return max(a, b, key=key) if is_max else min(a, b, key=key)


def test_min_max_nan_rules():
    cases = pairs(F16_EDGES, 200, 5)
    out = run_cases(MINMAX, cases, 6)
    expect("min", out[:, 0], [ref_min_max(a, b, "f16", False) for a, b in cases], cases)
    expect("max", out[:, 1], [ref_min_max(a, b, "f16", True) for a, b in cases], cases)
    expect("min.NaN", out[:, 2], [ref_min_max(a, b, "f16", False, True) for a, b in cases], cases)
    expect("max.NaN.bf16", out[:, 3], [ref_min_max(a, b, "bf16", True, True) for a, b in cases], cases)
    expect("max.ftz", out[:, 4], [ref_min_max(ftz16(a), ftz16(b), "f16", True) for a, b in cases], cases)
    expect("min.bf16", out[:, 5], [ref_min_max(a, b, "bf16", False) for a, b in cases], cases)


PACKED = """
add.f16x2 %o0, %w0, %w1;
fma.rn.bf16x2 %o1, %w0, %w1, %w2;
max.f16x2 %o2, %w0, %w1;
neg.bf16x2 %o3, %w0;
mul.ftz.f16x2 %o4, %w0, %w1;
"""


def test_packed_types_work_per_half():
    rng = np.random.default_rng(6)
    cases = [tuple(int(v) for v in rng.integers(0, 1 << 32, 3)) for _ in range(300)]
    cases += [(0x7E003C00, 0x3C00FC00, 0x00018000), (0x80000001, 0x00010001, 0x7BFF7BFF)]
    out = run_cases(PACKED, cases, 5)

    def per_half(fn, *ws):
        return fn(*(w & 0xFFFF for w in ws)) | fn(*(w >> 16 for w in ws)) << 16

    expect("add.f16x2", out[:, 0], [per_half(lambda x, y: ref_arith("add", x, y, "f16"), a, b)
                                    for a, b, _ in cases], cases)
    expect("fma.bf16x2", out[:, 1], [per_half(lambda x, y, z: ref_arith("fma", x, y, "bf16", z), a, b, c)
                                     for a, b, c in cases], cases)
    expect("max.f16x2", out[:, 2], [per_half(lambda x, y: ref_min_max(x, y, "f16", True), a, b)
                                    for a, b, _ in cases], cases)
    expect("neg.bf16x2", out[:, 3], [per_half(lambda x: sign_op(x, "bf16", "neg"), a) for a, _, _ in cases], cases)
    expect("mul.ftz.f16x2", out[:, 4], [per_half(lambda x, y: ftz16(ref_arith("mul", ftz16(x), ftz16(y), "f16")),
                                                 a, b) for a, b, _ in cases], cases)


# ---------------------------------------------------------------------------------------------
# comparisons
# ---------------------------------------------------------------------------------------------

CMPS = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]


def ref_cmp(cmp: str, x: float, y: float) -> bool:
    unordered = math.isnan(x) or math.isnan(y)
    if cmp in ("num", "nan"):
        return unordered == (cmp == "nan")
    if cmp.endswith("u") and cmp not in ("eq", "ne") or cmp == "neu":
        return unordered or ref_cmp(cmp[:-1], x, y)
    return not unordered and {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y,
                              "gt": x > y, "ge": x >= y}[cmp]


def test_setp_and_set():
    body = [f"setp.{c}.f16 %p1, %h0, %h1;\nselp.u32 %o{i}, 1, 0, %p1;" for i, c in enumerate(CMPS)]
    body += ["setp.lt.ftz.f16 %p2, %h0, %h1;\nselp.u32 %o14, 1, 0, %p2;",
             "setp.ge.bf16 %p3, %b0, %b1;\nselp.u32 %o15, 1, 0, %p3;",
             "set.gtu.f16.f16 %ho16, %h0, %h1;",
             "set.le.u32.bf16 %o17, %b0, %b1;",
             "setp.ne.and.f16 %p4|%p5, %h0, %h1, %p1;\nselp.u32 %o18, 1, 0, %p4;\nselp.u32 %o19, 1, 0, %p5;"]
    src = "\n".join(body)
    cases = pairs(F16_EDGES, 100, 7)
    out = run_cases(src, cases, 20)
    fv = [(value(a, "f16"), value(b, "f16")) for a, b in cases]
    for i, c in enumerate(CMPS):
        expect(f"setp.{c}.f16", out[:, i], [ref_cmp(c, x, y) for x, y in fv], cases)
    expect("setp.lt.ftz", out[:, 14], [ref_cmp("lt", value(ftz16(a), "f16"), value(ftz16(b), "f16"))
                                       for a, b in cases], cases)
    expect("setp.ge.bf16", out[:, 15], [ref_cmp("ge", value(a, "bf16"), value(b, "bf16")) for a, b in cases],
           cases)
    expect("set.gtu.f16.f16", out[:, 16], [0x3C00 if ref_cmp("gtu", x, y) else 0 for x, y in fv], cases)
    expect("set.le.u32.bf16", out[:, 17], [0xFFFFFFFF if ref_cmp("le", value(a, "bf16"), value(b, "bf16"))
                                           else 0 for a, b in cases], cases)
    nan_is = [ref_cmp("nan", x, y) for x, y in fv]
    expect("setp.ne.and p", out[:, 18], [ref_cmp("ne", x, y) and n for (x, y), n in zip(fv, nan_is)], cases)
    expect("setp.ne.and q", out[:, 19], [(not ref_cmp("ne", x, y)) and n for (x, y), n in zip(fv, nan_is)], cases)


def test_packed_comparisons_give_one_result_per_half():
    body = """
    setp.lt.f16x2 %p1|%p2, %w0, %w1;
    selp.u32 %o0, 1, 0, %p1;
    selp.u32 %o1, 1, 0, %p2;
    set.eq.f16x2.f16x2 %o2, %w0, %w1;
    set.geu.u32.bf16x2 %o3, %w0, %w1;
    setp.gt.or.bf16x2 %p3|%p4, %w0, %w1, %p1;
    selp.u32 %o4, 1, 0, %p3;
    selp.u32 %o5, 1, 0, %p4;
    """
    rng = np.random.default_rng(8)
    cases = [(a | b << 16, c | d << 16) for (a, c), (b, d) in zip(pairs(F16_EDGES, 0, 0), pairs(F16_EDGES, 0, 0)[::-1])]
    cases += [tuple(int(v) for v in rng.integers(0, 1 << 32, 2)) for _ in range(100)]
    out = run_cases(body, cases, 6)

    def cmp(c, a, b, k, fmt):
        return ref_cmp(c, value(a >> 16 * k, fmt), value(b >> 16 * k, fmt))

    expect("setp.lt.f16x2 p (low)", out[:, 0], [cmp("lt", a, b, 0, "f16") for a, b in cases], cases)
    expect("setp.lt.f16x2 q (high)", out[:, 1], [cmp("lt", a, b, 1, "f16") for a, b in cases], cases)
    expect("set.eq.f16x2.f16x2", out[:, 2], [(0x3C00 if cmp("eq", a, b, 0, "f16") else 0) |
                                            (0x3C000000 if cmp("eq", a, b, 1, "f16") else 0) for a, b in cases], cases)
    expect("set.geu.u32.bf16x2", out[:, 3], [(0xFFFF if cmp("geu", a, b, 0, "bf16") else 0) |
                                            (0xFFFF0000 if cmp("geu", a, b, 1, "bf16") else 0) for a, b in cases],
           cases)
    expect("setp.gt.or p", out[:, 4], [cmp("gt", a, b, 0, "bf16") or cmp("lt", a, b, 0, "f16") for a, b in cases],
           cases)
    expect("setp.gt.or q", out[:, 5], [cmp("gt", a, b, 1, "bf16") or cmp("lt", a, b, 0, "f16") for a, b in cases],
           cases)


# ---------------------------------------------------------------------------------------------
# conversions
# ---------------------------------------------------------------------------------------------

F32_EDGES = [0.0, -0.0, 1.0, -1.0, 65504.0, 65519.99, 65520.0, -65520.0, 1e6, 2.0 ** -24, 2.0 ** -25,
             2.0 ** -25 * 1.0000001, 3 * 2.0 ** -26, 2.0 ** -14, 2.0 ** -14 * (1 - 2.0 ** -12), 0.1, -0.3,
             1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -8, 3.3895314e38,
             3.4028235e38, 2.0 ** -133, 2.0 ** -134, 1e-40, 1.5e-45, math.inf, -math.inf, math.nan, 0.75,
             2049.0, 4095.0, -2.0 ** -24 * 0.75]

CVT_F32 = """
cvt.rn.f16.f32 %ho0, %f0;
cvt.rz.f16.f32 %ho1, %f0;
cvt.rm.f16.f32 %ho2, %f0;
cvt.rp.f16.f32 %ho3, %f0;
cvt.rn.bf16.f32 %bo4, %f0;
cvt.rz.bf16.f32 %bo5, %f0;
cvt.rn.relu.f16.f32 %ho6, %f0;
cvt.rn.satfinite.f16.f32 %ho7, %f0;
cvt.rz.satfinite.relu.bf16.f32 %bo8, %f0;
cvt.rn.f16x2.f32 %o9, %f0, %f1;
cvt.rz.relu.bf16x2.f32 %o10, %f1, %f0;
cvt.sat.f16.f32 %ho11, %f0;
cvt.rm.bf16.f32 %bo12, %f0;
cvt.rp.bf16.f32 %bo13, %f0;
cvt.rn.f16.f64 %ho14, %fd0;
cvt.rp.bf16.f64 %bo15, %fd0;
"""


def f32_word(x: float) -> int:
    return int(np.float32(x).view(np.uint32))


def sat_finite(h: int, fmt: str) -> int:
    big = 0x7BFF if fmt == "f16" else 0x7F7F
    return (h & 0x8000) | big if (h & 0x7FFF) == (0x7C00 if fmt == "f16" else 0x7F80) else h


def test_conversions_from_float():
    rng = np.random.default_rng(9)
    xs = F32_EDGES + [float(v) for v in rng.integers(0, 1 << 32, 400).astype(np.uint32).view(np.float32)]
    xs += [float(np.float32(v)) for v in rng.standard_normal(200) * 2.0 ** rng.integers(-30, 20, 200)]
    xs = [float(np.float32(x)) for x in xs]
    ds = [x * (1 + 2.0 ** -40) if math.isfinite(x) else x for x in xs]       # not float32 values
    body = "mov.b32 %f0, %w0;\nmov.b32 %f1, %w1;\nld.global.f64 %fd0, [%rd4+8];\n" + CVT_F32
    cases = []
    for x, d in zip(xs, ds):
        w = int(np.float64(d).view(np.uint64))
        cases.append((f32_word(x), f32_word(-x * 0.5), w & 0xFFFFFFFF, w >> 32))
    out = run_cases(body, cases, 16)
    f, bf = "f16", "bf16"
    with np.errstate(over="ignore"):            # numpy rounds to nearest even, overflowing to inf
        f16_of_f32 = [bits_of(float(np.float16(x)), f) for x in xs]
        f16_of_f64 = [f64_nan_narrowed(d, 10) if math.isnan(d) else bits_of(float(np.float16(d)), f) for d in ds]
    expect("cvt.rn.f16.f32 (numpy)", out[:, 0], f16_of_f32, cases)
    for k, mode in [(1, "rz"), (2, "rm"), (3, "rp")]:
        expect(f"cvt.{mode}.f16.f32", out[:, k], [ref_round(x, f, mode) for x in xs], cases)
    expect("cvt.rn.bf16.f32", out[:, 4], [bf16_rne(x) for x in xs], cases)
    expect("cvt.rz.bf16.f32", out[:, 5], [NAN if math.isnan(x) else f32_word(x) >> 16 for x in xs], cases)
    expect("cvt.rn.relu.f16.f32", out[:, 6], [finish_ref(ref_round(x, f), f, relu=True) for x in xs], cases)
    expect("cvt.rn.satfinite.f16.f32", out[:, 7], [sat_finite(ref_round(x, f), f) for x in xs], cases)
    expect("cvt.rz.satfinite.relu.bf16.f32", out[:, 8],
           [sat_finite(finish_ref(ref_round(x, bf, "rz"), bf, relu=True), bf) for x in xs], cases)
    expect("cvt.rn.f16x2.f32", out[:, 9], [ref_round(x, f) << 16 | ref_round(float(np.float32(-x * 0.5)), f)
                                           for x in xs], cases)
    expect("cvt.rz.relu.bf16x2.f32", out[:, 10],
           [finish_ref(ref_round(float(np.float32(-x * 0.5)), bf, "rz"), bf, relu=True) << 16 |
            finish_ref(ref_round(x, bf, "rz"), bf, relu=True) for x in xs], cases)
    expect("cvt.sat.f16.f32", out[:, 11], [finish_ref(ref_round(x, f), f, sat=True) for x in xs], cases)
    expect("cvt.rm.bf16.f32", out[:, 12], [ref_round(x, bf, "rm") for x in xs], cases)
    expect("cvt.rp.bf16.f32", out[:, 13], [ref_round(x, bf, "rp") for x in xs], cases)
    expect("cvt.rn.f16.f64 (numpy)", out[:, 14], f16_of_f64, cases)
    expect("cvt.rp.bf16.f64", out[:, 15], [f64_nan_narrowed(d, 7) if math.isnan(d) else ref_round(d, bf, "rp")
                                           for d in ds], cases)


def f64_nan_narrowed(d: float, mantissa_bits: int) -> int:
    """A float64 NaN converted to f16 (10 mantissa bits) or bf16 (7) as the H100 does it
    (s-convert): the sign, all-ones exponent, quiet bit and the payload's top bits."""
    w = int(np.float64(d).view(np.uint64))
    exp_ones = ((1 << (15 - mantissa_bits)) - 1) << mantissa_bits
    quiet = 1 << (mantissa_bits - 1)
    return (w >> 63) << 15 | exp_ones | quiet | (w >> (52 - mantissa_bits)) & (quiet - 1)


CVT_FROM_HALF = """
cvt.f32.f16 %f0, %h0;
mov.b32 %o0, %f0;
cvt.f64.bf16 %fd0, %b0;
mov.b64 {%o1, %o2}, %fd0;
cvt.rzi.s32.f16 %o3, %h0;
cvt.rni.u16.bf16 %rs1, %b0;
cvt.u32.u16 %o4, %rs1;
cvt.rn.bf16.f16 %bo5, %h0;
cvt.rz.f16.bf16 %ho6, %b0;
cvt.rpi.f16.f16 %ho7, %h0;
cvt.rn.f16.s32 %ho8, %w1;
cvt.rm.bf16.u32 %bo9, %w1;
cvt.rz.f16.u64 %ho10, %rd7;
"""


def test_conversions_from_half_and_integers():
    rng = np.random.default_rng(10)
    cases = [(h, int(v)) for h, v in zip(F16_EDGES + BF16_EDGES + [int(v) for v in rng.integers(0, 1 << 16, 300)],
                                         list(rng.integers(0, 1 << 32, 400)) + [0, 1, 65504, 65520, 0xFFFFFFFF])]
    body = "cvt.u64.u32 %rd7, %w1;\nshl.b64 %rd7, %rd7, 28;\n" + CVT_FROM_HALF
    out = run_cases(body, cases, 11)
    f, bf = "f16", "bf16"
    hv = [value(h, f) for h, _ in cases]
    bv = [value(h, bf) for h, _ in cases]
    expect("cvt.f32.f16", out[:, 0], [0x7FFFFFFF if math.isnan(x) else f32_word(x) for x in hv], cases)   # HADD2.F32
    f64w = [0x7FF8000000000000 if math.isnan(x) else int(np.float64(x).view(np.uint64)) for x in bv]
    expect("cvt.f64.bf16 (low)", out[:, 1], [w & 0xFFFFFFFF for w in f64w], cases)
    expect("cvt.f64.bf16 (high)", out[:, 2], [w >> 32 for w in f64w], cases)
    expect("cvt.rzi.s32.f16", out[:, 3], [0 if math.isnan(x) else int(x) & 0xFFFFFFFF if math.isfinite(x)
                                          else (2**31 - 1 if x > 0 else 2**31) for x in hv], cases)
    expect("cvt.rni.u16.bf16", out[:, 4], [0 if math.isnan(x) or x <= 0 else min(round(x), 65535)
                                           if math.isfinite(x) else 65535 for x in bv], cases)
    expect("cvt.rn.bf16.f16", out[:, 5], [ref_round(x, bf) for x in hv], cases)
    expect("cvt.rz.f16.bf16", out[:, 6], [ref_round(x, f, "rz") for x in bv], cases)
    expect("cvt.rpi.f16.f16", out[:, 7], [bits_of(math.copysign(math.ceil(x), x), f) if math.isfinite(x) else
                                          bits_of(x, f) for x in hv], cases)
    ints = [v - (1 << 32) if v >> 31 else v for _, v in cases]
    expect("cvt.rn.f16.s32", out[:, 8], [ref_round(Fraction(v), f) if v else 0 for v in ints], cases)
    expect("cvt.rm.bf16.u32", out[:, 9], [ref_round(Fraction(v), bf, "rm") if v else 0 for _, v in cases], cases)
    expect("cvt.rz.f16.u64", out[:, 10], [ref_round(Fraction(v << 28), f, "rz") if v else 0 for _, v in cases],
           cases)


# ---------------------------------------------------------------------------------------------
# the assembler
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line, message", [
    ("add.rz.f16 %ho0, %h0, %h1;", "rounds to nearest only"),
    ("add.ftz.bf16 %bo0, %b0, %b1;", "takes no .ftz or .sat"),
    ("min.NaN.f32 %f0, %f1, %f2;", "min.NaN is supported for .f16"),
    ("fma.rn.relu.f32 %f0, %f1, %f2, %f3;", ".relu applies to fma and cvt"),
    ("cvt.rn.satfinite.f32.f64 %f0, %fd0;", ".satfinite applies to cvt"),
    ("cvt.rn.f16x2.f32 %o0, %f0;", "takes 3 operands"),
    ("cvt.rn.f16x2.f64 %o0, %fd0, %fd1;", "cvt.rn|rz{.relu}{.satfinite}.f16x2.f32"),
    ("cvt.f32.f16x2 %f0, %w0;", "cvt from .f16x2 is not supported"),
    ("cvt.rn.f16.f32 %ho0, %f0, %f1;", "cvt takes 2 operands"),
    ("set.eq.u16.f16x2 %rs0, %w0, %w1;", "set with packed halves"),
    ("add.f16 %ho0, %h0, 0f3F800000;", "16-bit integer pattern"),
])
def test_assembler_rejects_forms_ptx_does_not_define(line, message):
    with pytest.raises(InputError, match=message.replace(".", r"\.").replace("{", r"\{").replace("}", r"\}")
                       .replace("|", r"\|")):
        half_kernel(line, 1, 1)


def test_registers_units_and_immediates():
    prog = half_kernel("mov.b16 %ho0, 0x3C00;\nadd.f16 %ho0, %ho0, %h0;\nmax.bf16x2 %o1, %w0, 0x3F80BF80;", 1, 2)
    out = run_cases("mov.b16 %ho0, 0x3C00;\nadd.f16 %ho0, %ho0, %h0;\nmax.bf16x2 %o1, %w0, 0x3F80BF80;",
                    [(0x3C00,), (0xBF80FFFF,)], 2)
    assert out[0].tolist() == [0x4000, 0x3F803C00] and out[1].tolist() == [NAN, 0x3F80BF80]
    from simt_sim.isa import encoding as E
    units = {int(r[E.F_UNIT]) for r in prog.code if r[E.F_TYPE] in (E.T_F16, E.T_BF16X2)}
    assert units == {E.UNIT_CODE["fp32"]}


# ---------------------------------------------------------------------------------------------
# nvcc-compiled kernels (tests/cuda/*.cu with cuda_fp16.h / cuda_bf16.h; .ptx checked in)
# ---------------------------------------------------------------------------------------------

CUDA = Path(__file__).parent / "cuda"


def run_cuda(name: str, n: int, args: list, buffers: dict) -> dict:
    """Run a checked-in kernel on engine and oracle; every buffer must agree bit for bit."""
    prog = load_program(str(CUDA / f"{name}.ptx"))
    grid = -(-n // 64)
    eng = launch(prog, grid, 64, args, {k: v.copy() for k, v in buffers.items()})
    orc = run_oracle(prog, grid, 64, args, {k: v.copy() for k, v in buffers.items()})
    for key in buffers:
        g, w = eng.buffers[key].view(np.uint8), orc.buffers[key].view(np.uint8)
        assert np.array_equal(g, w), f"{name}: buffer {key} differs between engine and oracle"
    return eng.buffers


def random_halves(rng, n: int, edges) -> np.ndarray:
    """Half patterns: the edge values, then random finite ones of moderate size and random bits."""
    vals = list(edges) + [int(v) for v in rng.integers(0, 1 << 16, n // 3)]
    vals += [int(np.float16(v).view(np.uint16)) for v in rng.standard_normal(n) * 8]
    return np.array(vals[:n], np.uint16)


def test_cuda_half_arith():
    rng = np.random.default_rng(20)
    n = 300
    a, b, c = (random_halves(rng, n, F16_EDGES if k == 0 else F16_EDGES[::-1]) for k in range(3))
    out = run_cuda("half_arith", n, ["a", "b", "c", "o", n],
                   {"a": a, "b": b, "c": c, "o": np.zeros(5 * n, np.uint16)})["o"].reshape(n, 5)
    cases = list(zip(a.tolist(), b.tolist(), c.tolist()))
    for k, op in enumerate(["add", "sub", "mul"]):
        expect(f"__h{op}", out[:, k], [ref_arith(op, x, y, "f16") for x, y, _ in cases], cases)
    expect("__hfma", out[:, 3], [ref_arith("fma", x, y, "f16", z) for x, y, z in cases], cases)
    expect("__hneg", out[:, 4], [sign_op(x, "f16", "neg") for x, _, _ in cases], cases)


def test_cuda_half2_math():
    rng = np.random.default_rng(21)
    n = 200
    a, b, c = (random_halves(rng, 2 * n, F16_EDGES[k:]).view(np.uint32) for k in range(3))
    out = run_cuda("half2_math", n, ["a", "b", "c", "o", n],
                   {"a": a, "b": b, "c": c, "o": np.zeros(5 * n, np.uint32)})["o"].reshape(n, 5)
    cases = list(zip(a.tolist(), b.tolist(), c.tolist()))

    def per_half(fn, *ws):
        return fn(*(w & 0xFFFF for w in ws)) | fn(*(w >> 16 for w in ws)) << 16

    expect("__hfma2", out[:, 0], [per_half(lambda x, y, z: ref_arith("fma", x, y, "f16", z), *cs) for cs in cases],
           cases)
    expect("__hmul2", out[:, 1], [per_half(lambda x, y: ref_arith("mul", x, y, "f16"), a_, b_)
                                  for a_, b_, _ in cases], cases)
    expect("__hmax2", out[:, 2], [per_half(lambda x, y: ref_min_max(x, y, "f16", True), a_, b_)
                                  for a_, b_, _ in cases], cases)
    expect("__hmin2", out[:, 3], [per_half(lambda x, y: ref_min_max(x, y, "f16", False), a_, b_)
                                  for a_, b_, _ in cases], cases)
    expect("__habs2", out[:, 4], [per_half(lambda x: sign_op(x, "f16", "abs"), a_) for a_, _, _ in cases], cases)


def test_cuda_bf16_math():
    rng = np.random.default_rng(22)
    n = 300
    vals = [bf16_rne(float(v)) for v in rng.standard_normal(3 * n) * 4]
    a, b, c = (np.array((BF16_EDGES if k == 0 else []) + vals[k * n:], np.uint16)[:n] for k in range(3))
    out = run_cuda("bf16_math", n, ["a", "b", "c", "o", n],
                   {"a": a, "b": b, "c": c, "o": np.zeros(5 * n, np.uint16)})["o"].reshape(n, 5)
    cases = list(zip(a.tolist(), b.tolist(), c.tolist()))
    bf = "bf16"
    expect("__hadd", out[:, 0], [ref_arith("add", x, y, bf) for x, y, _ in cases], cases)
    expect("__hmul", out[:, 1], [ref_arith("mul", x, y, bf) for x, y, _ in cases], cases)
    expect("__hfma", out[:, 2], [ref_arith("fma", x, y, bf, z) for x, y, z in cases], cases)
    expect("__hfma_relu", out[:, 3], [finish_ref(ref_arith("fma", x, y, bf, z), bf, relu=True)
                                      for x, y, z in cases], cases)
    expect("__hmax_nan", out[:, 4], [ref_min_max(x, y, bf, True, True) for x, y, _ in cases], cases)


def test_cuda_half_convert():
    rng = np.random.default_rng(23)
    n = 256
    xs = np.array((F32_EDGES + list(rng.standard_normal(n) * 2.0 ** rng.integers(-28, 18, n)))[:n], np.float32)
    ys = np.array(list(rng.standard_normal(n) * 100)[:n], np.float32)
    ks = rng.integers(-100000, 100000, n).astype(np.int32)
    bufs = {"a": xs, "b": ys, "k": ks, "h": np.zeros(6 * n, np.uint16), "p": np.zeros(2 * n, np.uint32),
            "f": np.zeros(2 * n, np.float32), "i": np.zeros(n, np.int32)}
    out = run_cuda("half_convert", n, ["a", "b", "k", "h", "p", "f", "i", n], bufs)
    h, pairs_, back, ints = out["h"].reshape(n, 6), out["p"].reshape(n, 2), out["f"].reshape(n, 2), out["i"]
    x, y = [float(v) for v in xs], [float(v) for v in ys]
    cases = list(zip(x, y))
    with np.errstate(all="ignore"):
        f16 = [bits_of(float(np.float16(v)), "f16") for v in x]             # numpy: exact rounding
    expect("__float2half_rn", h[:, 0], f16, cases)
    expect("__float2half_rz", h[:, 1], [ref_round(v, "f16", "rz") for v in x], cases)
    expect("__float2bfloat16_rn", h[:, 2], [bf16_rne(v) for v in x], cases)
    expect("__float2bfloat16_rz", h[:, 3], [NAN if math.isnan(v) else f32_word(v) >> 16 for v in x], cases)
    expect("__int2half_rn", h[:, 4], [ref_round(Fraction(int(v)), "f16") if v else 0 for v in ks], cases)
    expect("__floats2half2_rn (.x low, .y high)", pairs_[:, 0],
           [f | ref_round(v, "f16") << 16 for f, v in zip(f16, y)], cases)
    expect("__floats2bfloat162_rn", pairs_[:, 1], [bf16_rne(u) | bf16_rne(v) << 16 for u, v in zip(x, y)], cases)
    want_back = []
    for u, hb in zip(x, f16):                # NaN: f16 -> f32 the canonical NaN (HADD2.F32), bf16 a shift
        want_back += [0x7FFFFFFF if math.isnan(u) else f32_word(value(hb, "f16")),
                      bf16_rne(u) << 16 if math.isnan(u) else f32_word(value(bf16_rne(u), "bf16"))]
    expect("__half2float, __bfloat162float", back.view(np.uint32).ravel(), want_back,
           [c for c in cases for _ in range(2)])
    hv = [value(hb, "f16") for hb in f16]
    expect("__half2int_rz", ints.view(np.uint32), [0 if math.isnan(v) else int(v) & 0xFFFFFFFF if math.isfinite(v)
                                                   else (0x7FFFFFFF if v > 0 else 0x80000000) for v in hv], cases)


def test_cuda_half_compare():
    """cuda_fp16.h's comparisons use scoped `{ .reg .pred __$temp3; setp.lt.f16 __$temp3, ... }` blocks."""
    cases = pairs(F16_EDGES, 100, 25)
    a = np.array([c[0] for c in cases], np.uint16)
    b = np.array([c[1] for c in cases], np.uint16)
    n = len(cases)
    out = run_cuda("half_compare", n, ["a", "b", "o", n], {"a": a, "b": b, "o": np.zeros(n, np.int32)})["o"]
    want = [ref_cmp("lt", value(x, "f16"), value(y, "f16")) | ref_cmp("geu", value(x, "f16"), value(y, "f16")) << 1
            | ref_cmp("eq", value(x, "f16"), value(y, "f16")) << 2 | math.isnan(value(x, "f16")) << 3 for x, y in cases]
    expect("__hlt | __hgeu | __heq | __hisnan", out, want, cases)
