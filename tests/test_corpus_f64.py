"""float64 NaN results of the generated corpus (docs/corpus.md, variable d0), replayed against their H100
recordings (tests/data/corpus/records.json.gz) in the mode that was wrong, plus checks of the rules
themselves that need no nvcc:
  - SASS: a NaN-valued 32-bit float immediate, which nvdisasm prints as +-QNAN, has the bits of the
    encoding's immediate field (FSEL R5, R0, -QNAN is 0xfff00000, the upper word of -inf: ptxas's
    fold of fmin(-inf, x); FSEL R21, R20, +QNAN is 0x7ff80000, the upper word of a double NaN);
  - SASS: F2F.F64.F32 d, |a| / -a of a NaN widens the register's NaN, sign and payload kept (the H100
    applies no sign modifier to a NaN source, as DADD);
  - PTX: cvt.f64.f32 of an abs.f32 / neg.f32 result reads the abs's source (ptxas folds it into
    F2F.F64.F32 d, |a|), so a NaN keeps its sign there too (assembler.sign_folds);
  - PTX: sub.f64 d, a, LITERAL is DADD d, a, -LITERAL (assembler.negated_literal_sub);
  - both: fma.rm.f64 with an exact zero result is -0 unless it adds two zeros of one sign.
The modules are rebuilt from the generator's seeds, so the replays need nvcc."""
from __future__ import annotations

import pytest

from corpus_replay import exact_class_test

SASS = {
    "k00019": "F2F.F64.F32 R4, |R11| of a negative NaN: (double)fabsf(f0) stays negative",
    "k00122": "FSEL R5, R0, -QNAN, P0: the upper word of -inf (fmin(-inf, d0) folded)",
    "k01319": "FSEL of -QNAN / DSETP.MIN with -INF: fmin(-inf, d0)",
    "k01600": "FSEL R21, R20, +QNAN, !P1: the upper word of 0x7ff8000000000000",
    "k06006": "FSEL with +QNAN: the upper word of a double NaN",
    "k02400": "DADD R14, R24, -QNAN: fdim(d0, NaN) with the NaN literal negated by ptxas",
    "k00409": "DFMA.RM with an exact zero result: -0 (__fma_rd(round(d0), d0 / d0, 0))",
    "k01927": "DFMA.RM with an exact zero result: -0",
}
PTX = {
    "k00019": "cvt.f64.f32 of abs.f32 (in another block): the NaN's own sign",
    "k07801": "cvt.f64.f32 of abs.f32 / neg.f32: the NaN's own sign",
    "k09903": "cvt.f64.f32 of neg.f32: the NaN's own sign",
    "k09906": "cvt.f64.f32 of neg.f32: the NaN's own sign",
    "k02400": "sub.f64 of a register set by mov.f64 of a NaN literal: DADD with the literal negated",
    "k09629": "sub.f64 of a NaN literal: DADD with the literal negated",
    "k00409": "fma.rm.f64 with an exact zero result: -0",
    "k01927": "fma.rm.f64 with an exact zero result: -0",
}

test_f64_nan_kernel_is_exact_against_the_h100 = exact_class_test(sass=SASS, ptx=PTX)


# ---- the rules on their own (no nvcc) --------------------------------------------------------------

def _builder(opcode, operands, encoding_low):
    from simt_sim.frontend.sass import ControlCodes, SassInstruction, SassKernel
    from simt_sim.frontend.sass_lower import RowBuilder
    inst = SassInstruction(pc=0, predicate="", opcode=opcode, operands=tuple(operands), encoding=(encoding_low, 0),
                           control=ControlCodes.from_high_word(0))
    b = RowBuilder(SassKernel("k", (inst,), {}), "test")
    b.inst = inst
    return b


@pytest.mark.parametrize("opcode,text,number,field,want", [
    ("FSEL", "-QNAN", "f32", 0xFFF00000, 0xFFF00000),            # k00122: -inf's upper word
    ("FSEL", "+QNAN", "f32", 0x7FF80000, 0x7FF80000),            # k01600: a double NaN's upper word
    ("FMUL", "+QNAN", "f32", 0x7FC00000, 0x7FC00000),            # a float32 NaN literal
    ("DADD", "+QNAN", "f64", 0x7FF80000, 0x7FF8000000000000),    # a DADD immediate is the upper word
    ("DMUL", "-QNAN", "f64", 0xFFF80000, 0xFFF8000000000000),
])
def test_nan_float_immediates_take_the_encodings_bits(opcode, text, number, field, want):
    from simt_sim.isa import encoding as E
    b = _builder(opcode, ("R0", "R2", text), field << 32 | 0x7808)
    kind, idx, _, mods = b.operand(text, number=number)
    assert kind == E.K_IMM and b.u64[idx] == want, hex(b.u64[idx])
    assert not mods & E.OM_NEG                                   # the sign is in the bits, not applied again


def test_widened_f32_nan_keeps_sign_and_payload_quieted():
    from simt_sim.engine.functional.bits import widened_f32_nan
    # k00019: f0 = 0xffffffe8 (a negative NaN); (double)fabsf(f0) on the H100 is 0xfffffffd_00000000
    assert int(widened_f32_nan(0xFFFFFFE8)) & 0xFFFFFFFFFFFFFFFF == 0xFFFFFFFD00000000
    assert int(widened_f32_nan(0x7F800001)) & 0xFFFFFFFFFFFFFFFF == 0x7FF8000020000000   # a signaling NaN, quieted
    assert int(widened_f32_nan(0x7FFFFFFF)) & 0xFFFFFFFFFFFFFFFF == 0x7FFFFFFFE0000000


PTX_FOLD = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry fold(.param .u64 p_in, .param .u64 p_out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .f32 %f<6>;
    .reg .f64 %fd<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [p_in];
    ld.param.u64 %rd2, [p_out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.f32 %f1, [%rd4];
    abs.f32 %f2, %f1;
    neg.f32 %f3, %f1;
    setp.gt.f32 %p1, %f2, 0f3F800000;
    @%p1 bra $L__skip;
$L__skip:
    cvt.f64.f32 %fd1, %f2;
    cvt.f64.f32 %fd2, %f3;
    mul.wide.u32 %rd5, %r1, 16;
    add.s64 %rd6, %rd2, %rd5;
    st.global.f64 [%rd6], %fd1;
    st.global.f64 [%rd6+8], %fd2;
    ret;
}
"""


def test_ptx_cvt_of_abs_and_neg_keeps_a_nans_sign(tmp_path):
    """(double)fabsf(x) and (double)-x: ptxas's F2F.F64.F32 d, |x| / -x leaves a NaN's sign alone
    (corpus k00019, k09903); numbers get |x| / -x.  Both modes of the simulator: PTX through the
    fold, the oracle too."""
    import numpy as np
    from simt_sim.frontend.assembler import load_program
    from simt_sim.oracle import run_oracle
    from simt_sim.run.functional import LaunchConfig, launch
    ptx = tmp_path / "fold.ptx"
    ptx.write_text(PTX_FOLD)
    program = load_program(str(ptx), "fold")
    vals = np.array([0xFFFFFFE8, 0x7FC00001, 0xBF800000, 0x40000000], np.uint32)     # -NaN, +NaN, -1, 2
    for run in (lambda b: launch(program, 1, 4, ["in", "out"], b, config=LaunchConfig()),
                lambda b: run_oracle(program, 1, 4, ["in", "out"], b)):
        res = run({"in": vals.copy(), "out": np.zeros(8, np.uint64)})
        got = [int(v) for v in np.asarray(res.buffers["out"]).view(np.uint64)]
        assert got[0] == 0xFFFFFFFD00000000 and got[1] == 0xFFFFFFFD00000000    # the NaN's sign kept
        assert got[2] == 0x7FF8000020000000 and got[3] == 0x7FF8000020000000
        assert got[4] == 0x3FF0000000000000 and got[5] == 0x3FF0000000000000    # |-1|, -(-1)
        assert got[6] == 0x4000000000000000 and got[7] == 0xC000000000000000    # |2|, -2


def test_fma_rm_exact_zero_is_negative_zero():
    """__fma_rd(x, y, +0) with x * y = -0 is -0 (IEEE 754 6.3; k00409, k01927); two +0 stay +0."""
    import math
    from simt_sim.engine.functional import alu
    from simt_sim.isa import encoding as E
    r = alu.f64_arith(E.OP_FMA, -0.0, 1.0, 0.0, 0, E.RND_RM)
    assert r == 0.0 and math.copysign(1.0, r) < 0
    r = alu.f64_arith(E.OP_FMA, 2.0, 3.0, -6.0, 0, E.RND_RM)             # exact cancellation
    assert r == 0.0 and math.copysign(1.0, r) < 0
    r = alu.f64_arith(E.OP_FMA, 0.0, 1.0, 0.0, 0, E.RND_RM)
    assert r == 0.0 and math.copysign(1.0, r) > 0
    r = alu.f64_arith(E.OP_FMA, -0.0, 1.0, 0.0, 0, E.RND_RN)
    assert r == 0.0 and math.copysign(1.0, r) > 0


def test_sub_of_a_nan_literal_is_an_add_of_the_negated_literal():
    """sub.f64 d, a, 0d7FF8000000000000 (fdim(x, NaN), k09629): ptxas writes DADD d, a, -QNAN
    (0xfff80000 in the immediate), so the result is the negated NaN, whatever a is."""
    import numpy as np
    from simt_sim.frontend.assembler import assemble_text
    from simt_sim.oracle import run_oracle
    from simt_sim.run.functional import LaunchConfig, launch
    src = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry subnan(.param .u64 p_in, .param .u64 p_out)
{
    .reg .b32 %r<2>;
    .reg .f64 %fd<6>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [p_in];
    ld.param.u64 %rd2, [p_out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 8;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.f64 %fd1, [%rd4];
    sub.f64 %fd2, %fd1, 0d7FF8000000000000;
    mov.f64 %fd3, 0d7FF8000000000001;
    sub.rn.f64 %fd4, %fd1, %fd3;
    add.s64 %rd5, %rd2, %rd3;
    st.global.f64 [%rd5], %fd2;
    st.global.f64 [%rd5+256], %fd4;
    ret;
}
"""
    program = assemble_text(src, "subnan")
    vals = np.array([0x3FF0000000000000, 0xFFF0000000000001, 0x7FF4000000000002, 0x8000000000000000], np.uint64)
    for run in (lambda b: launch(program, 1, 4, ["in", "out"], b, config=LaunchConfig()),
                lambda b: run_oracle(program, 1, 4, ["in", "out"], b)):
        res = run({"in": vals.view(np.float64).copy(), "out": np.zeros(64, np.uint64)})
        got = [int(v) for v in np.asarray(res.buffers["out"]).view(np.uint64)]
        assert got[:4] == [0xFFF8000000000000] * 4, [hex(v) for v in got[:4]]
        assert got[32:36] == [0xFFF8000000000001] * 4, [hex(v) for v in got[32:36]]
