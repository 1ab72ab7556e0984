"""Tensor-core instructions end to end: mma.sync m16n8k16 / m16n8k8, wmma.load / mma / store and
ldmatrix in the engine (functional and timed) and the oracle.

- every probe kernel of tests/cuda/tc_probe.cu (nvcc -O3 -arch=sm_90 -ptx, committed as
  tc_probe.ptx) on the operands recorded on the H100 (simt_sim/calibrate/tensor_cases.py): the D
  bits must equal tests/data/h100/tensor_cores.npz exactly, every element;
- fragment layouts: ldmatrix .x1 / .x2 / .x4 / .trans and wmma .row / .col with strides, in global
  and shared memory, against numpy on exactly representable values; the wmma fragment mapping
  docs/tensor-cores.md documents;
- the assembler's refusals of other shapes and types, with file:line:column.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simt_sim.api import Launch, simulate
from simt_sim.calibrate.tensor_cases import FAMILIES, PROBE_KERNELS, extra_probe_cases, probe_cases
from simt_sim.errors import InputError
from simt_sim.frontend.assembler import assemble_text, load_program
from simt_sim.frontend.tensor_forms import fragment_regs
from simt_sim.oracle import run_oracle
from simt_sim.run.functional import launch

HERE = Path(__file__).resolve().parent
PTX = HERE / "cuda" / "tc_probe.ptx"
DATA = HERE / "data" / "h100" / "tensor_cores.npz"
EXTRA = HERE / "data" / "h100" / "tensor_cores_extra.npz"      # zeros, tiny, overflow, ties, zero exponents
ARGS = ["A", "B", "C", "D"]


@pytest.fixture(scope="module")
def recorded():
    with np.load(DATA) as npz:
        return {k.name: npz[k.name] for k in PROBE_KERNELS}


def probe_buffers(kernel, idx, make_cases=probe_cases):
    cs = make_cases(kernel)
    out = np.uint16 if kernel.accumulator == "f16" else np.uint32
    c = cs["c"][idx]
    return {"A": cs["a"][idx].ravel().copy(), "B": cs["b"][idx].ravel().copy(), "C": c.ravel().copy(),
            "D": np.zeros(c.size, out)}, c.shape


def every_nth(n: int) -> np.ndarray:
    return np.arange(0, len(FAMILIES) * 40, n)


# ---------------------------------------------------------------------------------------------
# the H100 probes
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kernel", PROBE_KERNELS, ids=lambda k: k.name)
def test_engine_reproduces_the_h100_on_every_probe_case(kernel, recorded):
    """One warp per case, all 240 cases (6 families x 40): D bit for bit."""
    idx = every_nth(1)
    bufs, shape = probe_buffers(kernel, idx)
    got = launch(load_program(str(PTX), kernel.name), len(idx), 32, ARGS, bufs).buffers["D"]
    want = recorded[kernel.name][idx]
    bad = got.reshape(shape) != want
    assert not bad.any(), f"{kernel.name}: {int(bad.sum())} of {want.size} elements differ"


@pytest.mark.parametrize("kernel", PROBE_KERNELS, ids=lambda k: k.name)
def test_engine_reproduces_the_h100_on_the_edge_families(kernel):
    """The extra recording: exact zeros (always +0), underflow, f32 overflow (infinity although the
    rounding is toward zero), f16 ties and zero exponents."""
    with np.load(EXTRA) as npz:
        want = npz[kernel.name]
    idx = np.arange(len(want))
    bufs, shape = probe_buffers(kernel, idx, extra_probe_cases)
    got = launch(load_program(str(PTX), kernel.name), len(idx), 32, ARGS, bufs).buffers["D"]
    bad = got.reshape(shape) != want
    assert not bad.any(), f"{kernel.name}: {int(bad.sum())} of {want.size} elements differ"
    orc = run_oracle(load_program(str(PTX), kernel.name), 8, 32, ARGS, probe_buffers(kernel, idx[::10], extra_probe_cases)[0])
    np.testing.assert_array_equal(orc.buffers["D"].reshape((8,) + shape[1:]), want[::10])


@pytest.mark.parametrize("kernel", PROBE_KERNELS, ids=lambda k: k.name)
def test_oracle_reproduces_the_h100(kernel, recorded):
    """The oracle (tensor_math through its own fragment code) on every 5th case."""
    idx = every_nth(5)
    bufs, shape = probe_buffers(kernel, idx)
    got = run_oracle(load_program(str(PTX), kernel.name), len(idx), 32, ARGS, bufs).buffers["D"]
    np.testing.assert_array_equal(got.reshape(shape), recorded[kernel.name][idx])


@pytest.mark.parametrize("name", ["mma_m16n8k16_f16_f32", "wmma_m16n16k16_f16_f16"])
def test_timed_run_matches_and_waits_for_the_tensor_unit(name, recorded):
    kernel = next(k for k in PROBE_KERNELS if k.name == name)
    idx = every_nth(40)
    bufs, shape = probe_buffers(kernel, idx)
    res = simulate(Launch(load_program(str(PTX), name), (len(idx), 1, 1), (32, 1, 1), ARGS), bufs)
    np.testing.assert_array_equal(res.outputs["D"].reshape(shape), recorded[name][idx])
    assert res.cycles > 24 + 2 * 100      # the tensor latency and (at least) two global round trips


# ---------------------------------------------------------------------------------------------
# hand-written kernels
# ---------------------------------------------------------------------------------------------

HEAD = """.version 8.0
.target sm_90
.address_size 64
"""


def kernel_text(body: str, shared_bytes: int = 0) -> str:
    shared = f"\t.shared .align 16 .b8 sm[{shared_bytes}];\n" if shared_bytes else ""
    return HEAD + f""".visible .entry k(.param .u64 pA, .param .u64 pB, .param .u64 pC, .param .u64 pD)
{{
	.reg .pred %p<4>;
	.reg .b32 %r<80>;
	.reg .b64 %rd<40>;
{shared}	ld.param.u64 %rd1, [pA];
	ld.param.u64 %rd2, [pB];
	ld.param.u64 %rd3, [pC];
	ld.param.u64 %rd4, [pD];
	mov.u32 %r70, %tid.x;
{body}
	ret;
}}
"""


def copy_to_shared(src: str, offset: int, halves: int, label: str) -> str:
    """PTX: the 32 lanes copy `halves` 16-bit words from global [src] to sm + offset."""
    return f"""	mov.u32 %r71, %r70;
{label}:
	setp.ge.u32 %p1, %r71, {halves};
	@%p1 bra {label}_done;
	mul.wide.u32 %rd30, %r71, 2;
	add.s64 %rd31, {src}, %rd30;
	ld.global.u16 %r72, [%rd31];
	mov.u64 %rd32, sm;
	add.s64 %rd32, %rd32, %rd30;
	st.shared.u16 [%rd32+{offset}], %r72;
	add.u32 %r71, %r71, 32;
	bra {label};
{label}_done:
	bar.sync 0;
"""


def regs(first: int, n: int) -> str:
    return "{" + ", ".join(f"%r{first + j}" for j in range(n)) + "}"


# ---- ldmatrix ----

def ldmatrix_kernel(count: int, trans: bool) -> str:
    """Lane 8i + r points at row perm(r) = 3r mod 8 of matrix i (shared, 4 x 8 x 8 halves); each lane
    stores its `count` registers to D[4 * lane + i]."""
    body = copy_to_shared("%rd1", 0, 256, "L_copy")
    body += f"""	shr.u32 %r1, %r70, 3;
	and.b32 %r2, %r70, 7;
	mul.lo.u32 %r2, %r2, 3;
	and.b32 %r2, %r2, 7;
	shl.b32 %r1, %r1, 3;
	add.u32 %r1, %r1, %r2;
	shl.b32 %r1, %r1, 4;
	mov.u32 %r3, sm;
	add.u32 %r3, %r3, %r1;
	ldmatrix.sync.aligned.m8n8.x{count}{'.trans' if trans else ''}.shared.b16 {regs(10, count)}, [%r3];
	mul.wide.u32 %rd5, %r70, 16;
	add.s64 %rd6, %rd4, %rd5;
"""
    for i in range(count):
        body += f"\tst.global.u32 [%rd6+{4 * i}], %r{10 + i};\n"
    return kernel_text(body, 512)


def ldmatrix_expected(mats: np.ndarray, count: int, trans: bool) -> np.ndarray:
    """[32, 4] registers: lane l, register i = matrix i's (row l>>2, columns 2(l%4), +1), of its
    transpose for .trans; the rows are where the lanes pointed (perm)."""
    perm = [(3 * r) % 8 for r in range(8)]
    out = np.zeros((32, 4), np.uint32)
    for lane in range(32):
        for i in range(count):
            seen = mats[i][perm]                 # row r of what ldmatrix sees = row perm(r) in memory
            m = seen.T if trans else seen
            lo, hi = m[lane >> 2, 2 * (lane & 3)], m[lane >> 2, 2 * (lane & 3) + 1]
            out[lane, i] = int(lo) | (int(hi) << 16)
    return out


@pytest.mark.parametrize("count", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True], ids=["plain", "trans"])
def test_ldmatrix_layout(count, trans):
    mats = np.arange(256, dtype=np.uint16).reshape(4, 8, 8) * 7 + 1
    bufs = {"A": mats.ravel().copy(), "B": np.zeros(1, np.uint32), "C": np.zeros(1, np.uint32),
            "D": np.zeros(128, np.uint32)}
    prog = assemble_text(ldmatrix_kernel(count, trans))
    want = ldmatrix_expected(mats, count, trans)
    for run in (launch, run_oracle):
        got = run(prog, 1, 32, ARGS, {k: v.copy() for k, v in bufs.items()}).buffers["D"].reshape(32, 4)
        np.testing.assert_array_equal(got[:, :count], want[:, :count])
        assert not got[:, count:].any()


# ---- wmma ----

SHAPES = {"m16n16k16": (16, 16, 16), "m32n8k16": (32, 8, 16), "m8n32k16": (8, 32, 16)}
HALF = {"f16": np.float16}


def to_bits(x: np.ndarray, kind: str) -> np.ndarray:
    if kind == "f32":
        return x.astype(np.float32).view(np.uint32)
    if kind == "f16":
        return x.astype(np.float16).view(np.uint16)
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)     # bf16: exact values


def from_bits(b: np.ndarray, kind: str) -> np.ndarray:
    if kind == "f32":
        return b.view(np.float32).astype(np.float64)
    if kind == "f16":
        return b.view(np.float16).astype(np.float64)
    return (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def strided(mat: np.ndarray, col_major: bool, stride: int, fill) -> np.ndarray:
    """The matrix in memory: lines (rows, or columns if col_major) `stride` elements apart."""
    lines = mat.T if col_major else mat
    buf = np.full((lines.shape[0], stride), fill, mat.dtype)
    buf[:, :lines.shape[1]] = lines
    return buf.ravel()


def wmma_kernel(shape, itype, ctype, lay, strides, space, stride_in_reg) -> str:
    """A, B, C loaded with layouts lay[0..2] and strides, D = A * B + C stored with lay[3]."""
    m, n, k = SHAPES[shape]
    types = [ctype, itype, itype, ctype]
    na, nb, nc = fragment_regs("wmma.mma", shape, types)[1:]
    ra, rb, rc, rd = 1, 1 + na, 1 + na + nb, 1 + na + nb + nc
    sizes = [len(strided(np.zeros((m, k)), lay[0] == "col", strides[0], 0)),
             len(strided(np.zeros((k, n)), lay[1] == "col", strides[1], 0)),
             len(strided(np.zeros((m, n)), lay[2] == "col", strides[2], 0))]
    csize = 2 if ctype == "f32" else 1        # C in halves
    body = ""
    addr = ["%rd1", "%rd2", "%rd3"]
    sp = "" if space == "generic" else "." + space
    if space == "shared":
        offs = [0, 2 * sizes[0], 2 * (sizes[0] + sizes[1])]
        body += copy_to_shared("%rd1", offs[0], sizes[0], "L_a")
        body += copy_to_shared("%rd2", offs[1], sizes[1], "L_b")
        body += copy_to_shared("%rd3", offs[2], csize * sizes[2], "L_c")
        body += "\tmov.u64 %rd10, sm;\n"
        for j, o in enumerate(offs):
            body += f"\tadd.s64 %rd{11 + j}, %rd10, {o};\n"
        addr = ["%rd11", "%rd12", "%rd13"]

    def stride(j):
        if not stride_in_reg:
            return str(strides[j])
        body_lines.append(f"\tmov.u32 %r{60 + j}, {strides[j]};\n")
        return f"%r{60 + j}"

    body_lines: list[str] = []
    s = [stride(j) for j in range(4)]
    body += "".join(body_lines)
    body += (f"\twmma.load.a.sync.aligned.{lay[0]}.{shape}{sp}.{itype} {regs(ra, na)}, [{addr[0]}], {s[0]};\n"
             f"\twmma.load.b.sync.aligned.{lay[1]}.{shape}{sp}.{itype} {regs(rb, nb)}, [{addr[1]}], {s[1]};\n"
             f"\twmma.load.c.sync.aligned.{lay[2]}.{shape}{sp}.{ctype} {regs(rc, nc)}, [{addr[2]}], {s[2]};\n")
    mtypes = f"{ctype}.{ctype}" if itype == "f16" else f"{ctype}.{itype}.{itype}.{ctype}"
    body += (f"\twmma.mma.sync.aligned.{lay[0]}.{lay[1]}.{shape}.{mtypes} {regs(rd, nc)}, {regs(ra, na)}, "
             f"{regs(rb, nb)}, {regs(rc, nc)};\n"
             f"\twmma.store.d.sync.aligned.{lay[3]}.{shape}.global.{ctype} [%rd4], {regs(rd, nc)}, {s[3]};\n")
    return kernel_text(body, 2 * (sizes[0] + sizes[1] + csize * sizes[2]) + 16 if space == "shared" else 0)


def run_wmma(shape, itype, ctype, lay, strides, space="global", stride_in_reg=False, seed=0):
    m, n, k = SHAPES[shape]
    rng = np.random.RandomState(seed)
    a = rng.randint(-4, 5, (m, k)).astype(np.float64)
    b = rng.randint(-4, 5, (k, n)).astype(np.float64)
    c = rng.randint(-64, 65, (m, n)).astype(np.float64) / 4
    junk = {"f32": np.uint32(0x7F7F7F7F), "f16": np.uint16(0x7BFF), "bf16": np.uint16(0x7F7F)}
    bufs = {"A": strided(to_bits(a, itype), lay[0] == "col", strides[0], junk[itype]),
            "B": strided(to_bits(b, itype), lay[1] == "col", strides[1], junk[itype]),
            "C": strided(to_bits(c, ctype), lay[2] == "col", strides[2], junk[ctype]),
            "D": strided(to_bits(np.zeros((m, n)), ctype), lay[3] == "col", strides[3], junk[ctype])}
    want = strided(to_bits(a @ b + c, ctype), lay[3] == "col", strides[3], junk[ctype])
    prog = assemble_text(wmma_kernel(shape, itype, ctype, lay, strides, space, stride_in_reg))
    for run in (launch, run_oracle):
        got = run(prog, 1, 32, ARGS, {key: v.copy() for key, v in bufs.items()}).buffers["D"]
        np.testing.assert_array_equal(got, want, err_msg=f"{run.__module__}")


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("itype, ctype", [("f16", "f32"), ("f16", "f16"), ("bf16", "f32")])
def test_wmma_row_major_tight(shape, itype, ctype):
    m, n, k = SHAPES[shape]
    run_wmma(shape, itype, ctype, ("row", "row", "row", "row"), (k, n, n, n))


@pytest.mark.parametrize("lay", [("col", "row", "row", "row"), ("row", "col", "col", "row"),
                                 ("col", "col", "row", "col"), ("row", "row", "col", "col")],
                         ids=lambda x: ".".join(x))
@pytest.mark.parametrize("shape", list(SHAPES))
def test_wmma_layouts_and_strides(shape, lay):
    m, n, k = SHAPES[shape]
    dims = {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}
    strides = tuple((d[0] if l == "col" else d[1]) + 8 for d, l in zip(dims.values(), lay))
    run_wmma(shape, "f16", "f32", lay, strides, stride_in_reg=True)


@pytest.mark.parametrize("space", ["shared", "generic"])
@pytest.mark.parametrize("itype, ctype", [("f16", "f16"), ("bf16", "f32")])
def test_wmma_from_shared_and_generic(space, itype, ctype):
    run_wmma("m16n16k16", itype, ctype, ("row", "col", "row", "col"), (24, 16, 16, 24), space=space)


def test_wmma_fragment_mapping_is_the_documented_one():
    """wmma.load.a.row m16n16k16 .f16, registers stored as they are: register j of lane l holds
    A[8((2j)>>1 % 2) + l>>2][8((2j>>1) // 2) + 2(l%4) + {0,1}] (docs/tensor-cores.md), and the f16
    fragment's registers 4..7 repeat 0..3."""
    body = f"""	wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {regs(1, 8)}, [%rd1], 16;
	mul.wide.u32 %rd5, %r70, 32;
	add.s64 %rd6, %rd4, %rd5;
	st.global.v4.b32 [%rd6], {{%r1, %r2, %r3, %r4}};
	st.global.v4.b32 [%rd6+16], {{%r5, %r6, %r7, %r8}};
"""
    a = np.arange(256, dtype=np.uint16)
    bufs = {"A": a, "B": np.zeros(1, np.uint32), "C": np.zeros(1, np.uint32), "D": np.zeros(256, np.uint32)}
    prog = assemble_text(kernel_text(body))
    want = np.zeros((32, 8), np.uint32)
    for lane in range(32):
        for j in range(8):
            blk = j % 4
            r, c = 8 * (blk % 2) + (lane >> 2), 8 * (blk // 2) + 2 * (lane & 3)
            want[lane, j] = int(a[16 * r + c]) | (int(a[16 * r + c + 1]) << 16)
    for run in (launch, run_oracle):
        got = run(prog, 1, 32, ARGS, {key: v.copy() for key, v in bufs.items()}).buffers["D"]
        np.testing.assert_array_equal(got.reshape(32, 8), want)


def test_mma_m16n8k16_fragments_are_the_ptx_ones():
    """mma.m16n8k16 .f16 -> .f16 with exact small integers, fragments loaded as tc_probe.cu does:
    the result equals numpy (the layouts of A, B, C and D are the PTX ISA's)."""
    kernel = next(k for k in PROBE_KERNELS if k.name == "mma_m16n8k16_f16_f16")
    rng = np.random.RandomState(3)
    a, b = rng.randint(-3, 4, (16, 16)), rng.randint(-3, 4, (16, 8))
    c = rng.randint(-8, 9, (16, 8))
    bufs = {"A": a.astype(np.float16).view(np.uint16).ravel(), "B": b.astype(np.float16).view(np.uint16).ravel(),
            "C": c.astype(np.float16).view(np.uint16).ravel(), "D": np.zeros(128, np.uint16)}
    got = launch(load_program(str(PTX), kernel.name), 1, 32, ARGS, bufs).buffers["D"]
    np.testing.assert_array_equal(got.view(np.float16).reshape(16, 8), (a @ b + c).astype(np.float16))


# ---------------------------------------------------------------------------------------------
# assembler refusals
# ---------------------------------------------------------------------------------------------

def one_line(line: str) -> str:
    return kernel_text("\t" + line)


BAD = [
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16 {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, "
     "{%r9, %r10}, {%r11, %r12};", "supported types are"),
    ("mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32 {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, "
     "{%r9, %r10}, {%r11, %r12, %r13, %r14};", "only the .row.col layout"),
    ("mma.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%r1}, {%r2}, {%r3}, {%r4};", "unknown modifier .m16n8k32"),
    ("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%r1}, {%r2}, {%r3}, {%r4};", "does not take type .s32"),
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r1, %r2, %r3, %r4}, {%r5, %r6}, "
     "{%r9, %r10}, {%r11, %r12, %r13, %r14};", "the A fragment must be 4 32-bit registers"),
    ("wmma.load.a.sync.aligned.row.m16n16k16.global.f32 {%r1}, [%rd1], 16;", "does not take type .f32"),
    ("wmma.load.a.sync.aligned.row.m16n8k16.global.f16 {%r1}, [%rd1], 16;", "unknown modifier .m16n8k16"),
    ("wmma.load.a.sync.aligned.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], 16;",
     "needs one layout"),
    ("wmma.load.b.sync.aligned.row.m16n16k16.bf16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], 16;",
     "the B fragment must be 4 32-bit registers"),
    ("wmma.load.c.sync.aligned.row.m16n16k16.local.f32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], 16;",
     "state space is .global, .shared"),
    ("wmma.mma.sync.aligned.row.row.m16n16k16.f32.f16 {%r1}, {%r2}, {%r3}, {%r4};", "dtype = ctype"),
    ("wmma.mma.sync.aligned.row.m16n16k16.f32.f32 {%r1}, {%r2}, {%r3}, {%r4};", "needs two layouts"),
    ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2}, [%r3];", "the D fragment must be 4"),
    ("ldmatrix.sync.aligned.m8n8.x4.b16 {%r1, %r2, %r3, %r4}, [%r5];", "needs .shared"),
    ("ldmatrix.sync.aligned.m8n8.shared.b16 {%r1}, [%r5];", "exactly one matrix count"),
]


@pytest.mark.parametrize("line, message", BAD, ids=[m for _, m in BAD])
def test_assembler_refuses_unsupported_forms(line, message):
    with pytest.raises(InputError, match=message) as err:
        assemble_text(one_line(line), file="t.ptx")
    line_no = one_line(line).splitlines().index("\t" + line) + 1
    loc, _, _ = str(err.value).partition(": error:")
    column = int(loc.split(":")[2])          # the instruction, or the fragment operand at fault
    assert loc.startswith(f"t.ptx:{line_no}:") and (column == 2 or "fragment" in message)
