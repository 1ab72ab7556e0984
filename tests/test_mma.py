"""mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 (DMMA): the engine and the oracle against numpy.

Each warp w multiplies its own A (8x4), B (4x8) and C (8x8), all row-major at A[32w], B[32w],
C[64w]; lane l loads A[l>>2][l%4] (index l), B[l%4][l>>2] and C/D[l>>2][2(l%4)+{0,1}] (index
2l, 2l+1), the PTX fragment layout.  Integer-valued doubles make the result exact in any order; the
non-integer cases check the documented order: d = fma(a3,b3, fma(a2,b2, fma(a1,b1, fma(a0,b0, c)))).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from simt_sim.errors import InputError, RuntimeFault
from simt_sim.frontend.assembler import assemble_text
from simt_sim.run.functional import launch
from simt_sim.oracle import run_oracle

MMA = "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"


def kernel(mma_line: str = f"{MMA} {{%fd5, %fd6}}, {{%fd1}}, {{%fd2}}, {{%fd3, %fd4}};",
           guard: str = "") -> str:
    return f""".version 8.0
.target sm_90
.address_size 64

.visible .entry mma_k(.param .u64 pA, .param .u64 pB, .param .u64 pC, .param .u64 pD)
{{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<12>;
	.reg .f64 %fd<8>;
	ld.param.u64 	%rd1, [pA];
	ld.param.u64 	%rd2, [pB];
	ld.param.u64 	%rd3, [pC];
	ld.param.u64 	%rd4, [pD];
	mov.u32 	%r1, %tid.x;
	and.b32 	%r2, %r1, 31;
	shr.u32 	%r3, %r1, 5;
	mul.wide.u32 	%rd5, %r1, 8;
	add.s64 	%rd6, %rd1, %rd5;
	ld.global.f64 	%fd1, [%rd6];
	and.b32 	%r4, %r1, 3;
	shl.b32 	%r4, %r4, 3;
	shr.u32 	%r5, %r2, 2;
	add.s32 	%r4, %r4, %r5;
	shl.b32 	%r6, %r3, 5;
	add.s32 	%r4, %r4, %r6;
	mul.wide.u32 	%rd7, %r4, 8;
	add.s64 	%rd8, %rd2, %rd7;
	ld.global.f64 	%fd2, [%rd8];
	mul.wide.u32 	%rd9, %r1, 16;
	add.s64 	%rd10, %rd3, %rd9;
	ld.global.f64 	%fd3, [%rd10];
	ld.global.f64 	%fd4, [%rd10+8];
	mov.f64 	%fd5, 0d0000000000000000;
	mov.f64 	%fd6, 0d0000000000000000;
	setp.lt.u32 	%p1, %r2, 16;
	{guard}{mma_line}
	add.s64 	%rd11, %rd4, %rd9;
	st.global.f64 	[%rd11], %fd5;
	st.global.f64 	[%rd11+8], %fd6;
	ret;
}}
"""


def buffers(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> dict[str, np.ndarray]:
    return {"A": a.ravel().astype(np.float64), "B": b.ravel().astype(np.float64),
            "C": c.ravel().astype(np.float64), "D": np.zeros(c.size, np.float64)}


def run(src: str, bufs: dict[str, np.ndarray], warps: int):
    prog = assemble_text(src)
    eng = launch(prog, 1, 32 * warps, ["A", "B", "C", "D"], {k: v.copy() for k, v in bufs.items()})
    orc = run_oracle(prog, 1, 32 * warps, ["A", "B", "C", "D"], {k: v.copy() for k, v in bufs.items()})
    return eng.buffers["D"], orc.buffers["D"]


def fma_chain(arow, bcol, c) -> float:
    """The documented order, each step exactly computed and correctly rounded (float(Fraction)
    rounds to nearest, ties to even)."""
    acc = c
    for a, b in zip(arow, bcol):
        acc = float(Fraction(a) * Fraction(b) + Fraction(acc))
    return acc


@pytest.mark.parametrize("seed", [1, 2])
def test_mma_integer_valued_matches_numpy(seed):
    rng = np.random.default_rng(seed)
    warps = 3
    a = rng.integers(-1000, 1000, (warps, 8, 4)).astype(np.float64)
    b = rng.integers(-1000, 1000, (warps, 4, 8)).astype(np.float64)
    c = rng.integers(-10 ** 6, 10 ** 6, (warps, 8, 8)).astype(np.float64)
    got, oracle = run(kernel(), buffers(a, b, c), warps)
    want = np.stack([a[w] @ b[w] + c[w] for w in range(warps)])
    np.testing.assert_array_equal(got.reshape(warps, 8, 8), want)
    np.testing.assert_array_equal(oracle.view(np.uint64), got.view(np.uint64))


def test_mma_accumulates_in_place():
    rng = np.random.default_rng(7)
    a = rng.integers(-9, 9, (8, 4)).astype(np.float64)
    b = rng.integers(-9, 9, (4, 8)).astype(np.float64)
    c = rng.integers(-99, 99, (8, 8)).astype(np.float64)
    line = (f"{MMA} {{%fd3, %fd4}}, {{%fd1}}, {{%fd2}}, {{%fd3, %fd4}};\n"
            f"\t{MMA} {{%fd5, %fd6}}, {{%fd1}}, {{%fd2}}, {{%fd3, %fd4}};")
    got, oracle = run(kernel(line), buffers(a, b, c), 1)
    np.testing.assert_array_equal(got.reshape(8, 8), 2 * (a @ b) + c)
    np.testing.assert_array_equal(oracle, got)


def test_mma_rounding_is_an_fma_chain_in_k_order():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((8, 4))
    b = rng.standard_normal((4, 8))
    c = rng.standard_normal((8, 8))
    # D[0][0] is order-sensitive: the chain fma(1, 1, fma(-1e16, 1, fma(1, 1, fma(1e16, 1, 0))))
    # gives 1 (1e16 + 1 rounds back to 1e16), the exact value is 2.
    a[0] = [1e16, 1.0, -1e16, 1.0]
    b[:, 0] = 1.0
    c[0, 0] = 0.0
    got, oracle = run(kernel(), buffers(a, b, c), 1)
    d = got.reshape(8, 8)
    want = np.array([[fma_chain(a[i], b[:, j], c[i, j]) for j in range(8)] for i in range(8)])
    np.testing.assert_array_equal(d.view(np.uint64), want.view(np.uint64))
    assert d[0, 0] == 1.0
    np.testing.assert_array_equal(oracle.view(np.uint64), got.view(np.uint64))


def test_mma_partial_warp_faults():
    a, b, c = np.ones((8, 4)), np.ones((4, 8)), np.zeros((8, 8))
    with pytest.raises(RuntimeFault, match="needs all 32 lanes"):
        launch(assemble_text(kernel(guard="@%p1 ")), 1, 32, ["A", "B", "C", "D"], buffers(a, b, c))
    with pytest.raises(RuntimeFault, match="all 32 lanes"):
        run_oracle(assemble_text(kernel(guard="@%p1 ")), 1, 32, ["A", "B", "C", "D"], buffers(a, b, c))
    with pytest.raises(RuntimeFault, match="needs all 32 lanes"):      # a warp of 16 threads
        launch(assemble_text(kernel()), 1, 16, ["A", "B", "C", "D"], buffers(a, b, c))


@pytest.mark.parametrize("line, message", [
    ("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%fd5, %fd6}, {%fd1}, {%fd2}, {%fd3, %fd4};",
     "mma.m16n8k8.f64.f64.f64.f64: supported types are"),
    ("mma.sync.aligned.m8n8k4.row.col.f32.f64.f64.f32 {%fd5, %fd6}, {%fd1}, {%fd2}, {%fd3, %fd4};",
     r"mma.m8n8k4: only .f64.f64.f64.f64 \(DMMA\)"),
    ("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f32 {%fd5, %fd6}, {%fd1}, {%fd2}, {%fd3, %fd4};",
     r"mma.m8n8k4: only .f64.f64.f64.f64 \(DMMA\)"),
    ("mma.sync.aligned.m8n8k4.row.row.f64.f64.f64.f64 {%fd5, %fd6}, {%fd1}, {%fd2}, {%fd3, %fd4};",
     r"mma.m8n8k4: only the .row.col layout"),
    (f"{MMA} {{%fd5}}, {{%fd1}}, {{%fd2}}, {{%fd3, %fd4}};", "D fragment"),
    (f"{MMA} {{%fd5, %fd6}}, {{%fd1, %fd2}}, {{%fd2}}, {{%fd3, %fd4}};", "A fragment"),
    (f"{MMA} {{%fd5, %fd6}}, {{%fd1}}, {{%r1}}, {{%fd3, %fd4}};", "mismatch|B fragment"),
])
def test_mma_assembler_rejects_other_forms(line, message):
    with pytest.raises(InputError, match=message):
        assemble_text(kernel(line))
