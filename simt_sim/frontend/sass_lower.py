"""SASS -> the engine's instruction rows: one row per SASS instruction, so that warp- and
thread-instruction counts are the hardware's.

Memory, barrier and exit families are lowered to the PTX rows whose semantics they share (LDG.E.64
is `ld.global.v2.b32` of two adjacent registers, BAR.SYNC is `bar.sync`), so the coalescing, cache
and fault machinery serve both ISAs; every other family becomes a SASS row (opcode
E.SASS_OPCODE[family]) executed by engine/functional/sass_*.py, with its modifiers as flags
(E.SM_*), its destinations first (F_NDST of them) and each source's modifiers (-, |.|, ~, .H1)
in the operand's type field (E.OM_*).

The kernel's metadata (parameters and their offsets, shared and local variables, module globals)
comes from the PTX that ptxas compiled, assembled as usual; SASS reads parameters from constant
bank 0 (c[0x0][0x210 + offset] on sm_90), which the engine serves from the parameter block.
"""
from __future__ import annotations

import re
import struct
from dataclasses import replace

import numpy as np

from simt_sim.errors import InputError, SourceLoc
from simt_sim.frontend.assembler import Program
from simt_sim.frontend.sass import ControlCodes, SassInstruction, SassKernel
from simt_sim.frontend.sass_banks import ConstantBanks
from simt_sim.frontend.sass_modifiers import checked_lowering, flags_of, pick, picks
from simt_sim.isa import encoding as E
from simt_sim.isa.sass_table import sass_table
from simt_sim.isa.table import ISAS
# the row builder and the tables it shares with sass_lower_more.py
from simt_sim.frontend.sass_rows import (  # noqa: F401  (re-exported: callers import them from here)
    NCU_PIPE_OF_SASS, PIPE_UNIT, SREG, SREG_WORD, SREG_CONSTANT, SHARED_RESERVED, INT_CMP, FLOAT_CMP,
    MEM_TYPES, ATOM_OPS, ROUNDING, SELECTORS, SELECTOR_BITS, HALF_PAIR_FAMILIES, SELECTOR_USERS,
    _REG_RE, _PRED_RE, _CONST_RE, _FLOAT_RE, _RELOC_RE, SassLoweringError, RowBuilder,
    _is_uniform_register, sass_flags, _wide, DSETP_CMP, _compare_fields, _int_literal)
from simt_sim.frontend.sass_lower_more import LOWER_MORE


def lower_memory(b: RowBuilder, inst: SassInstruction, family: str) -> np.ndarray:
    mods = inst.modifiers
    space = {"LDG": "global", "STG": "global", "LDS": "shared", "STS": "shared", "LDL": "local",
             "STL": "local", "LD": "generic", "ST": "generic"}[family]
    width = next((w for w in ("U8", "S8", "U16", "S16", "64", "128") if w in mods), None)
    ty = E.TYPE_CODE[MEM_TYPES.get(width, "b32")]
    nvec = {"64": 2, "128": 4}.get(width, 1)
    load = family.startswith("LD")
    ops = inst.operands
    value_text, addr_text = (ops[0], ops[1]) if load else (ops[1], ops[0])
    addr = b.address(addr_text)
    value = _value_registers(b, value_text, nvec, dest=load)
    scope = pick(mods, ("GPU", "SYS", "SM", "CTA"))      # of a .STRONG access: GPU and SYS bypass the L1
    flags = E.FL_L1_BYPASS if "STRONG" in mods and scope in ("GPU", "SYS") else 0
    op = E.OP_LD if load else E.OP_ST
    operands = [value, addr] if load else [addr, value]
    return b.row(op, operands, ndst=1 if load else 0, F_TYPE=ty, F_SPACE=E.SPACE_CODE[space], F_VEC=nvec,
                 F_FLAGS=flags)


def _value_registers(b: RowBuilder, text: str, n: int, dest: bool):
    kind, idx, imm, mods = b.operand(text, dest=dest)
    if n == 1:
        return kind, idx, imm, E.TYPE_CODE["b32"]
    if kind == E.K_NONE or (kind == E.K_IMM and not dest):       # RZ: n zero words
        zero = E.VEC_IMM | b.imm(0)[1]
        return b.vec([-1 if dest else zero] * n)
    if kind not in (E.K_R32, E.K_RPAIR):
        raise b.error(f"vector operand {text!r} is not a register")
    return b.vec([idx + j for j in range(n)])


def lower_atomic(b: RowBuilder, inst: SassInstruction, family: str) -> np.ndarray:
    """ATOMG / ATOMS / ATOM (PT, d, [a], b[, c]) and REDG / RED ([a], b) -> atom / red rows (ATOM
    and RED: a generic address, a register pair, resolved by its window as PTX's generic atom)."""
    mods = inst.modifiers
    if "CAST" in mods or "POPC" in mods:
        return lower_atomic_special(b, inst, family)
    aop = pick(mods, ATOM_OPS)
    if aop is None:
        raise b.error("atomic without a known operation")
    wide = "64" in mods or "S64" in mods or "U64" in mods     # ATOMG.E.MIN.S64 names no plain .64
    if "F32" in mods:
        ty = "f32"
    elif "F64" in mods:
        ty = "f64"
    elif "S32" in mods:
        ty = "s32"
    elif "S64" in mods:
        ty = "s64"
    else:
        ty = "u64" if wide else "u32"
    if picks(mods, ("U32", "U64")) and ty not in ("u32", "u64"):
        raise b.error(f"an unsigned word with a {ty} atomic")
    if ty in ("f32", "f64") and aop == "add" and not ("RN" in mods and ("FTZ" in mods or ty == "f64")):
        # the simulated float atomic add rounds to nearest, and its f32 form flushes subnormals (atom.add.f32)
        raise b.error(f"a {ty} atomic add without .{'FTZ.' if ty == 'f32' else ''}RN is not simulated")
    space = {"ATOMS": "shared", "ATOM": "generic", "RED": "generic"}.get(family, "global")
    ops = list(inst.operands)
    if ops and _PRED_RE.match(ops[0].lstrip("!")):
        ops = ops[1:]                       # the unused predicate result
    as_value = (lambda t: _wide(b, t)) if wide or ty == "f64" else (lambda t: b.operand(t))
    fields = dict(F_TYPE=E.TYPE_CODE[ty], F_SPACE=E.SPACE_CODE[space], F_CMP=E.ATOM_CODE[aop], F_VEC=1)
    address = b.address if space == "shared" else (lambda t: _global_address(b, t))
    if family in ("REDG", "RED"):
        return b.row(E.OP_RED, [address(ops[0]), _typed(as_value(ops[1]), ty)], **fields)
    dest = _wide(b, ops[0], dest=True) if (wide or ty == "f64") else b.operand(ops[0], dest=True)
    srcs = [_typed(as_value(t), ty) for t in ops[2:]]
    return b.row(E.OP_ATOM, [_typed(dest, ty), address(ops[1]), *srcs], ndst=1, **fields)


def lower_atomic_special(b: RowBuilder, inst: SassInstruction, family: str) -> np.ndarray:
    """The two shared-memory atomics with no PTX spelling:
    - `ATOMS.POPC.INC.32 RZ, [a]`: ptxas's atomicAdd(p, 1) with the result unused; every active
      lane adds 1 (the hardware adds the population count of the lanes naming each address at
      once).  An atom.add of the constant 1; a used result is refused (ptxas uses ATOMS.ADD then).
    - `ATOMS.CAST.SPIN[.64] Rd, [a], Rcmp, Rnew`: the compare-and-store of ptxas's loop for atomics
      the shared memory has no operation for (float / double add, 64-bit add, min, max, or): where
      the word (pair) at a equals Rcmp it becomes Rnew; Rd (.64: the pair) is 1 where it stored, 0
      where not.  An atom.cas on the bits with E.FL_CAST."""
    mods = inst.modifiers
    ops = list(inst.operands)
    if family == "ATOM" and "CAST" in mods and "E" in mods and ops[:1] == ["PT"]:
        return _generic_cast_spin(b, inst, ops[1:])
    if family != "ATOMS":
        raise b.error(f"{'.'.join(m for m in mods if m in ('CAST', 'SPIN', 'POPC'))} on {family} "
                      "(only ATOMS has it here)")
    if "POPC" in mods:
        if "INC" not in mods or len(ops) != 2 or picks(mods, ("POPC", "INC", "32")) != list(mods):
            raise b.error("only ATOMS.POPC.INC.32 RZ, [a] is supported of the .POPC atomics")
        if ops[0] != "RZ":
            raise b.error("ATOMS.POPC.INC with a result register: its returned value is not modelled")
        u32 = E.TYPE_CODE["u32"]
        one = b.imm(1)
        return b.row(E.OP_ATOM, [(E.K_NONE, -1, 0, u32), b.address(ops[1]), (one[0], one[1], 0, u32)], ndst=1,
                     F_TYPE=u32, F_SPACE=E.SPACE_CODE["shared"], F_CMP=E.ATOM_CODE["add"], F_VEC=1)
    if not ("CAST" in mods and "SPIN" in mods) or picks(mods, ("CAST", "SPIN", "64")) != list(mods) or len(ops) != 4:
        raise b.error("only ATOMS.CAST.SPIN[.64] Rd, [a], Rcmp, Rnew is supported of the .CAST atomics")
    wide = "64" in mods
    ty = "u64" if wide else "u32"
    value = (lambda t, dest=False: _wide(b, t, dest)) if wide else (lambda t, dest=False: b.operand(t, dest=dest))
    return b.row(E.OP_ATOM, [_typed(value(ops[0], True), ty), b.address(ops[1]), _typed(value(ops[2]), ty),
                             _typed(value(ops[3]), ty)], ndst=1,
                 F_TYPE=E.TYPE_CODE[ty], F_SPACE=E.SPACE_CODE["shared"], F_CMP=E.ATOM_CODE["cas"], F_VEC=1,
                 F_FLAGS=E.FL_CAST)


def _generic_cast_spin(b: RowBuilder, inst: SassInstruction, ops: list[str]) -> np.ndarray:
    """`ATOM.E.CAST.SPIN[.64] PT, Rd, [Ra], Rcmp, Rnew` (-G code's float / 64-bit atomics on a
    generic pointer found to be shared): ATOMS.CAST.SPIN's compare-and-store at the generic
    address Ra:Ra+1, resolved by its window."""
    mods = inst.modifiers
    if not ("SPIN" in mods) or picks(mods, ("E", "CAST", "SPIN", "64")) != list(mods) or len(ops) != 4:
        raise b.error("only ATOM.E.CAST.SPIN[.64] PT, Rd, [a], Rcmp, Rnew is supported of the generic .CAST atomics")
    ty = "u64" if "64" in mods else "u32"
    value = (lambda t, dest=False: _wide(b, t, dest)) if ty == "u64" else (lambda t, dest=False: b.operand(t, dest=dest))
    return b.row(E.OP_ATOM, [_typed(value(ops[0], True), ty), _global_address(b, ops[1]), _typed(value(ops[2]), ty),
                             _typed(value(ops[3]), ty)], ndst=1,
                 F_TYPE=E.TYPE_CODE[ty], F_SPACE=E.SPACE_CODE["generic"], F_CMP=E.ATOM_CODE["cas"], F_VEC=1,
                 F_FLAGS=E.FL_CAST)


def _global_address(b: RowBuilder, text: str) -> tuple[int, int, int, int]:
    """A global atomic's address: nvdisasm prints ATOMG.CAS's as `[R24]`, but a global address
    register is always a 64-bit pair (R24:R25, made by the IMAD.WIDE before it)."""
    kind, base, offset, mods = b.address(text)
    if base >= 0 and (base >> E.ADDR_FILE_SHIFT) & E.ADDR_FILE_MASK == E.ADDR_R32:
        base = (base & ~(E.ADDR_FILE_MASK << E.ADDR_FILE_SHIFT)) | (E.ADDR_RPAIR << E.ADDR_FILE_SHIFT)
    return kind, base, offset, mods


def _typed(operand, ty: str):
    kind, idx, imm, _ = operand
    return kind, idx, imm, E.TYPE_CODE[ty]


def lower_bar(b: RowBuilder, inst: SassInstruction, family: str) -> np.ndarray:
    mods = inst.modifiers
    ops = [b.operand(t) for t in inst.operands] or [b.imm(0)]
    for k, (kind, idx, imm, _) in enumerate(ops):
        ops[k] = (kind, idx, imm, E.TYPE_CODE["u32"])
    return b.row(E.OP_BAR, ops, F_FLAGS=E.FL_ARRIVE if "ARV" in mods else 0, F_CMP=E.BARRED_NONE)


def lower_shfl(b: RowBuilder, inst: SassInstruction, family: str) -> np.ndarray:
    """SHFL.<mode> Pd, Rd, a, lane, clamp -> the PTX shfl.sync row (same lane / clamp packing)."""
    mode = pick(inst.modifiers, {m.upper(): m for m in E.SHFL_CODE})
    if mode is None:
        raise b.error("SHFL without a known mode")
    pd, d, *srcs = inst.operands
    pkind, pidx, _, _ = b.operand(pd, dest=True)
    b32 = E.TYPE_CODE["b32"]
    ops = [_typed(b.operand(d, dest=True), "b32")] + [_typed(b.operand(t), "b32") for t in srcs]
    return b.row(E.OP_SHFL, ops, ndst=1, F_CMP=E.SHFL_CODE[mode], F_TYPE=b32,
                 F_DST2=pidx if pkind == E.K_PRED else -1)


# How many leading operands of each SASS family are destinations (the rest are sources).
DESTINATIONS = {"ISETP": 2, "FSETP": 2, "DSETP": 2, "HSETP2": 2, "UISETP": 2, "PLOP3": 2, "UPLOP3": 2, "VOTE": 2,
                "SHFL": 2, "IADD3": 3, "UIADD3": 3, "LEA": 2, "ULEA": 2, "IMAD": 2, "UIMAD": 2,
                "MATCH": 2, "BSSY": 0, "BSYNC": 0, "BREAK": 0, "WARPSYNC": 0, "BRA": 0, "NOP": 0,
                "EXIT": 0, "DEPBAR": 0, "LDGDEPBAR": 0, "MEMBAR": 0, "ERRBAR": 0, "CGAERRBAR": 0,
                "YIELD": 0, "BPT": 0, "CALL": 0, "RET": 0}
PRED_CARRY_FAMILIES = ("IADD3", "UIADD3", "LEA", "ULEA", "IMAD", "UIMAD")
NUMBER_KIND = {"float_arith": "f32", "fp64_arith": "f64"}


def lower_generic(b: RowBuilder, inst: SassInstruction, family: str) -> np.ndarray:
    """A SASS row: destinations first, sources with their modifiers in the type field."""
    op = E.SASS_OPCODE[family]
    entry = sass_table().by_name[family]
    number = NUMBER_KIND.get(entry.semantics, "f32" if family in ("FSEL", "FSETP", "FSET", "FMNMX", "MUFU") else "int")
    if family in ("F2I", "F2F"):                # F2I.TRUNC.NTZ R0, 3.5: a float immediate, in the source's format
        src = _type_fields(family, inst.modifiers)["F_TYPE2"]
        number = {E.T_F64: "f64", E.T_F16: "f16", E.T_BF16: "bf16"}.get(src, "f32")
    if family in ("DSETP",):
        number = "f64"
    if family == "MUFU" and ("RCP64H" in inst.modifiers or "RSQ64H" in inst.modifiers):
        number = "f64hi"                        # MUFU.RCP64H R2, 1e+300: the upper word of the double
    texts = list(inst.operands)
    ndst = _destination_count(family, texts)
    ops = []
    for k, t in enumerate(texts):
        dest = k < ndst
        if family in ("DADD", "DMUL", "DFMA", "DSETP", "DMNMX") and not t.startswith("c[") and _REG_RE.match(t.split(".")[0].strip("-|")):
            ops.append(_wide(b, t, dest))
        else:
            ops.append(b.operand(t, number=number, dest=dest))
    mods = inst.modifiers
    types = _type_fields(family, mods)
    _widen_pairs(family, mods, types, ops, ndst)
    if family in ("I2F", "F2I", "F2F") and types["F_TYPE2"] in (E.T_S64, E.T_U64) and ops[1][0] == E.K_IMM:
        # a 64-bit integer source's 32-bit immediate is its upper word, as a DADD's (checked on the
        # encoding: `I2F.S64.RZ R9, -0x80000000` is cvt.rz.f32.s64 of -2^63)
        b.u64[ops[1][1]] = (b.u64[ops[1][1]] & 0xFFFF_FFFF) << 32
    halves = pick(mods, PACKED16.get(family, {}))
    if family == "VIMNMX" and "RELU" in mods and (halves is not None or "U32" in mods):
        raise b.error(".RELU with unsigned or packed 16-bit data is not understood (only VIMNMX.RELU of signed words)")
    if halves is not None:              # VIADD.16x2 / VIMNMX.U16x2 / .S16x2: F_VEC 2, half by half
        types = {"F_TYPE": E.SASS_TYPE_CODE[halves], "F_VEC": 2}
    return b.row(op, ops, ndst=ndst, F_FLAGS=sass_flags(mods), **_compare_fields(b, family, mods), **types)


# packed 16-bit forms: the modifier -> the signedness of the halves (F_TYPE), F_VEC = 2
PACKED16 = {"VIADD": {"16x2": "U32"}, "VIMNMX": {"U16x2": "U32", "S16x2": "S32"},
            "VIMNMX3": {"U16x2": "U32", "S16x2": "S32"}}


WIDE_TYPES = (E.T_F64, E.T_U64, E.T_S64)


def _widen_pairs(family: str, mods: tuple[str, ...], types: dict, ops: list, ndst: int) -> None:
    """Operands that hold 64 bits become register pairs: IMAD.WIDE's result and addend, CS2R's clock, and the
    64-bit side of a conversion."""
    def pair(k):
        if k < len(ops) and ops[k][0] == E.K_R32:
            ops[k] = (E.K_RPAIR,) + tuple(ops[k][1:])
    if family in ("IMAD", "UIMAD") and "WIDE" in mods:
        pair(0)
        pair(ndst + 2)
    if family in ("IMAD", "UIMAD") and "HI" in mods:
        pair(ndst + 2)
    if family == "CS2R" and "32" not in mods:       # CS2R Rd, SR_CLOCKLO: the 64-bit clock in Rd, Rd+1
        pair(0)
    if family in ("I2F", "F2I", "F2F"):
        if types["F_TYPE"] in WIDE_TYPES:
            pair(0)
        if types["F_TYPE2"] in WIDE_TYPES:
            pair(1)


def _destination_count(family: str, texts: list[str]) -> int:
    """Leading destinations: IADD3 R4, P0, P1, a, b, c and LEA R2, P0, a, b, s put their carries
    out right after the result (a predicate at the end is a carry in, a source)."""
    if family in ("VOTE", "VOTEU"):             # [Rd,] Pd, Psrc
        return len(texts) - 1
    if family in ("LOP3", "ULOP3"):             # LOP3.LUT [P0,] R0, a, b, c, lut, p
        return 2 if _PRED_RE.match(texts[0]) else 1
    if family in PRED_CARRY_FAMILIES:
        n = 1
        while n < len(texts) and _PRED_RE.match(texts[n]) and n < len(texts) - 2:
            n += 1
        return n
    return DESTINATIONS.get(family, 1)


def _type_fields(family: str, mods: tuple[str, ...]) -> dict:
    """Source and destination types of conversions, integer signedness of the rest."""
    words = picks(mods, E.SASS_TYPE_CODE)
    if family in ("I2F", "F2I", "F2F", "I2FP", "F2FP"):
        names = {"I2F": ("F32", "S32"), "F2I": ("S32", "F32"), "F2F": ("F32", "F32"), "I2FP": ("F32", "S32"),
                 "F2FP": ("F16", "F32")}[family]
        dst, src = names
        if family in ("I2F", "I2FP"):
            dst = next((w for w in words if w.startswith("F") or w.startswith("BF")), dst)
            src = next((w for w in words if w[0] in "SU"), src)
        elif family == "F2I":
            dst = next((w for w in words if w[0] in "SU"), dst)
            src = next((w for w in words if w.startswith("F") or w.startswith("BF")), src)   # F2I.BF16.NTZ
        elif family == "F2F":
            if len(words) >= 2:
                dst, src = words[0], words[1]
            elif words:
                dst = words[0]
        elif family == "F2FP":
            dst = "BF16" if "BF16" in words else "F16"
        return {"F_TYPE": E.SASS_TYPE_CODE[dst], "F_TYPE2": E.SASS_TYPE_CODE[src]}
    if "U32" in mods or "U64" in mods:
        return {"F_TYPE": E.SASS_TYPE_CODE["U32"]}
    if "S32" in mods or "S64" in mods:
        return {"F_TYPE": E.SASS_TYPE_CODE["S32"]}
    return {}


def lower_branch(b: RowBuilder, inst: SassInstruction, family: str) -> np.ndarray:
    """BRA target; BRA.DIV URn, target keeps its mask operand: it branches (to the warp-synchronous
    slow path ptxas puts before __syncwarp / __shfl_sync) only when some thread the mask names is
    not in the running group (sass_step.py)."""
    target = b.target(inst.operands[-1])
    if "DIV" in inst.modifiers and len(inst.operands) == 2:
        return b.row(E.SASS_OPCODE["BRA"], [b.operand(inst.operands[0])], F_TARGET=target, F_CMP=BRA_DIV)
    if len(inst.operands) == 2:                 # @P0 BRA !P2, target: taken where the guard and P2 hold
        return b.row(E.SASS_OPCODE["BRA"], [b.operand(inst.operands[0])], F_TARGET=target, F_CMP=BRA_AND)
    return b.row(E.SASS_OPCODE["BRA"], [], F_TARGET=target)


BRA_AND, BRA_DIV = 0, 1          # F_CMP of a BRA row with an operand: a second predicate / BRA.DIV's mask


def lower_bssy(b: RowBuilder, inst: SassInstruction, family: str) -> np.ndarray:
    """BSSY Bx, target: F_CMP = barrier, F_TARGET = where the region's threads reconverge."""
    return b.row(E.SASS_OPCODE["BSSY"], [], F_CMP=_barrier_number(b, inst.operands[0]),
                 F_TARGET=b.target(inst.operands[1]))


def lower_barrier_op(b: RowBuilder, inst: SassInstruction, family: str) -> np.ndarray:
    """BSYNC Bx / BREAK Bx."""
    return b.row(E.SASS_OPCODE[family], [], F_CMP=_barrier_number(b, inst.operands[0]))


def lower_warpsync(b: RowBuilder, inst: SassInstruction, family: str) -> np.ndarray:
    ops = [b.operand(inst.operands[0])] if inst.operands else [b.imm(0xFFFFFFFF)]
    if "ALL" in inst.modifiers:
        ops = [b.imm(0xFFFFFFFF)]
    return b.row(E.SASS_OPCODE["WARPSYNC"], ops)


def lower_bmov(b: RowBuilder, inst: SassInstruction, family: str) -> np.ndarray:
    """BMOV.32 Rd, Bx (read a barrier's threads; .CLEAR empties it) / BMOV.32 Bx, Ra (set them)."""
    d, s = inst.operands[0], inst.operands[1]
    flags = sass_flags(inst.modifiers)
    if d.startswith("B"):
        return b.row(E.SASS_OPCODE["BMOV"], [b.operand(s)], F_CMP=_barrier_number(b, d), F_FLAGS=flags)
    return b.row(E.SASS_OPCODE["BMOV"], [b.operand(d, dest=True)], ndst=1, F_CMP=_barrier_number(b, s),
                 F_FLAGS=flags)


def _barrier_number(b: RowBuilder, text: str) -> int:
    m = re.match(r"^B(\d+)$", text)
    if not m or int(m.group(1)) >= E.SASS_CBARRIERS:
        raise b.error(f"convergence barrier {text!r} is not B0..B{E.SASS_CBARRIERS - 1}")
    return int(m.group(1))


def lower_ldc(b: RowBuilder, inst: SassInstruction, family: str) -> np.ndarray:
    """LDC / ULDC Rd, c[bank][Ra+offset]: a row with the bank, offset and index register."""
    mods = inst.modifiers
    dest = b.operand(inst.operands[0], dest=True)
    if "64" in mods and dest[0] == E.K_R32:
        dest = (E.K_RPAIR,) + dest[1:]
    m = _CONST_RE.match(inst.operands[1])
    if not m:
        raise b.error("LDC without a constant operand")
    bank, inner = int(m.group(1), 16), m.group(2)
    index = (E.K_IMM, b.imm(0)[1], 0, 0)
    offset = 0
    for part in inner.replace("-0x", "+-0x").split("+"):
        if part.startswith("0x") or part.startswith("-0x"):
            offset += int(part, 16)
        elif part:
            index = b.operand(part)
    width = pick(mods, {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "64": 8}, 4)
    bank, offset = b.bank_word(bank, offset) if index[0] == E.K_IMM else _indexed_bank(b, bank, offset)
    return b.row(E.SASS_OPCODE[family], [dest, (E.K_CONST, bank, offset, 0), index], ndst=1, F_VEC=width,
                 F_FLAGS=sass_flags(mods))


def _indexed_bank(b: RowBuilder, bank: int, offset: int) -> tuple[int, int]:
    """c[bank][Ra+offset]: the bank's base moves; the index is added at run time."""
    if bank == 0:
        return 0, offset
    base = b.banks.bank0_offset(bank, 0)
    if base is None:
        raise b.error(f"constant bank {bank} (c[{bank:#x}][...]) is not laid out: the cubin has no "
                      f".nv.constant{bank} section")
    return 0, base + offset


# ---- CALL / RET --------------------------------------------------------------------------------
# CALL.REL.NOINC $K$f jumps to the device function ptxas placed after the kernel's code; the caller
# has put the return address (a byte offset in the kernel's code, "REL"ative to its start) in a
# register pair, and RET.REL.NODEC Rn jumps back to it (NOINC / NODEC: no hardware return stack).
# An indirect call (a function pointer) names the register holding the target, also a code
# offset; CALL.ABS takes an absolute address, which the simulator's code space makes the same
# offset (the kernel's code starts at address 0).  Rows through a register carry the kernel's code
# range as F_TARGET .. F_TARGET2 (relocated with the pcs), so the engine finds the target pc and
# faults on an address outside it.

def lower_call(b: RowBuilder, inst: SassInstruction, family: str) -> np.ndarray:
    ops = [t for t in inst.operands if t.strip("`() ") != b.kernel.name]
    if not ops:
        raise b.error(f"{family} without a target")
    condition = None
    if family == "RET" and len(ops) == 2 and _PRED_RE.match(ops[0].lstrip("!")):
        # `@!P0 RET.REL.NODEC !P1, R24`: only the lanes (of the guard's) where the predicate source
        # holds return; the others fall through, as with `@P0 BRA !P2, target`
        condition = b.operand(ops[0])
        ops = ops[1:]
    target = ops[0]
    if family == "CALL" and "ABS" in inst.modifiers and b.banks.externals:
        names = ", ".join(sorted(b.banks.externals))
        raise b.error(f"calls an external function of the CUDA device runtime ({names}: printf, malloc, "
                      "assert and the like), which the simulator does not provide")
    pc = b.kernel.label_pc(target)
    if pc is not None:
        return b.row(E.SASS_OPCODE[family], [], F_TARGET=pc // E.SASS_INSTRUCTION_BYTES)
    if target.startswith("0x"):
        return b.row(E.SASS_OPCODE[family], [], F_TARGET=b.target(target))
    kind, idx, _, _ = b.operand(target)
    if kind != E.K_R32:
        raise b.error(f"{family} target {target!r} is neither a label of the listing nor a register")
    kind = E.K_RPAIR if "ABS" in inst.modifiers else E.K_R32      # .REL: a 32-bit code offset
    ops = [(kind, idx, 0, 0)] + ([condition] if condition is not None else [])
    return b.row(E.SASS_OPCODE[family], ops, F_TARGET=0, F_TARGET2=len(b.kernel.instructions))


LOWER = {"LDG": lower_memory, "STG": lower_memory, "LDS": lower_memory, "STS": lower_memory,
         "LDL": lower_memory, "STL": lower_memory, "LD": lower_memory, "ST": lower_memory,
         "ATOMG": lower_atomic, "ATOMS": lower_atomic, "REDG": lower_atomic, "ATOM": lower_atomic, "RED": lower_atomic, "BAR": lower_bar,
         "BRA": lower_branch, "BSSY": lower_bssy, "BSYNC": lower_barrier_op, "BREAK": lower_barrier_op,
         "WARPSYNC": lower_warpsync, "SHFL": lower_shfl, "BMOV": lower_bmov, "LDC": lower_ldc, "ULDC": lower_ldc,
         "CALL": lower_call, "RET": lower_call}

LOWER.update(LOWER_MORE)
PTX_EQUIVALENT = {"EXIT": "OP_EXIT", "MEMBAR": "OP_MEMBAR"}
UNSUPPORTED: set[str] = set()


def lower_instruction(b: RowBuilder, inst: SassInstruction) -> np.ndarray:
    # strict lowering (frontend/sass_modifiers.py): every modifier and operand form accepted and consumed
    try:
        row = checked_lowering(b, inst, _lower_instruction)
    except (IndexError, KeyError, ValueError) as e:
        # never a traceback: an operand list the lowering does not expect (another nvdisasm's
        # printing, a form ptxas has not shown us) is a located error naming the instruction
        # (InputError is no ValueError, so the lowering's own refusals pass through unchanged)
        raise b.error(f"operands {', '.join(inst.operands) or '(none)'} not understood for {inst.family} "
                      f"({type(e).__name__}: {e})") from None
    inst = b.inst
    if b.selectors:
        check_selectors(b, inst.family, row)
    return row


SELECTOR_NAMES = {E.OM_H0_H0: ".H0_H0", E.OM_H1_H1: ".H1_H1", E.OM_H0_NH1: ".H0_NH1", E.OM_H1: ".H1", E.OM_B1: ".B1", E.OM_B2: ".B2",
                  E.OM_B3: ".B3"}


def check_selectors(b: RowBuilder, family: str, row: np.ndarray) -> None:
    """Refuse a source selector the family's semantics do not read (SELECTOR_USERS), and, on a
    conversion, one that does not fit the source type: a byte selector needs an 8-bit source,
    .H1 an 8- or 16-bit integer or a half."""
    names = " ".join(n for bit, n in SELECTOR_NAMES.items() if b.selectors & bit)
    bad = b.selectors & ~SELECTOR_USERS.get(family, 0)
    if bad:
        raise b.error(f"source selector {names} on {family} is not supported")
    if family in ("I2F", "I2FP", "I2I", "F2F", "F2I"):
        src = int(row[E.F_TYPE2])
        bits = E.TYPE_BITS[src]
        half = src in (E.T_F16, E.T_BF16)
        ok = (bits == 8 if b.selectors & (E.OM_B1 | E.OM_B2 | E.OM_B3) else True) and \
            (bits <= 16 if b.selectors & E.OM_H1 else True) and (half == (family in ("F2F", "F2I")))
        if not ok:
            raise b.error(f"source selector {names} with a {E.TYPE_NAMES[src]} source is not supported")


def _lower_instruction(b: RowBuilder, inst: SassInstruction) -> np.ndarray:
    b.inst = inst
    b.selectors = 0
    family = inst.family
    if sass_table().family(inst.opcode) is None:
        raise b.error(f"opcode {inst.opcode} is not in isa/sass.yaml")
    if family in UNSUPPORTED or family not in E.SASS_IMPLEMENTED and family not in LOWER \
            and family not in PTX_EQUIVALENT:
        raise b.error(f"opcode {family} has no semantics in the simulator yet")
    if family in LOWER:
        return LOWER[family](b, inst, family)
    if family in PTX_EQUIVALENT:
        return b.row(getattr(E, PTX_EQUIVALENT[family]), [])
    return lower_generic(b, inst, family)


def stack_frames(kernel: SassKernel, where: str = "") -> tuple[int, int]:
    """(the kernel's own stack frame, the largest device-function frame) in bytes, from the stack
    pointer R1's updates: `LDC R1, c[0x0][0x28]` loads the stack top, `IADD3 R1, R1, imm, RZ` /
    `VIADD R1, R1, imm` move it; the immediate is a 32-bit two's complement value (ptxas 13
    writes `VIADD R1, R1, 0xffffffe8` for -0x18, older forms `IADD3 R1, R1, -0x18, RZ`), a
    negative one reserves a frame (summed per function), a positive one frees it.  Any other write
    of R1 is refused: the stack could not be sized."""
    frames: dict[str, int] = {}
    for inst in kernel.instructions:
        ops = inst.operands
        if not ops or ops[0].replace(".reuse", "") != "R1":
            continue
        family = inst.family
        if family == "LDC" and ops[1:] == ("c[0x0][0x28]",):
            continue
        value = None
        if ops[1:2] == ("R1",) and ((family == "VIADD" and len(ops) == 3) or
                                    (family == "IADD3" and len(ops) == 4 and ops[3] == "RZ")):
            value = _int_literal(ops[2])
        if value is None or inst.modifiers or inst.predicate:
            raise SassLoweringError(f"SASS {inst.text()!r} at pc {inst.pc:#06x}: writes the stack pointer R1 in a "
                                    "form the simulator cannot size the stack from (it reads LDC R1, c[0x0][0x28] "
                                    "and R1 +/- an immediate)",
                                    SourceLoc(where, inst.pc // E.SASS_INSTRUCTION_BYTES + 1, 1))
        if value < 0:
            name = kernel.function_at(inst.pc)
            frames[name] = frames.get(name, 0) - value
    own = frames.pop(kernel.name, 0)
    return own, max(frames.values(), default=0)


def frame_bytes(kernel: SassKernel) -> int:
    """Bytes ptxas reserves on the thread's stack in the kernel itself (stack_frames)."""
    return stack_frames(kernel)[0]


def lower_kernel(kernel: SassKernel, ptx_program: Program, where: str,
                 banks: ConstantBanks | None = None, register_count: int = 0) -> Program:
    """The SASS kernel as a Program whose metadata is the PTX program's; `banks`: the module's
    constant banks other than 0, copied into the parameter block after the parameters;
    `register_count`: the R registers ptxas allocated per thread (0: unknown), which sizes the
    register rows."""
    b = RowBuilder(kernel, where)
    b.banks = banks or ConstantBanks(image_offset=ptx_program.param_size)
    rows = [lower_instruction(b, inst) for inst in kernel.instructions]
    code = np.array(rows, np.int64).reshape(len(rows), E.ROW_FIELDS)
    u64 = np.array(b.u64 or [0], np.uint64)
    vecs = np.array(b.vecs, np.int64).reshape(-1, E.VEC_WIDTH) if b.vecs else np.zeros((0, E.VEC_WIDTH), np.int64)
    # The stack: the kernel's frame at the top of the thread's local memory, below it room for
    # simt.call_depth frames of the largest device function (recursion), as the PTX path sizes
    # its call stack (machine/lower.py: local_size + call_depth * frame_bytes).
    own, callee = stack_frames(kernel, where)
    local = max(ptx_program.local_size, own)
    return replace(ptx_program, code=code, const_u64=u64, const_f32=np.zeros(len(u64), np.float32), const_f64=np.zeros(len(u64), np.float64),
                   vec_regs=vecs, n_r32=E.SASS_R_BASE + register_rows(b.highest_r, register_count),
                   n_r64=1, n_pred=E.SASS_N_PRED, reg_names={},
                   local_size=(local + 15) // 16 * 16, frame_bytes=(callee + 15) // 16 * 16, shared_size=ptx_program.shared_size + SHARED_RESERVED, labels={}, directives=dict(ptx_program.directives),
                   locs=[SourceLoc(where, i + 1, 1, f"{ptx_program.file}:{inst.ptx_line}" if inst.ptx_line else "")
                         for i, inst in enumerate(kernel.instructions)],
                   texts=[i.text() for i in kernel.instructions], isa="sass",
                   param_size=b.banks.image_offset + len(b.banks.image) if b.banks.image else ptx_program.param_size,
                   bank_image=b.banks.image, bank_image_offset=b.banks.image_offset)



def load_kernel(path: str, kernel: str | None = None, isa: str = "ptx") -> Program:
    """A kernel of a PTX file, run as its PTX (`ptx`) or as the SASS ptxas makes of it (`sass`)."""
    from simt_sim.frontend.assembler import load_program
    if isa not in ISAS:
        raise InputError(f"unknown ISA {isa!r} (one of {', '.join(ISAS)})")
    return load_sass_program(path, kernel) if isa == "sass" else load_program(path, kernel)


def load_sass_program(path: str, kernel: str | None = None) -> Program:
    """The kernel of a PTX file as ptxas compiles it for sm_90, lowered for the engine."""
    from simt_sim.frontend.assembler import load_program
    from simt_sim.frontend.sass import sass_listing
    from simt_sim.frontend.cubin_elf import read_cubin
    from simt_sim.frontend.sass_banks import globals_from_cubin, lay_out_banks
    ptx_program = load_program(path, kernel)
    listing = sass_listing(path)
    elf = read_cubin(listing.cubin)
    addresses = {v.name: E.GLOBAL_BASE + v.offset for v in ptx_program.globals}
    sass_kernel = listing.kernel(ptx_program.name)
    banks = lay_out_banks(elf, ptx_program.name, ptx_program.param_size, addresses, bank0_offsets(sass_kernel))
    ptx_program = replace(ptx_program, globals=globals_from_cubin(ptx_program.globals, elf))
    return lower_kernel(sass_kernel, ptx_program, f"{listing.cubin.name}:{ptx_program.name}", banks,
                        max(elf.register_counts().values(), default=0))


def register_rows(highest: int, register_count: int) -> int:
    """R rows a thread needs: ptxas's register count covers every register an instruction touches,
    also those named implicitly (the second of a pair, the rest of a .128 or an HMMA fragment);
    without it, the highest named register plus a quad."""
    if register_count and highest < register_count:
        return register_count
    # beyond ptxas's count (a damaged listing or cubin) or without one: room for a .128 access at
    # the highest register (R254.64 reads a row past R254's)
    return highest + 4 if highest >= 0 else max(register_count, 1)


_BANK0_RE = re.compile(r"c\[0x0\]\[(0x[0-9a-f]+)\]")


def bank0_offsets(kernel: SassKernel) -> set[int]:
    """The bank-0 offsets a kernel reads directly (c[0x0][0x20], ...)."""
    return {int(m, 16) for inst in kernel.instructions for op in inst.operands for m in _BANK0_RE.findall(op)}
