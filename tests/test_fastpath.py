"""The warp-wide fast paths (engine/fastpath.py) at edge values.

Arithmetic is checked bit-exactly (NaN payloads included) against the scalar semantics the
per-lane path uses (alu.f32_arith, alu.f64_arith, alu.int_arith), so the inlined plain cases
cannot drift from them; setp / selp / mov and guarded (partial-mask) execution are checked
against the per-thread oracle.
"""
from __future__ import annotations

import numpy as np
import pytest

from simt_sim.engine.functional import alu
from simt_sim.isa import encoding as E
from simt_sim.frontend.assembler import assemble_text
from simt_sim.run.functional import launch
from simt_sim.oracle import run_oracle

N = 64      # two warps

F32_EDGE = np.array([0.0, -0.0, 1.0, -1.5, 0.1, 3.0, np.inf, -np.inf, np.nan, 3.4028235e38,
                     -3.4028235e38, 1.1754944e-38, -1.1754944e-38, 1e-45, -1e-40, 3e-39, 1e30,
                     -1e-30, 16777217.0, 0.33333334], np.float32)
F64_EDGE = np.array([0.0, -0.0, 1.0, -3.5, 0.1, np.inf, -np.inf, np.nan, 1.7976931348623157e308,
                     5e-324, -2.2250738585072014e-308, 1e300, 2.0 ** 53 + 2], np.float64)
I32_EDGE = np.array([0, 1, -1, 2, 31, 32, 33, 63, 64, 100, 2**31 - 1, -2**31, 0xFFFF, 0x10000,
                     12345678, -98765432, 0x55555555, -0x55555556], np.int64)
I64_EDGE = np.array([0, 1, -1, 31, 32, 63, 64, 65, 2**63 - 1, -2**63, 2**32, 2**32 - 1, -2**32,
                     0x0123456789ABCDEF, -0x0FEDCBA987654321, 10**18], np.int64)

REG = {"f32": "%f", "f64": "%fd", 32: "%r", 64: "%rd1"}     # %rd1..%rd9 hold addresses


def _inputs(edge: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """a, b, c per thread: every pair of edge values meets somewhere, plus random values."""
    r = np.random.default_rng(seed)
    k = len(edge)
    i = np.arange(N)
    a = edge[i % k]
    b = edge[(i // k + i) % k]
    c = edge[(3 * i + 1) % k]
    a, b, c = (np.where(r.random(N) < 0.2, r.permutation(x), x) for x in (a, b, c))
    return a, b, c


def _kernel(ty: str, body: str) -> str:
    """Thread tid loads %<A>1..3 from a, b, c[tid], runs body (result in <reg>4), stores it."""
    width = 8 if ty in ("f64", "u64", "s64", "b64") else 4
    reg = REG.get(ty, REG[8 * width])
    return f""".version 9.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1, .param .u64 k_param_2,
                  .param .u64 k_param_3)
{{
    .reg .pred %p<8>;
    .reg .b32 %r<16>;
    .reg .f32 %f<8>;
    .reg .b64 %rd<24>;
    .reg .f64 %fd<8>;
    ld.param.u64 %rd1, [k_param_0];
    ld.param.u64 %rd2, [k_param_1];
    ld.param.u64 %rd3, [k_param_2];
    ld.param.u64 %rd4, [k_param_3];
    mov.u32 %r9, %tid.x;
    mul.wide.u32 %rd5, %r9, {width};
    add.s64 %rd6, %rd1, %rd5;
    add.s64 %rd7, %rd2, %rd5;
    add.s64 %rd8, %rd3, %rd5;
    add.s64 %rd9, %rd4, %rd5;
    ld.global.{ty} {reg}1, [%rd6];
    ld.global.{ty} {reg}2, [%rd7];
    ld.global.{ty} {reg}3, [%rd8];
    mov.{ty} {reg}4, {reg}3;
    {body.replace("$", reg)}
    st.global.{ty} [%rd9], {reg}4;
    ret;
}}
"""


def _run(ty: str, body: str, a, b, c, oracle: bool = False):
    bufs = {"a": a, "b": b, "c": c, "d": np.zeros_like(a)}
    prog = assemble_text(_kernel(ty, body))
    args = ["a", "b", "c", "d"]
    got = launch(prog, 1, N, args, {k: v.copy() for k, v in bufs.items()}).buffers["d"]
    if not oracle:
        return got, None
    return got, run_oracle(prog, 1, N, args, {k: v.copy() for k, v in bufs.items()}).buffers["d"]


def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(np.uint64 if x.itemsize == 8 else np.uint32)


def _flags_rnd(mods: str) -> tuple[int, int]:
    flags = rnd = 0
    for m in filter(None, mods.split(".")):
        if m in E.RND_CODE:
            rnd = E.RND_CODE[m]
        else:
            flags |= {"ftz": E.FL_FTZ, "sat": E.FL_SAT, "approx": E.FL_APPROX, "lo": 0, "hi": E.FL_HI}[m]
    return flags, rnd


F32_OPS = ["add", "add.ftz", "add.rz", "add.sat", "sub", "sub.rm.ftz", "mul", "mul.ftz", "mul.rp",
           "fma.rn", "fma.rn.ftz", "fma.rn.sat", "fma.rz", "mad.rn", "min", "max.ftz", "div.rn",
           "abs", "neg.ftz"]


@pytest.mark.parametrize("ins", F32_OPS)
def test_f32_bit_exact(ins):
    name, _, mods = ins.partition(".")
    nops = {"abs": 1, "neg": 1, "fma": 3, "mad": 3}.get(name, 2)
    flags, rnd = _flags_rnd(mods)
    a, b, c = _inputs(F32_EDGE, 1)
    srcs = ", ".join("$%d" % k for k in range(1, nops + 1))
    got, _ = _run("f32", f"{ins}.f32 $4, {srcs};", a, b, c)
    op = E.OPCODE[name]
    want = np.array([alu.f32_arith(op, a[i], b[i] if nops > 1 else np.float32(0),
                                   c[i] if nops > 2 else np.float32(0), flags, rnd) for i in range(N)],
                    np.float32)
    np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("ins", ["add.f32 $4, $1, 0f3F000000;", "fma.rn.f32 $4, $1, 0fBF800000, $3;",
                                 "mul.ftz.f32 $4, 0f00000001, $2;"])
def test_f32_immediates_match_oracle(ins):
    a, b, c = _inputs(F32_EDGE, 2)
    got, want = _run("f32", ins, a, b, c, oracle=True)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(got)
    np.testing.assert_array_equal(_bits(got[ok]), _bits(want[ok]))


@pytest.mark.parametrize("ins", ["add", "sub", "mul", "fma.rn", "div.rn", "min"])
def test_f64_bit_exact(ins):
    name, _, mods = ins.partition(".")
    nops = 3 if name == "fma" else 2
    flags, rnd = _flags_rnd(mods)
    a, b, c = _inputs(F64_EDGE, 3)
    srcs = ", ".join("$%d" % k for k in range(1, nops + 1))
    got, _ = _run("f64", f"{ins}.f64 $4, {srcs};", a, b, c)
    op = E.OPCODE[name]
    want = np.array([alu.f64_arith(op, a[i], b[i], c[i] if nops > 2 else 0.0, flags, rnd)
                     for i in range(N)], np.float64)
    np.testing.assert_array_equal(_bits(got), _bits(want))


INT_OPS = ["add", "sub", "mul.lo", "mad.lo", "and", "or", "xor", "shl", "shr", "add.sat", "mul.hi",
           "mad.hi", "min", "max", "not", "neg", "rem", "div"]
INT_TYPES = ["s32", "u32", "b32", "s64", "u64", "b64"]


def _valid(ins: str, ty: str) -> bool:
    name = ins.split(".")[0]
    if ins == "add.sat":
        return ty == "s32"
    if name in ("and", "or", "xor", "not", "shl"):
        return ty[0] == "b"
    return ty[0] != "b" and not (name == "neg" and ty[0] == "u")


@pytest.mark.parametrize("ins, ty", [(i, t) for i in INT_OPS for t in INT_TYPES if _valid(i, t)])
def test_int_bit_exact(ins, ty):
    name, _, mods = ins.partition(".")
    code = E.TYPE_CODE[ty]
    bits = E.TYPE_BITS[code]
    nops = {"not": 1, "neg": 1, "mad": 3}.get(name, 2)
    flags, _ = _flags_rnd(mods)
    a, b, c = _inputs(I64_EDGE if bits == 64 else I32_EDGE, 4)
    if name in ("shl", "shr"):      # shift amounts are .u32 registers: 0..31, the width, beyond
        body = f"{name}.{ty} $4, $1, %r7;"
        pre = "cvt.u32.u64 %r7, %rd12;" if bits == 64 else "mov.b32 %r7, %r2;"
        body = pre + "\n    " + body
        b_ty = E.T_U32
    else:
        srcs = ", ".join("$%d" % k for k in range(1, nops + 1))
        body = f"{ins}.{ty} $4, {srcs};"
        b_ty = code
    dt = np.int64 if bits == 64 else np.int32
    a, b, c = (x.astype(dt) for x in (a, b, c))
    got, _ = _run(ty, body, a, b, c)
    op = E.OPCODE[name]
    want = []
    for i in range(N):
        r = alu.int_arith(op, code, flags, alu.extend(np.int64(a[i]), code),
                          alu.extend(np.int64(b[i]), b_ty) if nops > 1 else np.int64(0),
                          alu.extend(np.int64(c[i]), code) if nops > 2 else np.int64(c[i]))
        want.append(int(r) & ((1 << bits) - 1))
    want = np.array(want, np.uint64 if bits == 64 else np.uint32)
    np.testing.assert_array_equal(_bits(got), want)


SETP = ["setp.lt.s32 %p1, %r1, %r2;", "setp.ge.u32 %p1, %r1, %r2;", "setp.ne.b32 %p1, %r1, 7;",
        "setp.hi.u32 %p1|%p2, %r1, %r2;", "setp.lt.and.s32 %p1|%p2, %r1, %r2, %p3;",
        "setp.eq.or.u32 %p1, %r1, %r3, !%p3;", "setp.gt.xor.s32 %p1|%p2, %r1, %r2, %p3;"]
SETP_F32 = ["setp.lt.f32 %p1, %f1, %f2;", "setp.equ.f32 %p1|%p2, %f1, %f2;",
            "setp.num.f32 %p1, %f1, %f2;", "setp.eq.ftz.f32 %p1, %f1, 0f00000000;",
            "setp.geu.and.f32 %p1|%p2, %f1, %f2, %p3;"]


def _pred_out(p: str) -> str:
    """Store the predicates as bits 0 (p1) and 1 (p2) of the result."""
    return (f"{p}\n    selp.b32 %r10, 1, 0, %p1;\n    selp.b32 %r11, 2, 0, %p2;\n"
            f"    or.b32 %r12, %r10, %r11;\n    mov.b32 $4, %r12;")


@pytest.mark.parametrize("ins", SETP + SETP_F32)
def test_setp_matches_oracle(ins):
    ty = "f32" if ins in SETP_F32 else "b32"
    edge = F32_EDGE if ty == "f32" else I32_EDGE
    a, b, c = _inputs(edge, 5)
    if ty == "b32":
        a, b, c = (x.astype(np.int32) for x in (a, b, c))
        pre = "and.b32 %r13, %r3, 1;\n    setp.ne.b32 %p3, %r13, 0;\n    "
    else:
        pre = "setp.gt.f32 %p3, %f3, 0f00000000;\n    "
    body = pre + "setp.ne.b32 %p2, %r9, 5;\n    " + _pred_out(ins)
    got, want = _run(ty, body, a, b, c, oracle=True)
    np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("body", [
    "setp.lt.s32 %p1, %r1, %r2;\n    selp.b32 $4, %r1, %r2, %p1;",
    "setp.lt.s32 %p1, %r1, %r2;\n    selp.s32 $4, -5, %r3, !%p1;",
    "mov.u32 $4, %laneid;",
    "mov.u32 $4, %tid.x;",
    "mov.b32 $4, 0xDEADBEEF;",
    "mov.b32 $4, $1;",
    "add.s32 $1, $1, $2;\n    add.s32 $4, $1, $1;",                 # destination aliases a source
    "setp.lt.s32 %p1, %r1, %r2;\n    @%p1 mul.lo.s32 $4, $1, $2;",   # partial masks
    "setp.ge.s32 %p1, %r1, 0;\n    @!%p1 shl.b32 $4, $1, 3;",
])
def test_int_moves_selects_and_guards_match_oracle(body):
    a, b, c = (x.astype(np.int32) for x in _inputs(I32_EDGE, 6))
    got, want = _run("b32", body, a, b, c, oracle=True)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("body", [
    "setp.lt.f32 %p1, $1, $2;\n    @%p1 fma.rn.f32 $4, $1, $2, $3;",
    "setp.ltu.f32 %p1, $1, $2;\n    @!%p1 add.ftz.f32 $4, $1, $2;",
    "mov.f32 $4, 0f7FC00001;",
    "add.f32 $1, $1, $1;\n    mul.f32 $4, $1, $2;",
])
def test_f32_guards_and_moves_match_oracle(body):
    a, b, c = _inputs(F32_EDGE, 7)
    got, want = _run("f32", body, a, b, c, oracle=True)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(got)
    np.testing.assert_array_equal(_bits(got[ok]), _bits(want[ok]))
