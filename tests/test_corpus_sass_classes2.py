"""Generated-corpus kernels (docs/corpus.md) of SASS classes that were refused or wrong in SASS mode,
replayed in SASS mode against their H100 recordings (tests/data/corpus/records.json.gz), plus
hand-made listings for the lowering of each class (no nvcc needed there):
  - VIMNMX.RELU (max.relu.s32 / min.relu.s32), VIMNMX3.U16x2 (three-way packed 16-bit min / max),
    VHMNMX.NAN (three-way half min / max propagating NaN);
  - half immediates printed as +-SNAN / +-QNAN (their bits come from the encoding);
  - HFMA2's .H0_NH1 operand ({high: H0, low: -H1});
  - RET.REL.NODEC with a predicate source (only the lanes where it holds return);
  - FSET.BF (a float compare into 1.0f / 0);
  - I2F.S64 / .U64 of an immediate (the 32-bit immediate is the upper word);
  - LOP3.LUT P0, Rd, a, b, c, lut, Pc: the predicate result is (result != 0) OR Pc;
  - LEA d, P0, -a, b, s: the carry of b + ~(a << s) + 1; IMAD.HI.X: the carry in at bit 0 of the sum;
  - F2F of a float64 NaN: no -x / |x|; FMNMX.FTZ flushes its inputs; .SAT of -0 is +0;
  - -G code: a module variable's address as a relocation (`MOV R14, 32@lo(0x0)`, -G sinf's table);
  - FRND.F64 of a NaN: no |x| / -x (as DADD, F2F); LEA d, P0, a, -b, s: the carry of (a << s) + ~b + 1.
The modules are rebuilt from the generator's seeds, so nvcc is needed."""
from __future__ import annotations


import pytest

from corpus_replay import exact_class_test

CLASSES = {
    "k01003": "VIMNMX.RELU R13, R18, R11, !PT (max.relu.s32)",
    "k08326": "VIMNMX.RELU R7, R31, R10, PT (min.relu.s32)",
    "k07510": "VIMNMX3.U16x2 (three-way packed u16 min / max)",
    "k03704": "VHMNMX.NAN (three-way half max propagating NaN)",
    "k07425": "VHMNMX.NAN (three-way half max propagating NaN)",
    "k04405": "HMNMX2.BF16_V2 R14, R14.H0_H0, +SNAN, +SNAN, PT (NaN half immediates from the encoding)",
    "k03221": "HFMA2 R5, R9, -R18.H0_NH1, R22",
    "k09529": "HFMA2 R4, R4, R16.H0_NH1, R10",
    "k05327": "@!P0 RET.REL.NODEC !P1, R24 (a return taken where a second predicate holds)",
    "k06502": "@P0 RET.REL.NODEC P2, R6",
    "k09211": "HMNMX2.NAN with -SNAN immediates; LOP3.LUT P0 with a predicate source (64-bit != 0)",
    "k01424": "LOP3.LUT P0, RZ, R14, RZ, RZ, 0xfc, P0: the predicate result ORs the predicate source (64-bit x != 0)",
    "k02227": "LOP3.LUT P0 with a predicate source (64-bit != 0)",
    "k05300": "LOP3.LUT P0 with a predicate source (64-bit != 0)",
    "k06307": "LOP3.LUT P0 with a predicate source (64-bit != 0)",
    "k05812": "LOP3.LUT P0 with a predicate source (64-bit != 0)",
    "k02226": "LOP3.LUT P0 with a predicate source (64-bit != 0)",
    "k00813": "LEA R35, P0, -R35, R10, 0x1 (b - (a << 1): the carry where a << 1 is 0)",
    "k03711": "LEA with a negated a (x * 0x7fffffffffffffff as (x << 63) - x)",
    "k03418": "LEA with a negated a",
    "k00612": "F2F.F32.F64.RM R9, -R8 of a NaN: no sign flip",
    "k01202": "F2F of a float64 NaN with -x: no sign flip",
    "k02713": "F2F of a float64 NaN with -x: no sign flip",
    "k05621": "F2F of a float64 NaN with -x: no sign flip",
    "k04729": "F2F.BF16.F64 of a NaN with -x: no sign flip",
    "k06400": "FSET.BF.GTU.AND R13, |R2|, +INF, PT",
    "k03004": "I2F.S64.RZ R9, -0x80000000: a 64-bit source's immediate is its upper word",
    "k00300": "IMAD.HI.U32.X R16, R19, R19, R16, P1 (umul64hi(x, x)): the carry in at bit 0 of the sum",
    "k02001": "IMAD.HI.U32.X: the carry in at bit 0 of the sum",
    "k01915": "FMNMX.FTZ R23, -R23, R24, PT: subnormal inputs flushed",
    "k00619": "FFMA.SAT of a negative result: +0, not -0",
    "k06604": "FFMA.SAT of a negative result: +0",
    "k00509": "64-bit != 0 through LOP3.LUT P0 with a predicate source (f0, f1, u1, I0 words)",
    "k08128": "__ballot_sync(U0 > 0): LOP3.LUT P0 with a predicate source",
    "k06027": "if (I0 == 0) atomicSub(gs + 5, ...): LOP3.LUT P0 with a predicate source (gslot5)",
    "k05210": "if (U0 == 0) atomicAdd(gs + 1, 1): LOP3.LUT P0 with a predicate source (gslot1)",
    "k11000": "-G: MOV R12, 32@lo(0x80) (__cudart_i2opi_d's address, a data relocation)",
    "k13401": "-G: MOV R14, 32@lo(0x0) (__cudart_i2opi_f's address, a data relocation)",
    "k06327": "FRND.F64.TRUNC R4, |R18| of a negative NaN: no |x|, the NaN stays negative (f1)",
    "k06127": "FRND.F64 of a NaN with |x|: no sign change (d0, f0)",
    "k01414": "FRND.F64 of a NaN with |x|: no sign change (d0.hi)",
    "k03205": "FRND.F64 of a NaN with |x|: no sign change (d0.hi)",
    "k03611": "LEA R0, P0, R20, -R6, 0x1 ((a << 1) - b of a 64-bit subtract): the carry is 1 where b == 0 (U0)",
    "k09517": "LEA with a negated b: the carry of ~b + 1 (U0.hi, gp64)",
    "k10309": "LEA with a negated b: the carry of ~b + 1 (I0.hi, d0)",
}


test_sass_class_kernel_is_exact_against_the_h100 = exact_class_test(sass=CLASSES)


# ---- the lowering of each class on hand-made instructions (no nvcc) ------------------------------

def _inst(pc, opcode, *operands, predicate="", encoding=(0, 0)):
    from simt_sim.frontend.sass import ControlCodes, SassInstruction
    return SassInstruction(pc=pc, predicate=predicate, opcode=opcode, operands=tuple(operands), encoding=encoding,
                           control=ControlCodes.from_high_word(0))


def _lower(*insts, labels=None, banks=None):
    from simt_sim.frontend.sass import SassKernel
    from simt_sim.frontend.sass_lower import RowBuilder, lower_instruction
    kernel = SassKernel("kern", tuple(insts), labels or {})
    b = RowBuilder(kernel, "test")
    if banks is not None:
        b.banks = banks
    return b, [lower_instruction(b, i) for i in insts]


def _operand(row, k):
    from simt_sim.isa import encoding as E
    base = E.F_OPS + k * E.OPERAND_FIELDS
    return tuple(int(v) for v in row[base:base + 4])


def test_half_nan_immediates_take_their_bits_from_the_encoding():
    from simt_sim.frontend.sass_lower import SassLoweringError
    from simt_sim.isa import encoding as E
    # `@!P0 HADD2 R2, R11.H0_H0, -SNAN, -SNAN` of generated kernel k01514: bits 32..63 are 0xfd35fd35
    inst = _inst(0x0, "HADD2", "R2", "R11.H0_H0", "-SNAN", "-SNAN", encoding=(0xfd35fd350b028430, 0xfca0000000800))
    b, (row,) = _lower(inst)
    kind, idx, _, _ = _operand(row, 2)
    assert kind == E.K_IMM and b.u64[idx] == 0xfd35fd35
    # a printed kind or sign the encoding does not hold is refused, not guessed
    for printed in (("+SNAN", "+SNAN"), ("-QNAN", "-QNAN"), ("-SNAN", "1")):
        with pytest.raises(SassLoweringError, match="does not match the printed values"):
            _lower(_inst(0x0, "HADD2", "R2", "R11.H0_H0", *printed, encoding=(0xfd35fd350b028430, 0)))
    # bf16: `HMNMX2.BF16_V2 R14, R14.H0_H0, +SNAN, +SNAN, PT` with 0x7f817f81 (quiet bit 0x40 clear)
    b, (row,) = _lower(_inst(0x0, "HMNMX2.BF16_V2", "R14", "R14.H0_H0", "+SNAN", "+SNAN", "PT",
                             encoding=(0x7f817f81 << 32, 0)))
    assert b.u64[_operand(row, 2)[1]] == 0x7f817f81


def test_h0_nh1_operand_is_read_on_hfma2_and_refused_elsewhere():
    from simt_sim.frontend.sass_lower import SassLoweringError
    from simt_sim.isa import encoding as E
    _, (row,) = _lower(_inst(0x0, "HFMA2", "R5", "R9", "-R18.H0_NH1", "R22"))
    kind, idx, _, mods = _operand(row, 2)
    assert kind == E.K_R32 and mods == E.OM_H0_NH1 | E.OM_NEG
    with pytest.raises(SassLoweringError, match="H0_NH1"):
        _lower(_inst(0x0, "HSETP2.GT.AND", "P0", "PT", "R9", "R18.H0_NH1", "PT"))
    with pytest.raises(SassLoweringError, match=r"\|x\| of a .H0_NH1"):
        _lower(_inst(0x0, "HFMA2", "R5", "R9", "|R18|.H0_NH1", "R22"))


def test_ret_with_a_predicate_source_keeps_it_as_a_condition():
    from simt_sim.isa import encoding as E
    _, rows = _lower(_inst(0x0, "RET.REL.NODEC", "!P1", "R24", "kern", predicate="@!P0"), _inst(0x10, "EXIT"))
    row = rows[0]
    assert row[E.F_NOPS] == 2
    assert _operand(row, 0)[:2] == (E.K_R32, E.SASS_R_BASE + 24)
    kind, idx, neg, _ = _operand(row, 1)
    assert (kind, idx, neg) == (E.K_PRED, 1, 1)


def test_fset_bf_lowers_as_a_compare_into_a_register():
    from simt_sim.isa import encoding as E
    b, (row,) = _lower(_inst(0x0, "FSET.BF.GTU.AND", "R13", "|R2|", "+INF", "PT"))
    assert row[E.F_OP] == E.OP_S_FSET and row[E.F_NDST] == 1
    assert row[E.F_CMP] == E.SASS_CMP_CODE["gtu"] and row[E.F_BOOL] == E.BOOL_CODE["and"]
    assert row[E.F_FLAGS] & E.SM_BF
    assert b.u64[_operand(row, 2)[1]] == 0x7F800000


def test_i2f_of_a_64_bit_immediate_takes_it_as_the_upper_word():
    b, (row,) = _lower(_inst(0x0, "I2F.S64.RZ", "R9", "-0x80000000"))
    assert b.u64[_operand(row, 1)[1]] == 0x8000_0000_0000_0000          # cvt.rz.f32.s64 of -2^63
    b, (row,) = _lower(_inst(0x0, "I2F.RP", "R9", "0x10"))
    assert b.u64[_operand(row, 1)[1]] == 0x10                            # a 32-bit source: as it is


def test_a_data_relocation_reads_the_module_variable_address():
    from simt_sim.frontend.sass_banks import ConstantBanks
    from simt_sim.frontend.sass_lower import SassLoweringError
    banks = ConstantBanks(text_data={(".text.kern", 0x10): ("__cudart_i2opi_f", 0x7_0000_1000, 0x0),
                                      (".text.kern", 0x20): ("__cudart_i2opi_d", 0x7_0000_1080, 0x80)})
    # nvdisasm prints the unrelocated value: the variable's offset in .nv.global.init (+ addend)
    b, rows = _lower(_inst(0x0, "NOP"), _inst(0x10, "MOV", "R14", "32@lo(0x0)"), _inst(0x20, "MOV", "R15", "32@hi(0x80)"),
                     banks=banks)
    assert b.u64[_operand(rows[1], 1)[1]] == 0x0000_1000 and b.u64[_operand(rows[2], 1)[1]] == 0x7
    with pytest.raises(SassLoweringError, match="address of a variable"):   # a printed value that is not the symbol's
        _lower(_inst(0x0, "NOP"), _inst(0x10, "MOV", "R14", "32@lo(0x40)"), banks=banks)
    with pytest.raises(SassLoweringError, match="address of a variable"):   # no relocation at that pc
        _lower(_inst(0x0, "MOV", "R14", "32@lo(0x0)"), banks=banks)
