"""The engine against the per-thread oracle (simt_sim.oracle) and against numpy references."""
from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from simt_sim.errors import RuntimeFault
from simt_sim.frontend.assembler import assemble_text, load_program
from simt_sim.run.functional import LaunchConfig, launch
from simt_sim.oracle import round_rational, run_oracle

CUDA = Path(__file__).parent / "cuda"
RNG_SEED = 12345


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def assert_bits_equal(got: np.ndarray, want: np.ndarray, what: str = "") -> None:
    assert got.shape == want.shape and got.dtype == want.dtype, what
    gb, wb = _bits(got), _bits(want)
    bad = np.nonzero(gb.ravel() != wb.ravel())[0]
    assert bad.size == 0, (f"{what}: {bad.size} element(s) differ, first at {bad[:5].tolist()}: "
                           f"{got.ravel()[bad[:5]].tolist()} vs {want.ravel()[bad[:5]].tolist()}")


def run_both(program, grid, block, args, buffers, warp_size=32, compare=None):
    """Run engine and oracle on copies of the buffers; compare every buffer bit-exactly (or only
    the names in `compare`) and the per-thread instruction counts."""
    cfg = LaunchConfig(warp_size=warp_size)
    eng = launch(program, grid, block, args, {k: v.copy() for k, v in buffers.items()}, config=cfg)
    orc = run_oracle(program, grid, block, args, {k: v.copy() for k, v in buffers.items()},
                     warp_size=warp_size)
    for name in (compare if compare is not None else buffers):
        assert_bits_equal(eng.buffers[name], orc.buffers[name], f"buffer {name}")
    assert eng.thread_icount.shape == orc.thread_icount.shape
    np.testing.assert_array_equal(eng.thread_icount, orc.thread_icount)
    assert orc.instructions == int(eng.thread_icount.sum())
    return eng, orc


def prog(name: str):
    return load_program(str(CUDA / f"{name}.ptx"))


def rng():
    return np.random.default_rng(RNG_SEED)


def rand_i32(r, n, lo=-2**31, hi=2**31):
    return r.integers(lo, hi, size=n, dtype=np.int64).astype(np.int32)


def rand_f32(r, n, scale=100.0):
    return (r.standard_normal(n) * scale).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# the CUDA-compiled kernels
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("ws", [32, 8])
def test_vec_add_int(ws):
    r = rng()
    n = 1000
    a, b = rand_i32(r, n), rand_i32(r, n)
    bufs = {"a": a, "b": b, "c": np.zeros(n, np.int32)}
    eng, orc = run_both(prog("vec_add_int"), 4, 256, ["a", "b", "c", n], bufs, warp_size=ws)
    with np.errstate(over="ignore"):
        ref = a + b
    assert_bits_equal(orc.buffers["c"], ref, "numpy reference")


def test_vec_add_float():
    r = rng()
    n = 700
    a, b = rand_f32(r, n), rand_f32(r, n, 1e-3)
    bufs = {"a": a, "b": b, "c": np.full(n, -1.0, np.float32)}
    eng, orc = run_both(prog("vec_add_float"), 3, 256, ["a", "b", "c", n], bufs)
    assert_bits_equal(orc.buffers["c"], a + b, "numpy reference")


def test_saxpy():
    r = rng()
    n = 1000
    alpha = np.float32(2.7182817)
    x, y = rand_f32(r, n), rand_f32(r, n)
    bufs = {"x": x, "y": y}
    eng, orc = run_both(prog("saxpy"), 4, 256, [float(alpha), "x", "y", n], bufs)
    # fmaf: exact a*x + y rounded once to float32 (double rounding via float64 can only differ
    # at exact float32 midpoints, which do not occur for this data)
    ref = np.array([round_rational(Fraction(float(alpha)) * Fraction(float(xi)) + Fraction(float(yi)), 32, 1)
                    for xi, yi in zip(x, y)], dtype=np.float32)
    via64 = (alpha.astype(np.float64) * x.astype(np.float64) + y.astype(np.float64)).astype(np.float32)
    assert_bits_equal(ref, via64, "reference sanity")
    assert_bits_equal(orc.buffers["y"], ref, "numpy reference")


def test_parity_branch():
    r = rng()
    n = 300
    v = rand_i32(r, n, -10_000, 10_000)
    bufs = {"in": v, "out": np.zeros(n, np.int32)}
    eng, orc = run_both(prog("parity_branch"), 3, 128, ["in", "out", n], bufs)
    tid = np.arange(n) % 128
    ref = np.where(tid & 1, v * 3 + 1, np.trunc(v / 2).astype(np.int32) - 7).astype(np.int32)
    assert_bits_equal(orc.buffers["out"], ref, "numpy reference")


def test_while_loop():
    r = rng()
    n = 200
    trips = r.integers(-2, 40, size=n).astype(np.int32)
    bufs = {"trips": trips, "out": np.full(n, 7, np.int32)}
    eng, orc = run_both(prog("while_loop"), 2, 128, ["trips", "out", n], bufs)
    ref = np.array([sum(k * k + i for k in range(t)) for i, t in enumerate(trips)], dtype=np.int32)
    assert_bits_equal(orc.buffers["out"], ref, "numpy reference")
    assert len(set(orc.thread_icount[:n].tolist())) > 5       # divergent trip counts


def test_nested_if():
    r = rng()
    n = 250
    v = np.concatenate([rand_i32(r, n - 6, -200, 200), np.array([0, 1, 3, 101, -50, -51], np.int32)])
    bufs = {"in": v, "out": np.zeros(n, np.int32)}
    eng, orc = run_both(prog("nested_if"), 2, 128, ["in", "out", n], bufs)
    ref = np.where(v > 0, np.where(v > 100, 1, np.where(v % 3 == 0, 2, 3)),
                   np.where(v < -50, -1, v * v)).astype(np.int32)
    assert_bits_equal(orc.buffers["out"], ref, "numpy reference")


def test_switch4():
    r = rng()
    n = 256
    v = rand_i32(r, n, -100_000, 100_000)
    bufs = {"in": v, "out": np.zeros(n, np.int32)}
    eng, orc = run_both(prog("switch4"), 1, 256, ["in", "out", n], bufs)
    sel = v & 3
    ref = np.select([sel == 0, sel == 1, sel == 2], [v + 10, v * 7, v ^ 0x5A5A], -v).astype(np.int32)
    assert_bits_equal(orc.buffers["out"], ref, "numpy reference")


def test_early_return():
    r = rng()
    n = 77
    v = rand_i32(r, n, -1000, 1000)
    bufs = {"in": v, "out": np.full(128, -3, np.int32)}
    eng, orc = run_both(prog("early_return"), 2, 64, ["in", "out", n], bufs)
    ref = np.full(128, -3, np.int32)
    ref[:n] = v * 2 + np.arange(n)
    assert_bits_equal(orc.buffers["out"], ref, "numpy reference")


@pytest.mark.parametrize("block", [256, 64])
def test_reduce_shared(block):
    r = rng()
    n = 1000
    grid = -(-n // block)
    v = rand_i32(r, n, -1000, 1000)
    bufs = {"in": v, "out": np.zeros(grid, np.int32)}
    eng, orc = run_both(prog("reduce_shared"), grid, block, ["in", "out", n], bufs)
    padded = np.zeros(grid * block, np.int64)
    padded[:n] = v
    ref = padded.reshape(grid, block).sum(axis=1).astype(np.int32)
    assert_bits_equal(orc.buffers["out"], ref, "numpy reference")


def test_atomics():
    r = rng()
    n = 300
    v = rand_i32(r, n, -5000, 5000)
    acc = np.array([11, 2**31 - 1, -2**31, -1, 0, 100, 200], np.int32)
    bufs = {"in": v, "acc": acc, "old": np.zeros(3 * n, np.int32)}
    # exch / cas results and the returned old values depend on the order of the atomics: compare
    # only the commutative accumulators bit-exactly
    eng, orc = run_both(prog("atomics"), 2, 256, ["in", "acc", "old", n], bufs, compare=[])
    for res in (eng, orc):
        a = res.buffers["acc"]
        assert a[0] == 11 + int(v.astype(np.int64).sum())
        assert a[1] == v.min() and a[2] == v.max()
        assert a[5] == 100 + n and a[6] == 200 + n
        old = res.buffers["old"].reshape(n, 3)
        # r + u, where r, u are the old values of acc[5], acc[6]: same order in both counters
        assert sorted(old[:, 2].tolist()) == [300 + 2 * k for k in range(n)]
        assert sorted(old[:, 0].tolist()) == sorted([-1] + list(range(n - 1)))
    assert_bits_equal(eng.buffers["acc"][[0, 1, 2, 5, 6]], orc.buffers["acc"][[0, 1, 2, 5, 6]], "acc")


def test_double_math():
    r = rng()
    n = 300
    a = r.standard_normal(n) * 1e3
    b = r.standard_normal(n) * 1e-2 + 0.5
    c = r.standard_normal(n)
    bufs = {"a": a, "b": b, "c": c, "out": np.zeros(3 * n)}
    eng, orc = run_both(prog("double_math"), 2, 256, ["a", "b", "c", "out", n], bufs)
    out = orc.buffers["out"].reshape(n, 3)
    assert_bits_equal(out[:, 1].copy(), a / b, "division")
    # nvcc leaves `x * 1.5 - z` as mul.f64 + sub.f64 with no rounding modifier, which ptxas contracts
    # into one DFMA (frontend/ptx_contract.py): the product is not rounded before the subtraction
    fused = np.array([round_rational(Fraction(float(x)) * Fraction(3, 2) - Fraction(float(z)), 64, 1)
                      for x, z in zip(a, c)])
    assert_bits_equal(out[:, 2].copy(), fused + 0.25, "mul/sub (contracted into fma) then add")
    assert np.allclose(out[:, 0], a * b + c, rtol=1e-12, atol=1e-12)


def test_float_math():
    r = rng()
    n = 300
    a = rand_f32(r, n, 10.0)
    b = rand_f32(r, n, 3.0)
    b[b == 0] = 1.0
    bufs = {"a": a, "b": b, "out": np.zeros(8 * n, np.float32)}
    eng, orc = run_both(prog("float_math"), 2, 256, ["a", "b", "out", n], bufs)
    out = orc.buffers["out"].reshape(n, 8)
    assert_bits_equal(out[:, 0].copy(), np.sqrt(np.abs(a)), "sqrt")
    assert_bits_equal(out[:, 1].copy(), a / b, "div")
    assert_bits_equal(out[:, 5].copy(), np.minimum(a, b), "min")
    assert_bits_equal(out[:, 6].copy(), np.maximum(a, b), "max")
    assert np.allclose(out[:, 2], np.sin(a.astype(np.float64)), atol=1e-6)
    assert np.allclose(out[:, 3], np.exp(b.astype(np.float64)), rtol=1e-6)


def test_int_math():
    r = rng()
    n = 400
    x, y = rand_i32(r, n), rand_i32(r, n, -1000, 1000)
    ux, uy = rand_i32(r, n).view(np.uint32), r.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    # edge cases: INT_MIN / -1, division by zero (all ones by the shared convention), small values
    x[:6] = [-2**31, -2**31, 7, -7, 0, 5]
    y[:6] = [-1, 0, -2, 2, 3, 0]
    ux[:3] = [0xFFFFFFFF, 5, 0]
    uy[:3] = [1, 0, 7]
    bufs = {"a": x, "b": y, "ua": ux, "ub": uy, "out": np.zeros(6 * n, np.int32)}
    eng, orc = run_both(prog("int_math"), 2, 256, ["a", "b", "ua", "ub", "out", n], bufs)
    out = orc.buffers["out"].reshape(n, 6)
    ok = (y != 0) & ~((x == -2**31) & (y == -1))
    xq = x[ok].astype(np.int64)
    yq = y[ok].astype(np.int64)
    q = np.trunc(xq / yq).astype(np.int64)
    q = np.where(np.abs(q * yq) > np.abs(xq), q - np.sign(q), q)
    assert (out[ok, 0] == q).all()
    assert (out[ok, 1] == xq - q * yq).all()
    u = uy != 0
    assert (out[u, 2].view(np.uint32) == ux[u] // uy[u]).all()
    assert (out[:, 4].view(np.uint32) == ((ux.astype(np.uint64) * uy.astype(np.uint64)) >> 32)).all()


def test_int64_ops():
    r = rng()
    n = 300
    a = r.integers(-2**63, 2**63, n, dtype=np.int64)
    b = r.integers(-2**63, 2**63, n, dtype=np.int64)
    a[:100] = r.integers(0, 2**32, 100)                       # the 32-bit division path
    b[:100] = r.integers(1, 2**32, 100)
    b[b == 0] = 3
    u = r.integers(0, 2**64, n, dtype=np.uint64)
    bufs = {"a": a, "b": b, "u": u, "out": np.zeros(6 * n, np.int64)}
    eng, orc = run_both(prog("int64_ops"), 2, 256, ["a", "b", "u", "out", n], bufs)
    out = orc.buffers["out"].reshape(n, 6)
    with np.errstate(over="ignore"):
        assert (out[:, 0] == a + b).all()
    assert (out[:, 4].view(np.uint64) == u % np.uint64(1000000007)).all()
    assert (out[:, 3] == ((u >> np.uint64(13)).view(np.int64) ^ (a & 0xFFFF0000FFFF))).all()
    assert (out[:, 5] == np.where(a < b, np.arange(n), a >> 2)).all()


def test_restrict_copy():
    r = rng()
    n = 500
    x = rand_f32(r, n)
    idx = r.permutation(n).astype(np.int32)
    bufs = {"in": x, "out": np.zeros(n, np.float32), "idx": idx}
    eng, orc = run_both(prog("restrict_copy"), 2, 256, ["in", "out", "idx", n], bufs)
    # fma(in[idx], 2, in): the product is exact, so one rounding of the float32 sum
    assert_bits_equal(orc.buffers["out"], x[idx] * np.float32(2) + x, "numpy reference")


def test_activemask_is_not_run_by_the_oracle():
    """__activemask() depends on which lanes run together, which a per-thread oracle cannot know
    (vote.sync and shfl.sync name their lanes in the membermask and run: tests/test_cuda_idioms.py)."""
    n = 32
    bufs = {"in": np.arange(n, dtype=np.int32), "out": np.zeros(5 * n, np.int32)}
    with pytest.raises(NotImplementedError, match="warp-collective"):
        run_oracle(prog("warp_vote"), 1, 32, ["in", "out", n], bufs)


def test_vote_sync_in_engine_and_oracle():
    """__any_sync / __all_sync / __ballot_sync without the __activemask() store."""
    program = prog("warp_vote")
    text = "\n".join(program.texts)
    assert "vote.sync.any.pred" in text and "vote.sync.ballot.b32" in text
    x = np.random.default_rng(12).integers(0, 9, 64).astype(np.int32)
    text = re.sub(r"activemask\.b32\s+(%r\d+);", r"mov.b32 \1, -1;", Path(program.file).read_text())
    eng, orc = run_both(assemble_text(text), 2, 32, ["in", "out", 64], {"in": x, "out": np.zeros(4 * 64, np.uint32)})
    out = orc.buffers["out"].reshape(64, 4)
    for w in range(2):
        v = x[32 * w:32 * w + 32]
        assert (out[32 * w:32 * w + 32, 1] == int((v > 5).any())).all()
        assert (out[32 * w:32 * w + 32, 2] == int((v != 0).all())).all()
        assert (out[32 * w:32 * w + 32, 3] == sum(1 << j for j in range(32) if v[j] & 1)).all()


# ---------------------------------------------------------------------------------------------
# hand-written kernels for instructions the compiled ones do not reach
# ---------------------------------------------------------------------------------------------

HEADER = ".version 9.0\n.target sm_90\n.address_size 64\n"


def kernel(body: str, params: str = ".param .u64 p_in, .param .u64 p_out", regs: str = "") -> object:
    text = HEADER + f".visible .entry k({params})\n{{\n" + """
    .reg .pred %p<8>;
    .reg .b16 %h<8>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<40>;
    .reg .f32 %f<40>;
    .reg .f64 %fd<40>;
""" + regs + """
    ld.param.u64 %rd1, [p_in];
    ld.param.u64 %rd2, [p_out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %ctaid.x;
    mad.lo.s32 %r4, %r3, %r2, %r1;
""" + body + "\n    ret;\n}\n"
    return assemble_text(text)


def test_integer_ops_kernel():
    """Each thread reads two words and writes the results of many integer ops."""
    body = """
    mul.wide.u32 %rd3, %r4, 8;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    ld.global.u32 %r6, [%rd4+4];
    mul.wide.u32 %rd5, %r4, 128;
    add.s64 %rd6, %rd2, %rd5;
    min.s32 %r7, %r5, %r6;      st.global.u32 [%rd6], %r7;
    max.u32 %r7, %r5, %r6;      st.global.u32 [%rd6+4], %r7;
    abs.s32 %r7, %r5;           st.global.u32 [%rd6+8], %r7;
    neg.s32 %r7, %r6;           st.global.u32 [%rd6+12], %r7;
    shl.b32 %r7, %r5, %r6;      st.global.u32 [%rd6+16], %r7;
    and.b32 %r8, %r6, 63;
    shr.s32 %r7, %r5, %r8;      st.global.u32 [%rd6+20], %r7;
    shr.u32 %r7, %r5, %r8;      st.global.u32 [%rd6+24], %r7;
    not.b32 %r7, %r5;           st.global.u32 [%rd6+28], %r7;
    popc.b32 %r7, %r5;          st.global.u32 [%rd6+32], %r7;
    clz.b32 %r7, %r6;           st.global.u32 [%rd6+36], %r7;
    brev.b32 %r7, %r5;          st.global.u32 [%rd6+40], %r7;
    bfe.u32 %r7, %r5, 3, 9;     st.global.u32 [%rd6+44], %r7;
    bfe.s32 %r7, %r5, 20, 12;   st.global.u32 [%rd6+48], %r7;
    bfi.b32 %r7, %r5, %r6, 4, 8; st.global.u32 [%rd6+52], %r7;
    prmt.b32 %r7, %r5, %r6, 0x7531; st.global.u32 [%rd6+56], %r7;
    sad.s32 %r7, %r5, %r6, 3;   st.global.u32 [%rd6+60], %r7;
    mul.hi.s32 %r7, %r5, %r6;   st.global.u32 [%rd6+64], %r7;
    mad.hi.u32 %r7, %r5, %r6, 5; st.global.u32 [%rd6+68], %r7;
    add.sat.s32 %r7, %r5, %r6;  st.global.u32 [%rd6+72], %r7;
    sub.sat.s32 %r7, %r5, %r6;  st.global.u32 [%rd6+76], %r7;
    rem.u32 %r7, %r5, %r6;      st.global.u32 [%rd6+80], %r7;
    div.s32 %r7, %r5, %r6;      st.global.u32 [%rd6+84], %r7;
    cnot.b32 %r7, %r8;          st.global.u32 [%rd6+88], %r7;
    mul.wide.s32 %rd7, %r5, %r6; st.global.u64 [%rd6+96], %rd7;
    mad.wide.u32 %rd7, %r5, %r6, %rd7; st.global.u64 [%rd6+104], %rd7;
    mul.hi.s64 %rd8, %rd7, -77; st.global.u64 [%rd6+112], %rd8;
    xor.b32 %r7, %r5, %r6;
    or.b32 %r7, %r7, 0x10;
    st.global.u32 [%rd6+92], %r7;
    """
    r = rng()
    n = 64
    vals = rand_i32(r, 2 * n)
    vals[:8] = [-2**31, -1, 0, 0, 7, 33, -5, 40]
    bufs = {"in": vals, "out": np.zeros(32 * n, np.int32)}
    run_both(kernel(body), 2, 32, ["in", "out"], bufs)


def test_setp_selp_cvt_kernel():
    body = """
    mul.wide.u32 %rd3, %r4, 8;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    ld.global.u32 %r6, [%rd4+4];
    mul.wide.u32 %rd5, %r4, 64;
    add.s64 %rd6, %rd2, %rd5;
    setp.lt.s32 %p1|%p2, %r5, %r6;
    setp.hi.u32.and %p3, %r5, 100, %p1;
    setp.ne.s32.or %p4|%p5, %r6, 0, !%p3;
    setp.eq.u32.xor %p6, %r5, %r6, %p2;
    selp.b32 %r7, 1, 0, %p1;
    selp.b32 %r8, 2, 0, %p2;
    add.s32 %r7, %r7, %r8;
    selp.b32 %r8, 4, 0, %p3;    add.s32 %r7, %r7, %r8;
    selp.b32 %r8, 8, 0, %p4;    add.s32 %r7, %r7, %r8;
    selp.b32 %r8, 16, 0, %p5;   add.s32 %r7, %r7, %r8;
    selp.b32 %r8, 32, 0, %p6;   add.s32 %r7, %r7, %r8;
    and.pred %p7, %p1, %p4;
    @%p7 add.s32 %r7, %r7, 64;
    not.pred %p7, %p7;
    @!%p7 add.s32 %r7, %r7, 128;
    st.global.u32 [%rd6], %r7;
    cvt.s8.s32 %r9, %r5;        cvt.s32.s8 %r9, %r9;  st.global.u32 [%rd6+4], %r9;
    cvt.u16.u32 %h1, %r5;       cvt.u32.u16 %r9, %h1; st.global.u32 [%rd6+8], %r9;
    cvt.sat.s16.s32 %h2, %r6;   cvt.s32.s16 %r9, %h2; st.global.u32 [%rd6+12], %r9;
    cvt.s64.s32 %rd7, %r5;      st.global.u64 [%rd6+16], %rd7;
    cvt.u64.u32 %rd7, %r5;      st.global.u64 [%rd6+24], %rd7;
    cvt.rn.f32.s32 %f1, %r5;    st.global.f32 [%rd6+32], %f1;
    cvt.rn.f64.u32 %fd1, %r6;   st.global.f64 [%rd6+40], %fd1;
    cvt.rzi.s32.f32 %r9, %f1;   st.global.u32 [%rd6+48], %r9;
    mul.f32 %f2, %f1, 0f3E800000;
    cvt.rni.s32.f32 %r9, %f2;   st.global.u32 [%rd6+52], %r9;
    cvt.rmi.u32.f32 %r9, %f2;   st.global.u32 [%rd6+56], %r9;
    cvt.rn.f32.f64 %f3, %fd1;   st.global.f32 [%rd6+60], %f3;
    """
    r = rng()
    n = 64
    vals = rand_i32(r, 2 * n)
    vals[:8] = [5, 5, 100, 101, -7, 0, 2**31 - 1, -2**31]
    vals[8:40] = rand_i32(r, 32, -300, 300)
    bufs = {"in": vals, "out": np.zeros(16 * n, np.int32)}
    run_both(kernel(body), 2, 32, ["in", "out"], bufs)


def test_float_ops_kernel():
    body = """
    mul.wide.u32 %rd3, %r4, 8;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.v2.f32 {%f1, %f2}, [%rd4];
    mul.wide.u32 %rd5, %r4, 64;
    add.s64 %rd6, %rd2, %rd5;
    sub.f32 %f3, %f1, %f2;
    mul.rn.f32 %f4, %f1, %f2;
    st.global.v2.f32 [%rd6], {%f3, %f4};
    fma.rn.f32 %f5, %f1, %f2, %f3;
    div.approx.f32 %f6, %f1, %f2;
    st.global.v2.f32 [%rd6+8], {%f5, %f6};
    rcp.rn.f32 %f7, %f2;
    neg.f32 %f8, %f1;
    copysign.f32 %f9, %f2, %f1;
    abs.f32 %f10, %f2;
    st.global.v4.f32 [%rd6+16], {%f7, %f8, %f9, %f10};
    lg2.approx.f32 %f11, %f10;
    cos.approx.f32 %f12, %f1;
    mul.sat.f32 %f13, %f1, 0f3DCCCCCD;
    min.f32 %f14, %f1, 0f7FC00000;
    st.global.v4.f32 [%rd6+32], {%f11, %f12, %f13, %f14};
    setp.gtu.f32 %p1, %f1, %f2;
    selp.f32 %f15, %f1, %f2, %p1;
    cvt.f64.f32 %fd1, %f15;
    sqrt.rn.f64 %fd2, %fd1;
    abs.f64 %fd3, %fd1;
    sqrt.rn.f64 %fd2, %fd3;
    rcp.rn.f64 %fd4, %fd2;
    add.f64 %fd5, %fd4, %fd1;
    st.global.f64 [%rd6+48], %fd5;
    cvt.rni.f32.f32 %f16, %f1;
    st.global.f32 [%rd6+56], %f16;
    tanh.approx.f32 %f17, %f2;
    st.global.f32 [%rd6+60], %f17;
    """
    r = rng()
    n = 64
    vals = rand_f32(r, 2 * n, 5.0)
    vals[:6] = [1.0, 3.0, -0.0, 2.0, 1e30, 1e-30]
    bufs = {"in": vals, "out": np.zeros(16 * n, np.float32)}
    run_both(kernel(body), 2, 32, ["in", "out"], bufs)


def test_f64_directed_rounding_kernel():
    """add / sub / mul / fma / div / sqrt / rcp .f64 under .rz / .rm / .rp: the engine's error-free
    transformations against the oracle's exact rationals (ties, cancellation, overflow)."""
    ops = ["add.{m}.f64 %fd4, %fd1, %fd2;", "sub.{m}.f64 %fd4, %fd1, %fd2;", "mul.{m}.f64 %fd4, %fd1, %fd2;",
           "fma.{m}.f64 %fd4, %fd1, %fd2, %fd3;", "div.{m}.f64 %fd4, %fd1, %fd2;", "abs.f64 %fd5, %fd1;\nsqrt.{m}.f64 %fd4, %fd5;",
           "rcp.{m}.f64 %fd4, %fd2;"]
    lines = ["mul.wide.u32 %rd3, %r4, 24;", "add.s64 %rd4, %rd1, %rd3;", "ld.global.f64 %fd1, [%rd4];",
             "ld.global.f64 %fd2, [%rd4+8];", "ld.global.f64 %fd3, [%rd4+16];",
             f"mul.wide.u32 %rd5, %r4, {8 * 3 * len(ops)};", "add.s64 %rd6, %rd2, %rd5;"]
    k = 0
    for op in ops:
        for m in ("rz", "rm", "rp"):
            lines += [op.format(m=m), f"st.global.f64 [%rd6+{8 * k}], %fd4;"]
            k += 1
    r = rng()
    n = 256
    vals = r.standard_normal(3 * n) * 2.0 ** r.integers(-60, 60, 3 * n)
    edge = [1.0, 2.0 ** -53, -0.0, 1.0, -1.0, 0.0, 1.0 + 2.0 ** -52, 1.0 - 2.0 ** -53, -1.0,
            1e308, 1e308, 1.0, 3.0, 1.0 / 3.0, -1.0, 2.0 ** -1022, 2.0 ** 30, 0.0, 0.1, 0.1, -0.01]
    # (not results below 2^-969: there the engine's error terms can underflow; docs/ptx-subset.md)
    vals[:len(edge)] = edge
    bufs = {"in": vals, "out": np.zeros(3 * len(ops) * n, np.float64)}
    run_both(kernel("\n".join(lines)), 4, 64, ["in", "out"], bufs)


def test_per_thread_atomics_kernel():
    """Every atomic operation on addresses private to one thread: order independent."""
    body = """
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    mul.wide.u32 %rd5, %r4, 64;
    add.s64 %rd6, %rd2, %rd5;
    atom.global.add.u32 %r6, [%rd6], %r5;
    atom.global.min.s32 %r7, [%rd6+4], %r5;
    atom.global.max.u32 %r8, [%rd6+8], %r5;
    atom.global.inc.u32 %r9, [%rd6+12], 5;
    atom.global.dec.u32 %r10, [%rd6+16], 5;
    atom.global.cas.b32 %r11, [%rd6+20], 3, %r5;
    atom.global.and.b32 %r12, [%rd6+24], %r5;
    atom.global.or.b32 %r13, [%rd6+28], %r5;
    atom.global.xor.b32 %r14, [%rd6+32], %r5;
    atom.global.exch.b32 %r15, [%rd6+36], %r5;
    red.global.add.u64 [%rd6+40], %rd5;
    cvt.rn.f32.s32 %f1, %r5;
    atom.global.add.f32 %f2, [%rd6+48], %f1;
    add.s32 %r16, %r6, %r7;
    add.s32 %r16, %r16, %r8;
    add.s32 %r16, %r16, %r9;
    add.s32 %r16, %r16, %r10;
    add.s32 %r16, %r16, %r11;
    xor.b32 %r16, %r16, %r12;
    xor.b32 %r16, %r16, %r13;
    xor.b32 %r16, %r16, %r14;
    xor.b32 %r16, %r16, %r15;
    st.global.u32 [%rd6+52], %r16;
    st.global.f32 [%rd6+56], %f2;
    """
    r = rng()
    n = 64
    vals = rand_i32(r, n, -1000, 1000)
    out = rand_i32(r, 16 * n, 0, 10)
    out.reshape(n, 16)[:, 12] = 0
    out.reshape(n, 16)[::2, 5] = 3
    out.reshape(n, 16)[:, 10:12] = 0
    bufs = {"in": vals, "out": out}
    run_both(kernel(body), 2, 32, ["in", "out"], bufs)


def test_local_shared_generic_kernel():
    """Local arrays, shared memory through generic addresses (cvta), vector access, barriers."""
    decls = """
    .local .align 16 .b8 buf[32];
    .shared .align 16 .b8 sh[512];
"""
    body = """
    mov.u64 %rd3, buf;
    cvt.u64.u32 %rd4, %r1;
    shl.b64 %rd5, %rd4, 2;
    add.s32 %r5, %r4, 1;
    mul.lo.s32 %r6, %r5, 3;
    st.local.v4.u32 [%rd3], {%r4, %r5, %r6, %r1};
    ld.local.v2.u32 {%r7, %r8}, [%rd3+8];
    mov.u64 %rd6, sh;
    cvta.shared.u64 %rd7, %rd6;
    add.s64 %rd8, %rd7, %rd5;
    st.u32 [%rd8], %r7;
    bar.sync 0;
    xor.b32 %r9, %r1, 1;
    mul.wide.u32 %rd9, %r9, 4;
    add.s64 %rd10, %rd7, %rd9;
    ld.u32 %r10, [%rd10];
    cvta.to.shared.u64 %rd11, %rd10;
    ld.shared.u32 %r11, [%rd11];
    add.s32 %r10, %r10, %r11;
    add.s32 %r10, %r10, %r8;
    mov.b64 %rd12, {%r10, %r9};
    mul.wide.u32 %rd13, %r4, 8;
    add.s64 %rd14, %rd2, %rd13;
    st.global.u64 [%rd14], %rd12;
    """
    n = 128
    bufs = {"in": np.zeros(1, np.int32), "out": np.zeros(n, np.int64)}
    eng, orc = run_both(kernel(body, regs=decls), 2, 64, ["in", "out"], bufs)
    i = np.arange(n)
    partner = (i ^ 1)
    ref = ((partner + 1) * 3 * 2 + (i % 64)) | ((i % 64 ^ 1) << 32)
    assert (orc.buffers["out"] == ref).all()


@pytest.mark.parametrize("ws", [32, 8, 7])
def test_2d_geometry_and_partial_warps(ws):
    """2-D grid and block whose size is not a multiple of the warp size; guarded stores."""
    body = """
    mov.u32 %r5, %tid.y;
    mov.u32 %r6, %ntid.y;
    mov.u32 %r7, %ctaid.y;
    mov.u32 %r8, %nctaid.x;
    mad.lo.s32 %r9, %r7, %r8, %r3;          // block linear
    mul.lo.s32 %r10, %r2, %r6;              // threads per block
    mad.lo.s32 %r11, %r5, %r2, %r1;         // thread in block
    mad.lo.s32 %r12, %r9, %r10, %r11;       // global linear id
    mul.wide.u32 %rd3, %r12, 16;
    add.s64 %rd4, %rd2, %rd3;
    mov.u32 %r13, %laneid;
    mov.u32 %r14, %warpid;
    mov.u32 %r15, %nctaid.y;
    and.b32 %r16, %r12, 3;
    setp.eq.u32 %p1, %r16, 1;
    @%p1 bra SKIP;
    st.global.v4.u32 [%rd4], {%r12, %r13, %r14, %r15};
SKIP:
    st.global.u32 [%rd4+12], %r9;
    """
    n = 2 * 2 * 30
    bufs = {"in": np.zeros(1, np.int32), "out": np.full(4 * n, -1, np.int32)}
    eng, orc = run_both(kernel(body), (2, 2), (10, 3), ["in", "out"], bufs, warp_size=ws)
    out = orc.buffers["out"].reshape(n, 4)
    ids = np.arange(n)
    keep = ids % 4 != 1
    assert (out[keep, 0] == ids[keep]).all()
    assert (out[keep, 1] == (ids[keep] % 30) % ws).all()
    assert (out[keep, 2] == (ids[keep] % 30) // ws).all()
    assert (out[:, 3] == ids // 30).all() and (out[~keep, :3] == -1).all()


# ---------------------------------------------------------------------------------------------
# directed rounding (the oracle implements it exactly; checked against exact rationals here)
# ---------------------------------------------------------------------------------------------

def test_round_rational_modes():
    third = Fraction(1, 3)
    rn, rz, rm, rp = 1, 2, 3, 4
    assert round_rational(third, 32, rn) == float(np.float32(1 / 3))
    lo, hi = round_rational(third, 32, rz), round_rational(third, 32, rp)
    assert lo < third < hi and np.nextafter(np.float32(lo), np.float32(1)) == np.float32(hi)
    assert round_rational(-third, 32, rm) == -hi and round_rational(-third, 32, rp) == -lo
    assert round_rational(Fraction(2) ** 200, 32, rn) == np.inf
    assert round_rational(Fraction(2) ** 200, 32, rz) == float(np.finfo(np.float32).max)
    assert round_rational(Fraction(1, 2 ** 160), 32, rp) == 2.0 ** -149
    assert round_rational(Fraction(1, 2 ** 160), 32, rn) == 0.0
    assert round_rational(Fraction(3, 2 ** 150), 32, rn) == 2.0 ** -148   # tie -> even
    assert round_rational(Fraction(2 ** 53 + 1), 64, rn) == 2.0 ** 53


DIRECTED = """
    mul.wide.u32 %rd3, %r4, 8;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.v2.f32 {%f1, %f2}, [%rd4];
    mul.wide.u32 %rd5, %r4, 32;
    add.s64 %rd6, %rd2, %rd5;
    add.rz.f32 %f3, %f1, %f2;
    mul.rm.f32 %f4, %f1, %f2;
    div.rp.f32 %f5, %f1, %f2;
    cvt.f64.f32 %fd1, %f1;
    cvt.f64.f32 %fd2, %f2;
    div.rn.f64 %fd3, %fd1, %fd2;
    cvt.rz.f32.f64 %f6, %fd3;
    st.global.v4.f32 [%rd6], {%f3, %f4, %f5, %f6};
    cvt.rp.f32.s32 %f7, %r4;
    mul.lo.s32 %r5, %r4, 16777219;
    cvt.rm.f32.s32 %f8, %r5;
    st.global.v2.f32 [%rd6+16], {%f7, %f8};
"""


def _directed_reference(x, y, idx):
    fx, fy = Fraction(float(x)), Fraction(float(y))
    m32 = (idx * 16777219 + 2**31) % 2**32 - 2**31
    return [round_rational(fx + fy, 32, 2), round_rational(fx * fy, 32, 3),
            round_rational(fx / fy, 32, 4), round_rational(Fraction(float(x) / float(y)), 32, 2),
            round_rational(Fraction(idx), 32, 4), round_rational(Fraction(m32), 32, 3), 0.0, 0.0]


def test_directed_rounding_oracle():
    r = rng()
    n = 64
    vals = rand_f32(r, 2 * n, 3.0)
    bufs = {"in": vals, "out": np.zeros(8 * n, np.float32)}
    orc = run_oracle(kernel(DIRECTED), 2, 32, ["in", "out"], bufs)
    ref = np.array([_directed_reference(vals[2 * i], vals[2 * i + 1], i) for i in range(n)],
                   dtype=np.float32).ravel()
    assert_bits_equal(orc.buffers["out"], ref, "directed rounding")


# ---------------------------------------------------------------------------------------------
# a sweep of single instructions over awkward inputs (infinities, NaN, -0, extremes, shifts >= 64)
# ---------------------------------------------------------------------------------------------

SWEEP = [
    ("cvt.rni.s64.f64 %rd10, %fd1;", "st.global.u64 [%rd6+{o}], %rd10;"),
    ("cvt.rn.f32.s64 %f10, %rd7;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("cvt.rn.f32.u64 %f10, %rd7;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("cvt.rn.f64.s64 %fd10, %rd7;", "st.global.f64 [%rd6+{o}], %fd10;"),
    ("cvt.rn.f64.u64 %fd10, %rd7;", "st.global.f64 [%rd6+{o}], %fd10;"),
    ("cvt.sat.f32.f64 %f10, %fd1;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("cvt.rn.sat.f32.f32 %f10, %f1;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("cvt.rni.f64.f64 %fd10, %fd1;", "st.global.f64 [%rd6+{o}], %fd10;"),
    ("cvt.sat.u8.s32 %r10, %r5;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("cvt.sat.s32.u64 %r10, %rd7;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("cvt.sat.u32.s64 %r10, %rd7;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("cvt.s16.u8 %h5, %r5;", "st.global.u16 [%rd6+{o}], %h5;"),
    ("cvt.f32.f64 %f10, %fd1;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("cvt.ftz.f32.f32 %f10, %f2;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("cvt.ftz.f64.f32 %fd10, %f2;", "st.global.f64 [%rd6+{o}], %fd10;"),
    ("mul.hi.u64 %rd10, %rd7, %rd8;", "st.global.u64 [%rd6+{o}], %rd10;"),
    ("mul.hi.s64 %rd10, %rd7, %rd8;", "st.global.u64 [%rd6+{o}], %rd10;"),
    ("mul.lo.s64 %rd10, %rd7, %rd8;", "st.global.u64 [%rd6+{o}], %rd10;"),
    ("div.u64 %rd10, %rd7, %rd8;", "st.global.u64 [%rd6+{o}], %rd10;"),
    ("rem.u64 %rd10, %rd7, %rd8;", "st.global.u64 [%rd6+{o}], %rd10;"),
    ("min.u64 %rd10, %rd7, %rd8;", "st.global.u64 [%rd6+{o}], %rd10;"),
    ("max.s64 %rd10, %rd7, %rd8;", "st.global.u64 [%rd6+{o}], %rd10;"),
    ("bfe.s64 %rd10, %rd7, 40, 30;", "st.global.u64 [%rd6+{o}], %rd10;"),
    ("bfe.u32 %r10, %r5, %r6, 9;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("bfi.b64 %rd10, %rd7, %rd8, 60, 9;", "st.global.u64 [%rd6+{o}], %rd10;"),
    ("clz.b64 %r10, %rd7;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("popc.b64 %r10, %rd7;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("brev.b64 %rd10, %rd7;", "st.global.u64 [%rd6+{o}], %rd10;"),
    ("shr.s64 %rd10, %rd7, %r6;", "st.global.u64 [%rd6+{o}], %rd10;"),
    ("shr.u64 %rd10, %rd7, %r6;", "st.global.u64 [%rd6+{o}], %rd10;"),
    ("shl.b64 %rd10, %rd7, %r6;", "st.global.u64 [%rd6+{o}], %rd10;"),
    ("shr.s16 %h5, %h1, %r6;", "st.global.u16 [%rd6+{o}], %h5;"),
    ("add.u16 %h5, %h1, %h2;", "st.global.u16 [%rd6+{o}], %h5;"),
    ("mul.wide.s16 %r10, %h1, %h2;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("mul.lo.s16 %h5, %h1, %h2;", "st.global.u16 [%rd6+{o}], %h5;"),
    ("mul.hi.s16 %h5, %h1, %h2;", "st.global.u16 [%rd6+{o}], %h5;"),
    ("min.s16 %h5, %h1, %h2;", "st.global.u16 [%rd6+{o}], %h5;"),
    ("setp.lo.s32 %p5, %r5, %r6; selp.u32 %r10, 1, 0, %p5;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("setp.le.u64 %p5, %rd7, %rd8; selp.u32 %r10, 1, 0, %p5;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("setp.equ.f64 %p5, %fd1, %fd2; selp.u32 %r10, 1, 0, %p5;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("setp.nan.f32 %p5, %f1, %f2; selp.u32 %r10, 1, 0, %p5;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("setp.ltu.f32 %p5, %f1, %f2; selp.u32 %r10, 1, 0, %p5;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("setp.num.f64 %p5, %fd1, %fd2; selp.u32 %r10, 1, 0, %p5;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("set.lt.u32.s32 %r10, %r5, %r6;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("set.ge.f32.f64 %f10, %fd1, %fd2;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("min.f64 %fd10, %fd1, %fd2;", "st.global.f64 [%rd6+{o}], %fd10;"),
    ("max.f32 %f10, %f1, %f2;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("ex2.approx.f32 %f10, %f1;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("ex2.approx.ftz.f32 %f10, %f2;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("rsqrt.approx.f64 %fd10, %fd1;", "st.global.f64 [%rd6+{o}], %fd10;"),
    ("abs.f32 %f9, %f1; sqrt.rn.f32 %f10, %f9;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("abs.f32 %f9, %f2; sqrt.approx.f32 %f10, %f9;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("abs.f64 %fd9, %fd1; sqrt.rn.f64 %fd10, %fd9;", "st.global.f64 [%rd6+{o}], %fd10;"),
    ("rcp.approx.ftz.f64 %fd10, %fd1;", "st.global.f64 [%rd6+{o}], %fd10;"),
    ("rcp.rn.f32 %f10, %f2;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("add.ftz.f32 %f10, %f1, %f2;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("mul.ftz.f32 %f10, %f1, %f2;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("sub.f64 %fd10, %fd1, %fd2;", "st.global.f64 [%rd6+{o}], %fd10;"),
    ("fma.rn.ftz.sat.f32 %f10, %f1, %f2, %f1;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("fma.rn.f64 %fd10, %fd1, %fd2, %fd1;", "st.global.f64 [%rd6+{o}], %fd10;"),
    ("mad.rn.f32 %f10, %f1, %f2, %f2;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("lg2.approx.f32 %f10, %f1;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("sin.approx.ftz.f32 %f10, %f2;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("copysign.f64 %fd10, %fd1, %fd2;", "st.global.f64 [%rd6+{o}], %fd10;"),
    ("neg.f64 %fd10, %fd1;", "st.global.f64 [%rd6+{o}], %fd10;"),
    ("abs.ftz.f32 %f10, %f2;", "st.global.f32 [%rd6+{o}], %f10;"),
    ("slct.s32.f32 %r10, %r5, %r6, %f2;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("slct.u32.s32 %r10, %r5, %r6, %r6;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("mov.b64 {%r10, %r11}, %rd7;", "st.global.u32 [%rd6+{o}], %r11;"),
    ("mov.b32 {%h5, %h6}, %r5;", "st.global.u16 [%rd6+{o}], %h6;"),
    ("cnot.b16 %h5, %h1;", "st.global.u16 [%rd6+{o}], %h5;"),
    ("neg.s16 %h5, %h1;", "st.global.u16 [%rd6+{o}], %h5;"),
    ("ld.global.s8 %r10, [%rd4+3];", "st.global.u32 [%rd6+{o}], %r10;"),
    ("ld.global.u8 %r10, [%rd4+1];", "st.global.u32 [%rd6+{o}], %r10;"),
    ("ld.global.s16 %h5, [%rd4+6];", "st.global.u16 [%rd6+{o}], %h5;"),
    ("ld.global.v2.s16 {%h5, %h6}, [%rd4+4]; cvt.s32.s16 %r10, %h6;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("ld.param.u32 %r10, [p_in+4];", "st.global.u32 [%rd6+{o}], %r10;"),
    ("mov.u32 %r10, %laneid; mov.u32 %r11, %warpid; add.s32 %r10, %r10, %r11;",
     "st.global.u32 [%rd6+{o}], %r10;"),
    ("mov.u32 %r10, %lanemask_lt;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("mov.u32 %r10, %lanemask_ge;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("mov.u32 %r10, %nwarpid;", "st.global.u32 [%rd6+{o}], %r10;"),
    ("atom.global.min.s64 %rd10, [%rd6+{o}], %rd7;", "st.global.u64 [%rd6+{o2}], %rd10;"),
    ("atom.global.add.f64 %fd10, [%rd6+{o}], %fd1;", ""),
    ("atom.global.max.f32 %f10, [%rd6+{o}], %f1;", ""),
    ("atom.global.exch.b64 %rd10, [%rd6+{o}], %rd8;", "st.global.u64 [%rd6+{o2}], %rd10;"),
    ("atom.global.cas.b64 %rd10, [%rd6+{o}], 0, %rd8;", ""),
    ("red.global.max.u64 [%rd6+{o}], %rd7;", ""),
    ("atom.global.inc.u32 %r10, [%rd6+{o}], %r6;", ""),
    ("atom.global.dec.u32 %r10, [%rd6+{o}], %r6;", ""),
    ("atom.global.add.u64 %rd10, [%rd6+{o}], %rd7;", "st.global.u64 [%rd6+{o2}], %rd10;"),
]

SWEEP_HEAD = """
    mul.wide.u32 %rd3, %r4, 16;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u64 %rd7, [%rd4];
    ld.global.u64 %rd8, [%rd4+8];
    mov.b64 {%r5, %r6}, %rd8;
    mov.b64 %fd1, %rd7;
    mov.b64 %fd2, %rd8;
    mov.b32 %f1, %r5;
    mov.b32 %f2, %r6;
    mov.b32 {%h1, %h2}, %r5;
    mul.wide.u32 %rd5, %r4, 2048;
    add.s64 %rd6, %rd2, %rd5;
"""


def sweep_inputs(n):
    r = rng()
    vals = r.integers(-2**63, 2**63, (n, 2), dtype=np.int64)
    f64 = np.concatenate([r.standard_normal(16) * 1e3,
                          [0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e300, 5e-324, 2.5, -2.5, 3.5,
                           0.5, -0.5, 1e-310, 4e9, -4e9]])
    vals[:32, 0] = f64.view(np.int64)
    vals[:32, 1] = np.roll(f64, 5).view(np.int64)
    f32 = np.concatenate([r.standard_normal(16) * 10,
                          [0.0, -0.0, np.inf, -np.inf, np.nan, 1e38, -1e38, 1e-45, 2.5, -2.5, 3.5, 0.5,
                           -0.5, 1e-39, 200.0, -200.0]]).astype(np.float32)
    v32 = vals[32:64].view(np.uint32).reshape(32, 4)
    v32[:, 2] = f32.view(np.uint32)
    v32[:, 3] = np.roll(f32, 3).view(np.uint32)
    vals[64:72, 1] = [0, -1, 1, 63, 64, 100, 2**32 + 5, 31]
    vals[72:76, 0] = [-2**63, 2**63 - 1, -1, 0]
    return vals


def test_instruction_sweep():
    body = SWEEP_HEAD + "".join(
        f"    {a.replace('{o}', str(16 * i))} "
        f"{b.replace('{o}', str(16 * i)).replace('{o2}', str(16 * i + 8))}\n"
        for i, (a, b) in enumerate(SWEEP))
    assert 16 * len(SWEEP) <= 2048
    n = 96
    vals = sweep_inputs(n)
    bufs = {"in": vals, "out": np.zeros(n * 256, np.int64)}
    eng, orc = run_both(kernel(body), 3, 32, ["in", "out"], bufs, compare=[])
    e = eng.buffers["out"].reshape(n, 128, 2)
    o = orc.buffers["out"].reshape(n, 128, 2)
    # NaN payloads and signs are not compared (see test_nan_results_are_nan): a word matches when
    # it is equal or both words are NaNs read as f64, or as f32 with the same upper half
    e64, o64 = e.view(np.float64), o.view(np.float64)
    e32, o32 = e.view(np.float32)[..., ::2], o.view(np.float32)[..., ::2]
    same = (e == o) | (np.isnan(e64) & np.isnan(o64)) | \
        (np.isnan(e32) & np.isnan(o32) & ((e >> 32) == (o >> 32)))
    bad = [f"{SWEEP[i][0]!r}: threads {np.nonzero(~same[:, i].all(axis=1))[0][:6].tolist()}"
           for i in range(len(SWEEP)) if not same[:, i].all()]
    assert not bad, "engine and oracle differ:\n" + "\n".join(bad)


def test_nan_results_are_nan():
    """Invalid operations give NaN on both sides; the payload/sign is not compared (the engine
    returns +qNaN from its explicit special cases and the host's -qNaN from plain arithmetic)."""
    body = """
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.f32 %f1, [%rd4];
    mul.wide.u32 %rd5, %r4, 16;
    add.s64 %rd6, %rd2, %rd5;
    sqrt.rn.f32 %f2, %f1;
    div.rn.f32 %f3, %f1, 0f00000000;
    sub.f32 %f4, %f1, %f1;
    lg2.approx.f32 %f5, %f1;
    st.global.v4.f32 [%rd6], {%f2, %f3, %f4, %f5};
    """
    x = np.array([-1.0, 0.0, np.inf, -np.inf], np.float32)
    bufs = {"in": x, "out": np.zeros(16, np.float32)}
    eng = launch(kernel(body), 1, 4, ["in", "out"], {k: v.copy() for k, v in bufs.items()})
    orc = run_oracle(kernel(body), 1, 4, ["in", "out"], bufs)
    e, o = eng.buffers["out"], orc.buffers["out"]
    assert (np.isnan(e) == np.isnan(o)).all()
    assert_bits_equal(e[~np.isnan(e)], o[~np.isnan(o)], "non-NaN results")
    assert np.isnan(o.reshape(4, 4)[:, 2][2:]).all() and np.isnan(o[0])


# ---------------------------------------------------------------------------------------------
# known values where the engine deviates from PTX (see /tmp/oracle_bugs.md): the oracle must give
# the PTX result; the engine comparisons are expected failures until the engine is fixed
# ---------------------------------------------------------------------------------------------

def _u32(*v):
    return np.array(v, np.uint32)


def _f32w(x):
    return int(np.float32(x).view(np.uint32))


def _f64w(x):
    return int(np.float64(x).view(np.uint64))


KNOWN = {
    # id: (body, input array, expected first output words (uint64), engine bug description)
    "cvt.rzi.s32.f32-overflow": (
        "ld.global.f32 %f1, [%rd1]; cvt.rzi.s32.f32 %r1, %f1; st.global.u32 [%rd2], %r1;",
        np.array([1e30], np.float32), [2**31 - 1], "round_integral overflows int64 for |x| >= 2^63"),
    "cvt.rzi.u64.f64-overflow": (
        "ld.global.f64 %fd1, [%rd1]; cvt.rzi.u64.f64 %rd3, %fd1; st.global.u64 [%rd2], %rd3;",
        np.array([1e300]), [2**64 - 1], "round_integral overflows int64"),
    "cvt.rpi.u32.f64-inf": (
        "ld.global.f64 %fd1, [%rd1]; cvt.rpi.u32.f64 %r1, %fd1; st.global.u32 [%rd2], %r1;",
        np.array([np.inf]), [2**32 - 1], "math.ceil(inf) in round_integral"),
    "cvt.rzi.f32.f32-large": (
        "ld.global.f32 %f1, [%rd1]; cvt.rzi.f32.f32 %f2, %f1; st.global.f32 [%rd2], %f2;",
        np.array([1e30], np.float32), [_f32w(1e30)], "round_integral overflows int64"),
    "cvt.rzi.f32.f32-negzero": (
        "ld.global.f32 %f1, [%rd1]; cvt.rzi.f32.f32 %f2, %f1; st.global.f32 [%rd2], %f2;",
        np.array([-0.5], np.float32), [_f32w(-0.0)], "round_integral loses the sign of zero"),
    "cvt.rmi.f64.f64-negzero": (
        "ld.global.f64 %fd1, [%rd1]; cvt.rmi.f64.f64 %fd2, %fd1; st.global.f64 [%rd2], %fd2;",
        np.array([-0.0]), [_f64w(-0.0)], "round_integral loses the sign of zero"),
    "div.s64-int64min": (
        "ld.global.u64 %rd3, [%rd1]; ld.global.u64 %rd4, [%rd1+8]; div.s64 %rd5, %rd3, %rd4; "
        "rem.s64 %rd6, %rd3, %rd4; st.global.u64 [%rd2], %rd5; st.global.u64 [%rd2+8], %rd6;",
        np.array([-2**63, -3], np.int64), [3074457345618258602, 2**64 - 2], "abs(INT64_MIN) overflows"),
    "div.s64-by-int64min": (
        "ld.global.u64 %rd3, [%rd1]; ld.global.u64 %rd4, [%rd1+8]; div.s64 %rd5, %rd3, %rd4; "
        "rem.s64 %rd6, %rd3, %rd4; st.global.u64 [%rd2], %rd5; st.global.u64 [%rd2+8], %rd6;",
        np.array([5, -2**63], np.int64), [0, 5], "abs(INT64_MIN) overflows"),
    "bfe.s32-long-field": (
        "ld.global.u32 %r1, [%rd1]; bfe.s32 %r2, %r1, 0, 153; st.global.u32 [%rd2], %r2;",
        _u32(0xFE967699), [0xFE967699], "bit << i for i >= 64 wraps"),
    "cvt.sat.f64.f64": (
        "ld.global.f64 %fd1, [%rd1]; cvt.sat.f64.f64 %fd2, %fd1; st.global.f64 [%rd2], %fd2;",
        np.array([-3.0]), [_f64w(0.0)], ".sat ignored for an f64 destination"),
    "shf.l.wrap": (
        "ld.global.u32 %r1, [%rd1]; ld.global.u32 %r2, [%rd1+4]; shf.l.wrap.b32 %r3, %r1, %r2, 8; "
        "st.global.u32 [%rd2], %r3;",
        _u32(0x11223344, 0x55667788), [0x66778811], "shf not implemented (result 0)"),
    "shf.r.clamp": (
        "ld.global.u32 %r1, [%rd1]; ld.global.u32 %r2, [%rd1+4]; shf.r.clamp.b32 %r3, %r1, %r2, 40; "
        "st.global.u32 [%rd2], %r3;",
        _u32(0x11223344, 0x55667788), [0x55667788], "shf not implemented (result 0)"),
    "cvt.f32.f16": (
        "ld.global.u16 %h1, [%rd1]; cvt.f32.f16 %f1, %h1; st.global.f32 [%rd2], %f1;",
        np.array([0x3C00, 0xC500], np.uint16), [_f32w(1.0)], "f16 treated as an integer type"),
    "cvt.rn.f16.f32": (
        "ld.global.f32 %f1, [%rd1]; cvt.rn.f16.f32 %h1, %f1; st.global.u16 [%rd2], %h1;",
        np.array([1.0], np.float32), [0x3C00], "f16 treated as an integer type"),
    "add.rp.f32": (
        "ld.global.f32 %f1, [%rd1]; ld.global.f32 %f2, [%rd1+4]; add.rp.f32 %f3, %f1, %f2; "
        "st.global.f32 [%rd2], %f3;",
        np.array([1.0, 2.0**-30], np.float32), [_f32w(np.nextafter(np.float32(1), np.float32(2)))],
        "rounding modifier ignored"),
    "mul.rp.f64": (
        "ld.global.f64 %fd1, [%rd1]; ld.global.f64 %fd2, [%rd1+8]; mul.rp.f64 %fd3, %fd1, %fd2; "
        "st.global.f64 [%rd2], %fd3;",
        np.array([1.0 + 2.0**-52, 1.0 + 2.0**-52]), [_f64w(1.0 + 2.0**-51 + 2.0**-52)],
        "rounding modifier ignored"),
    "cvt.rz.f32.u32": (
        "ld.global.u32 %r1, [%rd1]; cvt.rz.f32.u32 %f1, %r1; st.global.f32 [%rd2], %f1;",
        _u32(0xFFFFFFFF), [_f32w(2.0**32 - 256)], "rounding modifier ignored"),
    "cvt.rm.f32.f64": (
        "ld.global.f64 %fd1, [%rd1]; cvt.rm.f32.f64 %f1, %fd1; st.global.f32 [%rd2], %f1;",
        np.array([0.1]), [_f32w(np.nextafter(np.float32(0.1), np.float32(0)))], "rounding modifier ignored"),
}


def _known_run(runner, key):
    body, inp, _, _ = KNOWN[key]
    bufs = {"in": inp.copy(), "out": np.zeros(4, np.uint64)}
    return runner(kernel(body), 1, 1, ["in", "out"], bufs).buffers["out"]


@pytest.mark.parametrize("key", sorted(KNOWN))
def test_oracle_known_values(key):
    want = KNOWN[key][2]
    got = _known_run(run_oracle, key)
    assert [int(v) for v in got[:len(want)]] == want


@pytest.mark.parametrize("key", sorted(KNOWN))
def test_engine_known_values(key):
    want = KNOWN[key][2]
    got = _known_run(launch, key)
    assert [int(v) for v in got[:len(want)]] == want


# ---------------------------------------------------------------------------------------------
# faults
# ---------------------------------------------------------------------------------------------

def test_out_of_bounds_faults():
    body = """
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r4;
    """
    bufs = {"in": np.zeros(1, np.int32), "out": np.zeros(40, np.int32)}
    with pytest.raises(RuntimeFault, match="out-of-bounds"):
        run_oracle(kernel(body), 2, 32, ["in", "out"], bufs)
    with pytest.raises(RuntimeFault, match="out-of-bounds"):
        launch(kernel(body), 2, 32, ["in", "out"], bufs)
    ok = run_oracle(kernel(body), 1, 40, ["in", "out"], bufs)
    assert (ok.buffers["out"] == np.arange(40)).all()
    assert (bufs["out"] == 0).all()                 # inputs are not modified


def test_barrier_deadlock_fault():
    body = """
    setp.eq.u32 %p1, %r1, 3;
    @%p1 bra DONE;
    bar.sync 0;
DONE:
    """
    bufs = {"in": np.zeros(1, np.int32), "out": np.zeros(1, np.int32)}
    with pytest.raises(RuntimeFault, match="barrier deadlock"):
        run_oracle(kernel(body), 1, 64, ["in", "out"], bufs)
    with pytest.raises(RuntimeFault, match="barrier deadlock"):
        launch(kernel(body), 1, 64, ["in", "out"], bufs)


def test_instruction_limit():
    body = """
LOOP:
    add.s32 %r5, %r5, 1;
    bra LOOP;
    """
    bufs = {"in": np.zeros(1, np.int32), "out": np.zeros(1, np.int32)}
    with pytest.raises(RuntimeFault, match="instruction limit"):
        run_oracle(kernel(body), 1, 2, ["in", "out"], bufs, max_steps_per_thread=1000)
