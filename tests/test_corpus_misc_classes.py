"""Generated-corpus classes (docs/corpus.md, issue 61) found in the kernels still wrong at 5b4ee18,
each with the corpus kernels replayed against their H100 recordings (needs nvcc to rebuild the
modules) and tests/cuda/misc_classes.cu run in both modes:

  - PTX mode: `neg.f32` / `abs.f32` whose only uses are value operands of `selp.f32` (or another
    such neg / abs) are sign-bit operations (ptxas folds them into the select: `FSEL R11, -R0, -RZ,
    P0`, copysignf's `FSEL R2, -|R0|, |R0|, !P3`), so -fdimf(x, NaN) is 0xffffffff, not the
    canonical NaN, and copysignf(NaN, y) keeps the payload (ptx_contract.flip_selected_negations);
  - PTX mode (engine and oracle): sqrt.rm / .rp / .rz .f64 of a tiny double (below 2^-900): the
    exact remainder a - d*d fell below the subnormals, so the directed rounding never stepped;
  - PTX mode: a fold into a constant feeds the folds after it (cvt.f32.bf16 of cvt.rn.bf16.f32 of
    a constant NaN is the canonical NaN, as ptxas propagates it);
  - SASS mode: FRND.F64 of a NaN applies no |x| / -x (as DADD and F2F); LEA d, P0, a, -b, s has
    the carry of (a << s) + ~b + 1, 1 where b == 0 (the low word of a 64-bit subtract).
The SASS-mode corpus kernels of the last two are in tests/test_corpus_sass_classes2.py."""
from __future__ import annotations

import math
import struct
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from simt_sim.frontend import sass
from simt_sim.frontend.assembler import assemble_text, load_program
from simt_sim.oracle import run_oracle
from simt_sim.run.functional import launch

from corpus_replay import exact_class_test

CUDA = Path(__file__).resolve().parent / "cuda"
PTX = CUDA / "misc_classes.ptx"
needs_ptxas = pytest.mark.skipif(not sass.tools_available(), reason="needs ptxas and nvdisasm")

# corpus kernel -> the class it stands for (wrong in PTX mode at 5b4ee18)
PTX_CLASSES = {
    "k08212": "-(fdimf(f1, b0)) of a NaN: neg.f32 into selp.f32 is FSEL -a (f0 0xffffffff)",
    "k06400": "-(fdimf(x, y)) of a NaN: FSEL -a (f0)",
    "k08508": "-(fmaxf(f1, f1)) into a selp: FSEL R15, R15, -R15, !P0 (f1: the payload kept, sign flipped)",
    "k00613": "copysignf(f1, (float)d0) of a NaN f1: abs.f32 + neg.f32 into FSEL -|a|, |a| (I0)",
    "k03126": "cvt.f32.bf16(cvt.rn.bf16.f32(NaN constant)): folded to 0x7fffffff as ptxas does (u0, u1)",
    "k08513": "__dsqrt_rd((d0 + d0)) of a tiny double: the directed rounding steps (U0.lo)",
    "k07419": "__dsqrt_rd(d0) of a tiny double (U0.lo)",
    "k00905": "__dsqrt_rd(d0) of a tiny double inside an fma (U0.lo)",
}

test_ptx_class_kernel_is_exact_against_the_h100 = exact_class_test(ptx=PTX_CLASSES)


# ---- the rewrite on PTX text ----------------------------------------------------------------------

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def texts(body: str) -> list[str]:
    regs = ".reg .f32 %f<20>; .reg .b64 %rd<4>; .reg .pred %p<3>; .reg .b32 %r<4>; .reg .b16 %rs<4>;"
    src = HEAD + ".visible .entry k(.param .u64 p)\n{\n" + regs + "\n ld.param.u64 %rd1, [p];\n" + body + "\n ret;\n}\n"
    return [t.split("  //")[0].strip() for t in assemble_text(src).texts]


def test_a_negation_only_selected_becomes_a_sign_flip():
    t = texts("""
 ld.f32 %f1, [%rd1]; ld.f32 %f2, [%rd1+4]; setp.le.f32 %p1, %f1, %f2;
 neg.f32 %f3, %f1; selp.f32 %f4, 0f80000000, %f3, %p1; st.f32 [%rd1], %f4;
 neg.f32 %f5, %f2; st.f32 [%rd1+4], %f5;
 neg.f32 %f6, %f1; selp.f32 %f7, %f6, %f2, %p1; st.f32 [%rd1+8], %f7; add.f32 %f8, %f6, %f2; st.f32 [%rd1+12], %f8;
 neg.ftz.f32 %f9, %f1; selp.f32 %f10, %f9, %f2, %p1; st.f32 [%rd1+16], %f10;""")
    assert "xor.b32 %f3, %f1, 2147483648;" in t                       # only selected: FSEL -a
    assert "neg.f32 %f5, %f2;" in t                                    # stored: FADD -a, -RZ
    assert "neg.f32 %f6, %f1;" in t                                    # also added: kept
    assert "neg.ftz.f32 %f9, %f1;" in t                                # .ftz: kept
    t = texts("""
 ld.f32 %f1, [%rd1]; ld.f32 %f2, [%rd1+4]; setp.le.f32 %p1, %f1, %f2;
 abs.f32 %f3, %f1; neg.f32 %f4, %f3; selp.f32 %f5, %f4, %f3, %p1; st.f32 [%rd1], %f5;
 abs.f32 %f6, %f2; neg.f32 %f7, %f6; selp.f32 %f8, %f7, %f6, %p1; st.f32 [%rd1+4], %f8; st.f32 [%rd1+8], %f6;""")
    assert "and.b32 %f3, %f1, 2147483647;" in t and "xor.b32 %f4, %f3, 2147483648;" in t   # copysignf: FSEL -|a|, |a|
    assert "abs.f32 %f6, %f2;" in t and "xor.b32 %f7, %f6, 2147483648;" in t   # |a| also stored: kept


def test_folds_into_a_constant_chain():
    # __float2bfloat16(NaN) widened again: ptxas folds the whole chain to the canonical NaN (k03126)
    t = texts(" mov.u16 %rs1, 32256; cvt.f32.f16 %f1, %rs1; cvt.rn.bf16.f32 %rs2, %f1; cvt.f32.bf16 %f2, %rs2;"
              " st.f32 [%rd1], %f2;")
    assert "mov.b32 %f1, 2147483647;" in t and "mov.b16 %rs2, 32767;" in t and "mov.b32 %f2, 2147483647;" in t


# ---- tests/cuda/misc_classes.cu -------------------------------------------------------------------

N = 128


def run(kernel, args, buffers, mode):
    if mode == "ptx":
        program = load_program(str(PTX), kernel)
        eng = launch(program, 1, N, args, {k: v.copy() for k, v in buffers.items()}).buffers
        orc = run_oracle(program, 1, N, args, {k: v.copy() for k, v in buffers.items()}).buffers
        for k in buffers:
            assert np.array_equal(eng[k].view(np.uint8), orc[k].view(np.uint8)), f"{kernel}: engine and oracle differ in {k}"
        return eng
    from simt_sim.frontend.sass_lower import load_kernel
    program = load_kernel(str(PTX), kernel, "sass")
    return launch(program, 1, N, args, {k: v.copy() for k, v in buffers.items()}).buffers


def nan_inputs():
    rng = np.random.default_rng(61)
    a = rng.uniform(-4, 4, N).astype(np.float32)
    b = rng.uniform(-4, 4, N).astype(np.float32)
    a[:32].view(np.uint32)[:] = 0xFFC00000 | rng.integers(0, 1 << 22, 32).astype(np.uint32)   # NaNs, sign set
    a[32:48].view(np.uint32)[:] = 0x7FC00000 | rng.integers(0, 1 << 22, 16).astype(np.uint32)
    b[48:64] = np.float32(np.nan)
    return a, b


@pytest.mark.parametrize("mode", ["ptx", pytest.param("sass", marks=needs_ptxas)])
def test_negated_fdim_of_a_nan_is_the_negative_canonical_nan(mode):
    a, b = nan_inputs()
    o = run("neg_select", ["a", "b", "o", N], {"a": a, "b": b, "o": np.zeros(2 * N, np.uint32)}, mode)["o"]
    # fdimf of a NaN is the canonical NaN 0x7fffffff; FSEL -a flips its sign (H100: corpus k08212)
    assert (o[:64] == 0xFFFFFFFF).all()
    with np.errstate(invalid="ignore"):
        want = -np.where(a[64:] > b[64:], a[64:] - b[64:], np.float32(0))
    assert np.array_equal(o[64:N], want.astype(np.float32).view(np.uint32))
    # -fmaxf(x, x) stored: ptxas writes FADD -x, -RZ, which gives the canonical NaN
    assert (o[N:N + 48] == 0x7FFFFFFF).all()


@pytest.mark.parametrize("mode", ["ptx", pytest.param("sass", marks=needs_ptxas)])
def test_copysign_of_a_nan_keeps_its_payload(mode):
    a, _ = nan_inputs()
    d = np.random.default_rng(65).uniform(-1, 1, N)
    o = run("copysign_d", ["a", "d", "o", N], {"a": a, "d": d, "o": np.zeros(N, np.uint32)}, mode)["o"]
    # FSEL R9, -|R2|, |R2|, !P0: the payload of a NaN x kept, the sign d's (H100: corpus k00613)
    want = (a.view(np.uint32) & 0x7FFFFFFF) | ((d.view(np.uint64) >> 32).astype(np.uint32) & 0x80000000)
    assert np.array_equal(o, want)


@needs_ptxas
def test_negated_select_matches_sass_mode():
    a, b = nan_inputs()
    bufs = {"a": a, "b": b, "o": np.zeros(2 * N, np.uint32)}
    assert np.array_equal(run("neg_select", ["a", "b", "o", N], bufs, "ptx")["o"],
                          run("neg_select", ["a", "b", "o", N], bufs, "sass")["o"])


@pytest.mark.parametrize("mode", ["ptx", pytest.param("sass", marks=needs_ptxas)])
def test_64_bit_subtract_of_zero_carries(mode):
    rng = np.random.default_rng(62)
    a = rng.integers(0, 1 << 63, N, dtype=np.uint64)
    b = rng.integers(-(1 << 31), 1 << 31, N).astype(np.int32)
    b[::2] = 0                                    # (a << 1) - 0: LEA's ~0 + 1 carries into the upper word
    o = run("sub64", ["a", "b", "o", N], {"a": a, "b": b, "o": np.zeros(N, np.uint64)}, mode)["o"]
    want = [((int(x) << 1) - int(y)) & (2 ** 64 - 1) for x, y in zip(a, b)]
    assert [int(v) for v in o] == want


@pytest.mark.parametrize("mode", ["ptx", pytest.param("sass", marks=needs_ptxas)])
def test_trunc_of_fabs_of_a_nan_keeps_its_sign(mode):
    rng = np.random.default_rng(63)
    a = rng.uniform(-1e6, 1e6, N)
    bits = a.view(np.uint64)
    bits[:32] = 0xFFF0000000000000 | rng.integers(1, 1 << 52, 32, dtype=np.uint64)    # negative NaNs
    o = run("trunc_abs", ["a", "o", N], {"a": a, "o": np.zeros(N)}, mode)["o"].view(np.uint64)
    # FRND.F64.TRUNC R4, |R2| of a NaN: quieted, its sign kept (H100: corpus k06327, k06127, k01414)
    assert np.array_equal(o[:32], bits[:32] | np.uint64(1 << 51))
    assert np.array_equal(o[32:].view(np.float64), np.trunc(np.abs(a[32:])))


def _directed_sqrt(x: float, up: bool) -> float:
    y, fx = math.sqrt(x), Fraction(x)
    while Fraction(y) ** 2 > fx:
        y = math.nextafter(y, 0.0)
    while Fraction(math.nextafter(y, math.inf)) ** 2 <= fx:
        y = math.nextafter(y, math.inf)
    if up and Fraction(y) ** 2 != fx:
        y = math.nextafter(y, math.inf)
    return y


@pytest.mark.parametrize("mode", ["ptx", pytest.param("sass", marks=needs_ptxas)])
def test_directed_sqrt_of_tiny_doubles_is_correctly_rounded(mode):
    rng = np.random.default_rng(64)
    bits = rng.integers(1, 0x0400000000000000, N, dtype=np.uint64)       # 2^-1074 .. about 2^-959
    a = bits.view(np.float64)
    o = run("sqrt_rd", ["a", "o", N], {"a": a, "o": np.zeros(2 * N)}, mode)["o"]
    down = [_directed_sqrt(float(x), False) for x in a]
    up = [_directed_sqrt(float(x), True) for x in a]
    assert [struct.pack("<d", v) for v in o[:N]] == [struct.pack("<d", v) for v in down]
    assert [struct.pack("<d", v) for v in o[N:]] == [struct.pack("<d", v) for v in up]
