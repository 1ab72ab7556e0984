"""NVIDIA's sm_90 instruction table (issue 61, point 2): every opcode of the published Hopper table
(isa/sass_hopper.yaml) executes or is refused by name, and docs/sass.md shows which."""
import re

import pytest

from simt_sim.errors import InputError
from simt_sim.frontend import sass_lower as L
from simt_sim.frontend.sass import ControlCodes, SassInstruction, SassKernel
from simt_sim.isa import encoding as E
from simt_sim.isa.sass_doc import render_sass_doc
from simt_sim.isa.sass_table import hopper_table, modifier_table, sass_table

# a sample of NVIDIA's table, one or more per section, that must be there (a truncated table fails)
EXPECTED = ("FADD", "FSWZADD", "HGMMA", "DSETP", "IMAD", "VIMNMX3", "I2FP", "F2IP", "SHFL", "R2P", "SYNCS",
            "STSM", "UBLKCP", "UTMALDG", "UTMASTG", "TEX", "SUST", "ACQBULK", "ELECT", "WARPSYNC", "S2R", "VOTE",
            "R2UR", "UIADD3", "ULOP3", "USETMAXREG", "UCGABAR_ARV", "VOTEU")


def lowered(name: str) -> bool:
    """Whether the lowering has a path for the family (the rows then run in the engine)."""
    return (sass_table().family(name) is not None and name in modifier_table().opcodes
            and (name in E.SASS_IMPLEMENTED or name in L.LOWER or name in L.PTX_EQUIVALENT))


def lower(text: str, pc: int = 0x70):
    opcode, _, ops = text.partition(" ")
    inst = SassInstruction(pc, "", opcode, tuple(o.strip() for o in ops.split(",") if o.strip()), (0, 0),
                           ControlCodes(0, 0, None, None, 0, 0))
    return L.lower_instruction(L.RowBuilder(SassKernel("k", ()), "synthetic.cubin:k"), inst)


def test_the_table_is_complete_and_every_opcode_has_a_status():
    ops = hopper_table()
    assert len(ops) >= 190
    for name in EXPECTED:
        assert name in ops, name
    for op in ops.values():
        assert op.status in ("executed", "refused") and op.description, op
        assert op.status == "executed" or op.reason, op
    uniform = [n for n in ops if n.startswith("U") or n in ("R2UR", "S2UR", "REDUX", "VOTEU")]
    assert len(uniform) >= 40


def test_status_matches_the_lowering():
    """`executed` exactly where the lowering has a path (so the table cannot claim what is not there)."""
    wrong = [f"{n}: table says {op.status}, lowering {'has' if lowered(n) else 'has no'} path"
             for n, op in hopper_table().items() if (op.status == "executed") != lowered(n)]
    assert not wrong, "\n".join(wrong)


def test_every_family_of_the_sass_table_is_in_the_hopper_table():
    missing = [op.name for op in sass_table().ops if op.name not in hopper_table()]
    assert not missing


@pytest.mark.parametrize("name", [n for n, op in hopper_table().items() if op.status == "refused"])
def test_a_refused_opcode_stops_with_a_clear_error(name):
    op = hopper_table()[name]
    pattern = rf"pc 0x0070: opcode {name} \({re.escape(op.description)}\) is not simulated: {re.escape(op.reason)}"
    with pytest.raises(InputError, match=pattern):
        lower(f"{name}.X R1, R2, R3")              # the opcode is refused before any modifier is looked at


def test_a_synthetic_listing_stops_at_the_first_refused_opcode():
    b = L.RowBuilder(SassKernel("k", ()), "synthetic.cubin:k")
    texts = ["MOV R1, 0x1", "IADD3 R2, R1, 0x2, RZ", "UTMALDG.2D [UR8], [UR4]", "EXIT"]
    insts = [SassInstruction(16 * i, "", t.split()[0], tuple(o.strip() for o in t.partition(" ")[2].split(",")
                                                             if o.strip()), (0, 0), ControlCodes(0, 0, None, None, 0, 0))
             for i, t in enumerate(texts)]
    L.lower_instruction(b, insts[0])
    L.lower_instruction(b, insts[1])
    with pytest.raises(InputError, match=r"pc 0x0020: opcode UTMALDG \(Tensor Load from Global to Shared Memory\) "
                                         r"is not simulated: Hopper asynchronous family"):
        L.lower_instruction(b, insts[2])


def test_an_opcode_outside_the_table_is_refused_by_name():
    with pytest.raises(InputError, match=r"opcode FROB is not an sm_90 opcode"):
        lower("FROB R1, R2")


def test_docs_show_every_opcode_and_its_status():
    doc = render_sass_doc()
    for name, op in hopper_table().items():
        assert f"| `{name}` | {op.description} | {op.status} |" in doc, name
