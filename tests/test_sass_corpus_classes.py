"""Kernels of the generated corpus (docs/corpus.md) from the three largest SASS refusal classes,
replayed in SASS mode against their H100 recordings (tests/data/corpus/records.json.gz):
  - -G code: device functions in .text sections of their own, reached with CALL.ABS.NOINC, the
    return address written as `32@lo((SYM + 0xOFF))` / `32@hi(...)` (sass.link_functions,
    RowBuilder.code_address), the QSPC.E.S test and ATOM.E.CAST.SPIN of -G generic atomics;
  - VABSDIFF4.U8[.ACC] (__vabsdiffu4, __vsadu4);
  - R2P PR, Rn, mask (register bits into predicates).
The modules are rebuilt from the generator's seeds, so nvcc is needed."""
from __future__ import annotations

from corpus_replay import exact_class_test

CLASSES = {
    "k10000": "VABSDIFF4.U8.ACC",
    "k10401": "-G: CALL.ABS into linked functions, 32@lo/32@hi return addresses, QSPC.E.S / QSPC.E.D",
    "k10402": "-G: CALL.ABS into linked functions, 32@lo/32@hi return addresses, QSPC.E.S",
    "k00001": "VABSDIFF4.U8.ACC (__vsadu4)",
    "k10012": "VABSDIFF4.U8 (__vabsdiffu4)",
    "k00419": "R2P PR, R2, 0x3",
    "k07118": "@!P1 BRA.U: a uniform branch, run as a plain branch",
}

test_refusal_class_kernel_is_exact_against_the_h100 = exact_class_test(sass=CLASSES)


# ---- the -G linking and the relocation operand, on a hand-made listing (no nvcc) ----------------

def _inst(pc, opcode, *operands, predicate=""):
    from simt_sim.frontend.sass import ControlCodes, SassInstruction
    return SassInstruction(pc=pc, predicate=predicate, opcode=opcode, operands=tuple(operands), encoding=(0, 0),
                           control=ControlCodes.from_high_word(0))


def test_link_functions_appends_callees_and_moves_their_code_addresses():
    from simt_sim.frontend.sass import SassKernel, link_functions
    from simt_sim.frontend.sass_lower import RowBuilder
    kernel = SassKernel("kern", (_inst(0x0, "MOV", "R20", "32@lo((kern + 0x40))"),
                                 _inst(0x10, "MOV", "R21", "32@hi((kern + 0x40))"),
                                 _inst(0x20, "CALL.ABS.NOINC", "`(leaf)"),
                                 _inst(0x30, "NOP"),
                                 _inst(0x40, "EXIT")), {".L_x_0": 0x40})
    leaf = SassKernel("leaf", (_inst(0x0, "BSSY", "B0", "0x20"),
                               _inst(0x10, "BRA", "0x20"),
                               _inst(0x20, "MOV", "R20", "32@lo((leaf + 0x30))"),
                               _inst(0x30, "RET.ABS.NODEC", "R20", "0x0")), {".L_x_9": 0x20})
    other = SassKernel("unused", (_inst(0x0, "EXIT"),), {})
    linked = link_functions(kernel, {"kern": kernel, "leaf": leaf, "unused": other})
    assert [i.pc for i in linked.instructions] == [0x0, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80]
    assert linked.label_pc("leaf") == 0x50 and linked.label_pc("$kern$leaf") == 0x50
    assert linked.label_pc(".L_x_9") == 0x70 and linked.label_pc(".L_x_0") == 0x40
    assert linked.instructions[5].operands == ("B0", "0x70")       # BSSY / BRA targets moved by the base
    assert linked.instructions[6].operands == ("0x70",)
    assert linked.instructions[8].operands == ("R20", "0x0")        # RET's 0x0 is no code address
    assert linked.function_at(0x60) == "$kern$leaf"
    import pytest as _pytest
    from simt_sim.frontend.sass_lower import SassLoweringError
    b = RowBuilder(linked, "test")
    b.inst = linked.instructions[0]
    lo = b.operand("32@lo((kern + 0x40))")
    assert b.u64[lo[1]] == 0x40                                   # the pc after the CALL's NOP: kernel base 0
    hi = b.operand("32@hi((kern + 0x40))")
    assert b.u64[hi[1]] == 0
    with _pytest.raises(SassLoweringError, match="address of a variable"):
        b.operand("32@lo(0x0)")                                   # a data symbol's address (nvdisasm -json: 0x0)
    inner = b.operand("32@lo((leaf + 0x30))")
    assert b.u64[inner[1]] == 0x50 + 0x30                         # offsets into leaf's section move by its base
    with _pytest.raises(SassLoweringError, match="neither the kernel nor a function it calls"):
        b.operand("32@lo((unused + 0x0))")


def test_relocation_operand_is_a_declared_form_of_mov_only():
    from simt_sim.frontend.sass_modifiers import check_accepted, operand_forms
    assert operand_forms("32@lo((k10400 + 0x3b0))") == ["32@lo(SYM+OFF)"]
    assert operand_forms("32@hi((k10400 + 0x3b0))") == ["32@hi(SYM+OFF)"]
    check_accepted(_inst(0x0, "MOV", "R20", "32@lo((k + 0x10))"), ValueError)
    import pytest as _pytest
    with _pytest.raises(ValueError, match="32@lo"):
        check_accepted(_inst(0x0, "IADD3", "R20", "32@lo((k + 0x10))", "RZ", "RZ"), ValueError)
