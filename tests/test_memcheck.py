"""simt.memcheck / --memcheck (issue 61, point 5): `fault` (the default) stops at the first
out-of-bounds or misaligned access; `report` lists every one as compute-sanitizer does (kernel,
block, thread, pc, address, size, read / write, nearest buffer and distance), reads zeros, drops
the writes and finishes the run.  The kernels (tests/cuda/memcheck.cu) carry the bugs real code
has: a stencil without its left boundary check, a shift by one writing past the end, a shared tile
filled one slot off, a word read through a byte pointer."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simt_sim import api
from simt_sim.errors import InputError, RuntimeFault
from simt_sim.isa import encoding as E
from simt_sim.machine.layout import MEMCHECK_LIMIT

ROOT = Path(__file__).resolve().parent.parent
PTX = ROOT / "tests" / "cuda" / "memcheck.ptx"
IN_BASE = E.GLOBAL_BASE            # the first buffer's address (run/session.layout_global)


def simt_sim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "simt_sim", *args], capture_output=True, text=True, cwd=ROOT)


def stencil_inputs():
    return {"in": np.arange(1, 65, dtype=np.float32), "out": np.zeros(64, np.float32)}


def stencil_expected(inp: np.ndarray) -> np.ndarray:
    """The stencil with zeros read before the buffer (what memcheck=report gives the bad reads)."""
    pad = np.concatenate([np.zeros(2, np.float32), inp, np.zeros(2, np.float32)]).astype(np.float64)
    out = np.zeros(64)
    n = len(inp)
    for i in range(n - 2):
        out[i] = 0.1 * pad[i] + 0.2 * pad[i + 1] + 0.4 * pad[i + 2] + 0.2 * pad[i + 3] + 0.1 * pad[i + 4]
    return out


def run(kernel, grid, block, args, buffers, isa, timed, memcheck="report"):
    program = api.load_program(PTX, kernel, isa=isa)
    if timed:
        return api.simulate(api.Launch(program, grid, block, args), buffers, memcheck=memcheck)
    return api.run_functional(program, grid, block, args, buffers, memcheck=memcheck)


def accesses(result):
    return sorted((tuple(a.block), tuple(a.thread), a.access, a.problem, a.space, a.address, a.size)
                  for a in result.memcheck)


@pytest.mark.parametrize("isa", ["sass", "ptx"])
@pytest.mark.parametrize("timed", [False, True], ids=["functional", "timed"])
def test_a_stencil_reading_before_its_buffer_is_reported_and_reads_zeros(isa, timed):
    r = run("stencil5", 1, 64, ["in", "out", 64], stencil_inputs(), isa, timed)
    # thread 0 reads in[-2] and in[-1], thread 1 in[-1]; nothing else is out of bounds
    assert r.memcheck_total == 3
    assert accesses(r) == sorted([((0, 0, 0), (0, 0, 0), "read", "out-of-bounds", "global", IN_BASE - 8, 4),
                                  ((0, 0, 0), (0, 0, 0), "read", "out-of-bounds", "global", IN_BASE - 4, 4),
                                  ((0, 0, 0), (1, 0, 0), "read", "out-of-bounds", "global", IN_BASE - 4, 4)])
    for a in r.memcheck:
        assert a.kernel == "stencil5" and a.buffer == "in" and a.distance == IN_BASE - a.address
        assert a.nearest.startswith(f"{a.distance} bytes before buffer 'in'")
        assert (a.instruction.startswith("LDG") if isa == "sass" else a.instruction.startswith("ld.global"))
    out = r.outputs["out"]
    np.testing.assert_allclose(out, stencil_expected(stencil_inputs()["in"]), rtol=2e-6)
    assert out[0] == pytest.approx(0.4 * 1 + 0.2 * 2 + 0.1 * 3, rel=1e-6)       # in[-2], in[-1] read as 0


@pytest.mark.parametrize("isa", ["sass", "ptx"])
def test_fault_is_the_default_and_names_the_access(isa):
    with pytest.raises(RuntimeFault) as e:
        run("stencil5", 1, 64, ["in", "out", 64], stencil_inputs(), isa, False, memcheck=None)
    msg = str(e.value)
    assert "out-of-bounds access of 4 bytes at address 0xffffff" in msg
    assert "kernel stencil5, block (0,0,0), warp 0, thread (0,0,0)" in msg


def test_the_command_line_fault_exits_3_and_report_exits_0_with_the_report_in_the_json(tmp_path):
    common = ["run", str(PTX), "--kernel", "stencil5", "--grid", "1", "--block", "64",
              "--buffer", "in=f32[64]:range(1)", "--buffer", "out=f32[64]", "--args", "in,out,64", "--functional"]
    fault = simt_sim(*common)
    assert fault.returncode == 3, fault.stderr
    assert "runtime error: out-of-bounds access of 4 bytes" in fault.stderr and "Traceback" not in fault.stderr
    assert "kernel stencil5, block (0,0,0), warp 0, thread (0,0,0)" in fault.stderr
    doc_path = tmp_path / "run.json"
    report = simt_sim(*common, "--memcheck", "report", "--json", str(doc_path))
    assert report.returncode == 0, report.stderr
    assert "memcheck: 3 out-of-bounds or misaligned accesses (all listed" in report.stdout
    assert "out-of-bounds global read of 4 bytes at 0xfffffff8: 8 bytes before buffer 'in'" in report.stdout
    doc = json.loads(doc_path.read_text())
    mc = doc["memcheck"]
    assert (mc["mode"], mc["total"], mc["recorded"], mc["limit"]) == ("report", 3, 3, MEMCHECK_LIMIT)
    assert sorted((a["thread"][0], a["address"] - IN_BASE, a["distance"]) for a in mc["accesses"]) == \
        [(0, -8, 8), (0, -4, 4), (1, -4, 4)]
    assert doc["outputs"]["out"][:2] == pytest.approx([1.1, 2.0], rel=1e-6)     # in[-2], in[-1] read as 0
    # the config key does the same; a bad value is an input error
    by_key = simt_sim(*common, "--set", "simt.memcheck=report", "--quiet")
    assert by_key.returncode == 0 and "memcheck: 3 out-of-bounds" in by_key.stderr
    bad = simt_sim(*common, "--set", "simt.memcheck=warn")
    assert bad.returncode == 2 and "memcheck" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.parametrize("isa", ["sass", "ptx"])
@pytest.mark.parametrize("timed", [False, True], ids=["functional", "timed"])
def test_a_write_past_the_end_is_dropped(isa, timed):
    inp = np.arange(32, dtype=np.int32)
    guard = np.full(8, 7, np.int32)                 # the buffer laid out after `out`
    r = run("shift_right", 1, 32, ["in", "out", 32],
            {"in": inp, "out": np.zeros(32, np.int32), "guard": guard.copy()}, isa, timed)
    out_base = IN_BASE + 512        # `in` (128 bytes) and a 256-byte gap, rounded up to 256 bytes
    assert accesses(r) == [((0, 0, 0), (31, 0, 0), "write", "out-of-bounds", "global", out_base + 128, 4)]
    (a,) = r.memcheck
    assert a.buffer == "out" and a.distance == 0 and a.nearest.startswith("0 bytes after the end of buffer 'out'")
    assert list(r.outputs["out"]) == [0] + list(3 * inp[:-1])
    assert np.array_equal(r.outputs["guard"], guard)


@pytest.mark.parametrize("isa", ["sass", "ptx"])
def test_shared_memory_out_of_bounds_is_reported_per_block(isa):
    inp = np.arange(128, dtype=np.float32)
    r = run("smem_shift", 2, 64, ["in", "out"], {"in": inp, "out": np.zeros(128, np.float32)}, isa, False)
    got = accesses(r)
    assert [(b, t, k, s, size) for b, t, k, _, s, _, size in got] == \
        [((0, 0, 0), (63, 0, 0), "write", "shared", 4), ((1, 0, 0), (63, 0, 0), "write", "shared", 4)]
    for a in r.memcheck:
        assert a.nearest.startswith("0 bytes after the end of the block's shared memory") and a.distance == 0
    want = np.concatenate([[0.0], inp[:63], [0.0], inp[64:127]]).astype(np.float32) + 1   # tile[0] never written
    assert np.array_equal(r.outputs["out"], want)


@pytest.mark.parametrize("isa", ["sass", "ptx"])
def test_a_misaligned_read_is_reported_and_reads_zero(isa):
    data = np.arange(64, dtype=np.uint8)
    r = run("unaligned_word", 1, 8, ["bytes", "out"], {"bytes": data, "out": np.zeros(8, np.int32)}, isa, False)
    assert accesses(r) == [((0, 0, 0), (5, 0, 0), "read", "misaligned", "global", IN_BASE + 21, 4)]
    assert "at byte offset 21, not a multiple of 4" in r.memcheck[0].nearest
    want = data.view(np.int32)[:8].copy()
    want[5] = 0
    assert np.array_equal(r.outputs["out"], want)


def test_the_report_is_bounded_and_deterministic():
    n = 2048            # threads 16.. write past a 16-word `out`: 2033 bad writes (thread 15 writes out[16])
    bufs = lambda: {"in": np.arange(n, dtype=np.int32), "out": np.zeros(16, np.int32)}     # noqa: E731
    first = run("shift_right", n // 256, 256, ["in", "out", n], bufs(), "sass", False)
    again = run("shift_right", n // 256, 256, ["in", "out", n], bufs(), "sass", False)
    assert first.memcheck_total == n - 15
    assert len(first.memcheck) == MEMCHECK_LIMIT
    assert [a.as_dict() for a in first.memcheck] == [a.as_dict() for a in again.memcheck]
    assert first.memcheck_lines()[0].startswith(f"memcheck: {n - 15} out-of-bounds or misaligned accesses "
                                                f"(the first {MEMCHECK_LIMIT} listed")
    assert first.to_json()["memcheck"]["recorded"] == MEMCHECK_LIMIT
    assert list(first.outputs["out"]) == [0] + [3 * i for i in range(15)]


def test_a_bad_memcheck_value_is_an_input_error():
    program = api.load_program(PTX, "stencil5", isa="ptx")
    with pytest.raises(InputError, match="memcheck"):
        api.run_functional(program, 1, 64, ["in", "out", 64], stencil_inputs(), memcheck="warn")
    with pytest.raises(InputError, match="memcheck"):
        api.load_config("h100", ["simt.memcheck=warn"])


LOCAL_PTX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry local_over(.param .u64 out)
{
    .local .align 4 .b8 buf[16];
    .reg .u32 %r<6>;
    .reg .u64 %rd<6>;
    mov.u32 %r1, %tid.x;
    st.local.u32 [buf], %r1;
    st.local.u32 [buf+12], %r1;
    mov.u64 %rd1, buf;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    ld.local.u32 %r2, [%rd3+4];
    ld.param.u64 %rd4, [out];
    cvta.to.global.u64 %rd4, %rd4;
    add.u64 %rd5, %rd4, %rd2;
    st.global.u32 [%rd5], %r2;
    ret;
}
"""


def test_a_local_array_read_past_its_end_is_reported_and_reads_zero():
    from simt_sim.frontend.assembler import assemble_text
    program = assemble_text(LOCAL_PTX)
    # thread t reads buf[t + 1]: thread 3 reads buf[4], just past the thread's 16 local bytes
    r = api.run_functional(program, 1, 4, ["out"], {"out": np.full(4, -1, np.int32)}, memcheck="report")
    assert accesses(r) == [((0, 0, 0), (3, 0, 0), "read", "out-of-bounds", "local", 16, 4)]
    assert r.memcheck[0].nearest == "0 bytes after the end of the thread's local memory (16 bytes)"
    assert list(r.outputs["out"]) == [0, 0, 2, 0]          # buf[3] = tid 2; buf[4] reads zero
    assert (r.isa, r.isa_reason) == ("ptx", "PTX given as text")
    with pytest.raises(RuntimeFault, match="out-of-bounds access of 4 bytes at address 0x10; kernel local_over"):
        api.run_functional(program, 1, 4, ["out"], {"out": np.full(4, -1, np.int32)})
