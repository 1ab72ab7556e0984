"""SASS mode (issue 12, points 3, 4, 6): CALL / RET with return addresses in registers, constant
banks 3 and 4 (module globals, __constant__ data) read from the cubin's ELF, and the mask traces
of the trace variants (module-global trace buffers reached through bank 4) against the H100's.

The kernels' cubins are committed (tests/cuda/*.sm_90.cubin, programs/*/*/kernel*.sm_90.cubin), so
ptxas is not needed; nvdisasm comes from NVIDIA's wheel, a project dependency.  Mask traces are
compared with the recorded references (programs/*/*/reference/h100.json): no GPU."""
from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from simt_sim import api
from simt_sim.calibrate.compare import functional_check, reference_programs
from simt_sim.calibrate.masktrace import CAPACITY
from simt_sim.errors import InputError, RuntimeFault
from simt_sim.frontend import sass_lower as L
from simt_sim.frontend.cubin_elf import read_cubin
from simt_sim.frontend.sass import (DEFAULT_ARCH, SassInstruction, SassKernel, ControlCodes, committed_cubin,
                                    format_kernel, ptxas_flags, sass_listing, tool_path)
from simt_sim.frontend.sass_banks import ConstantBanks
from simt_sim.isa import encoding as E
from test_calls import divergent_reference, recursive_reference
from simt_sim.programs import program_dir

ROOT = Path(__file__).resolve().parent.parent
CUDA = Path(__file__).parent / "cuda"
WEIGHTS = [3, 1, 4, 1, 5, 9, 2, 6]             # tests/cuda/sass_calls.cu
OFFSETS = [10, 20, 30, 40]


def inner(x):
    return np.int32(np.int64(x) * 3 + 1)


def outer(x):
    r = inner(x)
    if x & 2:
        r = np.int32(np.int64(r) + inner(r))
    return np.int32(r ^ 5)


def calls_reference(values: np.ndarray) -> np.ndarray:
    out = []
    for v in (int(x) for x in values):
        r = outer(v) if v & 1 else v
        r = np.int64(r) + (2 * v if v & 2 else 7 - v) + OFFSETS[v & 3] + WEIGHTS[v & 7] * 2
        out.append(np.int64(r).astype(np.int32))
    return np.array(out, np.int32)


def run_sass(name: str, n: int, values: np.ndarray, out_words: int, grid=None, block=64, history=False):
    prog = api.load_program(CUDA / f"{name}.ptx", isa="sass")
    grid = grid or -(-n // block)
    buffers = {"in": values, "out": np.zeros(out_words, np.int32)}
    return prog, api.run_functional(prog, grid, block, ["in", "out", n], buffers, history=history)


# ---- the listing ------------------------------------------------------------------------------

def test_call_targets_are_labels_resolved_to_the_functions_pcs():
    listing = sass_listing(str(CUDA / "sass_calls.ptx"))
    kernel = listing.kernel("sass_calls")
    functions = {n: pc for n, pc in kernel.labels.items() if n.startswith("$sass_calls$")}
    assert set(functions) == {"$sass_calls$_Z5inneri", "$sass_calls$_Z5outeri", "$sass_calls$_Z5twicei",
                              "$sass_calls$_Z11seven_minusi"}
    prog = L.load_sass_program(str(CUDA / "sass_calls.ptx"))
    calls = [(i, inst) for i, inst in enumerate(kernel.instructions) if inst.family == "CALL"]
    assert len(calls) >= 4
    for i, inst in calls:
        assert prog.code[i, E.F_TARGET] * 16 == functions[inst.operands[0]]
        assert kernel.function_at(functions[inst.operands[0]]) == inst.operands[0]
    text = "\n".join(format_kernel(listing, kernel))
    assert f"calls $sass_calls$_Z5inneri at {functions['$sass_calls$_Z5inneri']:#06x}" in text
    assert "function $sass_calls$_Z5outeri starts here" in text


# ---- CALL / RET --------------------------------------------------------------------------------

def test_calls_outputs_banks_and_module_globals():
    """Divergent and nested calls, __constant__ data through bank 3 (indexed and direct), module
    globals through their addresses in bank 4 (an atomic counter, an initialised array)."""
    n = 200
    values = np.random.default_rng(11).integers(-500, 500, n).astype(np.int32)
    _, r = run_sass("sass_calls", n, values, n)
    assert r.outputs["out"].tolist() == calls_reference(values).tolist()
    assert int(r.raw.module_globals["calls_made"].view(np.int32)[0]) == n


def test_return_addresses_bring_each_group_back_after_its_call():
    """Every CALL continues at its function's first pc with the same threads, and every RET
    returns to the instruction after the CALL that called it (a stack of calls per warp, nested
    calls included; a function whose threads diverged returns them group by group); the caller
    sets the return address, that instruction's byte offset, just before the CALL."""
    values = np.arange(64, dtype=np.int32) * 7 - 100
    prog, r = run_sass("sass_calls", 64, values, 64, block=64, history=True)
    kernel = sass_listing(str(CUDA / "sass_calls.ptx")).kernel("sass_calls")
    h = r.raw.history
    for warp in (0, 1):
        rows = [(int(pc), int(mask)) for pc, mask in h[h[:, 0] == warp][:, 1:3]]
        frames: list[list[int]] = []          # [return pc, calling threads, threads not yet returned]
        calls = returns = 0
        for (pc, mask), (nxt, nmask) in zip(rows, rows[1:]):
            inst = kernel.instructions[pc]
            if inst.family == "CALL":
                assert nxt == prog.code[pc, E.F_TARGET] and nmask == mask
                frames.append([pc + 1, mask, mask])
                calls += 1
            elif inst.family == "RET":
                ret_pc, callers, waiting = frames[-1]
                assert nxt == ret_pc and nmask & ~waiting == 0 and nmask != 0
                frames[-1][2] &= ~nmask
                if frames[-1][2] == 0:
                    frames.pop()
                returns += 1
        assert calls >= 4 and returns > calls and not frames      # outer() returns in two groups
    for call in (i for i in kernel.instructions if i.family == "CALL"):
        setter = kernel.instructions[call.pc // 16 - 1]
        assert setter.family == "MOV" and int(setter.operands[1], 16) == call.pc + 16


def test_divergent_call_runs_with_the_calling_threads_only():
    """Only lanes with an odd value call outer(); inside it only those with bit 1 set call inner()
    a second time; the masks in the history are exactly those lanes."""
    values = np.arange(64, dtype=np.int32) * 5 + 1
    prog, r = run_sass("sass_calls", 64, values, 64, block=64, history=True)
    h = r.raw.history
    outer_pc = next(i for i, t in enumerate(prog.texts) if t.startswith("CALL") and "outeri" in t)
    warp0 = h[h[:, 0] == 0]
    odd = sum(1 << lane for lane in range(32) if values[lane] & 1)
    assert warp0[warp0[:, 1] == outer_pc][:, 2].tolist() == [odd]
    inner_calls = [t for t in warp0[:, 1:3].tolist() if prog.texts[t[0]].startswith("CALL") and "inneri" in
                   prog.texts[t[0]]]
    twice = sum(1 << lane for lane in range(32) if values[lane] & 1 and values[lane] & 2)
    assert [m for _, m in inner_calls] == [odd, twice]


def test_divergent_calls_and_recursion_match_the_numpy_references():
    """tests/cuda/calls_*.cu in SASS mode: calls from divergent code with early returns, and
    recursion with per-thread depths (fib twice per level, walk once; the callee saves its caller's
    convergence barrier with BMOV and restores it before RET)."""
    n = 300
    inp = np.random.default_rng(5).integers(-40, 900, n).astype(np.int32)
    _, r = run_sass("calls_divergent", n, inp, n, grid=3, block=128)
    assert r.outputs["out"].tolist() == divergent_reference(inp).tolist()
    n = 100
    inp = np.random.default_rng(7).integers(0, 1000, n).astype(np.int32)
    prog, r = run_sass("calls_recursive", n, inp, 2 * n, grid=2, block=64)
    assert r.outputs["out"].tolist() == recursive_reference(inp).tolist()
    assert any(t.startswith("BMOV.32.CLEAR") for t in prog.texts)


def test_s_control_calls_recursion_and_warp_synchronous_paths():
    """programs/sass-diff/s-control (two __noinline__ functions, one recursive with BMOV save / restore of B6,
    generic stores to a local array through the local window's address c[0x0][0x20]): SASS mode
    gives PTX mode's outputs.  BRA.DIV URn goes to the WARPSYNC.COLLECTIVE slow path only when a
    thread URn names is not running: not for __syncwarp(__activemask()) in an if on odd values
    (URn is the running group itself) nor for the shuffle of a whole warp (URn = 0xffffffff)."""
    pdir = ROOT / "programs" / "sass-diff" / "s-control"
    sass = api.run_program(pdir, functional=True, isa="sass", history=True)
    ptx = api.run_program(pdir, functional=True)
    assert sass.outputs["out"].tobytes() == ptx.outputs["out"].tobytes()
    prog = api.load_program(pdir, isa="sass")
    divs = [i for i, t in enumerate(prog.texts) if t.startswith("BRA.DIV")]
    h = sass.raw.history
    follow = {}
    for warp in np.unique(h[:, 0]):
        rows = h[h[:, 0] == warp][:, 1].tolist()
        for a, nxt in zip(rows, rows[1:]):
            if a in divs:
                follow.setdefault(a, set()).add(nxt == prog.code[a, E.F_TARGET])
    assert follow == {divs[0]: {False}, divs[1]: {False}}


def test_a_corrupted_return_address_is_a_located_runtime_fault():
    prog = api.load_program(CUDA / "sass_calls.ptx", isa="sass")
    setter = next(i for i, t in enumerate(prog.texts) if t.startswith("MOV R7, 0x"))   # outer()'s return
    kind, idx = prog.code[setter, E.F_OPS + E.OPERAND_FIELDS], prog.code[setter, E.F_OPS + E.OPERAND_FIELDS + 1]
    assert kind == E.K_IMM
    const = prog.const_u64.copy()
    const[idx] = 0x18                                    # not an instruction boundary
    bad = replace(prog, const_u64=const)
    with pytest.raises(RuntimeFault, match=r"CALL / RET to code address 0x18.*RET\.REL\.NODEC"):
        api.run_functional(bad, 1, 32, ["in", "out", 32], {"in": np.ones(32, np.int32),
                                                           "out": np.zeros(32, np.int32)})


# ---- errors at lowering ------------------------------------------------------------------------

def instruction(text: str, pc: int = 0) -> SassInstruction:
    opcode, _, rest = text.partition(" ")
    return SassInstruction(pc=pc, predicate="", opcode=opcode, operands=tuple(o.strip() for o in rest.split(",") if o),
                           encoding=(0, 0), control=ControlCodes.from_high_word(0))


def test_constant_bank_errors_name_the_bank_offset_and_pc():
    b = L.RowBuilder(SassKernel("k", ()), "k.cubin:k")
    with pytest.raises(InputError, match=r"pc 0x0030.*constant bank 3 \(c\[0x3\]\[0x8\]\).*no .nv.constant3"):
        L.lower_instruction(b, instruction("LDC R0, c[0x3][0x8]", pc=0x30))
    b.banks = ConstantBanks(image_offset=16, offsets={4: 0}, sizes={4: 16}, image=bytes(16))
    with pytest.raises(InputError, match=r"pc 0x0040.*c\[0x4\]\[0x20\] lies past the end of constant bank 4"):
        L.lower_instruction(b, instruction("ULDC.64 UR4, c[0x4][0x20]", pc=0x40))
    row = L.lower_instruction(b, instruction("ULDC.64 UR4, c[0x4][0x8]", pc=0x50))
    assert tuple(row[E.F_OPS + 4:E.F_OPS + 7]) == (E.K_CONST, 0, E.PARAM_BANK_OFFSET + 16 + 8)


def test_a_call_into_the_device_runtime_is_refused_by_name():
    """printf calls vprintf through its address in bank 4 (CALL.ABS.NOINC R2): refused with the
    function's name and the pc (the PTX front end already refuses the undeclared body)."""
    b = L.RowBuilder(SassKernel("k", ()), "k.cubin:k")
    b.banks = ConstantBanks(externals={"vprintf": [(4, 0)]})
    with pytest.raises(InputError, match=r"CALL.ABS.NOINC R2.*pc 0x0130.*external function.*vprintf"):
        L.lower_instruction(b, instruction("CALL.ABS.NOINC R2", pc=0x130))
    with pytest.raises(InputError, match=r"only declared"):
        api.load_program(Path(__file__).parent / "data" / "sass_printf.ptx", isa="sass")


# ---- the cubin's ELF --------------------------------------------------------------------------

def test_bank_relocations_read_from_the_elf():
    elf = read_cubin(CUDA / "sass_calls.sm_90.cubin")
    assert elf.banks() == [3, 4]
    assert np.frombuffer(elf.bank(3)[:32], np.int32).tolist() == WEIGHTS
    assert np.frombuffer(elf.bank(3)[32:36], np.float32).tolist() == [0.5]
    rel = {r.symbol.name: (r.offset, r.kind_name) for r in elf.bank_relocations(4)}
    assert set(rel) == {"calls_made", "offsets"} and {k for _, k in rel.values()} == {"R_CUDA_64"}


def test_relocation_names_agree_with_cuobjdump():
    try:
        cuobjdump = tool_path("cuobjdump")
    except InputError:
        pytest.skip("cuobjdump not installed")
    cubin = ROOT / "programs" / "validation" / "v-switch8" / "kernel.trace.sm_90.cubin"
    text = subprocess.run([cuobjdump, "-elf", str(cubin)], capture_output=True, text=True, check=True).stdout
    listed = text.split(".section .rela.nv.constant4")[1].split(".section")[0].split("\n\n")[0]
    theirs = sorted((int(f[0], 16), f[1], f[2]) for f in (ln.split() for ln in listed.splitlines()) if len(f) >= 3)
    ours = sorted((r.offset, r.symbol.name, r.kind_name) for r in read_cubin(cubin).bank_relocations(4))
    assert ours == theirs == [(0, "simt_trace", "R_CUDA_64"), (8, "simt_trace_count", "R_CUDA_64")]


# ---- mask traces -------------------------------------------------------------------------------

def _trace_recorded_whole(ref: dict) -> bool:
    return "mask_trace" in ref and ref.get("trace_count", 0) <= CAPACITY


_DIFF_AND_PROBES = sorted(p.parent.parent for p in ROOT.glob("programs/*/[st]-*/reference/h100.json"))
TRACED = [d.name for d in [*reference_programs(ROOT), *_DIFF_AND_PROBES]
          if _trace_recorded_whole(json.loads((d / "reference" / "h100.json").read_text()))]


def test_every_trace_variant_has_its_committed_cubin():
    for d in sorted((ROOT / "programs").glob("*/*/kernel.trace.ptx")):
        text = d.read_bytes()
        if b"push_mask" in text or b"br_push" in text:
            continue
        assert committed_cubin(d, text, ptxas_flags(text, DEFAULT_ARCH), DEFAULT_ARCH) is not None, d.parent.name


def _trace_param(name: str):
    """Beyond CI_TRACES the sweep is slow (one functional run each; outputs are checked elsewhere,
    and `simt-sim validate --isa sass` compares every trace)."""
    if name not in CI_TRACES:
        return pytest.param(name, marks=pytest.mark.slow)
    return name


# the traces CI compares (the rest with --run-slow): the branch shapes that differ most between
# PTX and SASS (switch tree, nested if/else, loop break, data-dependent while, early return,
# reduction tail), four differential programs, and the YIELD rules (engine/functional/convergence.py:
# yield_group, arrive): in s-control and t-yield-loop lanes that leave a loop holding a YIELD run
# ahead of the loopers, at once or at their next YIELD, and s-control's chosen warp splits again
# after its collective shuffles at BSYNCs whose members are the loopers
CI_TRACES = ("v-switch8", "nested-ifelse", "v-loop-break", "v-while-collatz", "early-return", "v-smem-reduce",
             "s-warp", "s-extra", "s-memory", "s-control", "t-yield-loop")


@pytest.mark.parametrize("name", [_trace_param(n) for n in TRACED])
def test_sass_mask_trace_identical_to_hardware(name):
    """The SASS of kernel.trace.ptx (the bytes the H100 ran) gives the recorded per-warp (site,
    mask) sequence, v-switch8 included (ptxas's own branch tree for the switch)."""
    r = functional_check(program_dir(name), isa="sass")
    assert r["mask_trace_match"] is True, r["notes"]
    assert r["outputs_match"] or name == "s-mufu", r["notes"]     # MUFU: within bounds, test_sass_diff_programs


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not installed")
def test_committed_test_cubins_are_what_ptxas_makes(tmp_path):
    for name in ("sass_calls", "calls_divergent", "calls_recursive"):
        ptx = CUDA / f"{name}.ptx"
        out = tmp_path / f"{name}.cubin"
        subprocess.run(["ptxas", *ptxas_flags(ptx.read_bytes(), DEFAULT_ARCH), str(ptx), "-o", str(out)], check=True)
        assert out.read_bytes() == (CUDA / f"{name}.sm_90.cubin").read_bytes(), name
