"""Lowering of the SASS half, warp, tensor-core and async-copy families (sass_lower.py's LOWER table
points here).  Semantics: engine/functional/sass_half.py, sass_warp.py, sass_tensor.py; LDSM and
LDGSTS become the PTX rows ldmatrix and cp.async, whose memory semantics they share.

nvdisasm prints a packed-half immediate as two numbers, the high half first
(`HFMA2.MMA R2, -RZ, RZ, 1.875, 0` is 0x3f800000); `merge_half_immediates` joins them into one
32-bit immediate operand.
"""
from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from simt_sim.frontend import sass_rows as SL
from simt_sim.frontend.sass_modifiers import pick, picks
from simt_sim.isa import encoding as E

_NUMBER_RE = re.compile(r"^[+-]?(\d+\.?\d*(e[+-]?\d+)?|0x[0-9a-f]+|INF|QNAN|SNAN|NAN)$", re.I)   # +INF too
_HALF_NAN_RE = re.compile(r"^[+-]?(QNAN|SNAN|NAN)$", re.I)
HALF_DESTINATIONS = {"HADD2": 1, "HMUL2": 1, "HMNMX2": 1, "HSETP2": 2, "HFMA2": 1, "HSET2": 1, "VHMNMX": 1}
HMMA_SHAPES = {"16816": "m16n8k16", "1688": "m16n8k8"}
LDGSTS_SIZES = {"64": 8, "128": 16}


def half_bits(b: SL.RowBuilder, text: str, bf16: bool) -> int:
    """16-bit pattern of one printed half (a decimal value, or 0x.. raw bits)."""
    t = text.strip()
    if t.lower().startswith("0x") or t.lower().startswith("-0x"):
        return int(t, 16) & 0xFFFF
    value = SL.RowBuilder.float_bits(b, t, "f32")      # the exact float32 of the printed value
    if bf16:
        return (value >> 16) & 0xFFFF                  # a printed bf16 is exact in f32's upper half
    return int(np.float32(np.uint32(value).view(np.float32)).astype(np.float16).view(np.uint16))


def merge_half_immediates(b: SL.RowBuilder, texts: list[str], bf16: bool) -> list:
    """Operands with each (high, low) pair of printed half immediates joined into one operand.
    A NaN half (nvdisasm prints `-SNAN`, `+QNAN`: sign and kind, not the payload) takes its bits
    from the instruction's encoding, whose bits 32..63 hold the 32-bit packed immediate (checked:
    the printed numbers of the other half-immediate forms are those bits)."""
    out, k = [], 0
    while k < len(texts):
        if k + 1 < len(texts) and _NUMBER_RE.match(texts[k]) and _NUMBER_RE.match(texts[k + 1]):
            if _HALF_NAN_RE.match(texts[k]) or _HALF_NAN_RE.match(texts[k + 1]):
                hi, lo = encoded_half_pair(b, texts[k], texts[k + 1], bf16)
            else:
                hi, lo = half_bits(b, texts[k], bf16), half_bits(b, texts[k + 1], bf16)
            out.append(b.imm((hi << 16) | lo))
            k += 2
        else:
            out.append(texts[k])
            k += 1
    return out


def encoded_half_pair(b: SL.RowBuilder, hi_text: str, lo_text: str, bf16: bool) -> tuple[int, int]:
    """The (high, low) half immediates of a pair printed with a NaN, from the encoding's bits 32..63;
    each half must be what is printed (a NaN of that sign and kind: SNAN has the quiet bit clear,
    QNAN set; a number: its value), else the instruction is refused."""
    word = (b.inst.encoding[0] >> 32) & 0xFFFF_FFFF
    halves = ((word >> 16) & 0xFFFF, word & 0xFFFF)
    quiet = 0x0040 if bf16 else 0x0200
    exp_mask = 0x7F80 if bf16 else 0x7C00
    for bits, text in zip(halves, (hi_text, lo_text)):
        m = _HALF_NAN_RE.match(text)
        if m is None:
            ok = bits == half_bits(b, text, bf16)
        else:
            kind = m.group(1).upper()
            is_nan = (bits & exp_mask) == exp_mask and (bits & ~(exp_mask | 0x8000)) != 0
            ok = is_nan and bool(bits & 0x8000) == text.startswith("-") and \
                (kind == "NAN" or bool(bits & quiet) == (kind == "QNAN"))
        if not ok:
            raise b.error(f"half immediates {hi_text}, {lo_text}: the encoding's immediate {word:#010x} does not "
                          "match the printed values")
    return halves


def lower_half(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """HFMA2 / HADD2 / HMUL2 / HMNMX2 / HSETP2: destinations, then packed sources."""
    mods = inst.modifiers
    bf16 = "BF16_V2" in mods
    ndst = HALF_DESTINATIONS[family]
    ops = []
    for k, item in enumerate(merge_half_immediates(b, list(inst.operands), bf16)):
        if isinstance(item, tuple):
            ops.append(item)
        elif _NUMBER_RE.match(item):                 # a lone immediate: one half, in the low bits
            ops.append(b.imm(half_bits(b, item, bf16)))
        else:
            ops.append(b.operand(item, number="f16", dest=k < ndst))
            if ops[-1][3] & E.OM_H0_NH1 and ops[-1][3] & E.OM_ABS:
                raise b.error(f"operand {item!r}: |x| of a .H0_NH1 pair (which half's sign goes first) is not understood")
    return b.row(E.SASS_OPCODE[family], ops, ndst=ndst, F_FLAGS=SL.sass_flags(mods),
                 **SL._compare_fields(b, family, mods))


def lower_f2fp(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """F2FP.{F16,BF16}.F32.PACK_AB[.RZ][.RELU] d, a, b (the only forms nvcc 13 emits for sm_90 here)."""
    mods = inst.modifiers
    if "PACK_AB" not in mods or "F32" not in mods:
        raise b.error("only F2FP.{F16,BF16}.F32.PACK_AB is supported")
    ops = [b.operand(t, number="f32", dest=k == 0) for k, t in enumerate(inst.operands)]
    fields = {"F_TYPE": pick(mods, {"BF16": E.T_BF16, "F16": E.T_F16}, E.T_F16)}
    rnd = pick(mods, SL.ROUNDING)
    if rnd is not None:
        fields["F_RND"] = rnd
    return b.row(E.SASS_OPCODE[family], ops, ndst=1, F_FLAGS=SL.sass_flags(mods), **fields)


def lower_match(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """MATCH.ANY d, a / MATCH.ALL [P,] d, a (.U64: a is a register pair)."""
    mods = inst.modifiers
    mode = "any" if "ANY" in mods else "all" if "ALL" in mods else None
    if mode is None:
        raise b.error("MATCH without .ANY or .ALL")
    texts = list(inst.operands)
    ndst = len(texts) - 1
    ops = [b.operand(t, dest=True) for t in texts[:ndst]]
    src = SL._wide(b, texts[-1]) if ("U64" in mods or "64" in mods) else b.operand(texts[-1])
    return b.row(E.SASS_OPCODE[family], ops + [src], ndst=ndst, F_CMP=E.MATCH_CODE[mode])


REDUX_OPS = {"SUM": "add", "MIN": "min", "MAX": "max", "AND": "and", "OR": "or", "XOR": "xor"}


def lower_redux(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """REDUX[.SUM|.MIN|.MAX|.OR|.XOR][.S32] d, a (no operation word: .AND)."""
    mods = inst.modifiers
    op = pick(mods, REDUX_OPS, "and")     # nvdisasm prints .AND as plain REDUX
    ops = [b.operand(inst.operands[0], dest=True), b.operand(inst.operands[1])]
    return b.row(E.SASS_OPCODE[family], ops, ndst=1, F_CMP=E.REDUX_CODE[op],
                 F_TYPE=E.T_S32 if "S32" in mods else E.T_U32)


def lower_hmma(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """HMMA.{16816,1688}.{F32,F16}[.BF16] D, A, B, C: each operand a fragment's first register."""
    mods = inst.modifiers
    shape = pick(mods, HMMA_SHAPES)
    if shape is None:
        raise b.error(f"HMMA shape {'.'.join(mods)} is not supported (16816, 1688)")
    f16, f32 = "F16" in mods, "F32" in mods          # both asked, so both are consumed
    acc = E.T_F16 if f16 and not f32 else E.T_F32
    if acc == E.T_F16 and "BF16" in mods:
        raise b.error("HMMA with bf16 inputs and an f16 accumulator does not exist")
    ops = [b.operand(t, dest=k == 0) for k, t in enumerate(inst.operands)]
    return b.row(E.SASS_OPCODE[family], ops, ndst=1, F_CMP=E.SHAPE_CODE[shape], F_TYPE=acc,
                 F_TYPE2=E.T_BF16 if "BF16" in mods else E.T_F16)


def lower_fragment_op(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """DMMA.8x8x4 D, A, B, C and MOVM.16.MT88 D, A."""
    if family == "DMMA" and "8x8x4" not in inst.modifiers:
        raise b.error("only DMMA.8x8x4 is supported")
    if family == "MOVM" and inst.modifiers != ("16", "MT88"):
        raise b.error("only MOVM.16.MT88 is supported")
    ops = [b.operand(t, dest=k == 0) for k, t in enumerate(inst.operands)]
    return b.row(E.SASS_OPCODE[family], ops, ndst=1,
                 F_CMP=E.SHAPE_M8N8K4 if family == "DMMA" else 0)


def lower_ldsm(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """LDSM.16.{M88,MT88}.{1,2,4} D, [a] -> ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16."""
    mods = inst.modifiers
    count = pick(mods, {"1": 1, "2": 2, "4": 4}, 1)
    if "16" not in mods or not ("M88" in mods or "MT88" in mods):
        raise b.error("only LDSM.16.M88 / LDSM.16.MT88 are supported")
    kind, first, _, _ = b.operand(inst.operands[0], dest=True)
    if kind != E.K_R32:
        raise b.error("LDSM needs destination registers")
    return b.row(E.OP_LDMATRIX, [b.vec([first + j for j in range(count)]), b.address(inst.operands[1])], ndst=1,
                 F_VEC=count, F_FLAGS=E.FL_TRANS if "MT88" in mods else 0, F_SPACE=E.SP_SHARED,
                 F_TYPE=E.TYPE_CODE["b16"], F_CMP=E.SHAPE_CODE["m8n8"])


def lower_ldgsts(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """LDGSTS.E[.BYPASS][.64|.128][.ZFILL] [shared], [global][, P] -> cp.async of 4, 8 or 16 bytes.
    .ZFILL (cp.async with a src-size): ptxas adds size - src_size to the source address, and the
    hardware reads src_size bytes from the aligned address and zero-fills the rest; a false P
    (a run-time src-size of 0) zero-fills all (checked with ptxas 13.0: src-size 12 of 16 -> +0x4,
    2 of 8 -> +0x6, a register src-size n -> +((16 - n) & 15) and P = n != 0)."""
    mods = inst.modifiers
    texts = [t for t in inst.operands if t != "PT"]
    zfill = "ZFILL" in mods
    if len(texts) != 2 and not (zfill and len(texts) == 3):
        raise b.error("LDGSTS takes a shared and a global address (.ZFILL: and a predicate)")
    size = pick(mods, LDGSTS_SIZES, 4)
    dst, src = b.address(texts[0]), b.address(texts[1])
    k, i, _, _ = b.imm(size)
    ops = [dst, src, (k, i, 0, E.TYPE_CODE["u32"])]
    if len(texts) == 3:
        ops.append(b.operand(texts[2]))
        if ops[-1][0] != E.K_PRED:
            raise b.error(f"LDGSTS.ZFILL's last operand {texts[2]!r} is not a predicate")
    flags = (E.FL_L1_BYPASS if "BYPASS" in mods else 0) | (E.FL_ZFILL if zfill else 0)
    return b.row(E.OP_CP_ASYNC, ops, F_SPACE=E.SP_GLOBAL, F_FLAGS=flags,   # the timing model reads size bytes
                 F_TYPE=E.TYPE_CODE["b32"], F_VEC=size // 4)


def lower_frnd(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """FRND[.F64][.FLOOR|.CEIL|.TRUNC][.FTZ] d, a: round to an integral float (plain: to nearest
    even); .F64 reads and writes register pairs."""
    mods = inst.modifiers
    f64 = "F64" in mods
    def f64_operand(t, dest):               # FRND.F64.FLOOR R4, +QNAN: an immediate is a double
        op = b.operand(t, number="f64", dest=dest)
        return (E.K_RPAIR,) + tuple(op[1:]) if op[0] == E.K_R32 else op
    ops = [f64_operand(t, k == 0) if f64 else b.operand(t, number="f32", dest=k == 0)
           for k, t in enumerate(inst.operands)]
    rnd = pick(mods, SL.ROUNDING, E.RND_RN)
    return b.row(E.SASS_OPCODE[family], ops, ndst=1, F_FLAGS=SL.sass_flags(mods), F_RND=rnd,
                 F_TYPE=E.T_F64 if f64 else E.T_F32)


def lower_i2i(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """I2I.<dst>.<src>[.SAT] d, a (I2I.S8.S32.SAT: cvt.sat.s8.s32)."""
    words = picks(inst.modifiers, E.SASS_TYPE_CODE)
    if len(words) != 2:
        raise b.error("I2I needs a destination and a source type")
    ops = [b.operand(t, dest=k == 0) for k, t in enumerate(inst.operands)]
    return b.row(E.SASS_OPCODE[family], ops, ndst=1, F_FLAGS=SL.sass_flags(inst.modifiers),
                 F_TYPE=E.SASS_TYPE_CODE[words[0]], F_TYPE2=E.SASS_TYPE_CODE[words[1]])


IDP_KINDS = {"4A": E.OP_DP4A, "2A": E.OP_DP2A}


def lower_idp(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """IDP.4A.<a>.<b> d, a, b, c (dp4a) and IDP.2A.{LO,HI}.<a>.<b> d, a, b, c (dp2a): F_CMP holds
    the PTX opcode whose arithmetic it is (alu.dot_bytes), F_TYPE a's type, F_TYPE2 b's."""
    mods = inst.modifiers
    kind = pick(mods, IDP_KINDS)
    words = picks(mods, E.SASS_TYPE_CODE)
    if kind is None or len(words) != 2:
        raise b.error("IDP needs .4A or .2A and the types of a and b")
    ops = [b.operand(t, dest=k == 0) for k, t in enumerate(inst.operands)]
    return b.row(E.SASS_OPCODE[family], ops, ndst=1, F_CMP=kind, F_FLAGS=E.SM_HI if "HI" in mods else 0,
                 F_TYPE=E.SASS_TYPE_CODE[words[0]], F_TYPE2=E.SASS_TYPE_CODE[words[1]])


P2R_BYTES = {"B1": 1, "B2": 2, "B3": 3}


def lower_p2r(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """P2R[.B1|.B2|.B3] d, PR, b, mask.  nvdisasm -json reports `PR` as the instruction's guard
    (`PR P2R R9, R8, 0xf`); either way it is the whole predicate file, no operand of the row."""
    operands = tuple(t for t in inst.operands if t not in ("PR", "UPR"))
    inst = replace(inst, predicate="" if inst.predicate in ("PR", "UPR") else inst.predicate, operands=operands)
    b.inst = inst
    if len(operands) != 3:
        raise b.error("P2R needs a destination, a register and a mask")
    ops = [b.operand(t, dest=k == 0) for k, t in enumerate(operands)]
    byte = pick(inst.modifiers, P2R_BYTES, 0)
    return b.row(E.SASS_OPCODE[family], ops, ndst=1, F_VEC=byte)


def lower_r2p(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """R2P[.B1|.B2|.B3] PR, b, mask: P_i = bit i of byte F_VEC of b, for the bits i (0..6) of mask.
    `PR` (the whole predicate file, an operand or, as nvdisasm -json may print it, the guard) is
    no operand of the row; the row has no destination register."""
    byte = pick(inst.modifiers, P2R_BYTES, 0)
    has_pr = "PR" in inst.operands or inst.predicate == "PR"
    operands = tuple(t for t in inst.operands if t != "PR")
    if inst.predicate == "PR":
        inst = replace(inst, predicate="", operands=operands)
        b.inst = inst
    if not has_pr or len(operands) != 2:
        raise b.error("R2P needs PR, a register and a mask")
    return b.row(E.SASS_OPCODE[family], [b.operand(t) for t in operands], ndst=0, F_VEC=byte)


def lower_qspc(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """QSPC.E.{S|D} P, RZ, [Ra]: isspacep.shared of the 64-bit generic address Ra:Ra+1, as the PTX
    isspacep row (engine/functional/execute.py: in_space)."""
    space = pick(inst.modifiers, {"S": E.SP_SHARED, "D": E.SP_SHARED})
    ops = inst.operands
    m = re.match(r"^\[(R\d+)\]$", ops[2]) if len(ops) == 3 else None
    if "E" not in inst.modifiers or space is None or m is None or ops[1] != "RZ":
        raise b.error("QSPC is understood as QSPC.E.S / QSPC.E.D P, RZ, [Rn] only")
    kind, idx, _, _ = b.operand(ops[0], dest=True)
    dest = (kind, idx, 0, E.T_PRED) if kind == E.K_PRED else (E.K_NONE, -1, 0, 0)
    reg = b.register(m.group(1))
    return b.row(E.OP_ISSPACEP, [dest, (E.K_RPAIR, reg[1], 0, E.TYPE_CODE["u64"])], ndst=1, F_SPACE=space)


def lower_vabsdiff4(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """VABSDIFF4.U8[.ACC] d, a, b, c: F_CMP 1 with .ACC (d = c + the sum of the byte differences),
    0 without (d = the bytes |a_i - b_i|; c is unused, as PTX's vabsdiff4 with its default mask)."""
    if "U8" not in inst.modifiers:
        raise b.error("VABSDIFF4 without .U8 (the byte type) is not understood")
    acc = "ACC" in inst.modifiers
    if len(inst.operands) != 4:
        raise b.error("VABSDIFF4 needs a destination and three sources")
    ops = [b.operand(t, dest=k == 0) for k, t in enumerate(inst.operands)]
    return b.row(E.SASS_OPCODE[family], ops, ndst=1, F_CMP=1 if acc else 0)


def lower_exit(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """EXIT [P]: the PTX exit row; `@P0 EXIT P1` (a loop's exit test folded into the EXIT) exits
    the guarded lanes where P1 holds too (engine/functional/execute.py: predicate_lanes)."""
    operands = [t for t in inst.operands if t != "PT"]
    if not operands:
        return b.row(E.OP_EXIT, [])
    kind, idx, neg, mods = b.operand(operands[0])
    if len(operands) > 1 or kind != E.K_PRED:
        raise b.error("EXIT takes at most one predicate operand (P0..P6, UP0..UP6, negated or not)")
    return b.row(E.OP_EXIT, [(kind, idx, neg, mods)])


def lower_depbar(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """DEPBAR.LE SBn, N (cp.async.wait_group N): F_CMP = the scoreboard n, one immediate operand N,
    also in F_VEC for the timing model (which waits until at most N copy groups are incomplete).
    The copies' data are written at issue (execute.exec_cp_async); their timing is the memory
    model's (a copy's group completes when its data arrive)."""
    texts = list(inst.operands)
    board = 0
    if texts and re.match(r"^SB\d$", texts[0]):
        board = int(texts.pop(0)[2:])
    counts = [t for t in texts if not t.startswith("{")]
    ops = [b.operand(t) for t in counts]
    keep = int(counts[0], 0) if counts and re.match(r"^(0x[0-9a-f]+|\d+)$", counts[0]) else 0
    return b.row(E.SASS_OPCODE[family], ops, F_CMP=board, F_VEC=keep)


def lower_bpt(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """BPT.TRAP code: PTX's trap (the kernel stops with a trap error), as __trap() and -G code's
    stack-limit check (ISETP.GE.U32 P0, PT, R1, SR_LMEMHIOFF; BPT.TRAP where R1 went below it) use it."""
    if "TRAP" not in inst.modifiers or not all(SL._int_literal(t) is not None for t in inst.operands):
        raise b.error("only BPT.TRAP with an immediate code is supported")
    return b.row(E.OP_TRAP, [])


def lower_no_operands(b: SL.RowBuilder, inst, family: str) -> np.ndarray:
    """CCTL.IVALL and ENDCOLLECTIVE: rows without operands or results."""
    return b.row(E.SASS_OPCODE[family], [])


LOWER_MORE = {"HFMA2": lower_half, "HADD2": lower_half, "HMUL2": lower_half, "HMNMX2": lower_half, "HSETP2": lower_half,
              "HSET2": lower_half, "FRND": lower_frnd, "I2I": lower_i2i, "IDP": lower_idp, "P2R": lower_p2r, "R2P": lower_r2p, "QSPC": lower_qspc, "VABSDIFF4": lower_vabsdiff4, "UP2UR": lower_p2r, "VHMNMX": lower_half,
              "CCTL": lower_no_operands, "ENDCOLLECTIVE": lower_no_operands, "EXIT": lower_exit,
              "DEPBAR": lower_depbar, "BPT": lower_bpt,
              "F2FP": lower_f2fp, "MATCH": lower_match, "REDUX": lower_redux, "HMMA": lower_hmma,
              "DMMA": lower_fragment_op, "MOVM": lower_fragment_op, "LDSM": lower_ldsm, "LDGSTS": lower_ldgsts}
