"""PTX-mode failures of issue 61, each with a kernel of its own (tests/cuda/*.cu with the committed
`nvcc -O3 -arch=sm_90 -ptx` output): NaN results as the H100 writes them, the inline-assembly and
integer forms nvcc emits that were refused (scoped `.reg.b16` blocks of the half-precision headers,
packed 16-bit integer SIMD, `mad.cc` / `madc`, `lop3`), and several `__shared__` arrays side by
side.  The engine and the oracle agree bit for bit; the expected values come from numpy and from
the H100's recorded outputs of programs/sass-diff/s-* (never from the simulator)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from simt_sim.api import run_program
from simt_sim.calibrate.compare import recorded_array
from simt_sim.frontend.assembler import load_program
from simt_sim.oracle import run_oracle
from simt_sim.run.functional import LaunchConfig, launch
from test_oracle import assert_bits_equal

ROOT = Path(__file__).resolve().parents[1]
CUDA = Path(__file__).parent / "cuda"
sys.path.insert(0, str(ROOT / "tools"))
import make_sass_diff  # noqa: E402  (tools/ is not a package)
from simt_sim.programs import program_dir

CANONICAL32 = 0x7FFFFFFF


def run_both(name, kernel, grid, block, args, buffers):
    """Engine and oracle on copies of the buffers; every buffer must agree bit for bit."""
    program = load_program(str(CUDA / f"{name}.ptx"), kernel)
    eng = launch(program, grid, block, args, {k: v.copy() for k, v in buffers.items()}, config=LaunchConfig())
    orc = run_oracle(program, grid, block, args, {k: v.copy() for k, v in buffers.items()})
    for buf in buffers:
        assert_bits_equal(eng.buffers[buf], orc.buffers[buf], f"{name}.{kernel}: buffer {buf}")
    return eng.buffers


# ---- 1. NaN results ------------------------------------------------------------------------------

F32_EDGES = [0x7FC00000, 0x7FC12345, 0xFFC00001, 0x7F800001, 0xFF812345, 0x7F800000, 0xFF800000, 0x00000000,
             0x80000000, 0x3F800000, 0xC0200000, 0x7F61B1E6, 0x000116C2, 0xBF800000, 0x40000000, 0x3F000000]
F64_EDGES = [0x7FF8000000000000, 0x7FF8000000012345, 0xFFF8000000000001, 0x7FF0000000000001, 0xFFF0000000012345,
             0x7FF0000000000000, 0xFFF0000000000000, 0, 0x8000000000000000, 0x3FF0000000000000,
             0xC004000000000000, 0x7FE1CCF385EBC8A0, 1, 0xBFF0000000000000, 0x4000000000000000, 0x3FE0000000000000]
# f16 NaNs (0x7e00 ..), bf16 NaNs (0x7fc1, 0xff81: f16 NaNs as well), infinities of both formats
F16_EDGES = [0x7E00, 0x7E45, 0xFE01, 0x7C01, 0x7FC1, 0xFF81, 0x7C00, 0x7F80, 0x0000, 0x8000, 0x3C00, 0xC100,
             0x7BFF, 0x0001, 0x3F80, 0x4000]
N = 256


def pairs(edges, dtype):
    """Every pair (a, b) of the edge values; c runs through them at another stride."""
    e = np.array(edges, dtype=dtype)
    k = np.arange(N)
    return e[k // 16], e[k % 16], e[(k * 7 + 3) % 16]


def nan32(bits):
    bits = np.asarray(bits, np.uint32)
    return ((bits & 0x7F800000) == 0x7F800000) & ((bits & 0x7FFFFF) != 0)


def nan64(bits):
    bits = np.asarray(bits, np.uint64)
    return ((bits & np.uint64(0x7FF0000000000000)) == np.uint64(0x7FF0000000000000)) & \
        ((bits & np.uint64(0xFFFFFFFFFFFFF)) != 0)


def nan16(bits, bf):
    bits = np.asarray(bits, np.uint16).astype(np.uint32)
    exp, man = (0x7F80, 0x7F) if bf else (0x7C00, 0x3FF)
    return ((bits & exp) == exp) & ((bits & man) != 0)


def nan_kernel_results(edges, dtype, kernel):
    """Operands a, b, c drawn from the edge values, and kernel's o32 / o64 results (both modes agree)."""
    a, b, c = pairs(edges, dtype)
    got = run_both("nan_results", kernel, 2, 128, ["a", "b", "c", "o32", "o64", N],
                   {"a": a, "b": b, "c": c, "o32": np.zeros(28 * N, np.uint32), "o64": np.zeros(23 * N, np.uint64)})
    return a, b, c, got["o32"].reshape(28, N), got["o64"].reshape(23, N)


@pytest.fixture(scope="module")
def f32_results():
    return nan_kernel_results(F32_EDGES, np.uint32, "nan_f32")


def test_float32_nan_results_are_the_canonical_nan(f32_results):
    """Every float32 arithmetic result that is a NaN is 0x7fffffff, as FADD / FMUL / FFMA / MUFU /
    FRND give it on the H100: add/sub/mul/fma/div/sqrt/rcp in every rounding mode, fdimf, fabsf
    and -x (FADDs with |x| and -x operands), fminf/fmaxf of two NaNs, floorf / truncf."""
    a, b, c, o32, _ = f32_results
    with np.errstate(all="ignore"):
        x, y, z = (v.view(np.float32).astype(np.float64) for v in (a, b, c))
        want_nan = {0: x + y, 1: x - y, 2: x * y, 3: x * y + z, 4: x + y, 5: x - y, 6: x * y, 7: x * y + z,
                    8: x / y, 9: x / y, 10: np.sqrt(x), 11: np.sqrt(x), 12: 1 / x, 14: np.abs(x), 15: -x,
                    16: np.fmin(x, y), 17: np.fmax(x, y), 19: np.floor(x), 21: x + y, 22: x * y,
                    23: np.sqrt(x), 24: x / y, 25: x * y + z, 26: np.trunc(x)}
        fdim = np.where(np.isnan(x) | np.isnan(y), np.nan, np.where(x > y, x - y, 0.0))
    want_nan[13] = fdim
    for k, ref in want_nan.items():
        isnan = np.isnan(ref)
        assert isnan.any(), k
        assert np.all(o32[k][isnan] == CANONICAL32), (k, [hex(v) for v in o32[k][isnan][:4]])
        assert not nan32(o32[k][~isnan]).any(), k
    # exactly rounded results where no NaN is involved (float64 then one rounding to float32)
    with np.errstate(all="ignore"):
        for k, ref in {0: x + y, 1: x - y, 2: x * y, 4: x + y, 5: x - y, 6: x * y, 8: x / y, 10: np.sqrt(x)}.items():
            ok = ~np.isnan(ref)
            assert np.array_equal(o32[k][ok], ref[ok].astype(np.float32).view(np.uint32)), k


def test_float32_bit_operations_keep_the_nan(f32_results):
    """copysignf is a bit operation (ptxas: LOP3): a NaN's payload, signalling bit and sign are kept;
    __saturatef of a NaN is +0 and of -0 is +0 (FADD.SAT RZ, x); (double)x keeps the payload,
    quieted (F2F.F64.F32)."""
    a, b, _, o32, o64 = f32_results
    assert np.array_equal(o32[18], (a & 0x7FFFFFFF) | (b & 0x80000000))
    sat = np.clip(a.view(np.float32), 0, 1) + np.float32(0)
    sat[nan32(a)] = 0
    assert np.array_equal(o32[20], sat.view(np.uint32))
    wide = o64[0]
    isnan = nan32(a)
    want = ((a.astype(np.uint64) >> np.uint64(31)) << np.uint64(63)) | np.uint64(0x7FF8000000000000) | \
        ((a.astype(np.uint64) & np.uint64(0x3FFFFF)) << np.uint64(29))
    assert np.array_equal(wide[isnan], want[isnan])
    assert np.array_equal(wide[~isnan].view(np.float64), a[~isnan].view(np.float32).astype(np.float64))


@pytest.fixture(scope="module")
def f64_results():
    return nan_kernel_results(F64_EDGES, np.uint64, "nan_f64")


def test_float64_nan_results_pass_the_first_nan_on(f64_results):
    """float64 arithmetic passes a NaN operand on quieted, with its own sign (DADD / DMUL / DFMA on
    the H100, s-fp64: abs and neg too, whose |x| and -x do not apply to a NaN); from numbers it makes
    0xfff8000000000000 (inf - inf, 0 * inf, 0 / 0, sqrt(-1))."""
    a, b, c, _, o64 = f64_results
    quiet = np.uint64(0x0008000000000000)
    na, nb, nc = nan64(a), nan64(b), nan64(c)
    x, y, z = (v.view(np.float64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        rows = {0: (x + y, "ab"), 1: (x - y, "ab"), 2: (x * y, "ab"), 3: (x * y + z, "acb"), 4: (x + y, "ab"),
                5: (x - y, "ab"), 6: (x * y, "ab"), 7: (x * y + z, "acb"), 8: (x / y, "ab"), 9: (np.sqrt(x), "a"),
                12: (np.abs(x), "a"), 13: (-x, "a"), 18: (x + y, "ab"), 19: (x * y, "ab")}
    src = {"a": (a, na), "b": (b, nb), "c": (c, nc)}
    for k, (ref, order) in rows.items():
        got = o64[k]
        want = np.full(N, 0xFFF8000000000000, np.uint64)
        decided = np.zeros(N, bool)
        for name in order:
            bits, isnan = src[name]
            take = isnan & ~decided
            want[take] = bits[take] | quiet
            decided |= take
        isnan = np.isnan(ref) | decided
        if k == 3:                      # an infinite product and an opposite infinite c: fma's own NaN
            isnan |= np.isinf(x * y) & np.isinf(z) & (np.sign(x * y) != np.sign(z))
        assert np.array_equal(got[isnan], want[isnan]), (k, [(hex(g), hex(w)) for g, w in
                                                            zip(got[isnan], want[isnan]) if g != w][:4])
        assert not nan64(got[~isnan]).any(), k
    # fmin / fmax: a NaN gives way to a number; of two NaNs a's, quieted (as SASS mode runs them)
    for k in (14, 15):
        both, only_a, only_b = na & nb, na & ~nb, nb & ~na
        assert np.array_equal(o64[k][both], a[both] | quiet)
        assert np.array_equal(o64[k][only_a], b[only_a]) and np.array_equal(o64[k][only_b], a[only_b])
    # the f64 -> f32 conversion keeps the sign and the payload's top bits, quieted
    _, _, _, o32, _ = f64_results
    want = ((a >> np.uint64(32)) & np.uint64(0x80000000)) | np.uint64(0x7FC00000) | \
        ((a >> np.uint64(29)) & np.uint64(0x3FFFFF))
    assert np.array_equal(o32[0][na], want[na].astype(np.uint32))


def test_half_nan_results_are_canonical():
    """f16 / bf16 arithmetic NaNs are 0x7fff, __habs / __hneg of a NaN too (HADD2 and HFMA2.BF16_V2
    with |x| / -x operands); bf16 -> f32 is a shift that keeps the NaN's bits; f16 -> f32 is the
    canonical float32 NaN (HADD2.F32)."""
    a, b, c = pairs(F16_EDGES, np.uint16)
    got = run_both("nan_results", "nan_half", 2, 128, ["a", "b", "c", "o16", "o32", N],
                   {"a": a, "b": b, "c": c, "o16": np.zeros(20 * N, np.uint16), "o32": np.zeros(28 * N, np.uint32)})
    o16, o32 = got["o16"].reshape(20, N), got["o32"].reshape(28, N)
    for k, bf, nan_in in ((0, False, "ab"), (1, False, "ab"), (2, False, "ab"), (3, False, "abc"), (4, False, "a"),
                          (5, False, "a"), (13, True, "ab"), (14, True, "ab"), (15, True, "abc"), (18, True, "a"),
                          (19, True, "a")):
        ops = {"a": a, "b": b, "c": c}
        isnan = np.zeros(N, bool)
        for name in nan_in:
            isnan |= nan16(ops[name], bf)
        assert np.all(o16[k][isnan] == 0x7FFF), (k, [hex(v) for v in o16[k][isnan][:4]])
    plain = ~nan16(a, False)
    assert np.array_equal(o16[4][plain], a[plain] & 0x7FFF) and np.array_equal(o16[5][plain], a[plain] ^ 0x8000)
    bf_nan = nan16(a, True)
    assert np.array_equal(o32[1], a.astype(np.uint32) << 16)                       # every bf16, NaN or not
    assert np.all(o32[0][nan16(a, False)] == CANONICAL32)
    assert bf_nan.any() and nan16(a, False).any()


# The H100's own outputs of the s-* differential programs (programs/*/*/reference/h100.json): PTX
# mode reproduces them bit for bit, NaN payloads included, but where ptxas contracts two PTX
# instructions into one (s-fp32 result 23, s-fp64 result 12: 1 ulp, and which NaN goes on).
H100_PROGRAMS = {"s-fp32": (23,), "s-fp64": (24, 25), "s-half": (), "s-convert": (), "s-extra": (),
                 "s-tensor": ()}


@pytest.mark.parametrize("name", sorted(H100_PROGRAMS))
def test_ptx_mode_matches_the_h100_on_float_programs(name):
    ref = json.loads((program_dir(name) / "reference" / "h100.json").read_text())
    out = run_program(program_dir(name), functional=True, isa="ptx").outputs
    n = make_sass_diff.PROGRAMS[name][0]
    bad = []
    for buf, recorded in ref["outputs"].items():
        got = np.ascontiguousarray(out[buf]).ravel()
        want = recorded_array(recorded).ravel()
        u = f"u{got.itemsize}"
        differ = got.view(u) != want.view(u)
        if buf == "out":
            for row in H100_PROGRAMS[name]:
                differ[row * n:(row + 1) * n] = False
        bad += [f"{buf}[{j}] (result {j // n}, operand {j % n}): ptx {int(got.view(u)[j]):#x} != H100 "
                f"{int(want.view(u)[j]):#x}" for j in np.nonzero(differ)[0][:8]]
    assert not bad, f"{name}: PTX mode differs from the H100:\n" + "\n".join(bad)


# ---- 2. forms nvcc emits that were refused --------------------------------------------------------

M16, M32, M64 = 0xFFFF, 0xFFFFFFFF, (1 << 64) - 1


def test_scoped_registers_and_packed_16_bit_simd_and_lop3():
    """__vadd2 & co. compile to add/sub/min/max .u16x2 / .s16x2 (per 16-bit half, wrapping), some
    inside `{ .reg .b16 __temp$b_lo, ..; }` blocks; __vsadu4 & co. to vabsdiff4 / vabsdiff2 (.add);
    lop3.b32 computes any 3-input logic function; warpSize reads WARP_SZ."""
    rng = np.random.default_rng(61)
    n = 200
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b[:16] = np.array([0, 0x7FFF, 0x8000, 0xFFFF] * 4, np.uint32) * 0x10001   # half edges
    a[:16] = np.repeat(np.array([0, 0x7FFF, 0x8000, 0xFFFF], np.uint32) * 0x10001, 4)
    out = run_both("inline_forms", "simd16", 2, 128, ["a", "b", "o", n],
                   {"a": a, "b": b, "o": np.zeros(17 * n, np.uint32)})["o"].reshape(17, n)

    def halves(v, signed):
        h = np.stack([v & M16, v >> 16]).astype(np.int64)
        return np.where(h >= 0x8000, h - 0x10000, h) if signed else h

    def pack(h):
        h = h & M16
        return (h[0] | h[1] << 16).astype(np.uint32)

    ua, ub, sa, sb = halves(a, False), halves(b, False), halves(a, True), halves(b, True)
    np.testing.assert_array_equal(out[0], pack(ua + ub))
    np.testing.assert_array_equal(out[1], pack(ua - ub))
    np.testing.assert_array_equal(out[2], pack(np.maximum(ua, ub)))
    np.testing.assert_array_equal(out[3], pack(np.minimum(ua, ub)))
    np.testing.assert_array_equal(out[4], pack(np.maximum(sa, sb)))
    np.testing.assert_array_equal(out[5], pack(np.minimum(sa, sb)))
    np.testing.assert_array_equal(out[6], pack(-sa))
    np.testing.assert_array_equal(out[7], pack(np.abs(sa - sb)))
    c = (np.arange(n, dtype=np.uint64) * 0x9E3779B9 & M32).astype(np.uint32)
    np.testing.assert_array_equal(out[8], a ^ b ^ c)
    z = a ^ (b >> 3)
    np.testing.assert_array_equal(out[9], (a & b) | (a & z) | (b & z))
    # __vsadu4 / __vabsdiffu4 / __vsads4 / __vabsdiffs4 / __vsadu2 / __vabsdiffu2 (vabsdiff4, vabsdiff2)
    for row, width, signed, add in ((10, 8, False, True), (11, 8, False, False), (12, 8, True, True),
                                    (13, 8, True, False), (14, 16, False, True), (15, 16, False, False)):
        k = 32 // width
        parts = np.stack([(a.astype(np.int64) >> (width * j)) & ((1 << width) - 1) for j in range(k)]), \
            np.stack([(b.astype(np.int64) >> (width * j)) & ((1 << width) - 1) for j in range(k)])
        if signed:
            parts = tuple(np.where(p >= 1 << (width - 1), p - (1 << width), p) for p in parts)
        diff = np.abs(parts[0] - parts[1])
        want = diff.sum(0) if add else sum(diff[j] << (width * j) for j in range(k))
        np.testing.assert_array_equal(out[row], want.astype(np.uint32), err_msg=str(row))
    np.testing.assert_array_equal(out[16], (32 << 8) | np.array([bin(int(v)).count("1") for v in a]))


def test_carry_chains_and_double_sin_cos():
    """mad.lo.cc / madc.hi.cc / addc (a 128-bit a * b + c), add.cc / addc and sub.cc / subc on
    .u64 (a 128-bit sum and difference), subc.cc borrows into addc; double sin / cos, whose
    argument reduction for large arguments is a madc chain, within 2 ulp of numpy's."""
    rng = np.random.default_rng(62)
    n = 160
    a = rng.integers(0, 1 << 64, n, dtype=np.uint64)
    b = rng.integers(0, 1 << 64, n, dtype=np.uint64)
    a[:4] = b[:4] = M64                                  # every carry set
    b[4:8] = 0
    mant = rng.integers(0, 1 << 52, n, dtype=np.uint64)
    exps = rng.integers(1023 - 30, 1023 + 1000, n, dtype=np.uint64)     # 2^-30 .. 2^1000: Payne-Hanek too
    c = (mant | exps << np.uint64(52) | (rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(63))).astype(np.uint64)
    out = run_both("inline_forms", "carry", 2, 128, ["a", "b", "c", "o", n],
                   {"a": a, "b": b, "c": c, "o": np.zeros(10 * n, np.uint64)})["o"].reshape(10, n)
    for i in range(n):
        x, y, z = int(a[i]), int(b[i]), int(c[i])
        p = x * y + z
        assert (int(out[0, i]), int(out[1, i])) == (p & M64, p >> 64), i
        s = ((y << 64 | x) + (x << 64 | z)) & ((1 << 128) - 1)
        d = ((y << 64 | x) - (x << 64 | z)) & ((1 << 128) - 1)
        assert (int(out[2, i]), int(out[3, i])) == (s & M64, s >> 64), i
        assert (int(out[4, i]), int(out[5, i])) == (d & M64, d >> 64), i
        x32, y32 = x & M32, y & M32
        b1 = int(x32 < y32)
        b2 = int(y32 < x32 + b1)
        q = (((y32 - x32 - b1) & M32) << 32) | ((x32 - y32) & M32)
        assert int(out[6, i]) == q and int(out[7, i]) == (b2 << 32 | (-b2 & M32)), i
    v = c.view(np.float64)
    for row, fn in ((8, np.sin), (9, np.cos)):
        got = out[row].view(np.float64)
        want = fn(v)
        ulp = np.spacing(np.abs(want))
        assert np.all(np.abs(got - want) <= 2 * ulp), (row, np.max(np.abs(got - want) / ulp))


def test_half_functions_with_scoped_b16_blocks():
    """hexp / hlog / hsqrt / hexp2 / hlog2 / hrsqrt / hrcp / hexp10 / h2exp: cuda_fp16.hpp's inline
    assembly declares `.reg.b16 h, r;` and repeats `{.reg.b16 spc, ulp, p; ...}` blocks (names local
    to each block); results within one f16 ulp of numpy's correctly rounded values."""
    rng = np.random.default_rng(63)
    n = 256
    x = np.concatenate([rng.uniform(0.01, 8, n - 16), [0.5, 1, 2, 4, 0.25, 3, 7, 0.1, 1.5, 6, 0.75, 5, 2.5, 0.3,
                                                       0.9, 1.1]]).astype(np.float16)
    out = run_both("inline_forms", "half_fns", 2, 128, ["a", "o", n],
                   {"a": x.view(np.uint16), "o": np.zeros(10 * n, np.uint16)})["o"].reshape(10, n)
    xf = x.astype(np.float64)
    refs = {0: np.exp(xf), 1: np.log(xf), 2: np.sqrt(xf), 3: np.exp2(xf), 4: np.log2(xf), 5: 1 / np.sqrt(xf),
            6: 1 / xf, 7: 10 ** xf, 8: np.exp(xf), 9: np.exp(-xf)}
    for k, ref in refs.items():
        want = ref.astype(np.float16)
        got = out[k].view(np.float16)
        fin = np.isfinite(want) & (np.abs(want) < 60000)
        steps = np.abs(got[fin].view(np.int16).astype(np.int32) - want[fin].view(np.int16).astype(np.int32))
        assert steps.max() <= 1, (k, int(steps.max()), x[fin][np.argmax(steps)])


# ---- 3. several __shared__ arrays ---------------------------------------------------------------

def run_shared(kernel, n_out, dtype, dynamic=0):
    rng = np.random.default_rng(64)
    inp = rng.integers(0, 1 << 31, 256).astype(np.int32)
    program = load_program(str(CUDA / "shared_arrays.ptx"), kernel)
    bufs = {"in": inp, "out": np.zeros(n_out, dtype)}
    eng = launch(program, 2, 128, ["in", "out", 256], {k: v.copy() for k, v in bufs.items()}, config=LaunchConfig(),
                 dynamic_shared=dynamic)
    orc = run_oracle(program, 2, 128, ["in", "out", 256], {k: v.copy() for k, v in bufs.items()},
                     dynamic_shared=dynamic)
    assert_bits_equal(eng.buffers["out"], orc.buffers["out"], kernel)
    return inp.reshape(2, 128), eng.buffers["out"]


def test_second_and_third_shared_arrays():
    """Arrays of different types and alignments side by side, indexed in the second and third
    (a histogram with atomics in the second, a double sum in the second of three)."""
    inp, out = run_shared("two_arrays", 2 * 37, np.int32)
    for blk in range(2):
        hist = np.bincount(inp[blk].astype(np.uint32) % 37, minlength=37)
        want = hist + (0.5 * (np.arange(37) + 50)).astype(int)
        np.testing.assert_array_equal(out[blk * 37:(blk + 1) * 37], want)
    inp, out = run_shared("three_arrays", 2 * 20, np.int64)
    t = np.arange(20)
    for blk in range(2):
        v = inp[blk].astype(np.uint32)
        sums = np.bincount(v % 20, weights=(v & 0xFF).astype(np.float64), minlength=20)
        want = sums.astype(np.int64) * 1000 - (t * 7) % 50 + (t % 13) * 3
        np.testing.assert_array_equal(out[blk * 20:(blk + 1) * 20], want)


def test_extern_shared_begins_after_the_static_arrays():
    """`extern __shared__ int dyn[]` beside static arrays: the dynamic part starts where the static
    arrays end (it was laid over them at offset 0, so filling it overwrote them)."""
    program = load_program(str(CUDA / "shared_arrays.ptx"), "with_dynamic")
    assert program.shared_size == 144                      # flags[7] (align 1), fixed[33] (align 4): 140 -> 144
    inp, out = run_shared("with_dynamic", 256, np.int32, dynamic=512)
    t = np.arange(128)
    for blk in range(2):
        want = inp[blk][(t * 5 + 3) % 128] + (t % 33) ** 2 + (1 << (t % 7))
        np.testing.assert_array_equal(out[blk * 128:(blk + 1) * 128], want.astype(np.int32))


def test_half_precision_atomics_on_shared_arrays():
    """atomicAdd on __half, __nv_bfloat16 and __half2 in shared memory (atom.add.noftz.f16 / .bf16 /
    .f16x2 through generic addresses, beside an int array): sums of small integers, exact."""
    inp, out = run_shared("half_atomics", 2 * 12, np.float32)
    for blk in range(2):
        v = inp[blk]
        got = out[blk * 12:(blk + 1) * 12]
        h = np.bincount(v & 3, weights=(v >> 2) & 7, minlength=4) + np.arange(4)
        bh = np.bincount((v >> 5) & 1, minlength=2)
        k = (v >> 6) % 3
        lo = np.bincount(k, minlength=3)
        hi = np.bincount(k, weights=(v >> 8) & 3, minlength=3)
        np.testing.assert_array_equal(got[:4], h)
        np.testing.assert_array_equal(got[4:6], bh)
        np.testing.assert_array_equal(got[6::2], lo)
        np.testing.assert_array_equal(got[7::2], hi)


def test_float64_nan_of_the_operand_written_last_goes_on():
    """__fma_rd(d - d, (double)fmaf(f1, f0, f1), d) with d a NaN and fmaf's result a NaN: the H100
    gives the converted canonical float32 NaN, 0x7fffffffe0000000 (generated corpus k00007), the
    operand written last (ptxas's DFMA b slot), not a's NaN (d - d, which s-fp64's order would pick)."""
    n = 64
    a = np.full(n, 0xFFFFFFFF8EE21CF2, np.uint64)          # a NaN with a payload, as in k00007
    a[n // 2:] = 0x3FF0000000000000                          # 1.0: d - d = 0, fma(0, NaN, 1) is the NaN
    f = np.concatenate([np.zeros(n, np.uint32), np.full(n, 0x7F800000, np.uint32)])   # f0 = 0, f1 = inf
    got = run_both("nan_results", "nan_order", 1, n, ["a", "f", "o", n],
                   {"a": a, "f": f, "o": np.zeros(n, np.uint64)})["o"]
    assert np.all(got == np.uint64(0x7FFFFFFFE0000000)), [hex(int(v)) for v in got[:2]]
