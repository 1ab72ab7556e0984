"""ISA-table facts: timing classes and unit names are loaded and validated from isa/*.yaml, and the
sub-operation codes the engine compares against are the positions in the table's modifier groups."""
from __future__ import annotations

import pytest

from simt_sim.errors import InputError
from simt_sim.frontend.assembler import assemble_text
from simt_sim.isa import encoding as E
from simt_sim.isa import isa, load_isa
from simt_sim.isa.table import ISA_DIR, TIMING_BY_UNIT, TIMING_CLASSES, UNIT_NAMES
from simt_sim.machine import config, layout
from simt_sim.machine.tables import timing_class


def table_with(tmp_path, extra_entry: str):
    text = (ISA_DIR / "ptx.yaml").read_text()
    (tmp_path / "ptx.yaml").write_text(text.rstrip("\n") + "\n  " + extra_entry + "\n")
    return load_isa(tmp_path)


def test_unknown_timing_class_is_an_error_naming_the_file(tmp_path):
    with pytest.raises(InputError, match=r"ptx\.yaml.*opcode wait: unknown timing class 'slow'"):
        table_with(tmp_path, '- {name: wait, operands: [], types: [], modifiers: [], unit: control, '
                             'timing: slow, meaning: "x"}')


@pytest.mark.parametrize("unit, expected", [("sfu", "sfu"), ("control", "other"), ("ldst", "alu"),
                                            ("by_type", "alu"), ("tensor", "alu")])
def test_timing_defaults_to_the_units_class(tmp_path, unit, expected):
    table = table_with(tmp_path, f'- {{name: probe, operands: [], types: [], modifiers: [], unit: {unit}, '
                                 'meaning: "x"}')
    assert table.op("probe").timing == expected


def test_stated_timing_wins_over_the_default(tmp_path):
    table = table_with(tmp_path, '- {name: probe, operands: [], types: [], modifiers: [], unit: control, '
                                 'timing: branch, meaning: "x"}')
    assert table.op("probe").timing == "branch"


@pytest.mark.parametrize("names, cls", [
    (("ld", "ldu", "st", "atom", "red", "cp.async"), layout.CL_MEM),
    (("bra", "br_push", "mask_nz", "pop_mask"), layout.CL_BRANCH),
    (("bar", "barrier"), layout.CL_BARRIER),
    (("ret", "exit"), layout.CL_EXIT),
    (("rcp", "sqrt", "ex2", "tanh"), layout.CL_SFU),
    (("trap", "nanosleep", "push_mask"), layout.CL_OTHER),
    (("add", "fma", "mov", "membar", "mma", "shfl"), layout.CL_ALU),
])
def test_timing_class_codes_of_opcodes(names, cls):
    assert [timing_class(E.OPCODE[n]) for n in names] == [cls] * len(names)


def test_one_list_of_unit_names_and_timing_classes():
    assert config.UNIT_NAMES is UNIT_NAMES
    assert list(E.UNIT_CODE) == list(UNIT_NAMES)
    assert sorted(layout.CL_CODE.values()) == list(range(len(TIMING_CLASSES)))
    assert set(TIMING_BY_UNIT) <= set(UNIT_NAMES) and set(TIMING_BY_UNIT.values()) <= set(TIMING_CLASSES)
    assert {op.timing for op in isa().ops} <= set(TIMING_CLASSES)


@pytest.mark.parametrize("group, codes, first", [
    ("atomop", E.ATOM_CODE, 0), ("vote", E.VOTE_CODE, 0), ("shfl", E.SHFL_CODE, 0),
    ("redux", E.REDUX_CODE, 0), ("match", E.MATCH_CODE, 0), ("barred", E.BARRED_CODE, 1),
])
def test_sub_operation_codes_are_modifier_group_positions(group, codes, first):
    words = isa().modifier_groups[group]
    assert codes == {w: first + i for i, w in enumerate(words)}


def test_bar_red_codes_leave_room_for_a_plain_bar():
    assert E.BARRED_NONE not in E.BARRED_CODE.values()


def _f_cmp(line: str, regs: str) -> int:
    program = assemble_text(f""".version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{{
    {regs}
    {line}
    ret;
}}
""")
    return int(program.code[0][E.F_CMP])


@pytest.mark.parametrize("line, regs, code", [
    ("atom.global.cas.b32 %r1, [%rd1], %r2, %r3;", ".reg .b32 %r<4>; .reg .b64 %rd<2>;", E.ATOM_CAS),
    ("red.global.xor.b32 [%rd1], %r2;", ".reg .b32 %r<4>; .reg .b64 %rd<2>;", E.ATOM_XOR),
    ("vote.sync.ballot.b32 %r1, %p1, -1;", ".reg .b32 %r<4>; .reg .pred %p<2>;", E.VOTE_BALLOT),
    ("shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;", ".reg .b32 %r<4>;", E.SHFL_BFLY),
    ("redux.sync.or.b32 %r1, %r2, -1;", ".reg .b32 %r<4>;", E.REDUX_OR),
    ("match.all.sync.b32 %r1, %r2, -1;", ".reg .b32 %r<4>;", E.MATCH_ALL),
    ("bar.red.or.pred %p1, 0, %p2;", ".reg .pred %p<3>;", E.BARRED_OR),
    ("bar.sync 0;", "", E.BARRED_NONE),
])
def test_assembler_encodes_named_sub_operations(line, regs, code):
    assert _f_cmp(line, regs) == code
