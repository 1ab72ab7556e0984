"""Every opcode of the ISA table is either run by the oracle or listed as unsupported with a reason,
and the oracle reads no engine code."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from simt_sim.frontend.assembler import assemble_text
from simt_sim.isa import isa, load_isa
from simt_sim.isa.table import ISA_DIR
from simt_sim.oracle import interpreter
from simt_sim.oracle.interpreter import OPCODE_HANDLERS, ORACLE_UNSUPPORTED, run_oracle

ORACLE_DIR = Path(interpreter.__file__).parent


def uncovered(table) -> list[str]:
    """Opcodes of `table` that have neither an oracle handler nor an ORACLE_UNSUPPORTED reason."""
    return [op.name for op in table.ops if op.name not in OPCODE_HANDLERS and op.name not in ORACLE_UNSUPPORTED]


def test_every_opcode_has_a_handler_or_a_reason():
    assert uncovered(isa()) == []


def test_a_new_opcode_without_either_is_reported(tmp_path):
    text = (ISA_DIR / "ptx.yaml").read_text()
    extra = '  - {name: frobnicate, operands: [d, a], types: [b32], modifiers: [], unit: int, meaning: "d = ?"}\n'
    (tmp_path / "ptx.yaml").write_text(text.rstrip("\n") + "\n" + extra)
    assert uncovered(load_isa(tmp_path)) == ["frobnicate"]


def test_handlers_and_unsupported_name_real_opcodes_once():
    names = {op.name for op in isa().ops}
    assert set(OPCODE_HANDLERS) <= names
    assert set(ORACLE_UNSUPPORTED) <= names
    assert not set(OPCODE_HANDLERS) & set(ORACLE_UNSUPPORTED)
    assert all(callable(h) for h in OPCODE_HANDLERS.values())
    assert all(isinstance(why, str) and why for why in ORACLE_UNSUPPORTED.values())


def test_unsupported_opcode_raises_with_its_reason():
    program = assemble_text(""".version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p_out)
{
    .reg .b32 %r<2>;
    activemask.b32 %r1;
    ret;
}
""")
    with pytest.raises(NotImplementedError, match=re.escape(ORACLE_UNSUPPORTED["activemask"])):
        run_oracle(program, 1, 32, [0])


def _imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
    return modules


@pytest.mark.parametrize("path", sorted(ORACLE_DIR.glob("*.py")), ids=lambda p: p.name)
def test_oracle_imports_nothing_from_the_engine(path):
    engine = [m for m in _imported_modules(path) if m == "simt_sim.engine" or m.startswith("simt_sim.engine.")]
    assert engine == [], f"{path.name} imports engine code: {engine}"
