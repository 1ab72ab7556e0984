"""The SASS front end (issue 12, first chunk): control-code decoding, the nvdisasm listing, the SASS
opcode table and its generated page, `simt-sim disasm --isa sass`, and its errors.

Tests that compile need ptxas (nvcc's toolkit) and nvdisasm (the nvidia-cuda-nvdisasm wheel); they
are skipped where either is absent.  The decoding and table tests run on recorded encodings and
tests/data/sass_inventory.json everywhere.
"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from simt_sim.cli.main import main
from simt_sim.errors import InputError
from simt_sim.frontend import sass
from simt_sim.frontend.sass import ControlCodes, parse_hex_listing, sass_listing, split_operands
from simt_sim.isa import isa
from simt_sim.isa.sass_doc import render_sass_doc
from simt_sim.isa.sass_table import sass_table

ROOT = Path(__file__).resolve().parents[1]
INVENTORY = json.loads((ROOT / "tests/data/sass_inventory.json").read_text())


needs_tools = pytest.mark.skipif(not sass.tools_available(), reason="needs ptxas and nvdisasm")


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    """Cubins go to a cache shared by this module's tests, never the user's."""
    monkeypatch.setenv("SIMT_SIM_CACHE", str(tmp_path_factory.getbasetemp() / "sass-cache"))


# ---- control codes on encodings recorded from ptxas 13.0 sm_90 listings --------------------------

@pytest.mark.parametrize("text, high, want", [
    # programs/validation/v-lat-dram: the pointer-chasing load sets write barrier 2 ...
    ("LDG.E.STRONG.GPU R7, desc[UR4][R6.64]", 0x000EA4000C1EF900, (2, 1, 2, None, 0b000000, 0)),
    # ... and the IMAD.WIDE that uses R7 waits on barrier 2 (mask bit 2)
    ("IMAD.WIDE.U32 R8, R7, 0x4, R4", 0x004FCC00078E0004, (6, 0, None, None, 0b000100, 0)),
    # LDC.64 R4 sets write barrier 0; the first IMAD.WIDE reading R4 waits on mask bit 0
    ("LDC.64 R4, c[0x0][0x210]", 0x000E240000000A00, (2, 1, 0, None, 0, 0)),
    ("IMAD.WIDE.U32 R6, R7, 0x4, R4", 0x001FCC00078E0004, (6, 0, None, None, 0b000001, 0)),
    # programs/validation/v-loop-break: F2I sets write barrier 1 and read barrier 0
    ("F2I.FTZ.U32.TRUNC.NTZ R3, R2", 0x000064000021F000, (2, 1, 1, 0, 0, 0)),
    # IMAD R7, R0.reuse, R3, R7: reuse flag of the first source slot
    ("IMAD R7, R0.reuse, R3, R7", 0x040FE400078E0207, (2, 1, None, None, 0, 0b0001)),
    ("LDC R1, c[0x0][0x28]", 0x000FF00000000800, (8, 1, None, None, 0, 0)),
])
def test_control_codes_of_recorded_encodings(text, high, want):
    c = ControlCodes.from_high_word(high)
    assert (c.stall, c.yield_bit, c.write_barrier, c.read_barrier, c.wait_mask, c.reuse) == want, text


def test_control_code_text():
    assert ControlCodes.from_high_word(0x004FCC00078E0004).text() == "B--2---:R-:W-:Y:S06"
    assert ControlCodes.from_high_word(0x000064000021F000).text() == "B------:R0:W1:-:S02"


RECORDED_HEX = """\
//--------------------- .text.lat_dram            --------------------------
\t.section\t.text.lat_dram,"ax",@progbits
lat_dram:
.text.lat_dram:
\t//## File ".nv_debug_ptx_txt", line 21
        /*0000*/                   LDC R1, c[0x0][0x28] ;                     /* 0x00000a00ff017b82 */
                                                                              /* 0x000fe20000000800 */
        /*0010*/                   ULDC.64 UR4, c[0x0][0x208] ;               /* 0x0000820000047ab9 */
                                                                              /* 0x000fe20000000a00 */
\t//## File ".nv_debug_ptx_txt", line 32
        /*0020*/                   CS2R R2, SR_CLOCKLO ;                      /* 0x0000000000027805 */
                                                                              /* 0x000fcc0000015000 */
"""


def test_parse_recorded_hex_listing():
    rows = parse_hex_listing(RECORDED_HEX)
    assert rows == {"lat_dram": [(0x0, 0x00000A00FF017B82, 0x000FE20000000800, 21),
                                 (0x10, 0x0000820000047AB9, 0x000FE20000000A00, 21),
                                 (0x20, 0x0000000000027805, 0x000FCC0000015000, 32)]}


def test_split_operands_keeps_brackets_together():
    assert split_operands("R2,desc[UR4][R6.64]") == ("R2", "desc[UR4][R6.64]")
    assert split_operands("P0,PT,R2,c[0x0][0x0],PT") == ("P0", "PT", "R2", "c[0x0][0x0]", "PT")
    assert split_operands("") == ()


# ---- the table ------------------------------------------------------------------------------------

def test_table_covers_every_recorded_family_and_modifier():
    table = sass_table()
    for family, seen in INVENTORY["families"].items():
        op = table.family(family)
        assert op is not None, f"isa/sass.yaml lacks {family} (seen in {seen['first_seen']})"
        missing = set(seen["modifiers"]) - op.modifiers
        assert not missing, f"isa/sass.yaml: {family} lacks modifiers {sorted(missing)}"


def test_fixed_latency_families_never_set_a_scoreboard():
    """A family the table calls fixed-latency must never set a write or read barrier in ptxas's
    code; a scoreboard in the control code is what marks variable latency."""
    table = sass_table()
    for family, seen in INVENTORY["families"].items():
        if table.family(family).latency == "fixed":
            assert seen["write_barriers"] == seen["read_barriers"] == 0, family
    variable = [f for f, s in INVENTORY["families"].items() if s["write_barriers"] or s["read_barriers"]]
    assert {"LDG", "LDS", "MUFU", "S2R", "STG", "DMMA"} <= set(variable)


def test_table_entries_use_ncu_pipe_names():
    table = sass_table()
    assert set(table.pipes) == {"fma", "fmaheavy", "fmalite", "alu", "fp64", "xu", "lsu", "adu", "cbu",
                                "tensor", "uniform"}
    assert table.family("IMAD.WIDE.U32").pipe == "fmaheavy"
    assert table.family("DFMA").pipe == "fp64"
    assert table.family("MUFU.RSQ").pipe == "xu"
    assert table.family("BSSY").pipe == "cbu"
    assert table.family("UIADD3").pipe == "uniform"
    assert table.family("FROB") is None


def test_sass_table_stays_out_of_the_ptx_isa():
    assert "LDG" not in isa().by_name and "ld" in isa().by_name


def test_sass_doc_is_current():
    assert (ROOT / "docs/sass.md").read_text() == render_sass_doc(), \
        "docs/sass.md is stale: run `simt-sim isa-doc --isa sass > docs/sass.md`"


def test_bad_table_entry_is_a_clear_error(tmp_path):
    bad = tmp_path / "sass.yaml"
    bad.write_text("pipes: [alu]\nclasses: [logic]\nopcodes:\n"
                   "  - {name: LOP3, class: logic, pipe: fmaheavy, latency: fixed, meaning: x}\n")
    from simt_sim.isa.sass_table import load_sass_table
    with pytest.raises(InputError, match=r"sass.yaml:1:1: error: SASS opcode LOP3: unknown pipe 'fmaheavy'"):
        load_sass_table(bad)


# ---- compiling real kernels ---------------------------------------------------------------------

@needs_tools
def test_listing_of_a_small_kernel():
    listing = sass_listing(str(ROOT / "programs/validation/v-lat-dram"))
    (kernel,) = listing.kernels
    insts = kernel.instructions
    assert kernel.name == "lat_dram"
    assert [i.pc for i in insts] == list(range(0, 16 * len(insts), 16))
    assert insts[0].text() == "LDC R1, c[0x0][0x28]"
    body = [i for i in insts if i.family != "NOP"]
    # the kernel ends in EXIT, then ptxas's self-branch that no thread reaches, then NOP padding
    assert body[-2].family == "EXIT"
    assert body[-1].family == "BRA" and int(body[-1].operands[0], 16) == body[-1].pc
    assert sum(i.family == "LDG" for i in insts) == 32
    first_ldg = next(i for i in insts if i.family == "LDG")
    assert listing.ptx_text(first_ldg.ptx_line) == "ld.global.cg.u32 %r1, [%rd2];"


@needs_tools
def test_every_load_consumer_waits_on_the_loads_barrier():
    """The decoded control codes are consistent on a real listing: the first instruction that reads a
    load's destination register waits on the write barrier the load set."""
    insts = sass_listing(str(ROOT / "programs/validation/v-lat-dram")).kernels[0].instructions
    checked = 0
    for n, inst in enumerate(insts):
        if inst.family != "LDG":
            continue
        dest, barrier = inst.operands[0], inst.control.write_barrier
        assert barrier is not None
        user = next(u for u in insts[n + 1:] if dest in (o.split(".")[0] for o in u.operands[1:]))
        assert user.control.wait_mask >> barrier & 1, f"{user.text()} at {user.pc:#x}"
        checked += 1
    assert checked == 32


@needs_tools
def test_bssy_names_its_reconvergence_point():
    kernel = sass_listing(str(ROOT / "programs/validation/v-loop-break")).kernels[0]
    regions = kernel.reconvergence_points()
    assert regions, "a divergent loop gets convergence barriers"
    by_pc = {i.pc: i for i in kernel.instructions}
    for bssy_pc, target in regions.items():
        barrier = by_pc[bssy_pc].operands[0]
        # the named pc is where the threads continue once reconverged: just after the BSYNC
        assert by_pc[target - 16].family == "BSYNC" and by_pc[target - 16].operands[0] == barrier


@pytest.mark.slow          # ptxas + nvdisasm over every program (about 2 minutes); --run-slow
@needs_tools
def test_recorded_inventory_is_current():
    """Fresh compiles of every program give exactly the recorded opcode inventory, so the table
    test above covers what ptxas emits today (takes about a minute)."""
    r = subprocess.run([sys.executable, "tools/sass_inventory.py", "--check"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# ---- the command line and its errors -------------------------------------------------------------

@needs_tools
def test_cli_disasm_sass(capsys):
    assert main(["disasm", "--isa", "sass", str(ROOT / "programs/validation/v-loop-break")]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("// loop_break: ") and "SASS instructions" in lines[0]
    assert "pipe" in lines[1] and "control" in lines[1]
    ldg = next(line for line in lines if " LDG.E R7" in line)
    assert " lsu " in ldg and ":W2:" in ldg and "ld.global.u32" in ldg
    assert "BSSY B0, 0x2550" in out and "reconverges at 0x2550" in out
    assert "<- reconvergence of BSSY at 0x0220" in out
    assert "not in isa/sass.yaml" not in out


@needs_tools
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_cli_disasm_cuda_source(capsys):
    """A .cu goes through nvcc -ptx -O3 -lineinfo first; the listing is the same kernel's SASS."""
    assert main(["disasm", "--isa", "sass", str(ROOT / "programs/validation/v-lat-dram/kernel.cu")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("// lat_dram: ") and out.count(" LDG.E.STRONG.GPU ") == 32 and " EXIT " in out


@needs_tools
def test_cli_disasm_ptx_default_unchanged(capsys):
    assert main(["disasm", str(ROOT / "programs/validation/v-lat-dram/kernel.ptx")]) == 0
    out = capsys.readouterr().out
    assert "ld.global" in out and "LDG" not in out


@needs_tools
def test_not_ptx_is_a_located_error(tmp_path):
    bad = tmp_path / "bad.ptx"
    bad.write_text(".version 9.0\n.target sm_90\n.address_size 64\nthis is not ptx;\n")
    with pytest.raises(InputError, match=r"bad\.ptx:4:1: error: ptxas: "):
        sass_listing(str(bad))


def test_mask_stack_program_has_no_sass(capsys):
    assert main(["disasm", "--isa", "sass", str(ROOT / "programs/examples/article-ex1-mask")]) == 2
    err = capsys.readouterr().err
    assert "article-ex1-mask/kernel.ptx:13:1: error: push_mask is the simulator's mask-stack ISA" in err


def test_wrong_kind_of_file_is_an_error(tmp_path, capsys):
    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    assert main(["disasm", "--isa", "sass", str(other)]) == 2
    err = capsys.readouterr().err
    assert "expected a .ptx or .cu file or a program directory" in err and "Traceback" not in err


def test_missing_nvdisasm_names_the_wheel(monkeypatch):
    monkeypatch.setitem(sys.modules, "nvidia", None)     # `import nvidia` now fails: no wheel
    monkeypatch.setenv("PATH", "")
    with pytest.raises(InputError, match=r"nvdisasm not found: install NVIDIA's wheel with "
                                         r"`pip install nvidia-cuda-nvdisasm`"):
        sass.tool_path("nvdisasm")
