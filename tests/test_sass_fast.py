"""The warp-wide SASS forms (engine/functional/sass_fast.py) give the lane-by-lane path's bits:
each form runs both ways on the same random registers (NaNs, infinities, denormals and integer
edges among them), with a partial mask, and the register files must be identical."""
from __future__ import annotations

import numpy as np
import pytest

from simt_sim.engine.functional.sass_fast import sass_alu_warp
from simt_sim.engine.functional.sass_ops import exec_sass
from simt_sim.frontend import sass_lower as L
from simt_sim.frontend.sass import ControlCodes, SassInstruction, SassKernel, split_operands
from simt_sim.isa import encoding as E
from simt_sim.machine.layout import G
from simt_sim.machine.state import Code, Memory, make_counters, make_regs

MASK = 0xF0F0FFFF               # lanes 4-7, 12-15 guarded off: they must keep their old values
PARAMS = np.array([0xBF800001, 0x00000007, 0x7F800000, 0x80000000], np.uint32)   # c[0x0][0x210..]

FAST_FORMS = [
    "FFMA R4, R2, R3, R5", "FFMA R4, -R2, |R3|, -R5", "FFMA R4, R2, c[0x0][0x210], R5",
    "FADD R4, R2, -c[0x0][0x218]", "FMUL R4, R2, 0.5", "FADD.FTZ R4, R2, R3", "FFMA.SAT R4, R2, R3, R5",
    "FMUL.RZ R4, R2, R3", "FADD R2, R2, R2", "FFMA RZ, R2, R3, R5",
    "IADD3 R4, R2, -R3, c[0x0][0x214]", "IADD3 R4, ~R2, R3, 0x7", "IADD3 R4, -R2, -R3, RZ",
    "IMAD R4, R2, R3, R5", "IMAD R4, R2, -R3, ~R5", "IMAD.U32 R4, R2, 0x7, -R5", "IMAD R4, R2, c[0x0][0x214], R5",
    "LOP3.LUT R4, R2, R3, R5, 0x96, !PT", "LOP3.LUT R4, ~R2, c[0x0][0x210], RZ, 0xc0, !PT",
    "MOV R4, c[0x0][0x21c]", "MOV R4, 0x3f800000", "MOV R4, R5",
]
LANE_BY_LANE_FORMS = [          # carries, wide / high words, predicate results: not warp-wide here
    "IADD3 R4, P0, R2, R3, RZ", "IADD3.X R4, R2, R3, RZ, P0, !PT", "IMAD.WIDE R4, R2, R3, R6",
    "IMAD.HI.U32 R4, R2, R3, R6", "LOP3.LUT P0, R4, R2, R3, R5, 0xfe, !PT", "FSETP.GT.AND P0, PT, R2, R3, PT",
]


def lowered(text: str):
    opcode, _, ops = text.partition(" ")
    inst = SassInstruction(0, "", opcode, split_operands(ops), (0, 0), ControlCodes(0, 0, None, None, 0, 0))
    b = L.RowBuilder(SassKernel("k", ()), "test.cubin:k")
    row = L.lower_instruction(b, inst)
    code = Code(row.reshape(1, -1), np.array(b.u64 or [0], np.uint64), np.zeros(1, np.float32),
                np.zeros(1, np.float64), np.zeros((0, E.VEC_WIDTH), np.int64), np.zeros((1, len(E.CALL_FIELDS)), np.int64), None, True, True)
    return code, row


def random_regs(seed: int):
    regs = make_regs(32, E.SASS_R_BASE + 8, 1, E.SASS_N_PRED)
    rng = np.random.default_rng(seed)
    special = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0x00000001,
                        0x807FFFFF, 0x3F800000, 0xFFFFFFFF, 0x7FFFFFFF, 0x00800000], np.uint32)
    values = rng.integers(0, 2**32, size=regs.r32.shape, dtype=np.uint64).astype(np.uint32)
    pick = rng.random(regs.r32.shape) < 0.3
    values[pick] = rng.choice(special, size=int(pick.sum()))
    regs.r32[:] = values
    return regs


def engine_args():
    mem = Memory(np.zeros(16, np.uint8), np.zeros((1, 3), np.int64), np.zeros(16, np.uint8),
                 np.zeros(16, np.uint8), PARAMS.view(np.uint8).copy())
    geom = np.zeros(len(G), np.int64)
    geom[G["warp_size"]] = 32
    return mem, geom, np.zeros(1, np.int64), make_counters()


@pytest.mark.parametrize("text", FAST_FORMS)
def test_warp_wide_forms_give_the_lane_by_lane_bits(text):
    code, row = lowered(text)
    op = int(row[E.F_OP])
    mem, geom, slot_block, counters = engine_args()
    for seed in range(4):
        fast, slow = random_regs(seed), random_regs(seed)
        before = fast.r32.copy()
        assert sass_alu_warp(code, fast, mem, row, op, MASK, 0, 32, 0, geom, slot_block, counters)
        assert exec_sass(code, slow, mem, row, op, 0, MASK, 0, geom, slot_block, counters)
        np.testing.assert_array_equal(fast.r32, slow.r32)
        off = [lane for lane in range(32) if not (MASK >> lane) & 1]
        np.testing.assert_array_equal(fast.r32[:, off], before[:, off])
        if not text.split()[1].startswith("RZ"):
            assert (fast.r32 != before).any(), "the form wrote nothing"


@pytest.mark.parametrize("text", LANE_BY_LANE_FORMS)
def test_other_forms_are_left_to_the_lane_by_lane_path(text):
    code, row = lowered(text)
    mem, geom, slot_block, counters = engine_args()
    regs = random_regs(0)
    before = regs.r32.copy()
    assert not sass_alu_warp(code, regs, mem, row, int(row[E.F_OP]), MASK, 0, 32, 0, geom, slot_block, counters)
    np.testing.assert_array_equal(regs.r32, before)


def test_a_negative_immediate_in_iadd3_x_is_its_twos_complement():
    """ptxas's 64-bit `add.s64 %rd, %rd, -768` becomes IADD3 R20, P0, R4, -0x300, RZ and
    IADD3.X R23, R5, -0x1, RZ, P0, !PT: the high word adds 0xFFFFFFFF and the carry, whereas a
    negated register in an .X form adds ~R (the carry brings the 1)."""
    mem, geom, slot_block, counters = engine_args()
    for text, other in (("IADD3.X R4, R2, -0x1, RZ, P0, !PT", lambda r3: 0xFFFFFFFF),
                        ("IADD3.X R4, R2, ~R3, RZ, P0, !PT", lambda r3: ~r3 & 0xFFFFFFFF)):
        code, row = lowered(text)
        regs = random_regs(1)
        regs.pred[0, :] = np.arange(32) % 2                  # P0: the carry in, odd lanes
        r2, r3 = regs.r32[E.SASS_R_BASE + 2].astype(np.int64), regs.r32[E.SASS_R_BASE + 3].astype(np.int64)
        assert exec_sass(code, regs, mem, row, int(row[E.F_OP]), 0, 0xFFFFFFFF, 0, geom, slot_block, counters)
        want = (r2 + other(r3) + np.arange(32) % 2) & 0xFFFFFFFF
        np.testing.assert_array_equal(regs.r32[E.SASS_R_BASE + 4], want.astype(np.uint32))
