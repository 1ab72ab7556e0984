"""Opcodes nvcc -arch=sm_90 -O3 emits for ordinary kernels beyond the core set: bfind, fns, dp4a,
dp2a, mul24 / mad24, redux.sync, match.sync, bar.red (__syncthreads_count/and/or) and cp.async.
Each runs through the engine and the per-thread oracle and is checked against a Python reference
written from the PTX ISA pseudocode."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from simt_sim.frontend.assembler import assemble_text
from simt_sim.run.functional import launch
from simt_sim.oracle import run_oracle

M32 = 0xFFFF_FFFF
HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n\n"


def ew_kernel(body: str) -> str:
    """Thread i loads in0[i], in1[i], in2[i] into %r1, %r2, %r3, runs body, stores %r4 to out[i]."""
    return HEAD + f""".visible .entry k(.param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u64 p3)
{{
	.reg .pred %p<8>;
	.reg .b32 %r<24>;
	.reg .b64 %rd<24>;
	ld.param.u64 	%rd1, [p0];
	ld.param.u64 	%rd2, [p1];
	ld.param.u64 	%rd3, [p2];
	ld.param.u64 	%rd4, [p3];
	mov.u32 	%r10, %tid.x;
	mov.u32 	%r11, %ctaid.x;
	mov.u32 	%r12, %ntid.x;
	mad.lo.s32 	%r13, %r11, %r12, %r10;
	mul.wide.u32 	%rd5, %r13, 4;
	add.s64 	%rd6, %rd1, %rd5;
	ld.global.u32 	%r1, [%rd6];
	add.s64 	%rd7, %rd2, %rd5;
	ld.global.u32 	%r2, [%rd7];
	add.s64 	%rd8, %rd3, %rd5;
	ld.global.u32 	%r3, [%rd8];
	mov.u32 	%r4, 0;
{body}
	add.s64 	%rd9, %rd4, %rd5;
	st.global.u32 	[%rd9], %r4;
	ret;
}}
"""


def run_ew(body: str, a, b, c, block: int = 64, grid: int = 1) -> list[int]:
    n = block * grid
    bufs = {f"in{i}": np.array([v & M32 for v in x], dtype=np.uint32) for i, x in enumerate((a, b, c))}
    bufs["out"] = np.zeros(n, np.uint32)
    for k in ("in0", "in1", "in2"):
        assert bufs[k].size == n
    prog = assemble_text(ew_kernel(body))
    args = ["in0", "in1", "in2", "out"]
    eng = launch(prog, grid, block, args, {k: v.copy() for k, v in bufs.items()})
    orc = run_oracle(prog, grid, block, args, {k: v.copy() for k, v in bufs.items()})
    np.testing.assert_array_equal(eng.buffers["out"], orc.buffers["out"], "engine vs oracle")
    return [int(v) for v in eng.buffers["out"]]


def s32(v: int) -> int:
    v &= M32
    return v - (1 << 32) if v >> 31 else v


def rand32(rng, n: int) -> list[int]:
    edges = [0, 1, 2, 3, M32, 0x80000000, 0x7FFFFFFF, 0xFFFFFFFE, 0x00800000, 0x00FFFFFF, 0x01000000,
             0xFF7FFFFF, 0x80, 0x7F, 0xFF, 0x8080, 0x7F7F7F7F, 0x80808080]
    return (edges + [int(x) for x in rng.integers(0, 1 << 32, n, dtype=np.uint64)])[:n]


# ---- references from the PTX ISA pseudocode ----

def ref_bfind(x: int, bits: int, signed: bool, shiftamt: bool) -> int:
    x &= (1 << bits) - 1
    if signed and x >> (bits - 1):
        x = ~x & ((1 << bits) - 1)
    if x == 0:
        return M32
    pos = x.bit_length() - 1
    return bits - 1 - pos if shiftamt else pos


def ref_fns(mask: int, base: int, offset: int) -> int:
    if offset == 0:
        return base if mask >> base & 1 else M32
    want = abs(offset)
    positions = range(base, 32) if offset > 0 else range(base, -1, -1)
    for pos in positions:
        if mask >> pos & 1:
            want -= 1
            if want == 0:
                return pos
    return M32


def parts(x: int, width: int, count: int, signed: bool) -> list[int]:
    out = []
    for i in range(count):
        v = x >> (width * i) & ((1 << width) - 1)
        out.append(v - (1 << width) if signed and v >> (width - 1) else v)
    return out


def ref_dp4a(a, b, c, sa, sb):
    return (c + sum(x * y for x, y in zip(parts(a, 8, 4, sa), parts(b, 8, 4, sb)))) & M32


def ref_dp2a(a, b, c, sa, sb, hi):
    bb = parts(b, 8, 4, sb)[2:] if hi else parts(b, 8, 4, sb)[:2]
    return (c + sum(x * y for x, y in zip(parts(a, 16, 2, sa), bb))) & M32


def ref_mul24(a, b, signed, hi):
    p = parts(a, 24, 1, signed)[0] * parts(b, 24, 1, signed)[0]
    return (p >> 16 if hi else p) & M32


# ---- per-thread integer ops ----

N = 128


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(2024)
    return rand32(rng, N), rand32(rng, N)[::-1], [int(x) for x in rng.integers(0, 1 << 32, N, dtype=np.uint64)]


@pytest.mark.parametrize("ty, shiftamt", [("u32", False), ("s32", False), ("u32", True), ("s32", True)])
def test_bfind_32(data, ty, shiftamt):
    a, _, _ = data
    got = run_ew(f"\tbfind{'.shiftamt' if shiftamt else ''}.{ty} \t%r4, %r1;", a, a, a, block=N)
    assert got == [ref_bfind(x, 32, ty == "s32", shiftamt) for x in a]


@pytest.mark.parametrize("ty", ["u64", "s64"])
def test_bfind_64(data, ty):
    a, b, _ = data
    b = [0 if i % 5 == 0 else v for i, v in enumerate(b)]       # some values with an empty high word
    body = f"\tmov.b64 \t%rd10, {{%r1, %r2}};\n\tbfind.{ty} \t%r4, %rd10;\n\tbfind.shiftamt.{ty} \t%r5, %rd10;\n" \
           "\tadd.s32 \t%r4, %r4, %r5;"      # pos + (63 - pos) = 63, or two misses: 0xfffffffe
    got = run_ew(body, a, b, a, block=N)
    want = [(ref_bfind(x | y << 32, 64, ty == "s64", False) + ref_bfind(x | y << 32, 64, ty == "s64", True)) & M32
            for x, y in zip(a, b)]
    assert got == want
    got = run_ew(f"\tmov.b64 \t%rd10, {{%r1, %r2}};\n\tbfind.{ty} \t%r4, %rd10;", a, b, a, block=N)
    assert got == [ref_bfind(x | y << 32, 64, ty == "s64", False) for x, y in zip(a, b)]


def test_fns(data):
    a, _, c = data
    base = [v % 32 for v in c]
    offset = [(v >> 8) % 67 - 33 for v in c]
    got = run_ew("\tfns.b32 \t%r4, %r1, %r2, %r3;", a, base, offset, block=N)
    assert got == [ref_fns(m & M32, bs, off) for m, bs, off in zip(a, base, offset)]
    assert run_ew("\tfns.b32 \t%r4, 0xaaaaaaaa, %r2, %r3;", [0] * 4, [3, 3, 2, 2], [1, -1, 1, -1], block=4) \
        == [3, 3, 3, 1]     # the PTX ISA's examples


@pytest.mark.parametrize("ta, tb", [("u32", "u32"), ("s32", "s32"), ("u32", "s32"), ("s32", "u32")])
def test_dp4a_dp2a(data, ta, tb):
    a, b, c = data
    sa, sb = ta == "s32", tb == "s32"
    got = run_ew(f"\tdp4a.{ta}.{tb} \t%r4, %r1, %r2, %r3;", a, b, c, block=N)
    assert got == [ref_dp4a(x, y, z, sa, sb) for x, y, z in zip(a, b, c)]
    for mode in ("lo", "hi"):
        got = run_ew(f"\tdp2a.{mode}.{ta}.{tb} \t%r4, %r1, %r2, %r3;", a, b, c, block=N)
        assert got == [ref_dp2a(x, y, z, sa, sb, mode == "hi") for x, y, z in zip(a, b, c)]


@pytest.mark.parametrize("ty", ["u32", "s32"])
def test_mul24_mad24(data, ty):
    a, b, c = data
    signed = ty == "s32"
    for mode in ("lo", "hi"):
        got = run_ew(f"\tmul24.{mode}.{ty} \t%r4, %r1, %r2;", a, b, c, block=N)
        assert got == [ref_mul24(x, y, signed, mode == "hi") for x, y in zip(a, b)]
        got = run_ew(f"\tmad24.{mode}.{ty} \t%r4, %r1, %r2, %r3;", a, b, c, block=N)
        assert got == [(ref_mul24(x, y, signed, mode == "hi") + z) & M32 for x, y, z in zip(a, b, c)]


# ---- warp-collective: redux.sync and match.sync ----

SPLIT = """	and.b32 	%r14, %r10, 31;
	setp.lt.u32 	%p1, %r14, 12;
	@%p1 bra 	LOW;
	{op} 	%r4, %r1, 0xfffff000;
	bra.uni 	DONE;
LOW:
	{op} 	%r4, %r1, 0x00000fff;
DONE:"""


def groups(n: int):
    """Lane groups of SPLIT (lanes 0-11 and 12-31 of each warp) as lists of thread indices."""
    out = []
    for w in range(n // 32):
        out += [list(range(32 * w, 32 * w + 12)), list(range(32 * w + 12, 32 * w + 32))]
    return out


REDUX = {"add": lambda v, s: sum(v), "min": lambda v, s: min(v), "max": lambda v, s: max(v)}


@pytest.mark.parametrize("op, ty", [("add", "u32"), ("min", "u32"), ("max", "u32"), ("min", "s32"),
                                    ("max", "s32"), ("and", "b32"), ("or", "b32"), ("xor", "b32")])
def test_redux_sync(data, op, ty):
    a, _, _ = data
    ins = f"redux.sync.{op}.{ty}"
    full = run_ew(f"\t{ins} \t%r4, %r1, -1;", a, a, a, block=N)
    split = run_ew(SPLIT.format(op=ins), a, a, a, block=N)

    def reduce(vals):
        vals = [s32(v) if ty == "s32" else v & M32 for v in vals]
        if op in REDUX:
            return REDUX[op](vals, ty) & M32
        r = vals[0]
        for v in vals[1:]:
            r = r & v if op == "and" else r | v if op == "or" else r ^ v
        return r & M32

    for lanes in [list(range(w, w + 32)) for w in range(0, N, 32)]:
        assert {full[i] for i in lanes} == {reduce([a[i] for i in lanes])}
    for lanes in groups(N):
        assert {split[i] for i in lanes} == {reduce([a[i] for i in lanes])}


def test_match_sync():
    n = 64
    vals = [(i * 7) % 5 for i in range(n)]
    got = run_ew("\tmatch.any.sync.b32 \t%r4, %r1, -1;", vals, vals, vals, block=n)
    for i in range(n):
        w = i // 32 * 32
        assert got[i] == sum(1 << j for j in range(32) if vals[w + j] == vals[i])
    split = run_ew(SPLIT.format(op="match.any.sync.b32"), vals, vals, vals, block=n)
    for lanes in groups(n):
        for i in lanes:
            assert split[i] == sum(1 << (j % 32) for j in lanes if vals[j] == vals[i])
    same = [5 if i < 32 else i % 3 for i in range(n)]        # warp 0 agrees, warp 1 does not
    body = ("\tmatch.all.sync.b32 \t%r4|%p2, %r1, -1;\n\tand.b32 \t%r4, %r4, 255;\n"
            "\tselp.u32 \t%r5, 100, 0, %p2;\n\tadd.s32 \t%r4, %r4, %r5;")
    got = run_ew(body, same, same, same, block=n)
    assert got == [355] * 32 + [0] * 32
    got = run_ew("\tmatch.all.sync.b32 \t%r4, %r1, -1;", same, same, same, block=n)
    assert got == [M32] * 32 + [0] * 32


def test_match_b64():
    n = 32
    lo = [i % 4 for i in range(n)]
    hi = [i % 2 for i in range(n)]
    got = run_ew("\tmov.b64 \t%rd10, {%r1, %r2};\n\tmatch.any.sync.b64 \t%r4, %rd10, -1;", lo, hi, lo, block=n)
    assert got == [sum(1 << j for j in range(n) if lo[j] == lo[i] and hi[j] == hi[i]) for i in range(n)]


# ---- bar.red ----

BAR_RED = """	setp.ne.s32 	%p1, %r1, 0;
	bar.red.popc.u32 	%r5, 0, %p1;
	setp.ne.s32 	%p2, %r2, 0;
	bar.red.and.pred 	%p3, 0, %p2;
	bar.red.or.pred 	%p4, 0, !%p2;
	selp.u32 	%r6, 1000000, 0, %p3;
	selp.u32 	%r7, 2000000, 0, %p4;
	add.s32 	%r4, %r5, %r6;
	add.s32 	%r4, %r4, %r7;"""


@pytest.mark.parametrize("block", [96, 40])
def test_bar_red(block):
    rng = np.random.default_rng(block)
    grid = 3
    n = block * grid
    a = [int(v) for v in rng.integers(0, 2, n)]
    b = [1] * block + [int(v) for v in rng.integers(0, 2, block)] + [0] * block
    got = run_ew(BAR_RED, a, b, a, block=block, grid=grid)
    for blk in range(grid):
        ids = range(blk * block, (blk + 1) * block)
        count = sum(a[i] for i in ids)
        all_b = all(b[i] for i in ids)
        any_not_b = any(not b[i] for i in ids)
        want = count + 1000000 * all_b + 2000000 * any_not_b
        assert {got[i] for i in ids} == {want}


# ---- cp.async ----

CP_ASYNC = HEAD + """.visible .entry cp(.param .u64 p0, .param .u64 p1)
{
	.reg .b32 %r<12>;
	.reg .b64 %rd<12>;
	.shared .align 16 .b8 tile[1024];
	ld.param.u64 	%rd1, [p0];
	ld.param.u64 	%rd2, [p1];
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 16;
	add.s64 	%rd4, %rd1, %rd3;
	mov.u32 	%r2, tile;
	shl.b32 	%r3, %r1, 4;
	add.s32 	%r4, %r2, %r3;
	and.b32 	%r5, %r1, 15;
	cp.async.cg.shared.global 	[%r4], [%rd4], 16, %r5;
	cp.async.commit_group;
	cp.async.wait_group 	0;
	bar.sync 	0;
	mov.u32 	%r6, 63;
	sub.s32 	%r7, %r6, %r1;
	shl.b32 	%r8, %r7, 4;
	add.s32 	%r9, %r2, %r8;
	ld.shared.v4.u32 	{%r0, %r1, %r2, %r3}, [%r9];
	mov.u32 	%r10, %tid.x;
	mul.wide.u32 	%rd6, %r10, 16;
	add.s64 	%rd7, %rd2, %rd6;
	st.global.v4.u32 	[%rd7], {%r0, %r1, %r2, %r3};
	cp.async.wait_all;
	ret;
}
"""


def test_cp_async_copies_with_zero_fill():
    src = np.arange(64 * 16, dtype=np.uint8) * 3 + 1
    bufs = {"src": src, "dst": np.zeros(64 * 16, np.uint8)}
    prog = assemble_text(CP_ASYNC)
    eng = launch(prog, 1, 64, ["src", "dst"], {k: v.copy() for k, v in bufs.items()})
    orc = run_oracle(prog, 1, 64, ["src", "dst"], {k: v.copy() for k, v in bufs.items()})
    want = np.zeros((64, 16), np.uint8)
    for t in range(64):
        r = 63 - t                        # thread t reads the tile row thread r copied
        want[t, :r % 16] = src.reshape(64, 16)[r, :r % 16]
    np.testing.assert_array_equal(eng.buffers["dst"].reshape(64, 16), want)
    np.testing.assert_array_equal(orc.buffers["dst"], eng.buffers["dst"])


# ---- what nvcc emits for the CUDA intrinsics ----

CUDA_SRC = r"""
#include <cuda_pipeline.h>
extern "C" __global__ void intrinsics(unsigned* o, const unsigned* a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = a[i], y = a[i ^ 5], z = a[(i * 7) & 127];
    __shared__ unsigned s[128];
    __pipeline_memcpy_async(&s[threadIdx.x], &a[i], 4);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    int cnt = __syncthreads_count(x & 1);
    int all = __syncthreads_and(y & 2);
    int any = __syncthreads_or(z & 4);
    unsigned r = __ffs(x) + __clz(x) * 3 + (31 - __clz(y)) * 5 + __dp4a(x, y, z) + __dp4a((int)x, (int)y, (int)z)
               + __dp2a_lo(x, y, z) + __dp2a_hi((int)x, (int)y, (int)z) + __umulhi(x, y) + __mulhi((int)x, (int)z)
               + __mul24((int)x, (int)y) + __umul24(x, z) + __fns(x, y & 31, (int)(z & 7) - 3)
               + __reduce_add_sync(0xffffffffu, x) + __reduce_min_sync(0xffffffffu, (int)y)
               + __reduce_max_sync(0xffffffffu, z) + __reduce_xor_sync(0xffffffffu, x)
               + __match_any_sync(0xffffffffu, x & 3) + cnt * 7 + all * 11 + any * 13 + s[threadIdx.x ^ 1];
    int pred;
    r += __match_all_sync(0xffffffffu, x & 0x100, &pred) + pred;
    o[i] = r;
}
"""


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_nvcc_intrinsics_engine_matches_oracle(tmp_path):
    cu = tmp_path / "k.cu"
    cu.write_text(CUDA_SRC)
    ptx = tmp_path / "k.ptx"
    subprocess.run(["nvcc", "-ptx", "-arch=sm_90", "-O3", str(cu), "-o", str(ptx)], check=True)
    text = ptx.read_text()
    for opcode in ("bfind", "dp4a", "dp2a", "redux.sync", "match.any", "match.all", "bar.red.popc",
                   "bar.red.and", "bar.red.or", "fns", "cp.async"):
        assert opcode in text, opcode
    prog = assemble_text(text)
    rng = np.random.default_rng(5)
    bufs = {"o": np.zeros(256, np.uint32), "a": rng.integers(0, 1 << 32, 256, dtype=np.uint64).astype(np.uint32)}
    bufs["a"][:8] = [0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 3, 0x100, 0x80]
    eng = launch(prog, 2, 128, ["o", "a"], {k: v.copy() for k, v in bufs.items()})
    orc = run_oracle(prog, 2, 128, ["o", "a"], {k: v.copy() for k, v in bufs.items()})
    np.testing.assert_array_equal(eng.buffers["o"], orc.buffers["o"])
    assert eng.buffers["o"].any()
