"""SASS half, warp and tensor-core families (engine/functional/sass_half.py, sass_warp.py,
sass_tensor.py; frontend/sass_lower_more.py): real kernels run as ptxas's sm_90 SASS (functional)
give the outputs of the same kernels run as PTX (the PTX engine is validated against the H100) and,
for the tensor cores, the D bits recorded on the H100.  Needs ptxas and nvdisasm (skipped without)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simt_sim.calibrate.tensor_cases import PROBE_KERNELS, probe_cases
from simt_sim.errors import RuntimeFault
from simt_sim.frontend import sass
from simt_sim.frontend.sass import sass_listing
from simt_sim.frontend.sass_lower import RowBuilder, load_kernel, lower_instruction
from simt_sim.frontend.sass_lower_more import merge_half_immediates
from simt_sim.isa import encoding as E
from simt_sim.run.functional import launch

HERE = Path(__file__).resolve().parent
CUDA = HERE / "cuda"
ROOT = HERE.parent


pytestmark = pytest.mark.skipif(not sass.tools_available(), reason="needs ptxas and nvdisasm")


def run_isa(path, kernel, isa, grid, block, args, buffers):
    program = load_kernel(str(path), kernel, isa)
    return launch(program, grid, block, args, {k: v.copy() for k, v in buffers.items()}).buffers


def run_both(path, kernel, grid, block, args, buffers):
    """(PTX outputs, SASS outputs) of one launch."""
    return (run_isa(path, kernel, "ptx", grid, block, args, buffers),
            run_isa(path, kernel, "sass", grid, block, args, buffers))


def assert_same(ptx, sass_, names):
    for name in names:
        bad = np.flatnonzero(ptx[name].view(np.uint8) != sass_[name].view(np.uint8))
        assert bad.size == 0, f"{name}: SASS differs from PTX at bytes {bad[:8]}"


def sass_rows(path, kernel=None):
    program = load_kernel(str(path), kernel, "sass")
    return program, [int(r[E.F_OP]) for r in program.code]


# ---------------------------------------------------------------------------------------------
# tensor cores: HMMA (16816 / 1688, f16 / bf16, f32 / f16 accumulators), MOVM, DMMA
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def recorded():
    with np.load(HERE / "data" / "h100" / "tensor_cores.npz") as npz:
        return {k.name: npz[k.name] for k in PROBE_KERNELS}


@pytest.mark.parametrize("kernel", PROBE_KERNELS, ids=lambda k: k.name)
def test_hmma_reproduces_the_h100_probes_in_sass_mode(kernel, recorded):
    """Every tc_probe kernel (mma.sync and wmma: HMMA.16816 / .1688, .BF16, F16 accumulators, and the
    MOVM transposes of wmma's column-major loads) on 60 recorded H100 cases: D bit for bit."""
    idx = np.arange(0, 240, 4)
    cs = probe_cases(kernel)
    out = np.uint16 if kernel.accumulator == "f16" else np.uint32
    c = cs["c"][idx]
    bufs = {"A": cs["a"][idx].ravel().copy(), "B": cs["b"][idx].ravel().copy(), "C": c.ravel().copy(),
            "D": np.zeros(c.size, out)}
    got = run_isa(CUDA / "tc_probe.ptx", kernel.name, "sass", len(idx), 32, ["A", "B", "C", "D"], bufs)["D"]
    want = recorded[kernel.name][idx]
    bad = got.reshape(c.shape) != want
    assert not bad.any(), f"{kernel.name}: {int(bad.sum())} of {want.size} elements differ"


def test_the_probes_run_hmma_and_movm_rows():
    families = set()
    for k in PROBE_KERNELS:
        program, ops = sass_rows(CUDA / "tc_probe.ptx", k.name)
        families |= {name for name, op in E.SASS_OPCODE.items() if op in ops}
    assert {"HMMA", "MOVM"} <= families


def test_hmma_needs_the_whole_warp():
    kernel = PROBE_KERNELS[0]
    cs = probe_cases(kernel)
    bufs = {"A": cs["a"][:1].ravel().copy(), "B": cs["b"][:1].ravel().copy(), "C": cs["c"][:1].ravel().copy(),
            "D": np.zeros(cs["c"][:1].size, np.uint32)}
    with pytest.raises(RuntimeFault, match="needs all 32 lanes"):
        run_isa(CUDA / "tc_probe.ptx", kernel.name, "sass", 1, 16, ["A", "B", "C", "D"], bufs)


def test_dmma_gives_the_ptx_results():
    """programs/validation/v-mma-f64: sixteen chained DMMA.8x8x4 on non-integer doubles (rounding order matters)."""
    from simt_sim.frontend.manifest import load_manifest
    m = load_manifest(str(ROOT / "programs" / "validation" / "v-mma-f64"))
    bufs = {spec.name: spec.make() for spec in m.buffers}
    rng = np.random.default_rng(5)
    for name, arr in bufs.items():
        if arr.dtype == np.float64:
            bufs[name] = rng.standard_normal(arr.size) * 3.1
    args, grid, block = m.args, m.grid, m.block
    ptx, sass_ = run_both(m.kernel_file, m.kernel, grid, block, args, bufs)
    assert_same(ptx, sass_, ["D"])             # clk: the two ISAs take different instruction counts
    _, ops = sass_rows(m.kernel_file, m.kernel)
    assert ops.count(E.OP_S_DMMA) == 16


# ---------------------------------------------------------------------------------------------
# half precision: HSETP2, F2FP, HADD2.F32
# ---------------------------------------------------------------------------------------------

F16_SPECIAL = [0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x0001, 0x8001, 0x03FF,
               0x7BFF, 0xFBFF, 0x3555, 0x3556]


def test_hsetp2_gives_the_ptx_predicates():
    rng = np.random.default_rng(3)
    a = np.array(F16_SPECIAL * len(F16_SPECIAL) + list(rng.integers(0, 1 << 16, 300)), np.uint16)
    b = np.array([y for y in F16_SPECIAL for _ in F16_SPECIAL] + list(rng.integers(0, 1 << 16, 300)), np.uint16)
    b[-100:] = a[-100:]                                   # equal pairs
    n = a.size
    bufs = {"a": a, "b": b, "o": np.zeros(n, np.int32)}
    ptx, sass_ = run_both(CUDA / "half_compare.ptx", None, (n + 127) // 128, 128, ["a", "b", "o", n], bufs)
    assert_same(ptx, sass_, ["o"])
    assert len(set(ptx["o"].tolist())) >= 4


def test_f2fp_and_hadd2_f32_give_the_ptx_conversions():
    """F2FP.{F16,BF16}.F32.PACK_AB (.RZ), HADD2.F32 (cvt.f32.f16) on edge and random floats."""
    rng = np.random.default_rng(11)
    edges = [0.0, -0.0, 1.0, -1.0, 65504.0, 65520.0, 1e6, -1e6, 5.96e-8, 2.98e-8, 1e-40, -1e-40,
             np.inf, -np.inf, np.nan, 3.3895e38, 1.0009765625, 1.00048828125, 1.000732421875]
    n = 256
    x = np.array((edges + list(rng.standard_normal(n) * 2.0 ** rng.integers(-28, 18, n)))[:n], np.float32)
    y = np.array(rng.standard_normal(n) * 100, np.float32)
    bufs = {"a": x, "b": y, "k": rng.integers(-100000, 100000, n).astype(np.int32),
            "h": np.zeros(6 * n, np.uint16), "p": np.zeros(2 * n, np.uint32), "f": np.zeros(2 * n, np.float32),
            "i": np.zeros(n, np.int32)}
    ptx, sass_ = run_both(CUDA / "half_convert.ptx", None, 2, 128, ["a", "b", "k", "h", "p", "f", "i", n], bufs)
    assert_same(ptx, sass_, ["h", "p", "i"])
    # __bfloat162float is `SHF.L.U32 d, h, 0x10` in SASS: a bf16 NaN keeps its bits (0x7fff0000), where
    # the PTX engine's cvt.f32.bf16 gives 0x7fc00000; the f16 half (HADD2.F32) gives 0x7fffffff in both modes
    back_ptx, back_sass = ptx["f"].view(np.uint32).reshape(n, 2), sass_["f"].view(np.uint32).reshape(n, 2)
    assert (back_ptx[:, 0] == back_sass[:, 0]).all()
    nan = np.isnan(x)
    assert (back_ptx[~nan, 1] == back_sass[~nan, 1]).all() and (back_sass[nan, 1] == 0x7FFF0000).all()


# ---------------------------------------------------------------------------------------------
# warp and integer families: VABSDIFF, REDUX, MATCH, VIADDMNMX
# ---------------------------------------------------------------------------------------------

def test_vabsdiff_gives_the_ptx_sad():
    rng = np.random.default_rng(7)
    n = 192
    edges = np.array([0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 7, 6], np.uint32)
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    a[:7], b[:7] = edges, edges[::-1]
    c = rng.integers(0, 1 << 63, n, dtype=np.uint64)
    bufs = {"a": a, "b": b, "c": c, "o": np.zeros(10 * n, np.uint32)}
    ptx, sass_ = run_both(CUDA / "bit_ops.ptx", None, 2, 96, ["a", "b", "c", "o", n], bufs)
    assert_same(ptx, sass_, ["o"])
    _, ops = sass_rows(CUDA / "bit_ops.ptx")
    assert E.OP_S_VABSDIFF in ops


REDUX_PTX = """.version 8.0
.target sm_90
.address_size 64

.visible .entry warp_collectives(.param .u64 pin, .param .u64 pout)
{
	.reg .pred %p<3>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<8>;
	ld.param.u64 	%rd1, [pin];
	ld.param.u64 	%rd2, [pout];
	cvta.to.global.u64 	%rd3, %rd1;
	cvta.to.global.u64 	%rd4, %rd2;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd3, %rd5;
	ld.global.u32 	%r2, [%rd6];
	and.b32 	%r3, %r1, 7;
	setp.ne.s32 	%p1, %r3, 5;
	mul.wide.u32 	%rd7, %r1, 32;
	add.s64 	%rd7, %rd4, %rd7;
	@%p1 bra 	$L_skip;
	activemask.b32 	%r4;
	redux.sync.add.u32 	%r5, %r2, %r4;
	redux.sync.min.u32 	%r6, %r2, %r4;
	redux.sync.max.s32 	%r7, %r2, %r4;
	redux.sync.and.b32 	%r8, %r2, %r4;
	redux.sync.xor.b32 	%r9, %r2, %r4;
	and.b32 	%r10, %r2, 3;
	match.any.sync.b32 	%r11, %r10, %r4;
	redux.sync.min.s32 	%r12, %r2, %r4;
	st.global.u32 	[%rd7], %r5;
	st.global.u32 	[%rd7+4], %r6;
	st.global.u32 	[%rd7+8], %r7;
	st.global.u32 	[%rd7+12], %r8;
	st.global.u32 	[%rd7+16], %r9;
	st.global.u32 	[%rd7+20], %r11;
	st.global.u32 	[%rd7+24], %r12;
$L_skip:
	ret;
}
"""


def test_redux_and_match_give_the_ptx_results_on_a_partial_warp(tmp_path):
    """redux.sync (add / min / max.s32 / and / xor / min.s32) and match.any.sync by 12 of 96 threads
    (one lane in eight): REDUX and MATCH over the active lanes only."""
    path = tmp_path / "warp_collectives.ptx"
    path.write_text(REDUX_PTX)
    rng = np.random.default_rng(13)
    n = 96
    bufs = {"i": rng.integers(-2 ** 31, 2 ** 31, n).astype(np.int32).view(np.uint32),
            "o": np.zeros(8 * n, np.uint32)}
    ptx, sass_ = run_both(path, None, 1, n, ["i", "o"], bufs)
    assert_same(ptx, sass_, ["o"])
    _, ops = sass_rows(path)
    assert E.OP_S_REDUX in ops and E.OP_S_MATCH in ops
    v = bufs["i"].reshape(3, 32)[:, 5::8]                     # the active lanes of each warp
    got = sass_["o"].reshape(n, 8)[5::8]
    for w in range(3):
        rows = got[4 * w:4 * w + 4]
        assert (rows[:, 0] == (v[w].astype(np.uint64).sum() & 0xFFFFFFFF)).all()
        assert (rows[:, 1] == v[w].min()).all()
        assert (rows[:, 2].view(np.int32) == v[w].view(np.int32).max()).all()
        assert (rows[:, 6].view(np.int32) == v[w].view(np.int32).min()).all()


def test_lowering_of_ldsm_and_ldgsts_gives_the_ptx_rows():
    """LDSM.16.{M88,MT88}.4 -> ldmatrix.x4[.trans]; LDGSTS.E -> cp.async of 4 bytes."""
    listing = sass_listing(str(ROOT / "programs" / "workloads" / "w-fusion-cd-only" / "kernel.ptx"))
    kernel = listing.kernel("tc_kernel")
    b = RowBuilder(kernel, "test")
    ldsm = [(i, lower_instruction(b, i)) for i in kernel.instructions if i.family == "LDSM"]
    assert ldsm
    for inst, row in ldsm:
        assert row[E.F_OP] == E.OP_LDMATRIX and row[E.F_VEC] == 4
        assert bool(row[E.F_FLAGS] & E.FL_TRANS) == ("MT88" in inst.modifiers)
        first = E.SASS_R_BASE + int(inst.operands[0][1:])
        assert list(b.vecs[row[E.F_OPS + 1]][:4]) == [first, first + 1, first + 2, first + 3]
    listing = sass_listing(str(ROOT / "programs" / "workloads" / "w-matmul-pipeline" / "kernel.ptx"))
    kernel = listing.kernel(None)
    b = RowBuilder(kernel, "test")
    rows = [lower_instruction(b, i) for i in kernel.instructions if i.family == "LDGSTS"]
    assert rows and all(r[E.F_OP] == E.OP_CP_ASYNC and b.u64[r[E.F_OPS + 2 * E.OPERAND_FIELDS + 1]] == 4
                        for r in rows)


def test_half_immediates_printed_as_two_numbers_are_one_register():
    """nvdisasm prints a packed immediate high half first: `..., 1.875, 0` is 0x3f800000."""
    rb = RowBuilder.__new__(RowBuilder)
    rb.u64, rb.inst = [], None
    ops = merge_half_immediates(rb, ["R2", "1.875", "0"], bf16=False)
    assert ops[0] == "R2" and rb.u64 == [0x3F800000]
    merge_half_immediates(rb, ["-2", "0.5"], bf16=False)
    assert rb.u64[-1] == 0xC0003800
